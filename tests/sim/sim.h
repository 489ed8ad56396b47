/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scripts/sim-staleness: simulated workers train a real model through
 * the gate (kmod/sync/gate.c and the files beside it: who may start an
 * iteration) and kmod/sync/round.c (which gradients the server's next
 * step takes), in simulated time.
 * Pieces:
 *
 *   sim-profile.c  iteration times of each worker (named profiles)
 *   sim-model.c    the digits data and softmax regression (SGD)
 *   sim-run.c      one run: the event loop of workers, gate and server
 *   sim-main.c     policies, options, seeds, medians, text, JSON, plot data
 *
 * Everything is deterministic given the seed: a worker's k-th iteration
 * time and k-th minibatch depend only on (seed, worker, k), so every
 * policy sees the same workers and the same data.
 */
#ifndef RW_SIM_H
#define RW_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "compat.h"
#include "gate.h"

#define RW_SIM_MAX_W		64
#define RW_SIM_HIST		9	/* staleness bins: 0, 1, 2-3, ..., 128+ */
#define RW_SIM_NS		1000000000ULL

enum rw_sim_profile {
	RW_SIM_HOMOGENEOUS,
	RW_SIM_HETEROGENEOUS,
	RW_SIM_BURSTY,
	RW_SIM_DEGRADING,
	RW_SIM_DYING,
	RW_SIM_PROFILES
};

struct rw_sim_params {
	u32 workers;		/* W */
	u32 iters;		/* per worker */
	u32 batch;		/* samples per minibatch */
	/*
	 * The engine's learning rate, the same for every policy: a
	 * synchronous round steps lr x the mean of the gradients it sums, a
	 * lone gradient (ASP, SSP, adaptive) lr / workers x itself.
	 */
	double lr;
	double target;		/* training loss that counts as reached */
	u64 base_ns;		/* mean iteration time of a normal worker */
	u64 eval_ns;		/* loss is evaluated on this time grid */
	u64 hb_ns;		/* heartbeat period of a live worker */
	u64 timeout_ns;		/* eviction after this much silence */
	u64 seed;
};

#define RW_SIM_NAME_LEN	24

struct rw_sim_policy {
	char name[RW_SIM_NAME_LEN];
	u32 policy, s, lo, hi;
	u32 quorum;		/* BSP: gradients per round, 0 = all members */
};

extern const char *const rw_sim_profile_names[RW_SIM_PROFILES];

/* Iteration time of worker @p's iteration @k (from 0), in ns. */
u64 rw_sim_iter_ns(u32 profile, const struct rw_sim_params *sp, u32 p, u32 k);
/* The iteration in which worker @p dies (never pushes), or U32_MAX. */
u32 rw_sim_dies_at(u32 profile, const struct rw_sim_params *sp, u32 p);
/* Deterministic hash of (seed, a, b, c) to 64 random bits. */
u64 rw_sim_hash(u64 seed, u64 a, u64 b, u64 c);

/* The training set: n samples of f features (plus a bias), c classes. */
struct rw_sim_data {
	u32 n, f, c;
	double *x;		/* n * (f + 1), last column 1 */
	u8 *y;
};

int rw_sim_data_load(struct rw_sim_data *d, const char *path);
void rw_sim_data_free(struct rw_sim_data *d);
/* A permutation of the samples from @seed: cut into shards, one per worker. */
void rw_sim_shuffle(const struct rw_sim_data *d, u64 seed, u32 *order);
/* Shard worker @p of @workers: samples order[*first .. *first + *len). */
void rw_sim_shard(const struct rw_sim_data *d, u32 workers, u32 p,
		  u32 *first, u32 *len);

/* Parameters: (f + 1) * c doubles. */
u32 rw_sim_model_size(const struct rw_sim_data *d);
/* One SGD step: @w -= @scale * @g. */
void rw_sim_step(const struct rw_sim_data *d, double *w, const double *g,
		 double scale);
/* Mean cross-entropy of @w over the whole training set. */
double rw_sim_loss(const struct rw_sim_data *d, const double *w);
/*
 * Minibatch gradient at @w (the parameters the worker pulled) of the
 * samples @idx[0..@b), into @g.
 */
void rw_sim_grad(const struct rw_sim_data *d, const double *w,
		 const u32 *idx, u32 b, double *g, double *scratch);

/* The outcome of one run. */
struct rw_sim_result {
	double total_time;	/* s, until the last live worker finished */
	double time_to_target;	/* s; < 0 if never reached */
	double wait_fraction;	/* parked time / worker time */
	double iters_per_sec;	/* applied gradients per simulated second */
	double final_loss;
	double stale_mean;	/* mean staleness of applied gradients */
	u64 max_skew;		/* from the gate */
	u64 hist[RW_SIM_HIST];	/* staleness of applied gradients */
	u64 applied;		/* gradients that went into a step */
	u64 updates;		/* steps: new versions of the parameters */
	u64 rounds;		/* of them synchronous (BSP) rounds */
	u64 dropped;		/* late for their round, or pusher gone */
	u64 evicted_summed;	/* of a worker evicted before the step (0) */
	u64 granted;
	u32 finished;		/* workers that completed every iteration */
	u32 expected;		/* workers that were meant to (not dead) */
	u32 evicted;		/* by the liveness path */
	int gate_errors;	/* rw_gate_check failures (must be 0) */
	int round_errors;	/* rw_round_hold refusals (must be 0) */
	/* Loss on the evaluation grid (caller frees). */
	double *curve;
	u32 curve_len;
};

int rw_sim_run(u32 profile, const struct rw_sim_policy *pol,
	       const struct rw_sim_params *sp, const struct rw_sim_data *d,
	       struct rw_sim_result *res);

#endif /* RW_SIM_H */

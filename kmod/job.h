/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_JOB_H
#define _RW_JOB_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "rackweave.h"
#include "agg/agg_impl.h"
#include "sync/gate.h"
#include "rdma/replay.h"

struct rw_boxset;
struct rw_carry;

/* What a job is asked to be, as validated by rw_job_new(). */
struct rw_job_config {
	char name[RW_JOB_NAME_MAX];
	u32 workers;
	u32 chunk_size;			/* 0: the module default */
	bool has_token;
	u8 token[RW_JOB_TOKEN_LEN];
	u32 sync;			/* enum rw_sync_mode */
	u32 staleness, staleness_lo, staleness_hi;
	u32 evict_ms;
	u32 quorum;			/* BSP: K in 1..workers-1; 0: all */
	u32 optim;			/* enum rw_optim */
	/* binary32 bit patterns, as on the wire */
	u32 lr, momentum, weight_decay, beta1, beta2, eps;
	u64 max_memory;			/* bytes a run may take; 0: default */
	/* The job's box set (chunk/boxset.h); NULL: the job is whole here. */
	const struct rw_boxset *boxes;
};

struct rw_engine;
struct rw_sync;
struct rw_worker;

/*
 * Per-rank counters, kept for the job's life (ranks come and go, runs
 * start and end): statistics count since the job was created. The gate's
 * own counters die with its run; a run's end adds them to the past_ ones.
 */
struct rw_worker_counters {
	atomic64_t pushes;		/* push calls that pushed */
	atomic64_t pulls;		/* pull calls that returned fresh */
	atomic64_t bytes;		/* gradient bytes pushed */
	atomic64_t chunks;		/* chunks pushed */
	atomic64_t errors;		/* calls refused */
	atomic64_t leaves;		/* gate evictions that were detaches */
	atomic64_t late;		/* late gradients dropped, past runs */
	atomic64_t past_parks;		/* gate parks, past runs */
	atomic64_t past_parked_ns;	/* time parked, past runs */
	atomic64_t past_evictions;	/* gate evictions, past runs */
};

/* The engine's counters of the job's past runs, added when a run ends. */
struct rw_job_past {
	u64 pushes, busy, steps, migrations, errors;
};

/*
 * A job: a named tenant of the box, freed when the last reference goes.
 *
 * A run of the job starts when its first worker declares the model layout
 * (the engine and the gate are created then, from the settings of that
 * moment) and ends when the last attached file is released (its buffers
 * unmapped): the engine and gate go, and settings may change again.
 *
 * Locks: rw_jobs_lock (job.c) protects the registry and the fields marked
 * [J]; run_lock protects [R].
 *
 * The module's whole lock order, outermost first: a lock is taken only
 * with locks above it (on its own branch) held, never below it. This is
 * its one copy; docs/design.md points here.
 *
 *   mmap_lock             the kernel's, held around ->mmap (chardev.c)
 *     w->setup            worker.c: attach, declare, setup, mmap
 *       job->run_lock     starts and ends runs; netlink snapshots
 *         rw_jobs_lock    job.c: the registry and [J]
 *           job->replay_lock  job.c: the nonce tables follow the
 *                         workers (spinlock, leaf)
 *         e->rebal_lock   chunk/migrate.c: a running engine's placement
 *         s->lock         sync/sync.c: the gate (spinlock, BH off)
 *           e->view_lock  engine/path.c: the engine's view of the
 *                         members, written as the gate changes (leaf)
 *   w->lock               worker_xfer.c: transfers; never with w->setup
 *     e->init_lock        engine/image.c: initial parameters against the
 *                         first push; copies from user memory (mmap_lock below)
 *     s->lock
 *   rdma_cm's handler mutex, held around our event handlers:
 *     rw_peers_lock       rdma/conn.c: the box's peers (a rank's
 *                         connections); held around rw_worker_attach
 *       w->setup          and the locks under it, as above
 *       w->lock           of each peer's worker in turn, to take back an
 *                         unbegun iteration before a checkpoint
 *                         (rw_conn_withdraw_ahead(); then s->lock)
 *     job->replay_lock    rdma/admit.c: connect nonces (spinlock, leaf)
 *   rw_peers_lock         also alone, from a connection's agent (above)
 *   rw_listen_lock        rdma/listen.c: creates and binds rdma_cm ids
 *                         under it, never destroys one; no handler takes it
 *   rw_conns_lock         rdma/conn.c: the connection list (spinlock, leaf)
 *   c->lock               rdma/data.c: a connection's stopping against its
 *                         queued setup (spinlock, leaf)
 *   rw_ibdevs_lock        ibdev.c: the device list; takes nothing else
 *   r->setup, r->xfer     rdma/host_setup.c, host_xfer.c: a remote
 *                         attachment's declare and transfers (never both;
 *                         held while sleeping for the box); no lock of the
 *                         worker's is held with them
 *     r->rdma             rdma/host_*.c: the links' RDMA objects; held to
 *                         post, call rdma_cm or tear down, never to wait
 *       rdma_cm's handler mutex (rdma_connect and co. take it)
 *   rw_remotes_lock       rdma/host_life.c: the attachments, for device
 *                         removal and the netlink list
 *     r->rdma
 *
 * rdma_cm runs our event handlers with its handler mutex held; they take
 * rw_peers_lock, w->setup and the locks under it (admit, attach), so
 * nothing of ours destroys an rdma_cm id (which waits for that mutex) with
 * any of them held, nor with r->rdma held (the worker host's ids go in a
 * work of their own, rw_remote_reap, with no lock held).
 *
 * Attach takes rw_jobs_lock under w->setup without run_lock, which the
 * order allows. Nothing copies to or from user memory with any of these
 * held but mmap_lock (chardev.c copies first) and e->init_lock, which
 * nothing takes under mmap_lock, so a page fault never nests inside the
 * others. Under s->lock only events go out (genl.c: RCU and GFP_ATOMIC,
 * no lock of ours). The fault handler and poll take none of
 * them (poll only tries w->lock).
 */
struct rw_job {
	struct kref ref;
	u32 id;
	struct rw_job_config cfg;	/* [J] policy set changes it when idle */
	u8 token[RW_JOB_TOKEN_LEN];	/* wiped when the job is deleted */
	u8 wire_tag[RW_WIRE_TAG_LEN];	/* names the job on the wire */
	u32 attached;			/* [J] workers attached now */
	u32 users;			/* [J] attached files not yet released */
	bool deleted;			/* [J] gone from the registry */
	struct rw_worker **ranks;	/* [J] cfg.workers entries */
	struct rw_worker_counters *wc;	/* [J] cfg.workers entries */
	atomic_t mappings;		/* live mmaps of the job's buffers */
	atomic_t withdrawing;		/* checkpoints taking admissions back */
	/* The running layout's size, 0 between runs (READ_ONCE, [R] writes). */
	u32 run_tensors;
	u32 run_chunks;
	u64 run_bytes;
	u64 mem_held;			/* charged now, all runs (mem.c) */
	u64 run_charge;			/* [R] what the run was charged */

	struct mutex run_lock;		/* starts and ends runs */
	struct rw_engine *engine;	/* [R], stable while a file is attached */
	struct rw_sync *sync;		/* [R], likewise */
	struct rw_job_past past;	/* [R] */
	/*
	 * The box set (docs/design.md "Many boxes"), NULL while the job is
	 * whole on this box. [J]; replaced, never changed in place, and only
	 * between runs (under run_lock too); a run's engine keeps its copy.
	 */
	struct rw_boxset *boxes;
	/*
	 * The set the job moves to (docs/design.md "Many boxes"), given
	 * while a run is active and taken when it ends; its self is 0 when
	 * this box leaves the job. [J], under run_lock too.
	 */
	struct rw_boxset *move;
	u64 move_charge;		/* [J] reserved for the carry */
	u32 move_epoch;			/* @move's, 0: none; read unlocked */
	/*
	 * The move's boundary inside the run (RW_OP_STOP_AT): the first
	 * iteration the run sums no more, 0 until rank 0 asked; read
	 * unlocked. [J], under run_lock too.
	 */
	u64 move_stop;
	/*
	 * This box's chunks of the run that ended with a move: for the next
	 * run to start from, and for the boxes that own them now
	 * (job_carry.c), each holding its charge. [R]
	 */
	struct rw_carry *carry;
	struct rw_carry *gift;
	u32 carry_due;			/* the carry's chunks not come; unlocked read */
	/*
	 * Added with a set past its first epoch: a box that joins by a move,
	 * which starts no run before the move's first chunks come (its carry,
	 * then complete) or a set is given between runs. [R]
	 */
	bool joining;
	/* Chunks given to and taken from other boxes in moves (rdma/). */
	atomic64_t moved_out;
	atomic64_t moved_in;

	/*
	 * Connect nonces seen (rdma/replay.c): replay_nr + 1 tables, one per
	 * rank below replay_nr, then one for every rank beyond. replay_nr is
	 * cfg.workers, but between policy set's changes of the two; admit.c
	 * picks a rank's table by replay_nr.
	 */
	spinlock_t replay_lock;		/* protects replay, replay_nr */
	u32 replay_nr;
	struct rw_replay *replay;
};

/* The registry needs no set-up; this deletes every job at unload. */
void rw_job_exit(void);

/*
 * Create a job. *@msg says what was wrong on -EINVAL. On success the job is
 * registered, *@token holds its token (generated when none was given) and
 * a reference is returned in *@out.
 */
int rw_job_new(const struct rw_job_config *cfg, const char **msg,
	       u8 *token, struct rw_job **out);
int rw_job_del(const char *name, u32 flags);

struct rw_job *rw_job_get(const char *name);
/*
 * The job whose wire tag is @tag (rdma/auth.c derives it from the token
 * and the name), or NULL. Every job's tag is compared in constant time.
 */
struct rw_job *rw_job_get_by_tag(const u8 tag[RW_WIRE_TAG_LEN]);
void rw_job_put(struct rw_job *job);

/*
 * Walk jobs with id >= *@cursor in id order, calling @fn with the registry
 * locked; on a non-zero return stop and leave *@cursor at that job, so a
 * netlink dump resumes there. Returns @fn's value or 0.
 */
int rw_job_walk(unsigned long *cursor, int (*fn)(struct rw_job *job, void *arg),
		void *arg);
/* Changes with every job added or deleted (dump consistency). */
u32 rw_job_generation(void);

/* Constant-time token check. */
bool rw_job_token_ok(const struct rw_job *job, const u8 *token);
/*
 * The same for an attach: 0, -EACCES for a wrong token, or -ENOENT if the
 * job was deleted since the caller looked it up (its token is wiped).
 */
int rw_job_token_check(const struct rw_job *job, const u8 *token);

/*
 * Change a job's settings (@mask: RW_JOB_SET_* bits of @cfg to take).
 * -ENOENT, -EBUSY for the workers, chunk size or optimizer while a run
 * exists (*@msg says why), -EINVAL or -ERANGE as rw_job_new. The sync
 * settings and evict_ms change a running job too: its gate and engine
 * take them at the next iteration boundary. max_memory may change at any
 * time and applies from the next run (the running one keeps its charge).
 */
#define RW_JOB_SET_WORKERS	BIT(0)
#define RW_JOB_SET_CHUNK	BIT(1)
#define RW_JOB_SET_SYNC		BIT(2)
#define RW_JOB_SET_EVICT	BIT(3)
#define RW_JOB_SET_OPTIM	BIT(4)	/* optimizer and hyper-parameters */
#define RW_JOB_SET_MEMORY	BIT(5)	/* max_memory: from the next run */
/*
 * The box set: cfg->boxes replaces it (NULL removes it) between runs; its
 * epoch 0 means the old set's + 1, or 1 if none. While a run is active a
 * set is the job's move instead, taken when the run ends (-EBUSY while
 * one is pending, or for a job without a set, or to remove it).
 */
#define RW_JOB_SET_BOXES	BIT(6)
int rw_job_set_policy(const char *name, const struct rw_job_config *cfg,
		      u32 mask, const char **msg);

/*
 * A copy of @job's box set, or with @move of the set it moves to (kfree()
 * it), NULL if it has none, or ERR_PTR(-ENOMEM): the set may be replaced
 * once the registry lock goes.
 */
struct rw_boxset *rw_job_boxes_copy(struct rw_job *job, bool move);

/* Worker slots: rank @rank of @job is taken by @w (see worker.c). */
int rw_job_take_rank(struct rw_job *job, u32 rank, struct rw_worker *w,
		     bool observer);
/* Give back what rw_job_take_rank took; true if the rank was still held. */
bool rw_job_drop_rank(struct rw_job *job, u32 rank, struct rw_worker *w,
		      bool observer);
/*
 * The file of an attached worker is released: the run ends with the last.
 * True if that run's end left chunks for other boxes (job_carry.h): the
 * caller has them given (rw_give_start()).
 */
bool rw_job_release_user(struct rw_job *job);

/* The gate's settings for a run of a job with settings @c. */
void rw_job_gate_config(const struct rw_job_config *c,
			struct rw_gate_config *gc);

/* The optimizer settings as the aggregation kernels take them. */
void rw_job_hparams(const struct rw_job_config *cfg,
		    struct rw_agg_hparams *hp);

#if IS_ENABLED(CONFIG_KUNIT)
int rw_job_check_config(const struct rw_job_config *cfg, const char **msg);
#endif

#endif /* _RW_JOB_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The staleness gate: which workers of a job may start their next
 * iteration, given every worker's clock. Pure logic (see compat.h): builds
 * in the module (kmod/sync/sync.c adds locking, sleeping and timers) and
 * in user space (cmocka tests, scripts/sim-staleness). Deterministic: time
 * is always an argument (now, in ns), never read.
 *
 * Clocks. A worker's clock is the number of iterations it has completed
 * (pushed in full). Before it starts the next iteration it asks the gate
 * (rw_gate_request); the gate admits it or parks it. Admission rule, with
 * c_p the worker's clock and c_min the minimum clock over live workers:
 *
 *	BSP:      c_p <= c_K    (c_K: the K-th largest live clock, K the
 *	          quorum; with no quorum K = live workers and c_K = c_min,
 *	          i.e. c_p == c_min: everyone has finished this iteration)
 *	ASP:      always
 *	SSP(s):   c_p + 1 - c_min <= s          (1 <= s)
 *	ADAPTIVE: c_p + 1 - c_min <= s_L, or c_p + 1 <= c_max (a follower
 *	          cannot widen the spread), or a grant is left (r_p > 0) and
 *	          c_p + 1 - c_min <= s_U; never above s_U
 *
 * "+ 1" counts the iteration being started, so the invariant holds at all
 * times, not just between iterations: for SSP and ADAPTIVE, max clock -
 * min clock over live workers <= s (or s_U); for BSP it is <= 1. SSP(1)
 * admits exactly what BSP admits.
 *
 * BSP with backup workers (quorum K < live workers): a worker may start
 * iteration c + 1 once K workers have finished iteration c, and the
 * engine's step of each chunk takes the first K gradients (sync/round.h).
 * A worker behind c_K is admitted at once and skips ahead to c_K: its
 * late gradients were dropped and it goes on from the fresh parameters.
 * Clocks then count the iteration a worker is at, and the spread is not
 * bounded (a persistently slow worker keeps skipping). When the live
 * workers fall to the quorum (or a running job switches to BSP), plain BSP
 * holds again: a worker more than one iteration behind the leader skips to
 * the iteration before the leader's, and the spread left over is tolerated
 * by rw_gate_check() until it closes.
 *
 * Adaptive (the LagTuner source, Algorithms 1 and 2). r_p is worker p's
 * remaining grant of extra iterations. When a request would break the lower
 * bound s_L and p is the fastest live worker with no grant left, the
 * controller simulates r = 0..(s_U - s_L) further iterations of p and of
 * the slowest live worker from their recent iteration times (a window per
 * worker) and picks the r that minimises the projected waiting time
 * (rw_gate_controller; the model is at the top of adapt.c). p is granted
 * the iterations that lead s_L + r* leaves it. Each admission that raises
 * c_max beyond s_L consumes one unit of the grant (Algorithm 1, lines
 * 12-14). The cap s_U always holds.
 *
 * Parking. A parked request waits for c_min to reach the value its worker
 * needs (its key); rw_gate_release() lists the parked workers whose keys
 * are now met, after anything that can raise c_min (a push, an eviction).
 * An ADAPTIVE worker is also released when it becomes a follower. A
 * worker must be admitted (or released) before it pushes, and push before
 * it asks again.
 *
 * Liveness. Each worker has a last-seen time (pushes, requests and
 * heartbeats refresh it, and so does its release from parking).
 * rw_gate_expire() evicts workers not seen for evict_timeout_ns, except
 * parked ones: a parked worker is waiting on the gate, not silent.
 * rw_gate_evict() evicts one now (connection lost). An
 * eviction increments the membership epoch and recomputes c_min over the
 * live workers, so nobody waits for a dead one. Pushes and requests carry
 * the epoch the worker joined in; one from an older epoch of an evicted
 * worker gets -ESTALE. rw_gate_join() (re)admits a worker: its clock
 * becomes c_min of the live workers (it catches up by pulling), and the
 * epoch increments.
 *
 * Storage: the caller owns struct rw_gate, the worker array and the ring
 * of recent iteration times (nr_workers * window u64: each worker's last
 * @window times from admission to push, in ns), and serialises every
 * call. Unused config fields (s outside SSP, s_lo/s_hi outside ADAPTIVE)
 * are ignored; window is checked for every policy.
 */
#ifndef _RW_SYNC_GATE_H
#define _RW_SYNC_GATE_H

#include "compat.h"

enum rw_gate_policy {
	RW_GATE_BSP = 0,
	RW_GATE_ASP = 1,
	RW_GATE_SSP = 2,
	RW_GATE_ADAPTIVE = 3,
	RW_GATE_POLICY_COUNT
};

#define RW_GATE_MAX_WORKERS	4096U
#define RW_GATE_MAX_BOUND	1024U	/* largest s or s_U */
#define RW_GATE_MAX_WINDOW	256U	/* iteration times kept per worker */
#define RW_GATE_DEFAULT_WINDOW	8U

struct rw_gate_config {
	u32 policy;		/* enum rw_gate_policy */
	u32 nr_workers;		/* 1..RW_GATE_MAX_WORKERS */
	u32 s;			/* SSP: 1..RW_GATE_MAX_BOUND */
	u32 s_lo;		/* ADAPTIVE: 1 <= s_lo <= s_hi */
	u32 s_hi;		/* ADAPTIVE: s_hi <= RW_GATE_MAX_BOUND */
	u32 window;		/* 2..RW_GATE_MAX_WINDOW; 0 = default */
	u32 quorum;		/* BSP: 0 (all) or 1..nr_workers */
	u64 evict_timeout_ns;	/* 0: never evict on silence */
};

/* Per-worker telemetry: what rwctl stats will show. */
struct rw_gate_stats {
	u64 pushes;		/* accepted */
	u64 stale_pushes;	/* refused with -ESTALE */
	u64 admits;		/* requests admitted at once */
	u64 parks;		/* requests parked */
	u64 parked_ns;		/* time between park and release */
	u64 granted;		/* extra iterations granted (ADAPTIVE) */
	u64 evictions;
	u64 joins;
	u64 skipped;		/* iterations skipped (BSP with a quorum) */
};

struct rw_gate_worker {
	u64 clock;		/* iterations completed */
	u64 last_seen;		/* ns */
	u64 started;		/* ns: admitted to its iteration (or last push) */
	u64 pace;		/* ns: ring mean without its largest entry */
	u64 parked_at;		/* ns, when parked */
	u64 key;		/* parked: the c_min (BSP: c_K) it needs */
	u64 joined;		/* clock it (re)joined at */
	u32 epoch;		/* epoch it joined in */
	u32 grant;		/* ADAPTIVE: extra iterations left (r_p) */
	u32 nts;		/* entries in its ring (<= window) */
	u32 ts_head;		/* next slot in its ring */
	bool live;
	bool parked;
	bool running;		/* admitted, has not pushed yet */
	bool consumed;		/* its admission spent a unit of grant */
	struct rw_gate_stats stats;
};

struct rw_gate {
	struct rw_gate_config cfg;
	struct rw_gate_worker *w;	/* nr_workers entries */
	u64 *ts;			/* nr_workers * window iteration times */
	u64 min_clock;			/* over live workers; max of clocks if none */
	u64 max_clock;			/* over live workers; = min_clock if none */
	u64 max_skew;			/* largest max - min seen (telemetry) */
	u64 floor;			/* BSP: c_K; = min_clock without quorum */
	u64 slack;			/* spread beyond the bound since a reconfig */
	bool backups;			/* BSP with a quorum below the live */
	u32 held;			/* holders: no iteration starts... */
	u64 hold_at;			/* ...at or beyond this clock */
	u32 epoch;
	u32 nr_live;
	u32 nr_parked;
	u32 nr_at_min;			/* live workers at min_clock */
};

/* Outcome of a request. */
enum rw_gate_verdict {
	RW_GATE_ADMIT = 0,
	RW_GATE_PARK = 1,
};

/*
 * Check @cfg and set up @g over caller storage: @w has cfg->nr_workers
 * entries, @ts cfg->nr_workers * window. Every worker starts live at clock
 * 0 in epoch 0, seen at @now. 0 or -EINVAL.
 */
int rw_gate_init(struct rw_gate *g, const struct rw_gate_config *cfg,
		 struct rw_gate_worker *w, u64 *ts, u64 now);

/* The window a config resolves to (its default applied). */
u32 rw_gate_window(const struct rw_gate_config *cfg);

/*
 * Worker @p finished an iteration. 0; -EINVAL for a bad @p; -ESTALE if @p
 * is not live or @epoch is not the one it joined in (nothing changes but
 * its stale_pushes count); -EPROTO if @p was not admitted (nothing
 * changes). On success *@min_advanced (if not NULL) says whether a parked
 * worker may now go: c_min rose, or, for ADAPTIVE, c_max rose while
 * someone is parked; the caller then runs rw_gate_release().
 */
int rw_gate_push(struct rw_gate *g, u32 p, u32 epoch, u64 now,
		 bool *min_advanced);

/*
 * Worker @p asks to start its next iteration: RW_GATE_ADMIT or RW_GATE_PARK
 * (>= 0), or -EINVAL / -ESTALE as rw_gate_push, or -EBUSY if @p is already
 * parked or admitted (nothing changes). A parked worker stays parked until
 * rw_gate_release() lists it or it is evicted.
 */
int rw_gate_request(struct rw_gate *g, u32 p, u32 epoch, u64 now);

/*
 * List (in worker order) up to @max parked workers that may now proceed,
 * unpark them and account their parked time. Returns how many were written.
 */
u32 rw_gate_release(struct rw_gate *g, u64 now, u32 *out, u32 max);

/* Worker @p is alive (no iteration finished). 0, -EINVAL or -ESTALE. */
int rw_gate_heartbeat(struct rw_gate *g, u32 p, u32 epoch, u64 now);

/*
 * Evict every live worker not seen for cfg->evict_timeout_ns before @now
 * (writing up to @max of them to @out); or evict @p now. An evicted worker
 * that was parked is unparked (its waiter must be told -ESTALE). Both
 * return the number evicted; rw_gate_evict returns -EINVAL for a bad @p
 * and 0 if @p was not live.
 */
u32 rw_gate_expire(struct rw_gate *g, u64 now, u32 *out, u32 max);
int rw_gate_evict(struct rw_gate *g, u32 p, u64 now);

/*
 * (Re)admit worker @p: live, clock = c_min of the live workers (if none is
 * live, the largest clock any worker reached, so clocks never run
 * backwards), its ring emptied, a new epoch, written to *@epoch. 0,
 * -EINVAL, or -EEXIST if @p is live already.
 */
int rw_gate_join(struct rw_gate *g, u32 p, u64 now, u32 *epoch);

/*
 * Change a running gate's policy, bounds, quorum or eviction timeout
 * (nr_workers and window must stay). Clocks, liveness and epochs stay; the
 * new rules apply to every request from now on, and parked workers wait
 * for what the new rules ask (the caller runs rw_gate_release() after).
 * A spread already beyond the new bound is tolerated until it closes.
 * 0, or -EINVAL (nothing changes).
 */
int rw_gate_reconfigure(struct rw_gate *g, const struct rw_gate_config *cfg,
			u64 now);

/*
 * Hold the gate (@on) or let it go: while held, no worker starts an
 * iteration at or beyond hold_at (its request parks even if the policy
 * would admit it) and no such worker is released; iterations already
 * admitted go on. A checkpoint holds the gate to see the job between
 * iterations. Under BSP hold_at is one past the iteration someone is in
 * (the largest clock + 1 of a running worker, else the largest clock), so
 * the iteration in progress can still complete: its steps need every
 * member. Under the other policies every request parks. The first holder
 * sets hold_at; after the last lets go the caller runs rw_gate_release().
 */
void rw_gate_hold(struct rw_gate *g, bool on);

/*
 * A checkpoint a worker @p asks for between its iterations: under BSP
 * without backup workers, hold the gate at @p's own boundary (hold_at =
 * its clock) rather than one past the iteration someone is in. The
 * others may have pushed the next iteration already; its step needs @p's
 * gradients, so nothing moves until @p pushes, and the state once @p's
 * own last gradients are applied is that boundary's. Let go with
 * rw_gate_hold(g, false). 0, -EOPNOTSUPP (another policy, or backups:
 * hold as rw_gate_hold() does), -EBUSY (@p is inside an iteration, or
 * the gate is held at another boundary), -EINVAL, -ESTALE.
 */
int rw_gate_hold_own(struct rw_gate *g, u32 p, u32 epoch);

/* Whether some live worker is inside an iteration (admitted, not pushed). */
bool rw_gate_running(const struct rw_gate *g);

/*
 * Take back worker @p's admission to an iteration it has not begun (no
 * gradient of it sent yet; the caller knows): as if it had not asked, its
 * grant unit back (ADAPTIVE). A box admits a remote worker's next
 * iteration as soon as it has answered its pushes, so that a checkpoint
 * asked between iterations would otherwise wait for that worker. 0, or
 * -EINVAL, -ESTALE (another epoch), -EPROTO (not running).
 */
int rw_gate_withdraw(struct rw_gate *g, u32 p, u32 epoch);

/* The quorum in force: cfg.quorum capped by the live workers (BSP). */
u32 rw_gate_quorum(const struct rw_gate *g);

/*
 * Algorithm 2: the extra lead r* in 0..(s_hi - s_lo) that minimises the
 * projected waiting of fastest worker @fast against slowest @slow, from
 * their paces as of @now; never below their current lead minus s_lo (0
 * for a non-ADAPTIVE gate or bad workers). Exposed for tests; the gate
 * calls it itself.
 */
u32 rw_gate_controller(const struct rw_gate *g, u32 fast, u32 slow, u64 now);

/*
 * The largest c_p + 1 - c_min at which @p is admitted now, before any new
 * grant (BSP: 1, ASP: U32_MAX; ADAPTIVE: s_hi while p holds a grant, else
 * the larger of s_lo and the current spread; a parked worker waits for its
 * key). 0 for a bad @p.
 */
u32 rw_gate_bound(const struct rw_gate *g, u32 p);

/*
 * 0 if the invariant holds over live workers (SSP, ADAPTIVE: max - min <=
 * bound, with the bound s or s_hi; BSP: <= 1), else -EDOM. For tests.
 */
int rw_gate_check(const struct rw_gate *g);

#endif /* _RW_SYNC_GATE_H */

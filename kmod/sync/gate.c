// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate (gate.h): admission, parking, liveness and the
 * adaptive controller. Pure and deterministic: time is an argument, ties
 * go to the lowest worker index, and everything is integer nanoseconds.
 *
 * Bookkeeping. The gate keeps c_min and c_max over live workers and how
 * many live workers sit at c_min, so a push costs O(1) except when it
 * moves the last worker off c_min, which rescans (O(W) once per advance
 * of c_min, O(1) per push on average). Releases scan the W workers, once
 * per advance. Each worker's ring holds its last @window iteration times,
 * measured from admission to push: what an iteration costs the worker
 * (pull, compute, push) without the time the gate kept it parked, so a
 * fast worker throttled by the bound does not look slow. Its pace is the
 * mean of the ring without the largest entry (with three or more): one
 * burst must not redefine a worker's speed, while a lasting change fills
 * the ring within a window.
 *
 * ADAPTIVE admission, in this order (d = c_p + 1 - c_min, lead = c_p -
 * c_min):
 *   1. d <= s_L: admit (the guaranteed band).
 *   2. c_p + 1 <= c_max: admit. A follower cannot widen the spread, which
 *      the leader's grants already bound; without this only the single
 *      fastest worker could use a grant, and the rest of a fast group
 *      would stall at s_L behind it.
 *   3. a grant left (r_p > 0) and d <= s_U: admit and consume one unit
 *      (Algorithm 1, lines 12-14). Only admissions that raise c_max
 *      beyond the s_L band consume.
 *   4. no grant left: p is the leader (rule 2 failed), so the controller
 *      runs against the slowest live worker and returns the bound b =
 *      s_L + r* p should lead by. If b > lead, p is granted b - lead
 *      steps and admitted with the first. Otherwise (b == lead: no more
 *      lead is worth it) p keeps one unit and parks until the lead is
 *      back within b, i.e. for the slowest worker's next push; at s_L it
 *      parks without a unit, as in Algorithm 1, line 24.
 *   5. with a grant but d > s_U: park until d <= s_U.
 * A parked worker's key is the c_min its rule needs; it is also released
 * as soon as it becomes a follower (c_max rose past it), and a release
 * consumes a unit exactly when admitting it then would.
 *
 * The controller (rw_gate_controller) and its "projected waiting". Read
 * literally, Algorithm 2 measures the wait at the next synchronisation
 * point after r extra iterations. But if p must then fall back to s_L,
 * that wait is the same for every r: the slowest worker's pushes, not p,
 * decide when the sync point is reached, so r only moves the wait later.
 * What a grant really buys is a larger lead kept for as long as it helps
 * (a leader still ahead when its grant runs out asks again, rule 4). So
 * the model compares bounds that persist over a horizon:
 *
 *   Two workers: the leader p and the slowest live worker n (fewest
 *   iterations; among those the one projected to push last; then the
 *   lowest index). Horizon: h = min(s_U - s_L + 1, 32) iterations of p,
 *   H = h * I_p from now. n pushes at now + R_n, then every I_n. For a
 *   bound b, p starts its j-th iteration (j = 1..h) as soon as its
 *   previous one is done and n has pushed enough for c_p + j - c_n <= b.
 *   W(b) is p's idle time inside [now, now + H).
 *   cost(b) = W(b) + (b - b_0) * I_p / 8, b_0 = max(lead, s_L), for b in
 *   b_0..min(s_U, lead + h); the smallest b of least cost wins.
 *   r* = b* - s_L.
 *
 * I_p and I_n are the paces above (n without history is given p's). R_n,
 * the time to n's next push, is I_n - e while n has been in its iteration
 * for e <= I_n, and e - I_n once it is overdue: an iteration late by o is
 * projected to need o more. So a transient stall (a 5x iteration) and a
 * dead worker (overdue without end) push n's pushes out, while a worker
 * merely mid-iteration costs p only the rest of it.
 *
 * Why these choices:
 *   - Bounds below the current lead are not candidates: W never grows
 *     with b, so they only add waiting, and the staleness they would save
 *     is small (the slowest worker's gradients are as stale as the pushes
 *     of the others during its iteration, which the bound barely moves).
 *     Falling back to s_L after a transient would stall every fast worker
 *     until the straggler caught up, for nothing.
 *   - Beyond lead + h, p never needs n inside the horizon: W is 0 there
 *     and only the penalty grows.
 *   - The penalty charges each unit of extra lead an eighth of p's
 *     iteration: a unit must save at least that much waiting. It keeps
 *     the lead where it is when more saves almost nothing (n about to
 *     push) instead of letting it creep up on jitter, and breaks the tie
 *     between bounds that all wait the same (toward less skew).
 *   - What comes out: phase offsets (equal speeds, n mid-iteration) get
 *     one step when the rest of n's iteration exceeds I_p / 8; a transient
 *     straggler gets exactly the lead its stall creates, kept while the
 *     speeds are equal; a persistent straggler (or a dead worker before
 *     its eviction) makes W fall by about I_p per unit of lead, so the
 *     lead grows to s_U, which no bound can beat in the long run: every
 *     bounded policy is paced by the slowest worker there, and the lead
 *     is the head start the fast workers keep.
 *
 * Cost: at most (h + 1) * h steps of integer arithmetic per call, and a
 * call only when the leader has used up its grant beyond s_L.
 */
#include "compat.h"
#include "gate.h"

/* A unit of lead must save 1/RW_GATE_LEAD_COST of p's iteration. */
#define RW_GATE_LEAD_COST	8
/* At most this many iterations of p are projected (and bounds tried). */
#define RW_GATE_HORIZON		32U

static u64 rw_gate_sat_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

static u64 rw_gate_sat_mul(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

static u64 rw_gate_since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

u32 rw_gate_window(const struct rw_gate_config *cfg)
{
	return cfg->window ? cfg->window : RW_GATE_DEFAULT_WINDOW;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_window);

static int rw_gate_config_check(const struct rw_gate_config *cfg)
{
	u32 win = rw_gate_window(cfg);

	if (cfg->policy >= RW_GATE_POLICY_COUNT ||
	    !cfg->nr_workers || cfg->nr_workers > RW_GATE_MAX_WORKERS ||
	    win < 2 || win > RW_GATE_MAX_WINDOW ||
	    cfg->quorum > cfg->nr_workers)
		return -EINVAL;
	if (cfg->policy == RW_GATE_SSP &&
	    (!cfg->s || cfg->s > RW_GATE_MAX_BOUND))
		return -EINVAL;
	if (cfg->policy == RW_GATE_ADAPTIVE &&
	    (!cfg->s_lo || cfg->s_lo > cfg->s_hi ||
	     cfg->s_hi > RW_GATE_MAX_BOUND))
		return -EINVAL;
	return 0;
}

static bool rw_gate_backups(const struct rw_gate *g);

int rw_gate_init(struct rw_gate *g, const struct rw_gate_config *cfg,
		 struct rw_gate_worker *w, u64 *ts, u64 now)
{
	u32 i;

	if (!g || !cfg || !w || !ts || rw_gate_config_check(cfg))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	g->cfg.window = rw_gate_window(cfg);
	g->w = w;
	g->ts = ts;
	g->nr_live = cfg->nr_workers;
	g->nr_at_min = cfg->nr_workers;
	g->backups = rw_gate_backups(g);
	memset(w, 0, cfg->nr_workers * sizeof(*w));
	memset(ts, 0, (size_t)cfg->nr_workers * g->cfg.window * sizeof(*ts));
	for (i = 0; i < cfg->nr_workers; i++) {
		w[i].live = true;
		w[i].last_seen = now;
		w[i].started = now;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_init);

u32 rw_gate_quorum(const struct rw_gate *g)
{
	u32 k = g->cfg.quorum;

	return k && k < g->nr_live ? k : g->nr_live;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_quorum);

/* Backup workers: a BSP step needs fewer than every live worker. */
static bool rw_gate_backups(const struct rw_gate *g)
{
	return g->cfg.policy == RW_GATE_BSP && g->cfg.quorum &&
	       g->cfg.quorum < g->nr_live;
}

/* The largest max - min the invariant allows (ASP: none). */
static u64 rw_gate_limit(const struct rw_gate *g)
{
	switch (g->cfg.policy) {
	case RW_GATE_BSP:
		return rw_gate_backups(g) ? U64_MAX : 1;
	case RW_GATE_SSP:
		return g->cfg.s;
	case RW_GATE_ADAPTIVE:
		return g->cfg.s_hi;
	default:
		return U64_MAX;
	}
}

/*
 * c_K, the K-th largest live clock (BSP with a quorum): the largest v that
 * at least K live workers have reached. O(workers * distinct clocks).
 */
static void rw_gate_refloor(struct rw_gate *g)
{
	u32 k = rw_gate_quorum(g), i, n;
	u64 v = g->max_clock, next;
	bool lower;

	g->floor = g->min_clock;
	if (!rw_gate_backups(g))
		return;
	for (;;) {
		n = 0;
		next = 0;
		lower = false;
		for (i = 0; i < g->cfg.nr_workers; i++) {
			const struct rw_gate_worker *x = &g->w[i];

			if (!x->live)
				continue;
			if (x->clock >= v) {
				n++;
			} else if (!lower || x->clock > next) {
				next = x->clock;
				lower = true;
			}
		}
		if (n >= k || !lower)
			break;
		v = next;
	}
	g->floor = v;
}

/* Recount c_min, c_max and the workers at c_min over live workers. */
static void rw_gate_rescan(struct rw_gate *g)
{
	u64 lo = U64_MAX, hi = 0, top = 0;
	u32 i, at = 0;

	for (i = 0; i < g->cfg.nr_workers; i++) {
		const struct rw_gate_worker *x = &g->w[i];

		top = max_t(u64, top, x->clock);
		if (!x->live)
			continue;
		if (x->clock < lo) {
			lo = x->clock;
			at = 0;
		}
		at += x->clock == lo;
		hi = max_t(u64, hi, x->clock);
	}
	if (!g->nr_live) {
		/*
		 * Nobody to wait for: a worker that rejoins starts from the
		 * furthest clock reached, so clocks never run backwards.
		 */
		lo = top;
		hi = top;
	}
	g->min_clock = lo;
	g->max_clock = hi;
	g->nr_at_min = at;
	rw_gate_refloor(g);
	/*
	 * Live workers down to the quorum: plain BSP again, with whatever
	 * spread the backup workers left (laggards skip ahead, below).
	 */
	if (g->backups && !rw_gate_backups(g) && hi - lo > rw_gate_limit(g))
		g->slack = max_t(u64, g->slack, hi - lo - rw_gate_limit(g));
	g->backups = rw_gate_backups(g);
	if (hi - lo <= rw_gate_limit(g))
		g->slack = 0;
}

static bool rw_gate_valid(const struct rw_gate *g, u32 p)
{
	return g && p < g->cfg.nr_workers;
}

/* 0, or -ESTALE for a worker that is gone or speaks for an old epoch. */
static int rw_gate_current(const struct rw_gate *g, u32 p, u32 epoch)
{
	const struct rw_gate_worker *x = &g->w[p];

	return x->live && x->epoch == epoch ? 0 : -ESTALE;
}

/*
 * Recent iteration time of @x: the mean of its ring without the largest
 * entry (with three or more entries); 0 if it has none.
 */
static u64 rw_gate_pace(const struct rw_gate *g, const struct rw_gate_worker *x)
{
	const u64 *ring = g->ts + (size_t)(x - g->w) * g->cfg.window;
	u64 sum = 0, top = 0;
	u32 i, n = x->nts;

	for (i = 0; i < n; i++) {
		sum = rw_gate_sat_add(sum, ring[i]);
		top = max_t(u64, top, ring[i]);
	}
	if (n >= 3) {
		sum -= top;
		n--;
	}
	return n ? div64_u64(sum, n) : 0;
}

static void rw_gate_record(struct rw_gate *g, struct rw_gate_worker *x,
			   u64 iter_ns)
{
	u64 *ring = g->ts + (size_t)(x - g->w) * g->cfg.window;

	ring[x->ts_head] = iter_ns;
	x->ts_head = (x->ts_head + 1) % g->cfg.window;
	if (x->nts < g->cfg.window)
		x->nts++;
	x->pace = rw_gate_pace(g, x);
}

/* Time until @x is projected to push next (see the top of this file). */
static u64 rw_gate_next_push(const struct rw_gate_worker *x, u64 pace,
			     u64 now)
{
	u64 e = rw_gate_since(now, x->started);

	return e <= pace ? pace - e : e - pace;
}

/* The slowest live worker: fewest iterations, then latest next push. */
static u32 rw_gate_slowest(const struct rw_gate *g, u64 now)
{
	u64 best = 0;
	u32 i, n = U32_MAX;

	for (i = 0; i < g->cfg.nr_workers; i++) {
		const struct rw_gate_worker *x = &g->w[i];
		u64 next;

		if (!x->live || x->clock != g->min_clock)
			continue;
		next = rw_gate_next_push(x, x->pace, now);
		if (n == U32_MAX || next > best) {
			best = next;
			n = i;
		}
	}
	return n;
}

/*
 * Projected idle time of the leader inside [now, end) under SSP(@b)
 * against the slowest worker, which is @lead iterations behind, pushes
 * first at now + @first and then every @in; the leader needs @ip per
 * iteration and starts at most @iters of them.
 */
static u64 rw_gate_project(u64 b, u64 lead, u64 now, u64 end, u64 first,
			   u64 in, u64 ip, u32 iters)
{
	u64 t = now, wait = 0, j;

	for (j = 1; j <= iters && t < end; j++) {
		u64 need = lead + j, at = t;

		if (need > b) {
			/* n must have pushed need - b times. */
			at = rw_gate_sat_add(now, first);
			at = rw_gate_sat_add(at, rw_gate_sat_mul(need - b - 1, in));
		}
		if (at > t) {
			wait += min_t(u64, at, end) - t;
			t = at;
		}
		t = rw_gate_sat_add(t, ip);
	}
	return wait;
}

u32 rw_gate_controller(const struct rw_gate *g, u32 fast, u32 slow, u64 now)
{
	const struct rw_gate_worker *p, *n;
	u64 ip, in, first, end, lead, best = U64_MAX, b, lo, hi, best_b;
	u32 rmax, h;

	if (!rw_gate_valid(g, fast) || !rw_gate_valid(g, slow) ||
	    fast == slow || g->cfg.policy != RW_GATE_ADAPTIVE)
		return 0;
	p = &g->w[fast];
	n = &g->w[slow];
	rmax = g->cfg.s_hi - g->cfg.s_lo;
	if (!rmax || p->clock < n->clock)
		return 0;
	ip = p->pace;
	in = n->pace;
	if (!ip)
		ip = in;
	if (!in)
		in = ip;
	if (!ip)
		return 0;	/* no evidence yet: stay in the band */
	lead = p->clock - n->clock;
	first = rw_gate_next_push(n, in, now);
	h = min_t(u32, rmax + 1, RW_GATE_HORIZON);
	end = rw_gate_sat_add(now, rw_gate_sat_mul(h, ip));
	/*
	 * Bounds below the lead only add waiting (W never grows with b), and
	 * beyond lead + h the leader never needs n inside the horizon: W is
	 * 0 there and only the penalty grows. Ties keep the smaller bound.
	 */
	lo = min_t(u64, max_t(u64, lead, g->cfg.s_lo), g->cfg.s_hi);
	hi = min_t(u64, g->cfg.s_hi, lead + h);
	best_b = lo;
	for (b = lo; b <= hi; b++) {
		u64 cost = rw_gate_project(b, lead, now, end, first, in, ip, h);

		cost = rw_gate_sat_add(cost,
				       div64_u64(rw_gate_sat_mul(b - lo, ip),
						 RW_GATE_LEAD_COST));
		if (cost < best) {
			best = cost;
			best_b = b;
		}
	}
	return (u32)(best_b - g->cfg.s_lo);
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_controller);

/* ADAPTIVE: @x can follow the leader without widening the spread. */
static bool rw_gate_follower(const struct rw_gate *g,
			     const struct rw_gate_worker *x)
{
	return g->cfg.policy == RW_GATE_ADAPTIVE && x->clock + 1 <= g->max_clock;
}

/* ADAPTIVE: admitting @x now takes a unit of its grant (rule 3). */
static bool rw_gate_consumes(const struct rw_gate *g,
			     const struct rw_gate_worker *x)
{
	return g->cfg.policy == RW_GATE_ADAPTIVE && x->grant &&
	       x->clock + 1 - g->min_clock > g->cfg.s_lo &&
	       !rw_gate_follower(g, x);
}

/* May @x, which is not parked, start its next iteration now? Rules 1-3. */
static bool rw_gate_admissible(const struct rw_gate *g,
			       const struct rw_gate_worker *x)
{
	u64 d = x->clock + 1 - g->min_clock;

	switch (g->cfg.policy) {
	case RW_GATE_ASP:
		return true;
	case RW_GATE_BSP:
		return x->clock <= g->floor;
	case RW_GATE_SSP:
		return d <= g->cfg.s;
	default:
		return d <= g->cfg.s_lo || rw_gate_follower(g, x) ||
		       (x->grant && d <= g->cfg.s_hi);
	}
}

/* May parked @x go: the c_min it waits for is reached, or it follows. */
static bool rw_gate_releasable(const struct rw_gate *g,
			       const struct rw_gate_worker *x)
{
	if (g->held && x->clock >= g->hold_at)
		return false;
	if (g->cfg.policy == RW_GATE_BSP)
		return x->key <= g->floor;
	return x->key <= g->min_clock || rw_gate_follower(g, x);
}

static void rw_gate_start(struct rw_gate *g, struct rw_gate_worker *x,
			  u64 now)
{
	if (rw_gate_consumes(g, x))
		x->grant--;
	x->running = true;
	x->started = now;
	x->last_seen = now;
}

/*
 * ADAPTIVE, rule 4: the leader @x has no grant left. Ask the controller
 * for the bound b it should lead by; grant what b leaves it and return
 * true if that is at least one step. Otherwise *@key is the c_min at
 * which its lead is back within b, and one unit waits for it there.
 */
static bool rw_gate_grant(struct rw_gate *g, struct rw_gate_worker *x,
			  u64 now, u64 *key)
{
	u32 p = (u32)(x - g->w), n = rw_gate_slowest(g, now);
	u64 lead = x->clock - g->min_clock, b = g->cfg.s_lo;

	if (n != U32_MAX && n != p && x->clock == g->max_clock)
		b += rw_gate_controller(g, p, n, now);
	if (b > lead) {
		x->grant = (u32)(b - lead);
		x->stats.granted += x->grant;
		return true;
	}
	if (b > g->cfg.s_lo) {
		x->grant = 1;
		x->stats.granted++;
	}
	*key = x->clock + 1 - b;
	return false;
}

int rw_gate_request(struct rw_gate *g, u32 p, u32 epoch, u64 now)
{
	struct rw_gate_worker *x;
	bool held;
	u64 key;
	int err;

	if (!rw_gate_valid(g, p))
		return -EINVAL;
	err = rw_gate_current(g, p, epoch);
	if (err)
		return err;
	x = &g->w[p];
	if (x->parked || x->running)
		return -EBUSY;
	x->last_seen = now;
	if (g->cfg.policy == RW_GATE_BSP) {
		/*
		 * Its late gradients were dropped: on from the fresh state,
		 * the iteration the quorum is in (c_K), or without backups
		 * (any more) the one before the leaders'.
		 */
		u64 to = g->floor;

		if (!g->backups && g->max_clock > to + 1)
			to = g->max_clock - 1;
		if (x->clock < to) {
			x->stats.skipped += to - x->clock;
			x->clock = to;
			rw_gate_rescan(g);
		}
	}
	held = g->held && x->clock >= g->hold_at;
	if (rw_gate_admissible(g, x)) {
		if (!held)
			goto admit;
		key = 0;	/* held: goes at once when let go */
		goto park;
	}
	switch (g->cfg.policy) {
	case RW_GATE_BSP:
		key = x->clock;
		break;
	case RW_GATE_SSP:
		key = x->clock + 1 - g->cfg.s;
		break;
	default:
		key = x->clock + 1 - g->cfg.s_hi;
		if (!x->grant && rw_gate_grant(g, x, now, &key)) {
			if (!held)
				goto admit;
			key = 0;
		}
		break;
	}
park:
	x->parked = true;
	x->parked_at = now;
	x->key = key;
	x->stats.parks++;
	g->nr_parked++;
	return RW_GATE_PARK;
admit:
	rw_gate_start(g, x, now);
	x->stats.admits++;
	return RW_GATE_ADMIT;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_request);

int rw_gate_push(struct rw_gate *g, u32 p, u32 epoch, u64 now,
		 bool *min_advanced)
{
	struct rw_gate_worker *x;
	u64 old_min, old_max;
	int err;

	if (!rw_gate_valid(g, p))
		return -EINVAL;
	x = &g->w[p];
	err = rw_gate_current(g, p, epoch);
	if (err) {
		x->stats.stale_pushes++;
		return err;
	}
	if (!x->running)
		return -EPROTO;
	old_min = g->floor;
	old_max = g->max_clock;
	rw_gate_record(g, x, rw_gate_since(now, x->started));
	x->running = false;
	x->started = now;
	x->last_seen = now;
	x->stats.pushes++;
	x->clock++;
	g->max_clock = max_t(u64, g->max_clock, x->clock);
	if (x->clock - 1 == g->min_clock && !--g->nr_at_min)
		rw_gate_rescan(g);
	else if (x->clock - 1 == g->floor && rw_gate_backups(g))
		rw_gate_refloor(g);
	else if (!rw_gate_backups(g))
		g->floor = g->min_clock;
	g->max_skew = max_t(u64, g->max_skew, g->max_clock - g->min_clock);
	/* A parked ADAPTIVE worker may also have become a follower. */
	if (min_advanced)
		*min_advanced = g->floor != old_min ||
				(g->cfg.policy == RW_GATE_ADAPTIVE &&
				 g->nr_parked && g->max_clock != old_max);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_push);

static void rw_gate_unpark(struct rw_gate *g, struct rw_gate_worker *x, u64 now)
{
	x->parked = false;
	x->stats.parked_ns += rw_gate_since(now, x->parked_at);
	g->nr_parked--;
}

u32 rw_gate_release(struct rw_gate *g, u64 now, u32 *out, u32 max)
{
	u32 i, n = 0;

	if (!g || (!out && max))
		return 0;
	for (i = 0; i < g->cfg.nr_workers && n < max && g->nr_parked; i++) {
		struct rw_gate_worker *x = &g->w[i];

		if (!x->parked || !rw_gate_releasable(g, x))
			continue;
		rw_gate_unpark(g, x, now);
		rw_gate_start(g, x, now);
		out[n++] = i;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_release);

int rw_gate_heartbeat(struct rw_gate *g, u32 p, u32 epoch, u64 now)
{
	int err;

	if (!rw_gate_valid(g, p))
		return -EINVAL;
	err = rw_gate_current(g, p, epoch);
	if (!err)
		g->w[p].last_seen = now;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_heartbeat);

static void rw_gate_drop(struct rw_gate *g, struct rw_gate_worker *x, u64 now)
{
	if (x->parked)
		rw_gate_unpark(g, x, now);
	x->live = false;
	x->running = false;
	x->grant = 0;
	x->stats.evictions++;
	g->nr_live--;
	g->epoch++;
}

u32 rw_gate_expire(struct rw_gate *g, u64 now, u32 *out, u32 max)
{
	u32 i, n = 0;

	if (!g || !g->cfg.evict_timeout_ns)
		return 0;
	for (i = 0; i < g->cfg.nr_workers; i++) {
		struct rw_gate_worker *x = &g->w[i];

		/* A parked worker is waiting on the gate, not silent. */
		if (!x->live || x->parked ||
		    rw_gate_since(now, x->last_seen) < g->cfg.evict_timeout_ns)
			continue;
		rw_gate_drop(g, x, now);
		if (out && n < max)
			out[n] = i;
		n++;
	}
	if (n)
		rw_gate_rescan(g);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_expire);

int rw_gate_evict(struct rw_gate *g, u32 p, u64 now)
{
	if (!rw_gate_valid(g, p))
		return -EINVAL;
	if (!g->w[p].live)
		return 0;
	rw_gate_drop(g, &g->w[p], now);
	rw_gate_rescan(g);
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_evict);

int rw_gate_join(struct rw_gate *g, u32 p, u64 now, u32 *epoch)
{
	struct rw_gate_worker *x;

	if (!rw_gate_valid(g, p) || !epoch)
		return -EINVAL;
	x = &g->w[p];
	if (x->live)
		return -EEXIST;
	x->live = true;
	x->parked = false;
	x->running = false;
	x->grant = 0;
	x->clock = g->min_clock;
	x->joined = x->clock;
	x->nts = 0;
	x->ts_head = 0;
	x->pace = 0;
	x->last_seen = now;
	x->started = now;
	x->epoch = ++g->epoch;
	x->stats.joins++;
	g->nr_live++;
	rw_gate_rescan(g);
	*epoch = x->epoch;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_join);

int rw_gate_reconfigure(struct rw_gate *g, const struct rw_gate_config *cfg,
			u64 now)
{
	u64 lim, spread;
	u32 i, rmax;

	if (!g || !cfg || rw_gate_config_check(cfg) ||
	    cfg->nr_workers != g->cfg.nr_workers ||
	    rw_gate_window(cfg) != g->cfg.window)
		return -EINVAL;
	g->cfg = *cfg;
	g->cfg.window = rw_gate_window(cfg);
	rw_gate_rescan(g);
	lim = rw_gate_limit(g);
	spread = g->max_clock - g->min_clock;
	g->slack = spread > lim ? spread - lim : 0;
	rmax = cfg->policy == RW_GATE_ADAPTIVE ? cfg->s_hi - cfg->s_lo : 0;
	for (i = 0; i < cfg->nr_workers; i++) {
		struct rw_gate_worker *x = &g->w[i];

		x->grant = min_t(u32, x->grant, rmax);
		if (!x->parked)
			continue;
		x->last_seen = now;
		if (rw_gate_admissible(g, x)) {
			x->key = 0;	/* the caller's release lets it go */
			continue;
		}
		switch (cfg->policy) {
		case RW_GATE_BSP:
			x->key = x->clock;
			break;
		case RW_GATE_SSP:
			x->key = x->clock + 1 - cfg->s;
			break;
		default:
			x->key = x->clock + 1 > cfg->s_hi ?
				 x->clock + 1 - cfg->s_hi : 0;
			break;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_reconfigure);

void rw_gate_hold(struct rw_gate *g, bool on)
{
	u64 at = 0;
	u32 i;

	if (!on) {
		if (g->held)
			g->held--;
		return;
	}
	if (g->held++)
		return;
	for (i = 0; g->cfg.policy == RW_GATE_BSP && i < g->cfg.nr_workers; i++)
		if (g->w[i].live)
			at = max_t(u64, at, g->w[i].clock + g->w[i].running);
	g->hold_at = at;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_hold);

bool rw_gate_running(const struct rw_gate *g)
{
	u32 i;

	for (i = 0; i < g->cfg.nr_workers; i++)
		if (g->w[i].live && g->w[i].running)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_running);

u32 rw_gate_bound(const struct rw_gate *g, u32 p)
{
	const struct rw_gate_worker *x;
	u64 b;

	if (!rw_gate_valid(g, p))
		return 0;
	if (g->cfg.policy != RW_GATE_ADAPTIVE)
		return (u32)min_t(u64, rw_gate_limit(g), U32_MAX);
	x = &g->w[p];
	b = max_t(u64, g->cfg.s_lo, g->max_clock - g->min_clock);
	if (x->grant)
		b = g->cfg.s_hi;
	return (u32)b;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_bound);

int rw_gate_check(const struct rw_gate *g)
{
	u64 lo = U64_MAX, hi = 0, rmax;
	u32 i, live = 0, parked = 0, at = 0;

	if (!g)
		return -EINVAL;
	rmax = g->cfg.policy == RW_GATE_ADAPTIVE ? g->cfg.s_hi - g->cfg.s_lo : 0;
	for (i = 0; i < g->cfg.nr_workers; i++) {
		const struct rw_gate_worker *x = &g->w[i];

		if (x->epoch > g->epoch || x->nts > g->cfg.window ||
		    x->ts_head >= g->cfg.window)
			return -EDOM;
		if (!x->live) {
			if (x->parked || x->running)
				return -EDOM;
			continue;
		}
		if ((x->parked && x->running) || x->grant > rmax)
			return -EDOM;
		live++;
		parked += x->parked;
		if (x->clock < lo) {
			lo = x->clock;
			at = 0;
		}
		at += x->clock == lo;
		hi = max_t(u64, hi, x->clock);
	}
	if (live != g->nr_live || parked != g->nr_parked)
		return -EDOM;
	if (!live)
		return g->min_clock == g->max_clock ? 0 : -EDOM;
	if (lo != g->min_clock || hi != g->max_clock || at != g->nr_at_min ||
	    hi - lo > rw_gate_sat_add(rw_gate_limit(g), g->slack) ||
	    hi - lo > g->max_skew || g->floor < lo || g->floor > hi)
		return -EDOM;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_check);

// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate (gate.h): admission and parking; membership is in
 * member.c, the ADAPTIVE policy's rules and controller in adapt.c. Pure
 * and deterministic: time is an argument, ties go to the lowest worker
 * index, and everything is integer nanoseconds.
 *
 * Bookkeeping. The gate keeps c_min and c_max over live workers and how
 * many live workers sit at c_min, so a push costs O(1) except when it
 * moves the last worker off c_min, which rescans (O(W) once per advance
 * of c_min, O(1) per push on average). Releases scan the W workers, once
 * per advance.
 */
#include "compat.h"
#include "gate_priv.h"

u32 rw_gate_window(const struct rw_gate_config *cfg)
{
	return cfg->window ? cfg->window : RW_GATE_DEFAULT_WINDOW;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_window);

int rw_gate_config_check(const struct rw_gate_config *cfg)
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
u64 rw_gate_limit(const struct rw_gate *g)
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
void rw_gate_rescan(struct rw_gate *g)
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

/* May @x, which is not parked, start its next iteration now? Rules 1-3. */
bool rw_gate_admissible(const struct rw_gate *g,
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

void rw_gate_unpark(struct rw_gate *g, struct rw_gate_worker *x, u64 now)
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

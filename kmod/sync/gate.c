// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate (gate.h): its settings, its set-up, the clocks it
 * keeps over live workers and the invariant they hold. Pure and
 * deterministic: time is an argument, ties go to the lowest worker index,
 * and everything is integer nanoseconds. The rest of the gate sits beside
 * it: request.c (requests, pushes, parking, the hold), member.c (liveness,
 * joins, new settings) and adapt.c (the ADAPTIVE rules and controller);
 * gate_priv.h declares what they share.
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
bool rw_gate_backups(const struct rw_gate *g)
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
void rw_gate_refloor(struct rw_gate *g)
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
	 * spread the backup workers left (laggards skip ahead: request.c).
	 */
	if (g->backups && !rw_gate_backups(g) && hi - lo > rw_gate_limit(g))
		g->slack = max_t(u64, g->slack, hi - lo - rw_gate_limit(g));
	g->backups = rw_gate_backups(g);
	if (hi - lo <= rw_gate_limit(g))
		g->slack = 0;
}

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

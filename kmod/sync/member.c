// SPDX-License-Identifier: GPL-2.0
/*
 * Membership of the staleness gate (gate.h): heartbeats, the eviction of
 * silent or lost workers, (re)joins in a new epoch, and new settings for a
 * running gate. Pure and deterministic, like the rest of the gate. Every
 * change of who is live recounts the clocks over the live workers
 * (gate.c), so nobody waits for a dead worker; an evicted worker that was
 * parked is unparked, and new settings re-key the parked workers for the
 * rules they bring (request.c).
 */
#include "compat.h"
#include "gate_priv.h"

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

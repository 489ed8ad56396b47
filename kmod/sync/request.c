// SPDX-License-Identifier: GPL-2.0
/*
 * Admission to the staleness gate (gate.h): whether a worker may start its
 * next iteration or parks, its push at the end of one, the release of
 * parked workers as c_min advances, and the hold a checkpoint puts on new
 * iterations. Pure and deterministic, like the rest of the gate. The
 * ADAPTIVE policy's rules and its controller are in adapt.c, the clocks
 * over live workers in gate.c.
 */
#include "compat.h"
#include "gate_priv.h"

/*
 * May @x, which is not parked, start its next iteration now? Rules 1-3
 * (ADAPTIVE's are at the top of adapt.c).
 */
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
	x->consumed = rw_gate_consumes(g, x);
	if (x->consumed)
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

/* Worker @p, live in @epoch, into *@x: 0, -EINVAL or -ESTALE. */
static int rw_gate_own(struct rw_gate *g, u32 p, u32 epoch,
		       struct rw_gate_worker **x)
{
	int err;

	if (!rw_gate_valid(g, p))
		return -EINVAL;
	err = rw_gate_current(g, p, epoch);
	*x = &g->w[p];
	return err;
}

int rw_gate_hold_own(struct rw_gate *g, u32 p, u32 epoch)
{
	struct rw_gate_worker *x;
	int err;

	err = rw_gate_own(g, p, epoch, &x);
	if (err)
		return err;
	if (g->cfg.policy != RW_GATE_BSP || g->backups)
		return -EOPNOTSUPP;
	/* Inside an iteration, or held already at another boundary. */
	if (x->running || (g->held && g->hold_at != x->clock))
		return -EBUSY;
	if (!g->held++)
		g->hold_at = x->clock;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_hold_own);

bool rw_gate_running(const struct rw_gate *g)
{
	u32 i;

	for (i = 0; i < g->cfg.nr_workers; i++)
		if (g->w[i].live && g->w[i].running)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_running);

int rw_gate_withdraw(struct rw_gate *g, u32 p, u32 epoch)
{
	struct rw_gate_worker *x;
	int err;

	err = rw_gate_own(g, p, epoch, &x);
	if (err)
		return err;
	if (!x->running)
		return -EPROTO;
	x->running = false;
	if (x->consumed)
		x->grant++;
	x->consumed = false;
	x->stats.admits--;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gate_withdraw);

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

// SPDX-License-Identifier: GPL-2.0
/*
 * The ADAPTIVE policy of the staleness gate (gate.h): what each worker's
 * iterations cost it, the rules that let a leader run ahead of s_L, and
 * the controller (LagTuner's Algorithm 2) that decides by how much. Pure
 * and deterministic, like the rest of the gate: time is an argument, ties
 * go to the lowest worker index, and everything is integer nanoseconds.
 * Admission (request.c) asks it; it asks no other gate file.
 *
 * Paces. Each worker's ring holds its last @window iteration times,
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
#include "gate_priv.h"

/* A unit of lead must save 1/RW_GATE_LEAD_COST of p's iteration. */
#define RW_GATE_LEAD_COST	8
/* At most this many iterations of p are projected (and bounds tried). */
#define RW_GATE_HORIZON		32U

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

void rw_gate_record(struct rw_gate *g, struct rw_gate_worker *x, u64 iter_ns)
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
bool rw_gate_follower(const struct rw_gate *g, const struct rw_gate_worker *x)
{
	return g->cfg.policy == RW_GATE_ADAPTIVE && x->clock + 1 <= g->max_clock;
}

/* ADAPTIVE: admitting @x now takes a unit of its grant (rule 3). */
bool rw_gate_consumes(const struct rw_gate *g, const struct rw_gate_worker *x)
{
	return g->cfg.policy == RW_GATE_ADAPTIVE && x->grant &&
	       x->clock + 1 - g->min_clock > g->cfg.s_lo &&
	       !rw_gate_follower(g, x);
}

/*
 * ADAPTIVE, rule 4: the leader @x has no grant left. Ask the controller
 * for the bound b it should lead by; grant what b leaves it and return
 * true if that is at least one step. Otherwise *@key is the c_min at
 * which its lead is back within b, and one unit waits for it there.
 */
bool rw_gate_grant(struct rw_gate *g, struct rw_gate_worker *x,
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Rebalancing: the RackWeave paper's "dynamically adjust chunk
 * assignments" when measured load shows imbalance during a long run.
 *
 * Why it is needed at all: the map balances bytes, but the work a chunk
 * costs also depends on things bytes do not show: a core that shares its
 * time with interrupts or another tenant, a chunk whose workers push more
 * often, a sibling hyperthread. So the caller measures work per core (and
 * per chunk, if it can) over a window and asks for moves.
 *
 * What may move: a chunk's core, within its node. Its node and NIC never
 * change: the memory of the chunk lives on the node (moving nodes would
 * mean moving memory and registrations), and keeping the NIC keeps the
 * per-NIC byte balance of the map exactly as built.
 *
 * When: each node is judged on its own by skew = max / mean of its cores'
 * load. A node starts being evened out when skew exceeds high_pm (default
 * 1.25) and stops when it falls to low_pm (1.10): the gap between the two
 * is the hysteresis, so noise around one threshold cannot switch it on and
 * off. A node whose mean load is below min_mean is idle and left alone
 * (tiny loads make huge ratios out of noise). After a node moved chunks it
 * sits out @settle windows, because a window that straddles a migration
 * measures neither the old placement nor the new one.
 *
 * How: repeatedly take the node's most loaded core and its least loaded
 * one and move the chunk whose load is closest to half their difference,
 * provided the destination then stays below the source's old load by a
 * margin of min_gain_pm of the node's mean (default 10%). Nodes take turns,
 * one move each, until the step's cap (max_moves, default 16) or until no
 * node can improve. A move of load l with that margin m lowers the sum of
 * squares of the core loads by at least 2 * l * m, so moves cannot cycle
 * while loads stay put; and a chunk that would only swap the roles of two
 * cores (three chunks on two cores, say) is never moved. Moving a chunk
 * back needs the loads to shift by more than 2 * m against the move, so
 * fluctuation smaller than the margin cannot make a chunk shuttle, and
 * fluctuation below the start threshold causes no move at all.
 *
 * Pure and deterministic: ties go to the lowest index, everything is
 * integer arithmetic, and the state carried between windows is the
 * caller's struct rw_rebal_state.
 */
#include "compat.h"
#include "rebalance.h"

void rw_rebal_params_default(struct rw_rebal_params *p)
{
	p->high_pm = 1250;
	p->low_pm = 1100;
	p->min_gain_pm = 100;
	p->max_moves = 16;
	p->settle = 1;
	p->min_mean = 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_rebal_params_default);

void rw_rebal_state_init(struct rw_rebal_state *st)
{
	memset(st, 0, sizeof(*st));
}
EXPORT_SYMBOL_IF_KUNIT(rw_rebal_state_init);

/* a * b / c, halving a and c together rather than wrap. */
static u64 rw_rebal_muldiv(u64 a, u64 b, u64 c)
{
	u64 r;

	while (check_mul_overflow(a, b, &r)) {
		a >>= 1;
		c >>= 1;
	}
	return div64_u64(r, c ? c : 1);
}

/* Everything one step reads, so helpers take one pointer. */
struct rw_rebal_ctx {
	const struct rw_map *map;
	const struct rw_rebal_params *p;
	const u64 *core_load;	/* measured */
	const u64 *chunk_load;	/* measured, or NULL */
	u64 *est;		/* core loads as if the moves so far were made */
	u64 *bytes;		/* bytes per core, when estimating chunk loads */
	struct rw_rebal_move *moves;
	u32 nr_moves;
};

/* Work chunk @c, homed on core @core, did in the window. */
static u64 rw_rebal_chunk_load(const struct rw_rebal_ctx *x, u32 c, u32 core)
{
	u64 off;
	u32 len;

	if (x->chunk_load)
		return x->chunk_load[c];
	rw_layout_chunk(&x->map->geom, c, &off, &len);
	return rw_rebal_muldiv(x->core_load[core], len, x->bytes[core]);
}

static bool rw_rebal_moved(const struct rw_rebal_ctx *x, u32 c)
{
	u32 i;

	for (i = 0; i < x->nr_moves; i++)
		if (x->moves[i].chunk == c)
			return true;
	return false;
}

static u64 rw_rebal_mean(const u64 *load, u32 n)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		if (check_add_overflow(sum, load[i], &sum))
			return U64_MAX;
	return div64_u64(sum, n);
}

/*
 * Make the best single move inside node @n, if one is worth making;
 * false when the node is even enough or nothing helps.
 */
static bool rw_rebal_one(struct rw_rebal_ctx *x, u32 n)
{
	const struct rw_map_node *node = &x->map->nodes[n];
	u64 *load = x->est + node->first_core;
	u64 gap, margin, l, d, best_d = 0, best_l = 0;
	u32 i, c, src = 0, dst = 0, best = U32_MAX;

	if (rw_map_skew_pm(load, node->nr_cores) <= x->p->low_pm)
		return false;
	for (i = 1; i < node->nr_cores; i++) {
		if (load[i] > load[src])
			src = i;
		if (load[i] < load[dst])
			dst = i;
	}
	gap = load[src] - load[dst];
	margin = rw_rebal_muldiv(rw_rebal_mean(load, node->nr_cores),
				 x->p->min_gain_pm, 1000);
	if (gap <= margin)
		return false;
	src += node->first_core;
	dst += node->first_core;

	/* The destination must end below the source's old load - margin. */
	for (c = 0; c < x->map->nr.nr_chunks; c++) {
		if (x->map->place[c].core != src || rw_rebal_moved(x, c))
			continue;
		l = rw_rebal_chunk_load(x, c, src);
		if (!l || l > gap - margin)
			continue;
		d = l > gap / 2 ? l - gap / 2 : gap / 2 - l;
		if (best == U32_MAX || d < best_d) {
			best = c;
			best_d = d;
			best_l = l;
		}
	}
	if (best == U32_MAX)
		return false;

	x->est[src] -= best_l;
	x->est[dst] += best_l;
	x->moves[x->nr_moves].chunk = best;
	x->moves[x->nr_moves].from = (u16)src;
	x->moves[x->nr_moves].to = (u16)dst;
	x->nr_moves++;
	return true;
}

/* Advance node @n's state by one window; true if it should move chunks. */
static bool rw_rebal_judge(const struct rw_rebal_ctx *x,
			   struct rw_rebal_state *st, u32 n)
{
	const struct rw_map_node *node = &x->map->nodes[n];
	const u64 *load = x->core_load + node->first_core;
	u64 bit = 1ULL << n;
	u32 skew;

	if (st->settle[n]) {
		st->settle[n]--;
		return false;
	}
	if (rw_rebal_mean(load, node->nr_cores) < x->p->min_mean) {
		st->active &= ~bit;
		return false;
	}
	skew = rw_map_skew_pm(load, node->nr_cores);
	if (st->active & bit) {
		if (skew <= x->p->low_pm)
			st->active &= ~bit;
	} else if (skew > x->p->high_pm) {
		st->active |= bit;
	}
	return st->active & bit;
}

int rw_rebal_step(const struct rw_map *map, const struct rw_rebal_params *p,
		  struct rw_rebal_state *st, const u64 *core_load,
		  const u64 *chunk_load, u64 *scratch,
		  struct rw_rebal_move *moves, u32 max_moves, u32 *nr_moves)
{
	struct rw_rebal_state next;
	struct rw_rebal_ctx x = {
		.map = map, .p = p, .core_load = core_load,
		.chunk_load = chunk_load, .moves = moves,
	};
	u64 work = 0, moved = 0;
	u32 n, cap, before;

	if (!map || !p || !st || !core_load || !scratch || !nr_moves ||
	    (max_moves && !moves))
		return -EINVAL;
	if (p->low_pm < 1000 || p->high_pm < p->low_pm ||
	    map->nr.nr_nodes > RW_MAP_MAX_NODES)
		return -EINVAL;

	x.est = scratch;
	x.bytes = scratch + map->nr.nr_cores;
	memcpy(x.est, core_load, map->nr.nr_cores * sizeof(*x.est));
	if (!chunk_load)
		rw_map_loads(map, x.bytes, NULL);
	cap = min_t(u32, max_moves, p->max_moves);

	next = *st;
	for (n = 0; n < map->nr.nr_nodes; n++)
		if (rw_rebal_judge(&x, &next, n))
			work |= 1ULL << n;

	/* Nodes take turns so that one busy node cannot use up the cap. */
	while (work && x.nr_moves < cap) {
		for (n = 0; n < map->nr.nr_nodes && x.nr_moves < cap; n++) {
			if (!(work & (1ULL << n)))
				continue;
			before = x.nr_moves;
			if (rw_rebal_one(&x, n))
				moved |= 1ULL << n;
			if (x.nr_moves == before)
				work &= ~(1ULL << n);
		}
	}
	for (n = 0; n < map->nr.nr_nodes; n++)
		if (moved & (1ULL << n))
			next.settle[n] = (u8)min_t(u32, p->settle, U8_MAX);

	*st = next;
	*nr_moves = x.nr_moves;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_rebal_step);

int rw_rebal_apply(struct rw_map *map, const struct rw_rebal_move *moves,
		   u32 nr)
{
	const struct rw_rebal_move *m;
	u32 i, j;

	if (!map || (nr && !moves))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		m = &moves[i];
		if (m->chunk >= map->nr.nr_chunks || m->to >= map->nr.nr_cores ||
		    m->from != map->place[m->chunk].core || m->to == m->from ||
		    map->cores[m->to].node != map->place[m->chunk].node)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (moves[j].chunk == m->chunk)
				return -EINVAL;
	}
	for (i = 0; i < nr; i++)
		WRITE_ONCE(map->place[moves[i].chunk].core, moves[i].to);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_rebal_apply);

// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk map: which (NUMA node, core, NIC) owns each chunk of a job.
 *
 * The idea comes from the RackWeave paper's fine-grained chunk mapping:
 * cut the model into small chunks and give each one a fixed core and NIC,
 * so that every byte of a chunk is received, summed and optimized by one
 * core from memory on that core's node, with no cross-core locking and no
 * cross-node traffic, while small chunks let the mapper even out the load
 * over every core and interface of the box. The paper treats the parameter
 * box as a balanced I/O service (NIC bandwidth matched by memory and cores
 * in each NUMA domain) and keeps a NIC's queues, buffers and cores within
 * its domain; the rules below follow from that.
 *
 * Locality rule. A chunk's node, core and NIC are on one NUMA node; its
 * memory is allocated there too. Nodes without an allowed NIC get no
 * chunks: their cores would have to pull every byte over the interconnect,
 * which is what the NUMA partitioning exists to avoid. Nodes without an
 * allowed core get none either: their NICs stay idle rather than have
 * their completions handled from another node.
 *
 * Balancing rule. The unit of capacity is a lane: one NIC paired with one
 * core. A NIC's line rate and one core's streaming sum-and-update rate are
 * of the same order (a 100 Gb/s port brings about 12 GB/s, roughly what
 * one core can stream through memory), so a node can serve min(cores,
 * NICs) lanes, and each node gets chunks in proportion to its lanes.
 * Inside a node the bytes are spread evenly over all its cores and all its
 * NICs. On a box like the paper's, where every node has at least as many
 * cores as NICs, this balances bytes per NIC over the whole box (the
 * resource the paper says bounds it) and bytes per core within each node;
 * a node allowed fewer cores than NICs counts only its cores, so its NICs
 * run lighter instead of its few cores becoming the bottleneck. Every core
 * and every NIC ends up within one chunk of its ideal bytes,
 * total * lanes(node) / (lanes(all) * count(node)) (rw_map_core_ideal()).
 *
 * Order. Chunks are dealt round robin over the lanes, interleaving nodes,
 * so consecutive chunks (the pieces of one layer, which arrive together)
 * land on different nodes, NICs and cores and are worked on in parallel.
 * When N chunks do not divide evenly over L lanes, N mod L lanes get one
 * more chunk than the others; which node's lanes those are is decided by
 * largest remainder, so each node's chunk count is within one of its exact
 * share, and the short last chunk always falls on such a lane. A node's
 * k-th chunk goes to its core k mod cores and its NIC k mod NICs.
 *
 * Rebalancing (rebalance.c) later moves chunks between cores of one node
 * when measured work, not bytes, is skewed: a node is evened out once the
 * max/mean load of its cores passes a threshold (1.25 by default) until it
 * is back under a lower one (1.10), a move must leave its destination a
 * margin (10% of the mean) below its source, moves per step are capped
 * and a node sits out the window after it moved. The threshold gap, the
 * margin and the pause are what keep it from oscillating on noise. The
 * NIC and node of a chunk never change after the build, so NIC balance
 * and locality hold forever.
 *
 * Everything is integer arithmetic over the caller's arrays in the
 * caller's order: the same inputs give the same map. Building costs
 * O(chunks * nodes) plus O(ids^2) to reject duplicate ids.
 */
#include "compat.h"
#include "map.h"

#define RW_MAP_BPL	(8 * sizeof(unsigned long))

static bool rw_map_allowed(const unsigned long *bm, u32 bits, u32 id)
{
	if (!bm)
		return true;
	if (id >= bits)
		return false;
	return (bm[id / RW_MAP_BPL] >> (id % RW_MAP_BPL)) & 1;
}

static const u32 *rw_map_ids(const struct rw_map_topo_node *n, bool nic,
			     u32 *count)
{
	*count = nic ? n->nr_nics : n->nr_cpus;
	return nic ? n->nics : n->cpus;
}

/* True if a CPU (or NIC) id appears twice anywhere in @topo. */
static bool rw_map_dup_ids(const struct rw_map_topo *topo, bool nic)
{
	const u32 *ia, *ib;
	u32 a, b, i, j, na, nb;

	for (a = 0; a < topo->nr_nodes; a++) {
		ia = rw_map_ids(&topo->nodes[a], nic, &na);
		for (i = 0; i < na; i++) {
			for (b = a; b < topo->nr_nodes; b++) {
				ib = rw_map_ids(&topo->nodes[b], nic, &nb);
				for (j = b == a ? i + 1 : 0; j < nb; j++)
					if (ia[i] == ib[j])
						return true;
			}
		}
	}
	return false;
}

/* Allowed CPUs and NICs of one node. */
static void rw_map_node_counts(const struct rw_map_topo *topo, u32 n,
			       u32 *cores, u32 *nics)
{
	const struct rw_map_topo_node *tn = &topo->nodes[n];
	u32 i;

	*cores = 0;
	*nics = 0;
	for (i = 0; i < tn->nr_cpus; i++)
		*cores += rw_map_allowed(topo->cpu_allowed, topo->cpu_bits,
					 tn->cpus[i]);
	for (i = 0; i < tn->nr_nics; i++)
		*nics += rw_map_allowed(topo->nic_allowed, topo->nic_bits,
					tn->nics[i]);
}

int rw_map_size(const struct rw_map_topo *topo, const struct rw_layout_geom *g,
		struct rw_map_size *sz)
{
	u64 all_cpus = 0, all_nics = 0;
	struct rw_map_size s = { 0 };
	u32 a, b, cores, nics;

	if (!topo || !sz || !topo->nodes || !topo->nr_nodes)
		return -EINVAL;
	if (topo->nr_nodes > RW_MAP_MAX_NODES)
		return -E2BIG;
	if (g && rw_layout_geom_check(g))
		return -EINVAL;
	for (a = 0; a < topo->nr_nodes; a++) {
		const struct rw_map_topo_node *tn = &topo->nodes[a];

		if ((tn->nr_cpus && !tn->cpus) || (tn->nr_nics && !tn->nics))
			return -EINVAL;
		for (b = a + 1; b < topo->nr_nodes; b++)
			if (tn->id == topo->nodes[b].id)
				return -EINVAL;
		all_cpus += tn->nr_cpus;
		all_nics += tn->nr_nics;
	}
	if (all_cpus > RW_MAP_MAX_CORES || all_nics > RW_MAP_MAX_NICS)
		return -E2BIG;
	if (rw_map_dup_ids(topo, false) || rw_map_dup_ids(topo, true))
		return -EINVAL;

	for (a = 0; a < topo->nr_nodes; a++) {
		rw_map_node_counts(topo, a, &cores, &nics);
		if (!cores || !nics)
			continue;
		s.nr_nodes++;
		s.nr_cores += cores;
		s.nr_nics += nics;
	}
	if (!s.nr_nodes)
		return -ENODEV;
	s.nr_chunks = g ? g->nr_chunks : 0;
	*sz = s;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_size);

/* Copy the usable nodes, their allowed cores and NICs into @map. */
static void rw_map_fill(struct rw_map *map, const struct rw_map_topo *topo)
{
	u32 a, i, cores, nics, nn = 0, nc = 0, nk = 0;

	for (a = 0; a < topo->nr_nodes; a++) {
		const struct rw_map_topo_node *tn = &topo->nodes[a];
		struct rw_map_node *node = &map->nodes[nn];

		rw_map_node_counts(topo, a, &cores, &nics);
		if (!cores || !nics)
			continue;
		memset(node, 0, sizeof(*node));
		node->id = tn->id;
		node->first_core = (u16)nc;
		node->nr_cores = (u16)cores;
		node->first_nic = (u16)nk;
		node->nr_nics = (u16)nics;
		node->lanes = min_t(u32, cores, nics);
		for (i = 0; i < tn->nr_cpus; i++) {
			if (!rw_map_allowed(topo->cpu_allowed, topo->cpu_bits,
					    tn->cpus[i]))
				continue;
			map->cores[nc].cpu = tn->cpus[i];
			map->cores[nc].node = (u16)nn;
			map->cores[nc].reserved = 0;
			nc++;
		}
		for (i = 0; i < tn->nr_nics; i++) {
			if (!rw_map_allowed(topo->nic_allowed, topo->nic_bits,
					    tn->nics[i]))
				continue;
			map->nics[nk].id = tn->nics[i];
			map->nics[nk].node = (u16)nn;
			map->nics[nk].reserved = 0;
			nk++;
		}
		nn++;
	}
}

/*
 * Largest remainder: share @extra chunks among the nodes in proportion to
 * their lanes, each node getting the floor or the ceiling of its share
 * (never more than its lanes, as @extra < @lanes). Ties go to the node
 * listed first.
 */
static void rw_map_apportion(const struct rw_map_node *nodes, u32 nr,
			     u32 lanes, u32 extra, u32 *share)
{
	u32 rem[RW_MAP_MAX_NODES];
	u32 n, best, given = 0;

	for (n = 0; n < nr; n++) {
		share[n] = (u32)(((u64)extra * nodes[n].lanes) / lanes);
		rem[n] = (u32)(((u64)extra * nodes[n].lanes) % lanes);
		given += share[n];
	}
	while (given < extra) {
		best = 0;
		for (n = 1; n < nr; n++)
			if (rem[n] > rem[best])
				best = n;
		share[best]++;
		rem[best] = 0;
		given++;
	}
}

/* Home chunk @c on the next core and NIC of node @n. */
static void rw_map_place_one(struct rw_map *map, const struct rw_layout_geom *g,
			     u32 c, u32 n)
{
	struct rw_map_node *node = &map->nodes[n];
	struct rw_map_place *p = &map->place[c];
	u64 off;
	u32 len;

	rw_layout_chunk(g, c, &off, &len);
	p->node = (u16)n;
	p->core = (u16)(node->first_core + node->nr_chunks % node->nr_cores);
	p->nic = (u16)(node->first_nic + node->nr_chunks % node->nr_nics);
	p->reserved = 0;
	node->nr_chunks++;
	node->bytes += len;
}

/*
 * Deal the chunks round by round. Each round gives every node one chunk
 * per lane, in passes that take lane j of every node that has one; the
 * lanes that get an extra chunk (the first @extra[n] of node n) go first,
 * so the partial last round lands exactly on them.
 */
static void rw_map_deal(struct rw_map *map, const struct rw_layout_geom *g,
			const u32 *extra)
{
	u32 c = 0, grp, j, n, lo, hi;
	bool any;

	while (c < g->nr_chunks) {
		for (grp = 0; grp < 2 && c < g->nr_chunks; grp++) {
			for (j = 0, any = true; any && c < g->nr_chunks; j++) {
				any = false;
				for (n = 0; n < map->nr.nr_nodes &&
				     c < g->nr_chunks; n++) {
					lo = grp ? extra[n] : 0;
					hi = grp ? map->nodes[n].lanes : extra[n];
					if (lo + j >= hi)
						continue;
					rw_map_place_one(map, g, c++, n);
					any = true;
				}
			}
		}
	}
}

int rw_map_build(struct rw_map *map, const struct rw_map_topo *topo,
		 const struct rw_layout_geom *g)
{
	u32 extra[RW_MAP_MAX_NODES];
	struct rw_map_size sz;
	u32 n, lanes = 0;
	int err;

	if (!map || !g)
		return -EINVAL;
	err = rw_map_size(topo, g, &sz);
	if (err)
		return err;
	if (!map->nodes || !map->cores || !map->nics || !map->place ||
	    map->cap.nr_nodes < sz.nr_nodes ||
	    map->cap.nr_cores < sz.nr_cores ||
	    map->cap.nr_nics < sz.nr_nics ||
	    map->cap.nr_chunks < sz.nr_chunks)
		return -ENOSPC;

	map->nr = sz;
	map->geom = *g;
	rw_map_fill(map, topo);
	for (n = 0; n < sz.nr_nodes; n++)
		lanes += map->nodes[n].lanes;
	map->lanes = lanes;
	rw_map_apportion(map->nodes, sz.nr_nodes, lanes, g->nr_chunks % lanes,
			 extra);
	rw_map_deal(map, g, extra);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_build);

void rw_map_loads(const struct rw_map *map, u64 *core_bytes, u64 *nic_bytes)
{
	u64 off;
	u32 c, len;

	if (core_bytes)
		memset(core_bytes, 0, map->nr.nr_cores * sizeof(*core_bytes));
	if (nic_bytes)
		memset(nic_bytes, 0, map->nr.nr_nics * sizeof(*nic_bytes));
	for (c = 0; c < map->nr.nr_chunks; c++) {
		rw_layout_chunk(&map->geom, c, &off, &len);
		if (core_bytes)
			core_bytes[map->place[c].core] += len;
		if (nic_bytes)
			nic_bytes[map->place[c].nic] += len;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_loads);

/* total * lanes / (all lanes * count): at most 2^40 * 2^10, no wrap. */
static u64 rw_map_ideal(const struct rw_map *map, u32 node, u32 count)
{
	return div64_u64(map->geom.total_bytes * map->nodes[node].lanes,
			 (u64)map->lanes * count);
}

u64 rw_map_core_ideal(const struct rw_map *map, u32 core)
{
	u32 n = map->cores[core].node;

	return rw_map_ideal(map, n, map->nodes[n].nr_cores);
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_core_ideal);

u64 rw_map_nic_ideal(const struct rw_map *map, u32 nic)
{
	u32 n = map->nics[nic].node;

	return rw_map_ideal(map, n, map->nodes[n].nr_nics);
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_nic_ideal);

static void rw_map_worst(u64 load, u64 ideal, u32 *pm, u64 *dev)
{
	u64 r = div64_u64(load * 1000, ideal ? ideal : 1);
	u64 d = load > ideal ? load - ideal : ideal - load;

	*pm = max_t(u32, *pm, (u32)min_t(u64, r, U32_MAX));
	*dev = max_t(u64, *dev, d);
}

void rw_map_balance(const struct rw_map *map, const u64 *core_bytes,
		    const u64 *nic_bytes, struct rw_map_balance *b)
{
	u32 i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < map->nr.nr_cores; i++)
		rw_map_worst(core_bytes[i], rw_map_core_ideal(map, i),
			     &b->core_pm, &b->core_dev);
	for (i = 0; i < map->nr.nr_nics; i++)
		rw_map_worst(nic_bytes[i], rw_map_nic_ideal(map, i),
			     &b->nic_pm, &b->nic_dev);
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_balance);

u32 rw_map_skew_pm(const u64 *load, u32 n)
{
	u64 max = 0, sum, r;
	u32 i, k = 0;
	bool wrapped;

	if (!n)
		return 1000;
	for (i = 0; i < n; i++)
		max = max_t(u64, max, load[i]);
	/*
	 * Halve every load until the sum fits, then max and sum until
	 * max * n * 1000 does: the ratio survives, nothing wraps.
	 */
	do {
		sum = 0;
		wrapped = false;
		for (i = 0; i < n && !wrapped; i++)
			wrapped = check_add_overflow(sum, load[i] >> k, &sum);
	} while (wrapped && ++k);
	max >>= k;
	if (!sum)
		return 1000;
	while (max > div64_u64(U64_MAX, (u64)n * 1000)) {
		max >>= 1;
		sum >>= 1;
	}
	r = div64_u64(max * n * 1000, sum ? sum : 1);
	return (u32)min_t(u64, r, U32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(rw_map_skew_pm);

// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl topo: where a job's chunks are aggregated and which NIC carries
 * them, next to the box's NUMA nodes and RDMA devices.
 *
 *   job train1: 96 chunks on 3 cores and 2 nics
 *   node 0: cpus 0-1, 512 MiB, rdma rxe0
 *       cpu 1  48 chunks (50%)  1.50 MiB  busy 12.0 ms
 *       nic 0  48 chunks (50%)  1.50 MiB
 *   node 1: cpus 2-3, 1024 MiB
 *       cpu 2  24 chunks (25%)  768 KiB  busy 3.10 ms
 *       cpu 3  24 chunks (25%)  768 KiB  busy 2.90 ms
 *       nic 1  48 chunks (50%)  1.50 MiB
 *   chunk map:
 *       chunks 0-47 -> cpu 1 (node 0) nic 0
 *       chunks 48-71 -> cpu 2 (node 1) nic 1
 *       chunks 72-95 -> cpu 3 (node 1) nic 1
 *
 * A job spread over several boxes lists its box set after the first line,
 * with each box's share of the chunks and bytes once a layout is declared
 * (boxes.c prints it).
 *
 * Chunks dealt to cores in turn make one run per chunk; in text, runs that
 * repeat a cycle are folded into one line ("chunks 0-4095 -> 1 chunk each
 * in turn on cpus 0-3 (node 0) nic 0"), so a model of any size reads in a
 * few lines. JSON has every run as the module sent it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "backend.h"
#include "boxes.h"
#include "genl.h"
#include "print.h"
#include "rwctl.h"
#include "status.h"
#include "topo.h"

static int rwctl_topo_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Column widths of the core and NIC lines, shared by all nodes. */
struct rwctl_topo_widths {
	unsigned int id;
	unsigned int chunks;
};

static unsigned int rwctl_topo_digits(uint32_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Widen @w to fit one core's or NIC's id and chunk count. */
static void rwctl_topo_widen(struct rwctl_topo_widths *w, uint32_t id,
			     uint32_t chunks)
{
	unsigned int d;

	d = rwctl_topo_digits(id);
	w->id = d > w->id ? d : w->id;
	d = rwctl_topo_digits(chunks);
	w->chunks = d > w->chunks ? d : w->chunks;
}

static void rwctl_topo_widths(const struct rwctl_topo *t,
			      struct rwctl_topo_widths *w)
{
	size_t i;

	w->id = 1;
	w->chunks = 1;
	for (i = 0; i < t->nr_cores; i++)
		rwctl_topo_widen(w, t->cores[i].cpu, t->cores[i].chunks);
	for (i = 0; i < t->nr_nics; i++)
		rwctl_topo_widen(w, t->nics[i].nic, t->nics[i].chunks);
}

/* "  48 chunks (50%)": the count (both modes) and its share (text). */
static void rwctl_topo_print_chunks(struct rwctl_printer *p,
				    const struct rwctl_topo *t,
				    const struct rwctl_topo_widths *w,
				    uint32_t chunks)
{
	char fmt[32], share[16];

	snprintf(fmt, sizeof(fmt), "  %%%uu %s", w->chunks,
		 chunks == 1 ? "chunk " : "chunks");
	rwctl_pr_u32(p, "chunks", fmt, chunks);
	if (!t->nr_chunks)
		return;
	snprintf(share, sizeof(share), "(%u%%)",
		 (unsigned int)(((uint64_t)chunks * 100 + t->nr_chunks / 2) /
				t->nr_chunks));
	rwctl_pr_text(p, " %-6s", share);
}

/*
 * "    cpu 3   48 chunks (50%)   1.5 MiB": opens the object of a core or a
 * NIC (@kind is its id's key and word) with what both report; the caller
 * adds its own fields and closes it.
 */
static void rwctl_topo_print_dev(struct rwctl_printer *p,
				 const struct rwctl_topo *t,
				 const struct rwctl_topo_widths *w,
				 const char *kind, uint32_t id, uint32_t node,
				 uint32_t chunks, uint64_t bytes)
{
	char fmt[32], human[RWCTL_PR_HUMAN_LEN];

	rwctl_pr_obj_open(p, NULL);
	snprintf(fmt, sizeof(fmt), "    %s %%-%uu", kind, w->id);
	rwctl_pr_u32(p, kind, fmt, id);
	rwctl_pr_u32(p, "node", NULL, node);
	rwctl_topo_print_chunks(p, t, w, chunks);
	rwctl_pr_u64(p, "bytes", NULL, bytes);
	rwctl_pr_text(p, "  %8s", rwctl_pr_fmt_bytes(human, bytes));
}

static void rwctl_topo_print_core(struct rwctl_printer *p,
				  const struct rwctl_topo *t,
				  const struct rwctl_topo_widths *w,
				  const struct rwctl_topo_core *c)
{
	char human[RWCTL_PR_HUMAN_LEN];

	rwctl_topo_print_dev(p, t, w, "cpu", c->cpu, c->node, c->chunks,
			     c->bytes);
	rwctl_pr_u64(p, "busy_ns", NULL, c->busy_ns);
	rwctl_pr_text(p, "  busy %s", rwctl_pr_fmt_ns(human, c->busy_ns));
	rwctl_pr_obj_close(p);
	rwctl_pr_nl(p);
}

static void rwctl_topo_print_nic(struct rwctl_printer *p,
				 const struct rwctl_topo *t,
				 const struct rwctl_topo_widths *w,
				 const struct rwctl_topo_nic *n)
{
	rwctl_topo_print_dev(p, t, w, "nic", n->nic, n->node, n->chunks,
			     n->bytes);
	rwctl_pr_obj_close(p);
	rwctl_pr_nl(p);
}

/* "node 0: cpus 0-1, 512 MiB" without its newline; the devices follow. */
static void rwctl_topo_print_node(struct rwctl_printer *p,
				  const struct rwctl_node *n)
{
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_u32(p, "id", "node %u:", n->id);
	rwctl_pr_str(p, "cpulist", n->nr_cpus ? " cpus %s," : NULL,
		     n->cpulist);
	if (!n->nr_cpus)
		rwctl_pr_text(p, " no cpus,");
	rwctl_pr_u32(p, "nr_cpus", NULL, n->nr_cpus);
	rwctl_pr_u64(p, "mem_mb", " %" PRIu64 " MiB", n->mem_mb);
	rwctl_pr_obj_close(p);
}

static void rwctl_topo_print_run(struct rwctl_printer *p,
				 const struct rwctl_topo_run *r)
{
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_u32(p, "first", r->count == 1 ? "    chunk %u" :
		     "    chunks %u", r->first);
	rwctl_pr_u32(p, "count", NULL, r->count);
	if (r->count > 1)
		rwctl_pr_text(p, "-%u", r->first + r->count - 1);
	rwctl_pr_u32(p, "cpu", " -> cpu %u", r->cpu);
	rwctl_pr_u32(p, "node", " (node %u)", r->node);
	rwctl_pr_u32(p, "nic", " nic %u", r->nic);
	rwctl_pr_obj_close(p);
	rwctl_pr_nl(p);
}

/* Longest cycle of placements folded into one line of text. */
#define RWCTL_TOPO_MAX_PERIOD	256

static bool rwctl_topo_same_place(const struct rwctl_topo_run *a,
				  const struct rwctl_topo_run *b)
{
	return a->cpu == b->cpu && a->nic == b->nic && a->node == b->node;
}

/*
 * How many runs from @i on repeat a cycle of *@period placements, every
 * run of the same size and each starting where the last ended: at least
 * two whole cycles, else 0. The cycle covering most runs wins, the
 * shortest of equals.
 */
static size_t rwctl_topo_stripe(const struct rwctl_topo *t, size_t i,
				size_t *period)
{
	const struct rwctl_topo_run *r = t->runs;
	size_t p, j, best = 0;
	uint32_t c = r[i].count;

	for (p = 2; p <= RWCTL_TOPO_MAX_PERIOD && i + 2 * p <= t->nr_runs; p++) {
		for (j = i + 1; j < t->nr_runs; j++)
			if (r[j].count != c ||
			    r[j].first != r[j - 1].first + c ||
			    (j - i >= p && !rwctl_topo_same_place(&r[j], &r[j - p])))
				break;
		if (j - i >= 2 * p && j - i > best) {
			best = j - i;
			*period = p;
		}
		if (i + best == t->nr_runs)
			break;
	}
	return best;
}

/* @cpus (@n of them, sorted in place) as a CPU list: "0-3,8". */
static void rwctl_topo_cpulist(char *buf, size_t len, uint32_t *cpus,
			       size_t n)
{
	size_t k, end, off = 0;

	qsort(cpus, n, sizeof(*cpus), rwctl_topo_cmp_u32);
	buf[0] = '\0';
	for (k = 0; k < n && off < len; k = end + 1) {
		end = k;
		while (end + 1 < n && cpus[end + 1] <= cpus[end] + 1)
			end++;
		off += (size_t)snprintf(buf + off, len - off,
					cpus[k] == cpus[end] ? "%s%u" : "%s%u-%u",
					off ? "," : "", cpus[k], cpus[end]);
	}
}

/*
 * Text: the @n runs from @i, a cycle of @period placements, as one line;
 * the placements grouped by node and NIC in the order they first come.
 */
static void rwctl_topo_print_stripe(struct rwctl_printer *p,
				    const struct rwctl_topo *t, size_t i,
				    size_t n, size_t period)
{
	const struct rwctl_topo_run *r = &t->runs[i], *last = &r[n - 1];
	uint32_t cpus[RWCTL_TOPO_MAX_PERIOD];
	bool done[RWCTL_TOPO_MAX_PERIOD] = { false };
	char list[RWCTL_TOPO_MAX_PERIOD * 11];
	size_t k, m, nr;

	rwctl_pr_text(p, "    chunks %u-%u -> %u chunk%s each in turn on",
		      r->first, last->first + last->count - 1, r->count,
		      r->count == 1 ? "" : "s");
	for (k = 0; k < period; k++) {
		if (done[k])
			continue;
		for (m = k, nr = 0; m < period; m++) {
			if (done[m] || r[m].node != r[k].node ||
			    r[m].nic != r[k].nic)
				continue;
			done[m] = true;
			cpus[nr++] = r[m].cpu;
		}
		rwctl_topo_cpulist(list, sizeof(list), cpus, nr);
		rwctl_pr_text(p, "%s %s %s (node %u) nic %u", k ? "," : "",
			      nr == 1 ? "cpu" : "cpus", list, r[k].node,
			      r[k].nic);
	}
	rwctl_pr_nl(p);
}

/* JSON: the flat arrays. */
static void rwctl_topo_print_lists(struct rwctl_printer *p,
				   const struct rwctl_status *st,
				   const struct rwctl_topo *t,
				   const struct rwctl_topo_widths *w)
{
	size_t i;

	rwctl_pr_arr_open(p, "nodes");
	for (i = 0; i < st->nr_nodes; i++)
		rwctl_topo_print_node(p, &st->nodes[i]);
	rwctl_pr_arr_close(p);
	rwctl_pr_arr_open(p, "devices");
	for (i = 0; i < st->nr_devs; i++)
		rwctl_dev_print_one(p, &st->devs[i], NULL, false);
	rwctl_pr_arr_close(p);
	rwctl_pr_arr_open(p, "cores");
	for (i = 0; i < t->nr_cores; i++)
		rwctl_topo_print_core(p, t, w, &t->cores[i]);
	rwctl_pr_arr_close(p);
	rwctl_pr_arr_open(p, "nics");
	for (i = 0; i < t->nr_nics; i++)
		rwctl_topo_print_nic(p, t, w, &t->nics[i]);
	rwctl_pr_arr_close(p);
}

/*
 * Every node id worth a block, ascending and once each: the box's nodes
 * and any other node a core, NIC or device names. Returns the count, or
 * 0 with *@ids NULL if memory ran out (then the blocks are skipped).
 */
static size_t rwctl_topo_node_ids(const struct rwctl_status *st,
				  const struct rwctl_topo *t, uint32_t **ids)
{
	size_t n = 0, i, k;
	uint32_t *v;

	v = malloc((st->nr_nodes + st->nr_devs + t->nr_cores + t->nr_nics + 1) *
		   sizeof(*v));
	*ids = v;
	if (!v)
		return 0;
	for (i = 0; i < st->nr_nodes; i++)
		v[n++] = st->nodes[i].id;
	for (i = 0; i < st->nr_devs; i++)
		if (st->devs[i].node >= 0)
			v[n++] = (uint32_t)st->devs[i].node;
	for (i = 0; i < t->nr_cores; i++)
		v[n++] = t->cores[i].node;
	for (i = 0; i < t->nr_nics; i++)
		v[n++] = t->nics[i].node;
	qsort(v, n, sizeof(*v), rwctl_topo_cmp_u32);
	for (i = k = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* Text: one block per node, then the devices without one. */
static void rwctl_topo_print_blocks(struct rwctl_printer *p,
				    const struct rwctl_status *st,
				    const struct rwctl_topo *t,
				    const struct rwctl_topo_widths *w)
{
	unsigned int shown;
	uint32_t *ids, id;
	size_t nr, k, i;

	nr = rwctl_topo_node_ids(st, t, &ids);
	for (k = 0; k < nr; k++) {
		id = ids[k];
		for (i = 0; i < st->nr_nodes; i++)
			if (st->nodes[i].id == id)
				break;
		if (i < st->nr_nodes)
			rwctl_topo_print_node(p, &st->nodes[i]);
		else
			rwctl_pr_text(p, "node %u: not online", id);
		shown = 0;
		for (i = 0; i < st->nr_devs; i++)
			if (st->devs[i].node >= 0 &&
			    (uint32_t)st->devs[i].node == id)
				rwctl_dev_print_one(p, &st->devs[i],
						    shown++ ? " %s" : ", rdma %s",
						    false);
		rwctl_pr_nl(p);
		for (i = 0; i < t->nr_cores; i++)
			if (t->cores[i].node == id)
				rwctl_topo_print_core(p, t, w, &t->cores[i]);
		for (i = 0; i < t->nr_nics; i++)
			if (t->nics[i].node == id)
				rwctl_topo_print_nic(p, t, w, &t->nics[i]);
	}
	free(ids);

	shown = 0;
	for (i = 0; i < st->nr_devs; i++)
		if (st->devs[i].node < 0)
			rwctl_dev_print_one(p, &st->devs[i],
					    shown++ ? " %s" :
					    "rdma without a NUMA node: %s", false);
	if (shown)
		rwctl_pr_nl(p);
}

void rwctl_topo_print(struct rwctl_printer *p, const struct rwctl_status *st,
		      const struct rwctl_topo *t)
{
	struct rwctl_topo_widths w;
	size_t i, n, period;

	rwctl_topo_widths(t, &w);
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "name", "job %s:", t->name);
	rwctl_pr_bool(p, "declared", NULL, t->declared);
	if (t->declared) {
		rwctl_pr_u32(p, "chunks", t->nr_chunks == 1 ? " %u chunk" :
			     " %u chunks", t->nr_chunks);
		rwctl_pr_text(p, " on %zu core%s and %zu nic%s", t->nr_cores,
			      t->nr_cores == 1 ? "" : "s", t->nr_nics,
			      t->nr_nics == 1 ? "" : "s");
	} else {
		rwctl_pr_u32(p, "chunks", NULL, 0);
		rwctl_pr_text(p, " no layout declared yet; its cores, nics and chunk map appear once a worker declares one");
	}
	rwctl_pr_nl(p);
	rwctl_boxes_print(p, &t->boxes, "");

	if (rwctl_pr_is_json(p))
		rwctl_topo_print_lists(p, st, t, &w);
	else
		rwctl_topo_print_blocks(p, st, t, &w);

	if (t->declared)
		rwctl_pr_text(p, "chunk map:\n");
	rwctl_pr_arr_open(p, "chunk_map");
	for (i = 0; i < t->nr_runs; i += n) {
		n = rwctl_pr_is_json(p) ? 0 : rwctl_topo_stripe(t, i, &period);
		if (n) {
			rwctl_topo_print_stripe(p, t, i, n, period);
			continue;
		}
		rwctl_topo_print_run(p, &t->runs[i]);
		n = 1;
	}
	rwctl_pr_arr_close(p);
	if (t->declared && !t->nr_runs)
		rwctl_pr_text(p, "    (no runs)\n");
	rwctl_pr_bool(p, "truncated", t->truncated ?
		      "    ... more runs not sent: the module reports at most " RW_STR(RW_TOPO_MAX_RUNS) "\n" :
		      NULL, t->truncated);
	rwctl_pr_obj_close(p);
}

static int rwctl_topo_show(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_topo t = { 0 };
	struct rwctl_printer p;
	struct rwctl_status st;
	struct rwctl_err e;
	char msg[256];
	int err, ret;

	if (argc < 1)
		return rwctl_usage_error(ctl, "topo", "'topo show' needs a JOB");
	if (rwctl_job_check_name(argv[0], msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "topo", "%s", msg);

	memset(&e, 0, sizeof(e));
	err = be->topo(argv[0], &t, &e);
	if (err) {
		rwctl_topo_free(&t);
		return rwctl_job_report(ctl, "topo show", argv[0], err, &e,
					NULL);
	}
	ret = rwctl_fetch_status(ctl, &st);
	if (ret) {
		rwctl_topo_free(&t);
		return ret;
	}
	rwctl_begin_output(ctl, &p);
	rwctl_topo_print(&p, &st, &t);
	rwctl_status_free(&st);
	rwctl_topo_free(&t);
	return rwctl_end_output(ctl, &p);
}

static const struct rwctl_cmd rwctl_topo_cmds[] = {
	{
		.name = "show",
		.args = "JOB",
		.help = "a job's cores, NICs and chunk map by NUMA node",
		.details =
"topo show JOB\n"
"  Per NUMA node of the box: its CPUs, memory and RDMA devices, then the\n"
"  job's aggregation cores there (chunks, bytes, time busy) and its NICs;\n"
"  then the chunk map as runs of chunks with one core and NIC. Nothing but\n"
"  the nodes until a worker has declared the job's layout. A job with a box\n"
"  set lists its boxes first, with each box's share of the model (chunks,\n"
"  bytes, per cent of the bytes) once the layout is declared.\n",
		.max_args = 1,
		.run = rwctl_topo_show,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_topo = {
	.name = "topo",
	.help = "where a job's chunks are aggregated and sent",
	.cmds = rwctl_topo_cmds,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl topo: the parser of RW_CMD_TOPO_GET replies (nests of entries built
 * with libnl as the module would, padded u64s, a truncated chunk map, and
 * replies a broken module might send: missing or mis-sized attributes, runs
 * outside the model, lists without a layout, messages cut short), the text
 * and JSON printers, and "topo show" through rwctl_run() against a
 * scripted backend and status.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "backend.h"
#include "genl.h"
#include "print.h"
#include "rwctl.h"
#include "rwtest.h"
#include "status.h"
#include "topo.h"

#define RW_TEST_FAMILY	0x1f

/* ---- the reply parser ---- */

struct rw_fx {
	struct nl_msg *msg;
	struct rwctl_topo t;
	char why[256];
};

static int rw_msg_setup(void **state)
{
	struct rw_fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->msg = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_TOPO_GET);
	*state = fx;
	return 0;
}

static int rw_msg_teardown(void **state)
{
	struct rw_fx *fx = *state;

	rwctl_topo_free(&fx->t);
	nlmsg_free(fx->msg);
	free(fx);
	return 0;
}

static void rw_reset(struct rw_fx *fx)
{
	nlmsg_free(fx->msg);
	fx->msg = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_TOPO_GET);
}

static int rw_parse(struct rw_fx *fx)
{
	rwctl_topo_free(&fx->t);
	fx->why[0] = '\0';
	return rwctl_genl_parse_topo(nlmsg_hdr(fx->msg), &fx->t, fx->why,
				     sizeof(fx->why));
}

static void rw_assert_malformed(struct rw_fx *fx, const char *what)
{
	rw_assert_malformed_why(rw_parse(fx), fx->why,
				"malformed topology reply", what);
}

#define BIT(a)	(1U << (a))

/* A u64 as the kernel's nla_put_u64_64bit() may send it: padded first. */
static void rw_put_u64_pad(struct nl_msg *m, int type, uint64_t v)
{
	assert_int_equal(nla_put(m, RW_TOPO_A_PAD, 0, NULL), 0);
	assert_int_equal(nla_put_u64(m, type, v), 0);
}

/* Core entry; attributes in @skip are left out. */
static void rw_put_core(struct nl_msg *m, uint32_t cpu, uint32_t node,
			uint32_t chunks, uint64_t bytes, uint64_t busy,
			unsigned int skip)
{
	struct nlattr *e = nla_nest_start(m, RW_JOB_A_ENTRY);

	assert_non_null(e);
	rw_test_put_u32(m, skip, RW_TOPO_A_CPU, cpu);
	rw_test_put_u32(m, skip, RW_TOPO_A_NODE, node);
	rw_test_put_u32(m, skip, RW_TOPO_A_CHUNKS, chunks);
	if (!(skip & BIT(RW_TOPO_A_BYTES)))
		rw_put_u64_pad(m, RW_TOPO_A_BYTES, bytes);
	rw_test_put_u64(m, skip, RW_TOPO_A_BUSY_NS, busy);
	nla_nest_end(m, e);
}

static void rw_put_nic(struct nl_msg *m, uint32_t nic, uint32_t node,
		       uint32_t chunks, uint64_t bytes, unsigned int skip)
{
	struct nlattr *e = nla_nest_start(m, RW_JOB_A_ENTRY);

	assert_non_null(e);
	rw_test_put_u32(m, skip, RW_TOPO_A_NIC, nic);
	rw_test_put_u32(m, skip, RW_TOPO_A_NODE, node);
	rw_test_put_u32(m, skip, RW_TOPO_A_CHUNKS, chunks);
	rw_test_put_u64(m, skip, RW_TOPO_A_BYTES, bytes);
	nla_nest_end(m, e);
}

static void rw_put_run(struct nl_msg *m, uint32_t first, uint32_t count,
		       uint32_t cpu, uint32_t node, uint32_t nic,
		       unsigned int skip)
{
	struct nlattr *e = nla_nest_start(m, RW_JOB_A_ENTRY);

	assert_non_null(e);
	rw_test_put_u32(m, skip, RW_TOPO_A_FIRST, first);
	rw_test_put_u32(m, skip, RW_TOPO_A_COUNT, count);
	rw_test_put_u32(m, skip, RW_TOPO_A_CPU, cpu);
	rw_test_put_u32(m, skip, RW_TOPO_A_NIC, nic);
	rw_test_put_u32(m, skip, RW_TOPO_A_NODE, node);
	nla_nest_end(m, e);
}

static void rw_put_head(struct nl_msg *m, const char *name, uint32_t chunks)
{
	assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, name), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_CHUNKS, chunks), 0);
}

/*
 * The reply for 96 chunks on three cores of two nodes, as the module
 * sends it: in its own order (not sorted), with a truncated chunk map if
 * @truncated.
 */
static void rw_put_layout(struct nl_msg *m, bool truncated)
{
	struct nlattr *l;

	rw_put_head(m, "train1", 96);
	l = nla_nest_start(m, RW_JOB_A_CORES);
	rw_put_core(m, 3, 1, 24, 786432, 2900000, 0);
	rw_put_core(m, 0, 0, 48, 1572864, 12000000, 0);
	rw_put_core(m, 2, 1, 24, 786432, 3100000, 0);
	nla_nest_end(m, l);
	l = nla_nest_start(m, RW_JOB_A_NICS);
	rw_put_nic(m, 1, 1, 48, 1572864, 0);
	rw_put_nic(m, 0, 0, 48, 1572864, 0);
	nla_nest_end(m, l);
	l = nla_nest_start(m, RW_JOB_A_CHUNK_MAP);
	rw_put_run(m, 0, 48, 0, 0, 0, 0);
	rw_put_run(m, 72, 24, 3, 1, 1, 0);
	rw_put_run(m, 48, 24, 2, 1, 1, 0);
	if (truncated)
		assert_int_equal(nla_put_flag(m, RW_TOPO_A_TRUNCATED), 0);
	nla_nest_end(m, l);
}

static void rw_test_parse_layout(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_layout(fx->msg, false);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->t.name, "train1");
	assert_true(fx->t.declared);
	assert_int_equal(fx->t.nr_chunks, 96);
	assert_false(fx->t.truncated);

	/* Sorted by node, then cpu / nic; runs by their first chunk. */
	assert_int_equal(fx->t.nr_cores, 3);
	assert_int_equal(fx->t.cores[0].cpu, 0);
	assert_int_equal(fx->t.cores[0].node, 0);
	assert_int_equal(fx->t.cores[0].chunks, 48);
	assert_int_equal(fx->t.cores[0].bytes, 1572864);
	assert_int_equal(fx->t.cores[0].busy_ns, 12000000);
	assert_int_equal(fx->t.cores[1].cpu, 2);
	assert_int_equal(fx->t.cores[2].cpu, 3);
	assert_int_equal(fx->t.cores[2].busy_ns, 2900000);

	assert_int_equal(fx->t.nr_nics, 2);
	assert_int_equal(fx->t.nics[0].nic, 0);
	assert_int_equal(fx->t.nics[1].nic, 1);
	assert_int_equal(fx->t.nics[1].node, 1);
	assert_int_equal(fx->t.nics[1].bytes, 1572864);

	assert_int_equal(fx->t.nr_runs, 3);
	assert_int_equal(fx->t.runs[1].first, 48);
	assert_int_equal(fx->t.runs[1].count, 24);
	assert_int_equal(fx->t.runs[1].cpu, 2);
	assert_int_equal(fx->t.runs[1].node, 1);
	assert_int_equal(fx->t.runs[1].nic, 1);
	assert_int_equal(fx->t.runs[2].first, 72);
}

static void rw_test_parse_truncated_flag(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_layout(fx->msg, true);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->t.truncated);
	assert_int_equal(fx->t.nr_runs, 3);
}

/* No layout: the name only, and no lists may come with it. */
static void rw_test_parse_no_layout(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "fresh"), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->t.name, "fresh");
	assert_false(fx->t.declared);
	assert_int_equal(fx->t.nr_cores + fx->t.nr_nics + fx->t.nr_runs, 0);

	/* The kernel keeps an empty nest; libnl would drop it. */
	l = nla_nest_start(fx->msg, RW_JOB_A_CORES);
	nla_nest_end_keep_empty(fx->msg, l);
	rw_assert_malformed(fx, "without a chunk count");
}

/* A layout with absent or empty lists is a layout with nothing in them. */
static void rw_test_parse_empty_lists(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_head(fx->msg, "j", 8);
	nla_nest_end_keep_empty(fx->msg,
				nla_nest_start(fx->msg, RW_JOB_A_CHUNK_MAP));
	assert_non_null(nla_find(genlmsg_attrdata(nlmsg_data(nlmsg_hdr(fx->msg)), 0),
				 genlmsg_attrlen(nlmsg_data(nlmsg_hdr(fx->msg)), 0),
				 RW_JOB_A_CHUNK_MAP));
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->t.declared);
	assert_int_equal(fx->t.nr_chunks, 8);
	assert_int_equal(fx->t.nr_cores + fx->t.nr_nics + fx->t.nr_runs, 0);
	assert_non_null(fx->t.cores);
}

static void rw_test_parse_missing(void **state)
{
	static const int core_attrs[] = {
		RW_TOPO_A_CPU, RW_TOPO_A_NODE, RW_TOPO_A_CHUNKS,
		RW_TOPO_A_BYTES, RW_TOPO_A_BUSY_NS,
	};
	static const int nic_attrs[] = {
		RW_TOPO_A_NIC, RW_TOPO_A_NODE, RW_TOPO_A_CHUNKS, RW_TOPO_A_BYTES,
	};
	static const int run_attrs[] = {
		RW_TOPO_A_FIRST, RW_TOPO_A_COUNT, RW_TOPO_A_CPU, RW_TOPO_A_NIC,
		RW_TOPO_A_NODE,
	};
	struct rw_fx *fx = *state;
	struct nlattr *l;
	size_t i;

	for (i = 0; i < sizeof(core_attrs) / sizeof(core_attrs[0]); i++) {
		rw_reset(fx);
		rw_put_head(fx->msg, "j", 8);
		l = nla_nest_start(fx->msg, RW_JOB_A_CORES);
		rw_put_core(fx->msg, 0, 0, 8, 1, 1, 0);
		rw_put_core(fx->msg, 1, 0, 8, 1, 1, BIT(core_attrs[i]));
		nla_nest_end(fx->msg, l);
		rw_assert_malformed(fx, "core 1 lacks an attribute");
	}
	for (i = 0; i < sizeof(nic_attrs) / sizeof(nic_attrs[0]); i++) {
		rw_reset(fx);
		rw_put_head(fx->msg, "j", 8);
		l = nla_nest_start(fx->msg, RW_JOB_A_NICS);
		rw_put_nic(fx->msg, 0, 0, 8, 1, BIT(nic_attrs[i]));
		nla_nest_end(fx->msg, l);
		rw_assert_malformed(fx, "nic 0 lacks an attribute");
	}
	for (i = 0; i < sizeof(run_attrs) / sizeof(run_attrs[0]); i++) {
		rw_reset(fx);
		rw_put_head(fx->msg, "j", 8);
		l = nla_nest_start(fx->msg, RW_JOB_A_CHUNK_MAP);
		rw_put_run(fx->msg, 0, 8, 0, 0, 0, BIT(run_attrs[i]));
		nla_nest_end(fx->msg, l);
		rw_assert_malformed(fx, "chunk map run 0 lacks an attribute");
	}

	rw_reset(fx);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_CHUNKS, 8), 0);
	rw_assert_malformed(fx, "no job name");
	rw_reset(fx);
	rw_put_head(fx->msg, "", 8);
	rw_assert_malformed(fx, "no job name");
}

static void rw_test_parse_lengths(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l, *e;
	uint64_t v8 = 96;
	uint32_t v4 = 1;

	/* A u32 sent as eight bytes, where libnl only checks the minimum. */
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_CHUNKS, sizeof(v8), &v8), 0);
	rw_assert_malformed(fx, NULL);

	/* A u64 sent as four bytes inside a core. */
	rw_reset(fx);
	rw_put_head(fx->msg, "j", 8);
	l = nla_nest_start(fx->msg, RW_JOB_A_CORES);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CPU, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_NODE, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CHUNKS, 8), 0);
	assert_int_equal(nla_put(fx->msg, RW_TOPO_A_BYTES, sizeof(v4), &v4), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_TOPO_A_BUSY_NS, 0), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, l);
	rw_assert_malformed(fx, "core 0");

	/* A u64 with four bytes too many, in a nic. */
	rw_reset(fx);
	rw_put_head(fx->msg, "j", 8);
	l = nla_nest_start(fx->msg, RW_JOB_A_NICS);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_NIC, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_NODE, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CHUNKS, 8), 0);
	{
		uint32_t v12[3] = { 1, 0, 0 };

		assert_int_equal(nla_put(fx->msg, RW_TOPO_A_BYTES, sizeof(v12),
					 v12), 0);
	}
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, l);
	rw_assert_malformed(fx, "nic 0: an attribute of the wrong length");

	/* The name without its NUL, or longer than a job name can be. */
	rw_reset(fx);
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_NAME, 3, "abc"), 0);
	rw_assert_malformed(fx, NULL);
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME,
					"abcdefghijabcdefghijabcdefghij123"), 0);
	rw_assert_malformed(fx, NULL);
}

static void rw_test_parse_bad_runs(void **state)
{
	static const uint32_t runs[][2] = {
		{ 0, 0 },		/* empty */
		{ 90, 7 },		/* past the 96th chunk */
		{ 96, 1 },
		{ 0xffffffff, 2 },	/* wraps in 32 bits */
	};
	struct rw_fx *fx = *state;
	struct nlattr *l;
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		rw_reset(fx);
		rw_put_head(fx->msg, "j", 96);
		l = nla_nest_start(fx->msg, RW_JOB_A_CHUNK_MAP);
		rw_put_run(fx->msg, runs[i][0], runs[i][1], 0, 0, 0, 0);
		nla_nest_end(fx->msg, l);
		rw_assert_malformed(fx, "outside the job's 96 chunks");
	}

	/* The last chunk exactly. */
	rw_reset(fx);
	rw_put_head(fx->msg, "j", 96);
	l = nla_nest_start(fx->msg, RW_JOB_A_CHUNK_MAP);
	rw_put_run(fx->msg, 95, 1, 0, 0, 0, 0);
	nla_nest_end(fx->msg, l);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->t.nr_runs, 1);
}

/* Cut short in transit: libnl alone would silently drop the tail. */
static void rw_test_parse_cut_short(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l, *e;

	rw_put_layout(fx->msg, false);
	rw_test_genl_cut(fx->msg, 8);
	rw_assert_malformed(fx, "bytes left after the last attribute");

	/* A list whose last entry is cut inside the nest. */
	rw_reset(fx);
	rw_put_head(fx->msg, "j", 8);
	l = nla_nest_start(fx->msg, RW_JOB_A_NICS);
	rw_put_nic(fx->msg, 0, 0, 8, 1, 0);
	nla_nest_end(fx->msg, l);
	l->nla_len -= 4;
	rw_assert_malformed(fx, NULL);

	/* An entry with garbage after its attributes. */
	rw_reset(fx);
	rw_put_head(fx->msg, "j", 8);
	l = nla_nest_start(fx->msg, RW_JOB_A_NICS);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_NIC, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_NODE, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CHUNKS, 8), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_TOPO_A_BYTES, 1), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CPU, 0), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, l);
	/* The last attribute's header claims more than the entry holds. */
	((struct nlattr *)((char *)e + e->nla_len - 8))->nla_len = 12;
	rw_assert_malformed(fx, "nic 0");
}

/* Append-only uapi: newer attributes and entry types are skipped. */
static void rw_test_parse_newer(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l, *e;

	rw_put_head(fx->msg, "j", 8);
	assert_int_equal(nla_put_u64(fx->msg, RW_JOB_A_MAX + 3, 7), 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_CORES);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY + 5);
	assert_int_equal(nla_put_u32(fx->msg, 1, 0), 0);
	nla_nest_end(fx->msg, e);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CPU, 5), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_NODE, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_TOPO_A_CHUNKS, 8), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_TOPO_A_BYTES, 1), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_TOPO_A_BUSY_NS, 2), 0);
	assert_int_equal(nla_put_string(fx->msg, RW_TOPO_A_MAX + 1, "new"), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, l);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->t.nr_cores, 1);
	assert_int_equal(fx->t.cores[0].cpu, 5);
}

/* ---- printing ---- */

static const struct rwctl_topo_core rw_cores[] = {
	{ .cpu = 0, .node = 0, .chunks = 48, .bytes = 1572864, .busy_ns = 12000000 },
	{ .cpu = 2, .node = 1, .chunks = 24, .bytes = 786432, .busy_ns = 3100000 },
	{ .cpu = 3, .node = 1, .chunks = 24, .bytes = 786432, .busy_ns = 2900000 },
};
static const struct rwctl_topo_nic rw_nics[] = {
	{ .nic = 0, .node = 0, .chunks = 48, .bytes = 1572864 },
	{ .nic = 1, .node = 1, .chunks = 48, .bytes = 1572864 },
};
static const struct rwctl_topo_run rw_runs[] = {
	{ .first = 0, .count = 48, .cpu = 0, .nic = 0, .node = 0 },
	{ .first = 48, .count = 24, .cpu = 2, .nic = 1, .node = 1 },
	{ .first = 72, .count = 23, .cpu = 3, .nic = 1, .node = 1 },
	{ .first = 95, .count = 1, .cpu = 3, .nic = 1, .node = 1 },
};

/* The fixture above as a heap-allocated topology (freed by rwctl_topo_free). */
static void rw_topo_fill(struct rwctl_topo *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->name, "train1");
	t->declared = true;
	t->nr_chunks = 96;
	t->cores = malloc(sizeof(rw_cores));
	t->nics = malloc(sizeof(rw_nics));
	t->runs = malloc(sizeof(rw_runs));
	assert_non_null(t->cores);
	assert_non_null(t->nics);
	assert_non_null(t->runs);
	memcpy(t->cores, rw_cores, sizeof(rw_cores));
	memcpy(t->nics, rw_nics, sizeof(rw_nics));
	memcpy(t->runs, rw_runs, sizeof(rw_runs));
	t->nr_cores = 3;
	t->nr_nics = 2;
	t->nr_runs = 4;
}

static char *rw_render(const struct rwctl_topo *t, unsigned int flags)
{
	struct rwctl_status st;
	struct rwctl_printer p;
	struct rw_capture c;
	char *out;

	rw_test_status_fill(&st);
	rw_render_begin(&c, &p, flags);
	rwctl_topo_print(&p, &st, t);
	out = rw_render_end(&c, &p);
	rwctl_status_free(&st);
	return out;
}

static const char rw_text[] =
	"job train1: 96 chunks on 3 cores and 2 nics\n"
	"node 0: cpus 0, 512 MiB, rdma rxe0\n"
	"    cpu 0  48 chunks (50%)   1.50 MiB  busy 12.0 ms\n"
	"    nic 0  48 chunks (50%)   1.50 MiB\n"
	"node 1: cpus 1-3, 1024 MiB\n"
	"    cpu 2  24 chunks (25%)    768 KiB  busy 3.10 ms\n"
	"    cpu 3  24 chunks (25%)    768 KiB  busy 2.90 ms\n"
	"    nic 1  48 chunks (50%)   1.50 MiB\n"
	"rdma without a NUMA node: siw_eth1\n"
	"chunk map:\n"
	"    chunks 0-47 -> cpu 0 (node 0) nic 0\n"
	"    chunks 48-71 -> cpu 2 (node 1) nic 1\n"
	"    chunks 72-94 -> cpu 3 (node 1) nic 1\n"
	"    chunk 95 -> cpu 3 (node 1) nic 1\n";

static const char rw_json[] =
	"{\"name\":\"train1\",\"declared\":true,\"chunks\":96,"
	"\"nodes\":[{\"id\":0,\"cpulist\":\"0\",\"nr_cpus\":1,\"mem_mb\":512},"
	"{\"id\":1,\"cpulist\":\"1-3\",\"nr_cpus\":3,\"mem_mb\":1024}],"
	"\"devices\":[{\"name\":\"rxe0\",\"numa_node\":0,\"ports\":1,"
	"\"node_guid\":\"5054:00ff:fe12:3456\",\"index\":1},"
	"{\"name\":\"siw_eth1\",\"numa_node\":-1,\"ports\":2,"
	"\"node_guid\":\"0000:0000:00ab:cdef\",\"index\":7}],"
	"\"cores\":[{\"cpu\":0,\"node\":0,\"chunks\":48,\"bytes\":1572864,\"busy_ns\":12000000},"
	"{\"cpu\":2,\"node\":1,\"chunks\":24,\"bytes\":786432,\"busy_ns\":3100000},"
	"{\"cpu\":3,\"node\":1,\"chunks\":24,\"bytes\":786432,\"busy_ns\":2900000}],"
	"\"nics\":[{\"nic\":0,\"node\":0,\"chunks\":48,\"bytes\":1572864},"
	"{\"nic\":1,\"node\":1,\"chunks\":48,\"bytes\":1572864}],"
	"\"chunk_map\":[{\"first\":0,\"count\":48,\"cpu\":0,\"node\":0,\"nic\":0},"
	"{\"first\":48,\"count\":24,\"cpu\":2,\"node\":1,\"nic\":1},"
	"{\"first\":72,\"count\":23,\"cpu\":3,\"node\":1,\"nic\":1},"
	"{\"first\":95,\"count\":1,\"cpu\":3,\"node\":1,\"nic\":1}],"
	"\"truncated\":false}\n";

static void rw_test_print_text(void **state)
{
	struct rwctl_topo t;
	char *out;

	(void)state;
	rw_topo_fill(&t);
	out = rw_render(&t, 0);
	assert_string_equal(out, rw_text);
	free(out);

	t.truncated = true;
	out = rw_render(&t, 0);
	assert_non_null(strstr(out, "    chunk 95 -> cpu 3 (node 1) nic 1\n"
				    "    ... more runs not sent: the module reports at most 4096\n"));
	free(out);
	rwctl_topo_free(&t);
}

static void rw_test_print_json(void **state)
{
	struct rwctl_topo t;
	char *out;

	(void)state;
	rw_topo_fill(&t);
	out = rw_render(&t, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_string_equal(out, rw_json);
	free(out);

	t.truncated = true;
	out = rw_render(&t, RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\n    \"truncated\": true\n}\n"));
	assert_non_null(strstr(out, "\n    \"chunk_map\": [\n        {\n"
				    "            \"first\": 0,\n"));
	free(out);
	rwctl_topo_free(&t);
}

static void rw_test_print_no_layout(void **state)
{
	struct rwctl_topo t;
	char *out;

	(void)state;
	memset(&t, 0, sizeof(t));
	strcpy(t.name, "fresh");
	out = rw_render(&t, 0);
	assert_string_equal(out,
		"job fresh: no layout declared yet; its cores, nics and chunk map appear once a worker declares one\n"
		"node 0: cpus 0, 512 MiB, rdma rxe0\n"
		"node 1: cpus 1-3, 1024 MiB\n"
		"rdma without a NUMA node: siw_eth1\n");
	free(out);

	out = rw_render(&t, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out, "{\"name\":\"fresh\",\"declared\":false,\"chunks\":0,\"nodes\":[{"));
	assert_non_null(strstr(out, "\"cores\":[],\"nics\":[],\"chunk_map\":[],\"truncated\":false}\n"));
	free(out);
}

/*
 * A core on a node the status does not list (offline since), cpu and
 * chunk counts of several digits, a node without CPUs: the block still
 * comes, the columns stay aligned.
 */
static void rw_test_print_odd_nodes(void **state)
{
	struct rwctl_topo t;
	char *out;

	(void)state;
	rw_topo_fill(&t);
	t.nr_chunks = 2000;
	t.cores[1].cpu = 17;
	t.cores[1].chunks = 1000;
	t.cores[2].node = 5;
	t.cores[2].chunks = 1;
	t.nr_runs = 0;
	out = rw_render(&t, 0);
	assert_non_null(strstr(out,
		"node 1: cpus 1-3, 1024 MiB\n"
		"    cpu 17  1000 chunks (50%)    768 KiB  busy 3.10 ms\n"
		"    nic 1     48 chunks (2%)    1.50 MiB\n"
		"node 5: not online\n"
		"    cpu 3      1 chunk  (0%)     768 KiB  busy 2.90 ms\n"));
	assert_non_null(strstr(out, "chunk map:\n    (no runs)\n"));
	free(out);
	rwctl_topo_free(&t);
}

/* The text of the chunk map alone: what follows "chunk map:\n". */
static char *rw_map_text(const struct rwctl_topo *t)
{
	char *out = rw_render(t, 0), *map;

	map = strstr(out, "chunk map:\n");
	assert_non_null(map);
	map = strdup(map + strlen("chunk map:\n"));
	free(out);
	return map;
}

static void rw_set_run(struct rwctl_topo_run *r, uint32_t first,
		       uint32_t count, uint32_t cpu, uint32_t node,
		       uint32_t nic)
{
	r->first = first;
	r->count = count;
	r->cpu = cpu;
	r->node = node;
	r->nic = nic;
}

/* Chunks dealt to cores in turn: one line of text, every run in JSON. */
static void rw_test_print_stripes(void **state)
{
	static const uint32_t cyc[4][3] = {	/* cpu, node, nic */
		{ 0, 0, 0 }, { 2, 1, 1 }, { 1, 0, 0 }, { 3, 1, 1 },
	};
	struct rwctl_topo_run runs[32];
	struct rwctl_topo t;
	char *out;
	uint32_t i;

	(void)state;
	memset(&t, 0, sizeof(t));
	strcpy(t.name, "rr");
	t.declared = true;
	t.runs = runs;

	for (i = 0; i < 19; i++)
		rw_set_run(&runs[i], i, 1, i % 2, 0, 0);
	t.nr_runs = 19;
	t.nr_chunks = 19;
	out = rw_map_text(&t);
	assert_string_equal(out, "    chunks 0-18 -> 1 chunk each in turn on cpus 0-1 (node 0) nic 0\n");
	free(out);
	out = rw_render(&t, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out, "{\"first\":18,\"count\":1,\"cpu\":0,\"node\":0,\"nic\":0}]"));
	free(out);

	/* Two nodes, each with its NIC, two chunks a turn. */
	for (i = 0; i < 8; i++)
		rw_set_run(&runs[i], 2 * i, 2, cyc[i % 4][0], cyc[i % 4][1],
			   cyc[i % 4][2]);
	t.nr_runs = 8;
	t.nr_chunks = 16;
	out = rw_map_text(&t);
	assert_string_equal(out, "    chunks 0-15 -> 2 chunks each in turn on cpus 0-1 (node 0) nic 0, cpus 2-3 (node 1) nic 1\n");
	free(out);

	/* A stripe, a block, and a cycle and a half (too short to fold). */
	for (i = 0; i < 8; i++)
		rw_set_run(&runs[i], i, 1, i % 2, 0, 0);
	rw_set_run(&runs[8], 8, 12, 0, 0, 0);
	rw_set_run(&runs[9], 20, 1, 1, 0, 0);
	rw_set_run(&runs[10], 21, 1, 0, 0, 0);
	rw_set_run(&runs[11], 22, 1, 1, 0, 0);
	t.nr_runs = 12;
	t.nr_chunks = 23;
	t.truncated = true;
	out = rw_map_text(&t);
	assert_string_equal(out,
		"    chunks 0-7 -> 1 chunk each in turn on cpus 0-1 (node 0) nic 0\n"
		"    chunks 8-19 -> cpu 0 (node 0) nic 0\n"
		"    chunk 20 -> cpu 1 (node 0) nic 0\n"
		"    chunk 21 -> cpu 0 (node 0) nic 0\n"
		"    chunk 22 -> cpu 1 (node 0) nic 0\n"
		"    ... more runs not sent: the module reports at most 4096\n");
	free(out);

	/* Runs of unequal size never fold, even when placements cycle. */
	for (i = 0; i < 6; i++)
		rw_set_run(&runs[i], 3 * i + (i > 2), i == 2 ? 4 : 3, i % 2, 0, 0);
	t.nr_runs = 6;
	t.nr_chunks = 19;
	t.truncated = false;
	out = rw_map_text(&t);
	assert_non_null(strstr(out, "    chunks 0-2 -> cpu 0 (node 0) nic 0\n"
				    "    chunks 3-5 -> cpu 1 (node 0) nic 0\n"));
	free(out);
}

/* ---- "topo show" against a scripted backend ---- */

static struct {
	unsigned int topo_calls, fetch_calls;
	int topo_err, fetch_err;
	bool kernel;
	const char *msg;
	char last[RW_JOB_NAME_MAX];
	bool no_layout;
} rw_be;

static int rw_be_topo(const char *name, struct rwctl_topo *t,
		      struct rwctl_err *e)
{
	rw_be.topo_calls++;
	snprintf(rw_be.last, sizeof(rw_be.last), "%s", name);
	if (rw_be.topo_err) {
		e->kernel = rw_be.kernel;
		if (rw_be.msg)
			snprintf(e->msg, sizeof(e->msg), "%s", rw_be.msg);
		/* Half a reply, as a failed parse leaves it. */
		t->cores = calloc(1, sizeof(*t->cores));
		return rw_be.topo_err;
	}
	if (rw_be.no_layout) {
		snprintf(t->name, sizeof(t->name), "%s", name);
		return 0;
	}
	rw_topo_fill(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	return 0;
}

static int rw_be_none(void)
{
	fail_msg("only the topo operation may be called");
	return -EIO;
}

static int rw_be_add(const struct rwctl_job_add *a, struct rwctl_job *o,
		     struct rwctl_err *e)
{
	(void)a, (void)o, (void)e;
	return rw_be_none();
}

static int rw_be_del(const char *n, bool f, struct rwctl_err *e)
{
	(void)n, (void)f, (void)e;
	return rw_be_none();
}

static int rw_be_get(const char *n, struct rwctl_job_list *l,
		     struct rwctl_err *e)
{
	(void)n, (void)l, (void)e;
	return rw_be_none();
}

static int rw_be_stats(const char *n, struct rwctl_stats *s,
		       struct rwctl_err *e)
{
	(void)n, (void)s, (void)e;
	return rw_be_none();
}

static const struct rwctl_job_backend rw_test_backend = {
	.add = rw_be_add,
	.del = rw_be_del,
	.get = rw_be_get,
	.policy = rw_be_add,
	.topo = rw_be_topo,
	.stats = rw_be_stats,
};

static int rw_fetch(struct rwctl_status *st, char *msg, size_t msglen)
{
	rw_be.fetch_calls++;
	if (rw_be.fetch_err) {
		snprintf(msg, msglen, "status failed");
		return rw_be.fetch_err;
	}
	rw_test_status_fill(st);
	return 0;
}

static struct rw_result rw_last;

static const struct rwctl rw_tmpl = {
	.fetch = rw_fetch,
	.job_backend = &rw_test_backend,
};

#define RUN(...) RW_RUN(&rw_last, &rw_tmpl, __VA_ARGS__)

static int rw_setup(void **state)
{
	(void)state;
	memset(&rw_be, 0, sizeof(rw_be));
	return 0;
}

static void rw_test_show(void **state)
{
	(void)state;
	RUN("topo", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_be.last, "train1");
	assert_string_equal(rw_last.out, rw_text);

	RUN("-j", "topo", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_json);

	rw_be.no_layout = true;
	RUN("-j", "topo", "show", "fresh");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"declared\":false"));
	assert_int_equal(rw_be.fetch_calls, 3);
}

static void rw_test_show_usage(void **state)
{
	static const char *const bad[][4] = {
		{ "topo", NULL }, { "topo", "show", NULL },
		{ "topo", "show", "a b", NULL },
		{ "topo", "show", "a", "b" },
		{ "topo", "bogus", NULL },
	};
	static const char *const why[] = {
		"'topo show' needs a JOB", "'topo show' needs a JOB",
		"invalid character", "unexpected argument 'b' to 'topo show'",
		"unknown command 'bogus' for object 'topo'",
	};
	const char *args[5];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(args, bad[i], sizeof(bad[i]));
		args[4] = NULL;
		rw_test_rwctl(&rw_last, &rw_tmpl, args);
		if (rw_last.rc != RWCTL_EXIT_USAGE || !strstr(rw_last.err, why[i]) ||
		    !strstr(rw_last.err, "Try 'rwctl topo help'."))
			fail_msg("case %zu: %d %s", i, rw_last.rc, rw_last.err);
		assert_string_equal(rw_last.out, "");
	}
	assert_int_equal(rw_be.topo_calls + rw_be.fetch_calls, 0);
}

static void rw_test_show_errors(void **state)
{
	(void)state;
	rw_be.kernel = true;
	rw_be.topo_err = -ENOENT;
	RUN("topo", "show", "gone");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: topo show: no job named 'gone'\n");
	assert_int_equal(rw_be.fetch_calls, 0);

	rw_be.topo_err = -EOPNOTSUPP;
	RUN("topo", "show", "j");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_non_null(strstr(rw_last.err, "does not know this command"));

	rw_be.kernel = false;
	rw_be.topo_err = -EPROTO;
	rw_be.msg = "malformed topology reply from the rackweave module: core 0 lacks an attribute";
	RUN("-j", "topo", "show", "j");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: malformed topology reply from the rackweave module: core 0 lacks an attribute\n");

	/* The topology came, the box's status did not. */
	rw_setup(NULL);
	rw_be.fetch_err = -EIO;
	RUN("topo", "show", "j");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: status failed\n");
	assert_int_equal(rw_be.topo_calls, 1);
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("topo", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] topo { COMMAND | help }"));
	assert_non_null(strstr(rw_last.out, "  show JOB"));
	assert_non_null(strstr(rw_last.out, "chunk map"));
	RUN("help", "topo");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	RUN("topo", "show", "x", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.topo_calls, 0);
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)
#define RW_M(fn)	cmocka_unit_test_setup_teardown(fn, rw_msg_setup, rw_msg_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_M(rw_test_parse_layout),
		RW_M(rw_test_parse_truncated_flag),
		RW_M(rw_test_parse_no_layout),
		RW_M(rw_test_parse_empty_lists),
		RW_M(rw_test_parse_missing),
		RW_M(rw_test_parse_lengths),
		RW_M(rw_test_parse_bad_runs),
		RW_M(rw_test_parse_cut_short),
		RW_M(rw_test_parse_newer),
		RW_T(rw_test_print_text),
		RW_T(rw_test_print_json),
		RW_T(rw_test_print_no_layout),
		RW_T(rw_test_print_odd_nodes),
		RW_T(rw_test_print_stripes),
		RW_T(rw_test_show),
		RW_T(rw_test_show_usage),
		RW_T(rw_test_show_errors),
		RW_T(rw_test_help),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-topo", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}

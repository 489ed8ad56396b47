/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA wire's pure half (kmod/rdma/wire.c) on tables of immediates and
 * of connect requests, each with the answer it must get.
 *
 * One table, two runners: tests/user/test-rdma-wire.c (cmocka) and
 * tests/kunit/wire_test.c (KUnit, a parameter per case) both call the
 * rw_wc_*() functions below, which return NULL when a case holds and a
 * sentence when it does not.
 * Pure: needs nothing but rdma/wire.h (and its compat.h).
 */
#ifndef _RW_TESTS_WIRE_CASES_H
#define _RW_TESTS_WIRE_CASES_H

#include "rdma/wire.h"

/* An immediate, the job's chunk count, and what parsing must give. */
struct rw_wc_imm {
	const char *name;
	u32 imm;
	u32 nr_chunks;
	int ret;
	u32 type, clock, chunk;		/* when ret == 0 */
};

#define RW_WC_OK(n, i, nc, t, c, k) \
	{ .name = n, .imm = i, .nr_chunks = nc, .type = t, .clock = c, \
	  .chunk = k }
#define RW_WC_BAD(n, i, nc, r) \
	{ .name = n, .imm = i, .nr_chunks = nc, .ret = r }

static const struct rw_wc_imm rw_wc_imms[] = {
	RW_WC_OK("push chunk 0", RW_IMM(RW_IMM_PUSH, 0, 0), 1,
		 RW_IMM_PUSH, 0, 0),
	RW_WC_OK("params, last chunk", RW_IMM(RW_IMM_PARAMS, 7, 99), 100,
		 RW_IMM_PARAMS, 7, 99),
	RW_WC_OK("clock keeps 8 bits", RW_IMM(RW_IMM_PUSH, 0x1ff, 3), 4,
		 RW_IMM_PUSH, 0xff, 3),
	RW_WC_OK("highest chunk id", RW_IMM(RW_IMM_PUSH, 1, RW_IMM_CHUNK_MASK),
		 RW_IMM_CHUNK_MASK + 1, RW_IMM_PUSH, 1, RW_IMM_CHUNK_MASK),
	RW_WC_OK("fields stay apart", 0x2ab12345U, 0x12346,
		 RW_IMM_PARAMS, 0xab, 0x12345),
	RW_WC_BAD("type 0 (an all-zero immediate)", 0, 1, -EPROTO),
	RW_WC_BAD("type 0 with a chunk", RW_IMM(0, 0, 5), 10, -EPROTO),
	RW_WC_BAD("first unknown type", RW_IMM(__RW_IMM_TYPE_MAX, 0, 0), 1,
		  -EPROTO),
	RW_WC_BAD("type 15", 0xf0000000U, 1, -EPROTO),
	RW_WC_BAD("chunk == count", RW_IMM(RW_IMM_PUSH, 0, 10), 10, -ERANGE),
	RW_WC_BAD("chunk far beyond", RW_IMM(RW_IMM_PARAMS, 0, 0xfffff), 2,
		  -ERANGE),
	RW_WC_BAD("job without chunks", RW_IMM(RW_IMM_PUSH, 0, 0), 0, -ERANGE),
	RW_WC_BAD("bad type wins over bad chunk", RW_IMM(0, 0, 9), 1, -EPROTO),
};

static const char *rw_wc_imm_run(const struct rw_wc_imm *c)
{
	struct rw_wire_imm out = { 0xdead, 0xdead, 0xdead };
	int ret = rw_wire_imm_parse(c->imm, c->nr_chunks, &out);

	if (ret != c->ret)
		return "wrong return value";
	if (ret)
		return out.type == 0xdead && out.chunk == 0xdead ?
		       NULL : "output written on failure";
	if (out.type != c->type || out.clock != c->clock ||
	    out.chunk != c->chunk)
		return "wrong fields";
	return NULL;
}

/* A request as sent, one way to spoil it, and what parsing must give. */
enum rw_wc_spoil {
	RW_WC_NONE,
	RW_WC_SHORT,		/* one byte short */
	RW_WC_PADDED,		/* 36 bytes of padding after it: fine */
	RW_WC_MAGIC,
	RW_WC_VERSION,
	RW_WC_FLAGS,
	RW_WC_RESERVED,
	RW_WC_NULL,
	RW_WC_MULTI,		/* connection 1 of 2: fine */
	RW_WC_MULTI_LAST,	/* connection 7 of RW_WIRE_MAX_NICS: fine */
	RW_WC_NIC_BEYOND,	/* connection 2 of 2 */
	RW_WC_ONE_NIC,		/* a count of 1 (one connection says 0) */
	RW_WC_TOO_MANY,		/* RW_WIRE_MAX_NICS + 1 connections */
	RW_WC_NO_SESSION,	/* a count without a session */
	RW_WC_NIC_ALONE,	/* an index without a count */
	RW_WC_OBSERVER,		/* the job's observer, rank 0: fine */
	RW_WC_OBSERVER_RANK,	/* an observer with a rank */
	RW_WC_OBSERVER_MULTI,	/* an observer of several connections */
};

struct rw_wc_req {
	const char *name;
	enum rw_wc_spoil spoil;
	int ret;
};

static const struct rw_wc_req rw_wc_reqs[] = {
	{ "well-formed", RW_WC_NONE, 0 },
	{ "padded by the transport", RW_WC_PADDED, 0 },
	{ "one byte short", RW_WC_SHORT, -EPROTO },
	{ "wrong magic", RW_WC_MAGIC, -EPROTO },
	{ "next version", RW_WC_VERSION, -EPROTO },
	{ "a flag set", RW_WC_FLAGS, -EPROTO },
	{ "reserved bytes set", RW_WC_RESERVED, -EPROTO },
	{ "no private data", RW_WC_NULL, -EPROTO },
	{ "connection 1 of 2", RW_WC_MULTI, 0 },
	{ "the last of the most connections", RW_WC_MULTI_LAST, 0 },
	{ "connection index beyond the count", RW_WC_NIC_BEYOND, -EPROTO },
	{ "a count of one connection", RW_WC_ONE_NIC, -EPROTO },
	{ "more connections than allowed", RW_WC_TOO_MANY, -EPROTO },
	{ "several connections without a session", RW_WC_NO_SESSION, -EPROTO },
	{ "an index without a count", RW_WC_NIC_ALONE, -EPROTO },
	{ "an observer", RW_WC_OBSERVER, 0 },
	{ "an observer with a rank", RW_WC_OBSERVER_RANK, -EPROTO },
	{ "an observer of two connections", RW_WC_OBSERVER_MULTI, -EPROTO },
};

/* The connection fields a spoil packs into the request (not a pack error). */
static void rw_wc_req_nics(enum rw_wc_spoil spoil, struct rw_wire_req_info *in)
{
	static const struct { enum rw_wc_spoil spoil; u32 nic, nr, session; }
	nics[] = {
		{ RW_WC_MULTI, 1, 2, 0xbeef },
		{ RW_WC_MULTI_LAST, RW_WIRE_MAX_NICS - 1, RW_WIRE_MAX_NICS, 1 },
		{ RW_WC_NIC_BEYOND, 2, 2, 0xbeef },
		{ RW_WC_ONE_NIC, 0, 1, 0xbeef },
		{ RW_WC_TOO_MANY, 0, RW_WIRE_MAX_NICS + 1, 0xbeef },
		{ RW_WC_NO_SESSION, 1, 2, 0 },
		{ RW_WC_NIC_ALONE, 1, 0, 0 },
		{ RW_WC_OBSERVER_MULTI, 1, 2, 0xbeef },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(nics); i++) {
		if (nics[i].spoil != spoil)
			continue;
		in->nic = nics[i].nic;
		in->nr_nics = nics[i].nr;
		in->session = nics[i].session;
	}
}

/*
 * The box's chunk -> connection rule (rw_wire_assign): every chunk on one
 * connection below the count; on one of its node's connections where its
 * node has any, spread over all of them where it has none; each node's
 * chunks within one of even over their connections.
 */
#define RW_WC_ASSIGN_MAX	1000

static int rw_wc_chunk_node[RW_WC_ASSIGN_MAX];
static u8 rw_wc_link_of[RW_WC_ASSIGN_MAX];

/* The rule's properties for one case; NULL or what broke. */
static const char *rw_wc_assign_check(u32 nr_chunks, const int *link_node,
				      u32 nr_links)
{
	u32 count[RW_WIRE_MAX_NICS], c, j, lo, hi, m;
	int nodes[] = { RW_WIRE_NO_NODE, 0, 1, 2 }, n;
	u32 ni;

	if (rw_wire_assign(rw_wc_chunk_node, nr_chunks, link_node, nr_links,
			   rw_wc_link_of))
		return "assign: refused a good case";
	for (ni = 0; ni < ARRAY_SIZE(nodes); ni++) {
		n = nodes[ni];
		memset(count, 0, sizeof(count));
		m = 0;
		for (j = 0; j < nr_links; j++)
			m += n != RW_WIRE_NO_NODE && link_node[j] == n;
		for (c = 0; c < nr_chunks; c++) {
			if (rw_wc_chunk_node[c] != n)
				continue;
			j = rw_wc_link_of[c];
			if (j >= nr_links)
				return "assign: a chunk on no connection";
			if (m && link_node[j] != n)
				return "assign: a chunk off its node";
			count[j]++;
		}
		lo = ~0U;
		hi = 0;
		for (j = 0; j < nr_links; j++) {
			if (m && link_node[j] != n)
				continue;
			lo = count[j] < lo ? count[j] : lo;
			hi = count[j] > hi ? count[j] : hi;
		}
		if (hi - lo > 1)
			return "assign: a node's connections unevenly loaded";
	}
	return NULL;
}

static const char *rw_wc_assign_run(void)
{
	static const int none[RW_WIRE_MAX_NICS] = {
		-1, -1, -1, -1, -1, -1, -1, -1,
	};
	static const int two[] = { 0, 1 }, three[] = { 1, 0, 0 };
	static const u8 soft[] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	u32 nr, c, seed = 1;
	int links[RW_WIRE_MAX_NICS];
	const char *fail;

	if (rw_wire_assign(rw_wc_chunk_node, 4, none, 0, rw_wc_link_of) !=
	    -EINVAL ||
	    rw_wire_assign(rw_wc_chunk_node, 4, none, RW_WIRE_MAX_NICS + 1,
			   rw_wc_link_of) != -EINVAL)
		return "assign: no connections, or too many";
	/* One node, connections on none: chunk c on c mod the count. */
	for (c = 0; c < RW_WC_ASSIGN_MAX; c++)
		rw_wc_chunk_node[c] = 0;
	for (nr = 1; nr <= RW_WIRE_MAX_NICS; nr++) {
		fail = rw_wc_assign_check(RW_WC_ASSIGN_MAX, none, nr);
		if (fail)
			return fail;
		for (c = 0; c < RW_WC_ASSIGN_MAX; c++)
			if (rw_wc_link_of[c] != c % nr)
				return "assign: one node, no NUMA: not c mod count";
	}
	/* Two nodes in turn, a connection on each: each chunk stays home. */
	for (c = 0; c < RW_WC_ASSIGN_MAX; c++)
		rw_wc_chunk_node[c] = (int)(c % 2);
	fail = rw_wc_assign_check(RW_WC_ASSIGN_MAX, two, 2);
	if (fail)
		return fail;
	for (c = 0; c < RW_WC_ASSIGN_MAX; c++)
		if (rw_wc_link_of[c] != c % 2)
			return "assign: two nodes: a chunk away from its node";
	/* ... soft-RoCE's devices, on no node: each node's over both. */
	fail = rw_wc_assign_check(RW_WC_ASSIGN_MAX, none, 2);
	if (fail)
		return fail;
	if (memcmp(rw_wc_link_of, soft, sizeof(soft)))
		return "assign: two nodes, no device node: not each node's spread";
	/* Node 0 with two connections, node 1 with one. */
	fail = rw_wc_assign_check(RW_WC_ASSIGN_MAX, three, 3);
	if (fail)
		return fail;
	if (rw_wc_link_of[0] != 1 || rw_wc_link_of[1] != 0 ||
	    rw_wc_link_of[2] != 2 || rw_wc_link_of[3] != 0)
		return "assign: node 0's chunks over connections 1 and 2";
	/* Random nodes for chunks and connections, node 2 never linked. */
	for (nr = 0; nr < 200; nr++) {
		u32 n = 1 + nr % RW_WIRE_MAX_NICS, j;

		for (c = 0; c < 97; c++) {
			seed = seed * 1103515245U + 12345U;
			rw_wc_chunk_node[c] = (int)((seed >> 16) % 4) - 1;
		}
		for (j = 0; j < n; j++) {
			seed = seed * 1103515245U + 12345U;
			links[j] = (int)((seed >> 16) % 3) - 1;
		}
		fail = rw_wc_assign_check(97, links, n);
		if (fail)
			return fail;
	}
	return NULL;
}

static void rw_wc_req_info(struct rw_wire_req_info *in)
{
	u32 i;

	memset(in, 0, sizeof(*in));
	in->rank = 255;
	in->epoch = 0x01020304;
	for (i = 0; i < RW_WIRE_TAG_LEN; i++)
		in->job_tag[i] = (u8)(0xa0 + i);
	in->nonce = 0x1122334455667788ULL;
	in->time_s = 1795000000ULL;
	for (i = 0; i < RW_WIRE_AUTH_LEN; i++)
		in->auth[i] = (u8)(0x10 + i);
}

static const char *rw_wc_req_run(const struct rw_wc_req *c)
{
	union {
		struct rw_wire_req w;
		u8 b[sizeof(struct rw_wire_req) + 36];
	} u;
	struct rw_wire_req *w = &u.w;
	struct rw_wire_req_info in, out;
	size_t len = sizeof(*w);
	u8 *buf = u.b;
	const char *why = NULL;
	int ret;

	memset(&u, 0, sizeof(u));
	rw_wc_req_info(&in);
	rw_wc_req_nics(c->spoil, &in);
	in.observer = c->spoil == RW_WC_OBSERVER ||
		      c->spoil == RW_WC_OBSERVER_RANK ||
		      c->spoil == RW_WC_OBSERVER_MULTI;
	if (in.observer && c->spoil != RW_WC_OBSERVER_RANK)
		in.rank = 0;
	rw_wire_req_pack(w, &in);
	/* Little-endian on the wire, whatever the host. */
	if (buf[0] != 0x52 || buf[1] != 0x57 || buf[2] != 0x57 ||
	    buf[3] != 0x31 || buf[8] != 0x04 || buf[11] != 0x01 ||
	    buf[6] != (u8)in.rank || buf[7] != 0 || buf[24] != 0x88 ||
	    buf[31] != 0x11)
		return "packed bytes are not little-endian as documented";
	if (buf[5] != (in.observer ? RW_WIRE_REQ_OBSERVER : 0))
		return "the observer flag not where documented";
	if (c->spoil == RW_WC_MULTI &&
	    (buf[12] != 1 || buf[13] != 2 || buf[14] != 0xef || buf[15] != 0xbe))
		return "connection fields not where documented";
	switch (c->spoil) {
	case RW_WC_SHORT:
		len--;
		break;
	case RW_WC_PADDED:
		len = sizeof(u.b);
		break;
	case RW_WC_MAGIC:
		buf[0] ^= 1;
		break;
	case RW_WC_VERSION:
		w->version = RW_WIRE_VERSION + 1;
		break;
	case RW_WC_FLAGS:
		w->flags = 0x80;
		break;
	case RW_WC_RESERVED:
		buf[15] = 1;
		break;
	default:
		break;
	}
	ret = rw_wire_req_parse(c->spoil == RW_WC_NULL ? NULL : buf, len,
				&out, &why);
	if (ret != c->ret)
		return "wrong return value";
	if (ret)
		return why ? NULL : "no reason given";
	if (out.rank != in.rank || out.epoch != in.epoch ||
	    out.nonce != in.nonce || out.time_s != in.time_s ||
	    memcmp(out.job_tag, in.job_tag, sizeof(in.job_tag)) ||
	    memcmp(out.auth, in.auth, sizeof(in.auth)) ||
	    out.nic != in.nic || out.nr_nics != in.nr_nics ||
	    out.session != in.session || out.observer != in.observer)
		return "fields changed on the way";
	return NULL;
}

/* Every case of both tables: NULL, or the first failure and its case. */
/* The cmocka runner's (KUnit runs a parameter per case instead). */
static inline const char *rw_wc_run_tables(const char **name)
{
	const char *fail;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(rw_wc_imms); i++) {
		*name = rw_wc_imms[i].name;
		fail = rw_wc_imm_run(&rw_wc_imms[i]);
		if (fail)
			return fail;
	}
	for (i = 0; i < ARRAY_SIZE(rw_wc_reqs); i++) {
		*name = rw_wc_reqs[i].name;
		fail = rw_wc_req_run(&rw_wc_reqs[i]);
		if (fail)
			return fail;
	}
	return NULL;
}

/* Refusals: what is packed comes back; anything else is not a refusal. */
static const char *rw_wc_rej_run(void)
{
	static const int reasons[] = {
		-EACCES, -EPROTO, -ERANGE, -EADDRINUSE, -ESTALE, -ETIMEDOUT,
		-EBUSY,
	};
	struct rw_wire_rej w;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(reasons); i++) {
		rw_wire_rej_pack(&w, reasons[i]);
		if (rw_wire_rej_parse(&w, sizeof(w)) != reasons[i])
			return "a reason did not come back";
	}
	rw_wire_rej_pack(&w, -EACCES);
	if (rw_wire_rej_parse(&w, sizeof(w) - 1) != -EPROTO)
		return "a short refusal was taken";
	if (rw_wire_rej_parse(NULL, 0) != -EPROTO)
		return "a reject without private data was taken";
	w.reserved = 1;
	if (rw_wire_rej_parse(&w, sizeof(w)) != -EPROTO)
		return "reserved bytes were ignored";
	rw_wire_rej_pack(&w, 0);
	if (rw_wire_rej_parse(&w, sizeof(w)) != -EPROTO)
		return "a refusal without a reason was taken";
	w.reason = 0;
	w.magic = 0;
	if (rw_wire_rej_parse(&w, sizeof(w)) != -EPROTO)
		return "a foreign reject was taken";
	return NULL;
}

/*
 * Control messages: a setup and a reply packed, parsed back, and then
 * broken one field at a time; every broken copy must be refused.
 */
static u8 rw_wc_msg_buf[512];
static u8 rw_wc_msg_bad[512];

static const struct rw_tensor_desc rw_wc_tensors[2] = {
	{ .key = 7, .nelems = 1000, .dtype = 0, .priority = 0 },
	{ .key = 3, .nelems = 1, .dtype = 2, .priority = 65535 },
};

static const struct rw_wire_seg_info rw_wc_segs[2] = {
	{ .addr = 0x1000200030004000ULL, .rkey = 0x1234 },
	{ .addr = 0x10000, .rkey = 0xabcdef01U },
};

/* One broken copy of a packed message: flip or set a field. */
struct rw_wc_break {
	const char *name;
	size_t off;		/* byte to change */
	u8 xor;			/* 0: shorten the message to @off bytes */
};

static const struct rw_wc_break rw_wc_setup_breaks[] = {
	{ "magic", 0, 1 }, { "version", 4, 1 }, { "type", 5, 3 },
	{ "status", 6, 1 }, { "length", 8, 8 }, { "reserved", 12, 1 },
	{ "flags", 16, 2 }, { "tensor count", 20, 4 },
	{ "segment shift low", 24, 24 }, { "segment count", 28, 1 },
	{ "inbox reserved", 32 + 12, 1 }, { "segment reserved", 48 + 12, 1 },
	{ "truncated", 40, 0 }, { "header only", 16, 0 },
};

static const struct rw_wc_break rw_wc_reply_breaks[] = {
	{ "magic", 0, 1 }, { "type", 5, 3 }, { "length", 8, 16 },
	{ "rank beyond workers", 16, 4 }, { "chunk size", 32, 1 },
	{ "chunk count", 36, 1 }, { "model bytes", 40 + 3, 1 },
	{ "no credits", 48, 16 }, { "reserved", 52, 1 },
	{ "segment shift", 56, 8 }, { "segment count", 60, 1 },
	{ "chunks here beyond the count", 64, 16 },
	{ "one connection without every chunk", 64, 1 },
	{ "unknown flags", 68, 2 },
	{ "a box without an id", 76, 1 }, { "an epoch without a set", 80, 1 },
	{ "box reserved", 84, 1 }, { "a digest without a set", 88 + 7, 1 },
	{ "inbox reserved", 96 + 12, 1 }, { "segment reserved", 112 + 12, 1 },
	{ "truncated", 111, 0 },
};

static const char *rw_wc_setup_run(void)
{
	struct rw_wire_setup_info in = {
		.flags = RW_DECLARE_VERIFY, .nr_tensors = 2,
		.win = { .seg_shift = 16, .nr_segs = 2 },
		.inbox = { .addr = 0x20000, .rkey = 77 },
	}, out;
	struct rw_wire_seg_info seg;
	struct rw_tensor_desc t;
	const char *why = NULL;
	int n, i;

	n = rw_wire_setup_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs, rw_wc_tensors);
	if (n != RW_WIRE_SETUP_SIZE + 2 * RW_WIRE_SEG_SIZE +
		 2 * RW_WIRE_TENSOR_SIZE)
		return "setup: packed size";
	if (rw_wire_setup_pack(rw_wc_msg_buf, (size_t)n - 1, &in, rw_wc_segs,
			       rw_wc_tensors) != -EMSGSIZE)
		return "setup: a short buffer is not refused";
	if (rw_wire_setup_parse(rw_wc_msg_buf, (size_t)n + 8, &out, &why))
		return "setup: a packed message (with trailing bytes) refused";
	if (out.flags != in.flags || out.nr_tensors != 2 ||
	    out.win.seg_shift != 16 || out.win.nr_segs != 2 ||
	    out.inbox.addr != 0x20000 || out.inbox.rkey != 77)
		return "setup: counts or inbox differ";
	for (i = 0; i < 2; i++) {
		rw_wire_seg_get(&out.win, (u32)i, &seg);
		rw_wire_tensor_get(&out, (u32)i, &t);
		if (seg.addr != rw_wc_segs[i].addr ||
		    seg.rkey != rw_wc_segs[i].rkey ||
		    t.key != rw_wc_tensors[i].key ||
		    t.nelems != rw_wc_tensors[i].nelems ||
		    t.dtype != rw_wc_tensors[i].dtype ||
		    t.priority != rw_wc_tensors[i].priority)
			return "setup: a segment or tensor differs";
	}
	/* 70000 bytes in 64 KiB segments: two, the second 4464 bytes in. */
	if (rw_wire_win_check(&out.win, 70000, 4096) ||
	    rw_wire_win_check(&out.win, 65536, 4096) != -EINVAL ||
	    rw_wire_win_check(&out.win, 140000, 4096) != -EINVAL ||
	    rw_wire_win_check(&out.win, 70000, 131072) != -EINVAL)
		return "setup: window check";
	rw_wire_win_at(&out.win, 70000 - 1, &seg);
	if (seg.addr != 0x10000 + 70000 - 1 - 65536 || seg.rkey != 0xabcdef01U)
		return "setup: window address";
	for (i = 0; i < (int)ARRAY_SIZE(rw_wc_setup_breaks); i++) {
		const struct rw_wc_break *b = &rw_wc_setup_breaks[i];
		size_t len = b->xor ? (size_t)n : b->off;

		memcpy(rw_wc_msg_bad, rw_wc_msg_buf, (size_t)n);
		rw_wc_msg_bad[b->off] ^= b->xor;
		why = NULL;
		if (rw_wire_setup_parse(rw_wc_msg_bad, len, &out, &why) !=
		    -EPROTO || !why)
			return b->name;
	}
	return NULL;
}

static const char *rw_wc_reply_run(void)
{
	struct rw_wire_reply_info in = {
		.rank = 1, .nr_workers = 2, .sync = 0, .epoch = 3,
		.chunk_size = 4096, .nr_chunks = 3, .model_bytes = 8200,
		.credits = 16, .nr_own = 3,
		.win = { .seg_shift = 13, .nr_segs = 2 },
		.inbox = { .addr = 0x30000, .rkey = 99 },
		.flags = RW_WIRE_PARAMS_SET,
	}, out;
	const char *why = NULL;
	int n, i;

	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	if (n != RW_WIRE_REPLY_SIZE + 2 * RW_WIRE_SEG_SIZE)
		return "reply: packed size";
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.status || out.rank != 1 || out.nr_chunks != 3 ||
	    out.model_bytes != 8200 || out.credits != 16 || out.epoch != 3 ||
	    out.win.nr_segs != 2 || out.nic || out.nr_nics || out.nr_own != 3 ||
	    out.inbox.addr != 0x30000 || out.inbox.rkey != 99 ||
	    out.flags != RW_WIRE_PARAMS_SET)
		return "reply: parsed back";
	/* Connection 1 of 3 is echoed; 3 of 3 and 1 of 1 are refused. */
	in.nic = 1;
	in.nr_nics = 3;
	in.nr_own = 1;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.nic != 1 || out.nr_nics != 3 || rw_wc_msg_buf[52] != 1 ||
	    rw_wc_msg_buf[53] != 3 || out.nr_own != 1 ||
	    rw_wc_msg_buf[64] != 1)
		return "reply: a connection index";
	rw_wc_msg_buf[52] = 3;
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) != -EPROTO)
		return "reply: an index beyond the count";
	rw_wc_msg_buf[52] = 1;
	rw_wc_msg_buf[53] = 1;
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) != -EPROTO)
		return "reply: a count of one";
	in.nic = 0;
	in.nr_nics = 0;
	in.nr_own = 3;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	for (i = 0; i < (int)ARRAY_SIZE(rw_wc_reply_breaks); i++) {
		const struct rw_wc_break *b = &rw_wc_reply_breaks[i];
		size_t len = b->xor ? (size_t)n : b->off;

		memcpy(rw_wc_msg_bad, rw_wc_msg_buf, (size_t)n);
		rw_wc_msg_bad[b->off] ^= b->xor;
		why = NULL;
		if (rw_wire_reply_parse(rw_wc_msg_bad, len, &out, &why) !=
		    -EPROTO || !why)
			return b->name;
	}
	/* An observer's: no gradient window at all; half of one is refused. */
	in.win.seg_shift = 0;
	in.win.nr_segs = 0;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in, NULL);
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.win.nr_segs || out.win.seg_shift || out.nr_chunks != 3)
		return "reply: an observer's, without a window";
	in.win.seg_shift = 13;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in, NULL);
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "reply: a window of no segments";
	in.win.nr_segs = 2;
	/* A refusal carries a status and nothing else. */
	in.status = EEXIST;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	if (n != RW_WIRE_REPLY_SIZE ||
	    rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.status != EEXIST || out.win.nr_segs || out.nr_own ||
	    out.inbox.addr || out.inbox.rkey || out.flags)
		return "reply: a refusal";
	/* A box of a set of three: 1 of the 3 chunks here, the set named. */
	in.status = 0;
	in.nr_own = 1;
	in.box_id = 7;
	in.nr_boxes = 3;
	in.box_epoch = 2;
	in.box_digest = 0x1122334455667788ULL;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.box_id != 7 || out.nr_boxes != 3 || out.box_epoch != 2 ||
	    out.box_digest != 0x1122334455667788ULL || out.nr_own != 1 ||
	    rw_wc_msg_buf[72] != 7 || rw_wc_msg_buf[76] != 3)
		return "reply: a box of a set";
	/* A box of a set is one connection, never a NIC of several. */
	in.nic = 1;
	in.nr_nics = 2;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "reply: a box of a set with NICs";
	in.nic = 0;
	in.nr_nics = 0;
	in.box_id = 65536;
	n = rw_wire_reply_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			       rw_wc_segs);
	if (rw_wire_reply_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "reply: a box id beyond 65535";
	return NULL;
}

/*
 * Replies of the boxes of a job over several: one per box of one set
 * (epoch and digest alike, no box twice), chunks adding up, pass, each
 * box's gate epoch its own; the rest are refused with EXDEV.
 */
static const char *rw_wc_boxes_run(struct rw_wire_reply_info *info,
				   const struct rw_wire_reply_info **reps)
{
	static const struct {
		const char *name;
		u32 n;
		int spoil;	/* 1 digest, 2 epoch, 3 a box twice, 4 count */
		int ret;
	} cases[] = {
		{ "three boxes of one set", 3, 0, 0 },
		{ "two of a set of three", 2, 0, -EXDEV },
		{ "a box with another digest", 3, 1, -EXDEV },
		{ "a box with another set epoch", 3, 2, -EXDEV },
		{ "one box twice", 3, 3, -EXDEV },
		{ "a whole box among boxes of a set", 3, 4, -EXDEV },
	};
	const char *why;
	u32 i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (j = 0; j < 3; j++) {
			info[j].nr_own = j ? 2 : 1;
			info[j].epoch = j;
			info[j].box_id = 10 + j;
			info[j].nr_boxes = 3;
			info[j].box_epoch = 4;
			info[j].box_digest = 0xabcdef;
			reps[j] = &info[j];
		}
		if (cases[i].n == 2)
			info[0].nr_own = 3;
		if (cases[i].spoil == 1)
			info[2].box_digest++;
		else if (cases[i].spoil == 2)
			info[1].box_epoch = 5;
		else if (cases[i].spoil == 3)
			info[2].box_id = 10;
		else if (cases[i].spoil == 4)
			info[1].nr_boxes = 0;
		why = NULL;
		if (rw_wire_replies_check(reps, cases[i].n, &why) !=
		    cases[i].ret || (cases[i].ret && !why))
			return cases[i].name;
	}
	return NULL;
}

/*
 * An attachment's replies, one per connection: those of one job, rank and
 * layout whose chunks add up to the count pass; every other set is
 * refused with a reason.
 */
static const char *rw_wc_replies_run(void)
{
	static const struct {
		const char *name;
		u32 n, own[4];
		int field;	/* 1 rank, 2 epoch, 3 chunk size, 4 bytes */
		int ok;
	} cases[] = {
		{ "one connection with every chunk", 1, { 5 }, 0, 1 },
		{ "one connection short of a chunk", 1, { 4 }, 0, 0 },
		{ "one connection with a chunk too many", 1, { 6 }, 0, 0 },
		{ "three connections, 2 + 2 + 1", 3, { 2, 2, 1 }, 0, 1 },
		{ "three connections, 5 + 0 + 0", 3, { 5, 0, 0 }, 0, 1 },
		{ "three connections, 2 + 2 + 0", 3, { 2, 2, 0 }, 0, 0 },
		{ "three connections, 2 + 2 + 2", 3, { 2, 2, 2 }, 0, 0 },
		{ "four, 2 + 1 + 1 + 1", 4, { 2, 1, 1, 1 }, 0, 1 },
		{ "another rank on the second", 2, { 3, 2 }, 1, 0 },
		{ "another epoch on the second", 2, { 3, 2 }, 2, 0 },
		{ "another chunk size on the second", 2, { 3, 2 }, 3, 0 },
		{ "other model bytes on the second", 2, { 3, 2 }, 4, 0 },
		{ "no connection", 0, { 0 }, 0, 0 },
	};
	static const struct rw_wire_reply_info base = {
		.rank = 1, .nr_workers = 3, .epoch = 2, .chunk_size = 4096,
		.nr_chunks = 5, .model_bytes = 5 * 4096 - 8, .credits = 5,
	};
	static struct rw_wire_reply_info info[RW_WIRE_MAX_NICS + 1];
	const struct rw_wire_reply_info *reps[RW_WIRE_MAX_NICS + 1];
	const char *why;
	u32 i, j;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (j = 0; j < RW_WIRE_MAX_NICS + 1; j++) {
			info[j] = base;
			info[j].nr_own = 0;
			if (j < ARRAY_SIZE(cases[i].own))
				info[j].nr_own = cases[i].own[j];
			reps[j] = &info[j];
		}
		if (cases[i].field == 1)
			info[1].rank = 2;
		else if (cases[i].field == 2)
			info[1].epoch = 3;
		else if (cases[i].field == 3)
			info[1].chunk_size = 8192;
		else if (cases[i].field == 4)
			info[1].model_bytes -= 4;
		why = NULL;
		ret = rw_wire_replies_check(reps, cases[i].n, &why);
		if (cases[i].ok && ret)
			return cases[i].name;
		if (!cases[i].ok && (ret != -EPROTO || !why))
			return cases[i].name;
	}
	/* More connections than a worker may have: refused. */
	info[0].nr_own = 5;
	why = NULL;
	if (rw_wire_replies_check(reps, RW_WIRE_MAX_NICS + 1, &why) !=
	    -EPROTO || !why)
		return "more connections than RW_WIRE_MAX_NICS";
	return rw_wc_boxes_run(info, reps);
}

#endif /* _RW_TESTS_WIRE_CASES_H */

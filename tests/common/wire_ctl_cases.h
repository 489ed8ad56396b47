/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests, answers, notices and gifts on the RDMA wire
 * (kmod/rdma/wire_ctl.c, wire_move.c), packed,
 * read back and broken byte by byte: each break must be refused. Run by
 * tests/user/test-rdma-wire.c (cmocka) and tests/kunit/wire_test.c
 * (KUnit), after wire_cases.h, whose buffers and breaks it shares.
 */
#ifndef _RW_TESTS_WIRE_CTL_CASES_H
#define _RW_TESTS_WIRE_CTL_CASES_H

#include "wire_cases.h"
#include "chunk/boxset.h"

/* Requests (uapi "Requests"): an INIT of two runs through a window. */
static const struct rw_wire_run_info rw_wc_runs[2] = {
	{ .first = 0, .count = 2 }, { .first = 5, .count = 3 },
};

static const struct rw_wc_break rw_wc_request_breaks[] = {
	{ "magic", 0, 1 }, { "type", 5, 7 }, { "status", 6, 1 },
	{ "length", 8, 8 }, { "frame reserved", 12, 1 },
	{ "op 0", 16, RW_OP_INIT }, { "unknown op", 16, 0x70 },
	{ "a timeout on INIT", 24, 1 }, { "run count", 28, 1 },
	{ "segment shift", 32, 0x10 }, { "segment count", 36, 1 },
	{ "an iteration on INIT", 40, 1 }, { "segment reserved", 48 + 12, 1 },
	{ "an empty run", 64 + 8 + 4, 3 }, { "runs out of order", 64 + 8, 4 },
	{ "a run past the chunks", 64 + 8 + 4, 8 },
	{ "a run touching the one before", 64 + 8, 2 ^ 5 },
	{ "truncated", 64 + 15, 0 }, { "header only", 48, 0 },
};

static const char *rw_wc_request_run(void)
{
	struct rw_wire_request_info in = {
		.op = RW_OP_INIT, .seq = 9, .nr_runs = 2,
		.win = { .seg_shift = 16, .nr_segs = 1 },
	}, out;
	struct rw_wire_run_info run;
	struct rw_wire_seg_info seg;
	const char *why = NULL;
	int n, i;

	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 rw_wc_segs, rw_wc_runs);
	if (n != RW_WIRE_REQUEST_SIZE + RW_WIRE_SEG_SIZE + 2 * RW_WIRE_RUN_SIZE)
		return "request: packed size";
	if (rw_wire_request_pack(rw_wc_msg_buf, (size_t)n - 1, &in, rw_wc_segs,
				 rw_wc_runs) != -EMSGSIZE)
		return "request: a short buffer is not refused";
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) ||
	    out.op != RW_OP_INIT || out.seq != 9 || out.nr_runs != 2 ||
	    out.win.seg_shift != 16 || out.win.nr_segs != 1)
		return "request: parsed back";
	rw_wire_seg_get(&out.win, 0, &seg);
	rw_wire_run_get(&out, 1, &run);
	if (seg.addr != rw_wc_segs[0].addr || run.first != 5 || run.count != 3)
		return "request: a segment or run differs";
	/* The runs end at chunk 8: a run of 7 chunks refuses them. */
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 7, &out, &why) !=
	    -EPROTO)
		return "request: runs beyond the chunks";
	for (i = 0; i < (int)ARRAY_SIZE(rw_wc_request_breaks); i++) {
		const struct rw_wc_break *b = &rw_wc_request_breaks[i];
		size_t len = b->xor ? (size_t)n : b->off;

		memcpy(rw_wc_msg_bad, rw_wc_msg_buf, (size_t)n);
		rw_wc_msg_bad[b->off] ^= b->xor;
		why = NULL;
		if (rw_wire_request_parse(rw_wc_msg_bad, len, 10, &out, &why) !=
		    -EPROTO || !why)
			return b->name;
	}
	/* A wait carries its timeout and nothing else; a head request neither. */
	memset(&in, 0, sizeof(in));
	in.op = RW_OP_INIT_WAIT;
	in.timeout_ms = 1500;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (n != RW_WIRE_REQUEST_SIZE ||
	    rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 1, &out, &why) ||
	    out.op != RW_OP_INIT_WAIT || out.timeout_ms != 1500)
		return "request: a wait";
	in.op = RW_OP_HEAD;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 1, &out, &why) !=
	    -EPROTO)
		return "request: a head request with a timeout";
	in.timeout_ms = 0;
	in.nr_runs = 1;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, rw_wc_runs);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) !=
	    -EPROTO)
		return "request: a head request with runs";
	/* A restore: a window and no runs; with runs, or none, refused. */
	in.op = RW_OP_RESTORE;
	in.nr_runs = 0;
	in.win.seg_shift = 21;
	in.win.nr_segs = 2;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 rw_wc_segs, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) ||
	    out.op != RW_OP_RESTORE || out.win.nr_segs != 2 || out.nr_runs)
		return "request: a restore";
	in.nr_runs = 1;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 rw_wc_segs, rw_wc_runs);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) !=
	    -EPROTO)
		return "request: a restore with runs";
	in.nr_runs = 0;
	in.win.nr_segs = 0;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) !=
	    -EPROTO)
		return "request: a restore without a window";
	/* A save: a window and a timeout (its wait); no window, refused. */
	in.op = RW_OP_SAVE;
	in.timeout_ms = 2500;
	in.win.nr_segs = 2;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 rw_wc_segs, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) ||
	    out.op != RW_OP_SAVE || out.win.nr_segs != 2 ||
	    out.timeout_ms != 2500)
		return "request: a save";
	in.win.nr_segs = 0;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 10, &out, &why) !=
	    -EPROTO)
		return "request: a save without a window";
	/*
	 * A move's stop: nothing but the op (the box takes the asker's next
	 * iteration); the reserved field set, or a timeout, refused.
	 */
	memset(&in, 0, sizeof(in));
	in.op = RW_OP_STOP_AT;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (n != RW_WIRE_REQUEST_SIZE ||
	    rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 1, &out, &why) ||
	    out.op != RW_OP_STOP_AT || out.at)
		return "request: a move's stop";
	in.at = 1ULL << 33;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 1, &out, &why) !=
	    -EPROTO)
		return "request: a move's stop with the reserved field set";
	in.op = RW_OP_HEAD;
	in.at = 3;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 1, &out, &why) !=
	    -EPROTO)
		return "request: a head with the reserved field set";
	in.op = RW_OP_STOP_AT;
	in.at = 0;
	in.timeout_ms = 5;
	n = rw_wire_request_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
				 NULL, NULL);
	if (rw_wire_request_parse(rw_wc_msg_buf, (size_t)n, 1, &out, &why) !=
	    -EPROTO)
		return "request: a move's stop with a timeout";
	return NULL;
}

/* Notices (uapi "Notices"): a move to a set of three, one of them IPv6. */
static struct rw_boxset rw_wc_set, rw_wc_set_back;

static void rw_wc_set_fill(void)
{
	u32 i;

	memset(&rw_wc_set, 0, sizeof(rw_wc_set));
	rw_wc_set.epoch = 4;
	rw_wc_set.nr = 3;
	for (i = 0; i < 3; i++) {
		rw_wc_set.box[i].id = 10 + i;
		rw_wc_set.box[i].family = i == 2 ? RW_BOX_AF_INET6 :
						   RW_BOX_AF_INET;
		rw_wc_set.box[i].port = (u16)(18515 + i);
		rw_wc_set.box[i].addr[0] = i == 2 ? 0xfd : 10;
		rw_wc_set.box[i].addr[3] = (u8)(i + 1);
	}
}

/* Offsets: header 48 bytes, then boxes of 24 (id 4, family 2, port 2). */
static const struct rw_wc_break rw_wc_notice_breaks[] = {
	{ "magic", 0, 1 }, { "type", 5, 1 }, { "status", 6, 1 },
	{ "length", 8, 24 }, { "kind 0", 16, RW_NOTICE_MOVE },
	{ "unknown kind", 16, 0x40 }, { "epoch 0", 24, 4 },
	{ "a boundary on a move", 28, 3 }, { "box count", 40, 1 },
	{ "no boxes", 40, 3 }, { "reserved", 44, 1 },
	{ "bytes past an IPv4 address", 48 + 8 + 9, 1 },
	{ "truncated", 48 + 3 * 24 - 1, 0 }, { "header only", 48, 0 },
};

static const char *rw_wc_notice_run(void)
{
	struct rw_wire_notice_info in = {
		.kind = RW_NOTICE_MOVE, .seq = 2, .epoch = 4,
		.digest = 0x1122334455667788ULL, .set = &rw_wc_set,
	}, out;
	const char *why = NULL;
	int n, i;

	rw_wc_set_fill();
	n = rw_wire_notice_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (n != RW_WIRE_NOTICE_SIZE + 3 * RW_WIRE_BOX_SIZE)
		return "notice: packed size";
	if (rw_wire_notice_pack(rw_wc_msg_buf, (size_t)n - 1, &in) != -EMSGSIZE)
		return "notice: a short buffer is not refused";
	if (rw_wire_notice_parse(rw_wc_msg_buf, (size_t)n, &rw_wc_set_back,
				 &out, &why) ||
	    out.kind != RW_NOTICE_MOVE || out.seq != 2 || out.epoch != 4 ||
	    out.stop_before || out.digest != in.digest ||
	    out.set != &rw_wc_set_back || rw_wc_set_back.nr != 3 ||
	    rw_wc_set_back.epoch != 4 || rw_wc_set_back.self ||
	    memcmp(rw_wc_set_back.box, rw_wc_set.box,
		   3 * sizeof(rw_wc_set.box[0])))
		return "notice: a move, parsed back";
	for (i = 0; i < (int)ARRAY_SIZE(rw_wc_notice_breaks); i++) {
		const struct rw_wc_break *b = &rw_wc_notice_breaks[i];
		size_t len = b->xor ? (size_t)n : b->off;

		memcpy(rw_wc_msg_bad, rw_wc_msg_buf, (size_t)n);
		rw_wc_msg_bad[b->off] ^= b->xor;
		why = NULL;
		if (rw_wire_notice_parse(rw_wc_msg_bad, len, &rw_wc_set_back,
					 &out, &why) != -EPROTO || !why)
			return b->name;
	}
	/* A move without its set is not packed. */
	in.set = NULL;
	if (rw_wire_notice_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in) !=
	    -EINVAL)
		return "notice: a move without a set packed";
	/* A stop: its boundary, no boxes; without a boundary, refused. */
	in.kind = RW_NOTICE_STOP;
	in.stop_before = 12;
	n = rw_wire_notice_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (n != RW_WIRE_NOTICE_SIZE ||
	    rw_wire_notice_parse(rw_wc_msg_buf, (size_t)n, &rw_wc_set_back,
				 &out, &why) ||
	    out.kind != RW_NOTICE_STOP || out.stop_before != 12 || out.set)
		return "notice: a stop, parsed back";
	in.stop_before = 0;
	n = rw_wire_notice_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (rw_wire_notice_parse(rw_wc_msg_buf, (size_t)n, &rw_wc_set_back,
				 &out, &why) != -EPROTO)
		return "notice: a stop without its boundary";
	return NULL;
}

/*
 * A gift of chunks 65, 134 and 163 (map bits 1, 70 and 99 from chunk 64)
 * of a model of 200 chunks of 4 KiB with one state array: records of
 * 8200 bytes from byte 100 of a window of one 64 KiB segment. Offsets:
 * header 88, the segment 16, the map's two words 16.
 */
static const struct rw_wc_break rw_wc_gift_breaks[] = {
	{ "magic", 0, 1 }, { "type", 5, 1 }, { "status", 6, 1 },
	{ "length", 8, 8 }, { "frame reserved", 12, 1 },
	{ "giver 0", 16, 5 }, { "epoch 0", 20, 4 },
	{ "no chunks", 40, 200 }, { "three state arrays", 44, 2 },
	{ "a chunk size not a power of two", 49, 1 },
	{ "an unknown flag", 52, 4 }, { "a map past the model", 56, 0x80 },
	{ "an empty map", 60, 100 }, { "a count not the map's", 64, 1 },
	{ "segment shift", 68, 0x40 }, { "no segments", 72, 1 },
	{ "reserved", 76, 1 }, { "records past the window", 82, 1 },
	{ "segment reserved", 88 + 12, 1 },
	{ "a bit past the map's chunks", 112 + 4, 0x10 },
	{ "truncated", 119, 0 }, { "header only", 88, 0 },
};

static const char *rw_wc_gift_run(void)
{
	static const u64 map[2] = { 1ULL << 1, (1ULL << 6) | (1ULL << 35) };
	struct rw_wire_gift_info in = {
		.giver = 5, .epoch = 4, .digest = 0x1122334455667788ULL,
		.layout_hash = 0x99, .nr_chunks = 200, .nr_state = 1,
		.chunk_size = 4096, .last_short = true, .first = 64,
		.nr_map = 100, .nr_given = 3, .off = 100,
		.win = { .seg_shift = 16, .nr_segs = 1 }, .map = map,
	}, out;
	struct rw_wire_gift_reply r;
	u32 status, taken, i;
	const char *why = NULL;
	int n;

	n = rw_wire_gift_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			      rw_wc_segs);
	if (n != RW_WIRE_GIFT_SIZE + RW_WIRE_SEG_SIZE + 16)
		return "gift: packed size";
	if (rw_wire_gift_pack(rw_wc_msg_buf, (size_t)n - 1, &in, rw_wc_segs) !=
	    -EMSGSIZE)
		return "gift: a short buffer is not refused";
	if (rw_wire_gift_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.giver != 5 || out.epoch != 4 || out.digest != in.digest ||
	    out.layout_hash != 0x99 || out.nr_chunks != 200 ||
	    out.nr_state != 1 || out.chunk_size != 4096 || !out.last_short ||
	    out.first != 64 || out.nr_map != 100 || out.nr_given != 3 ||
	    out.off != 100 || out.win.nr_segs != 1 || out.win.seg_shift != 16 ||
	    out.half)
		return "gift: parsed back";
	/* f32 masters of 16-bit tensors: records twice as long, still fit. */
	in.half = true;
	if (rw_wire_gift_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			      rw_wc_segs) != n ||
	    rw_wire_gift_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    !out.half || !out.last_short ||
	    rw_wire_gift_rec_len(1, 4096, true) != 2 * 2 * 4096 + 8)
		return "gift: 16-bit tensors' masters";
	in.half = false;
	n = rw_wire_gift_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in,
			      rw_wc_segs);
	for (i = 0; i < 100; i++)
		if (rw_wire_gift_has(&out, i) != (i == 1 || i == 70 || i == 99))
			return "gift: the map, read back";
	for (i = 0; i < ARRAY_SIZE(rw_wc_gift_breaks); i++) {
		const struct rw_wc_break *b = &rw_wc_gift_breaks[i];
		size_t len = b->xor ? (size_t)n : b->off;

		memcpy(rw_wc_msg_bad, rw_wc_msg_buf, (size_t)n);
		rw_wc_msg_bad[b->off] ^= b->xor;
		why = NULL;
		if (rw_wire_gift_parse(rw_wc_msg_bad, len, &out, &why) !=
		    -EPROTO || !why)
			return b->name;
	}
	/* Replies: a count, or a refusal without one. */
	rw_wire_gift_reply_pack(&r, 0, 3);
	if (rw_wire_gift_reply_parse(&r, sizeof(r), &status, &taken, &why) ||
	    status || taken != 3)
		return "gift reply: parsed back";
	rw_wire_gift_reply_pack(&r, EAGAIN, 3);
	if (rw_wire_gift_reply_parse(&r, sizeof(r), &status, &taken, &why) ||
	    status != EAGAIN || taken)
		return "gift reply: a refusal, parsed back";
	r.taken = cpu_to_le32(1);
	if (rw_wire_gift_reply_parse(&r, sizeof(r), &status, &taken, &why) !=
	    -EPROTO)
		return "gift reply: a refusal with a count";
	if (rw_wire_gift_reply_parse(&r, sizeof(r) - 1, &status, &taken,
				     &why) != -EPROTO)
		return "gift reply: truncated";
	return NULL;
}

static const char *rw_wc_answer_run(void)
{
	struct rw_wire_answer_info in = {
		.op = RW_OP_HEAD, .seq = 4, .has_head = true,
		.flags = RW_WIRE_PARAMS_SET,
		.head = { .magic = RW_CKPT_MAGIC,
			  .head_len = sizeof(struct rw_ckpt_head),
			  .layout_hash = 0x0123456789abcdefULL, .nr_chunks = 3,
			  .optim = 2, .hparams = { 0x3dcccccdU }, .step = 41 },
	}, out;
	const char *why = NULL;
	int n;

	n = rw_wire_answer_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (n != RW_WIRE_ANSWER_SIZE + RW_CKPT_HEAD_SIZE ||
	    rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.status || !out.has_head || out.seq != 4 ||
	    out.flags != RW_WIRE_PARAMS_SET ||
	    memcmp(&out.head, &in.head, sizeof(in.head)))
		return "answer: a head, parsed back";
	if (rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n - 1, &out, &why) !=
	    -EPROTO)
		return "answer: a truncated head";
	rw_wc_msg_buf[RW_WIRE_ANSWER_SIZE] ^= 1;
	if (rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "answer: a head of another kind";
	rw_wc_msg_buf[RW_WIRE_ANSWER_SIZE] ^= 1;
	/* A save answers with the head it saved; without one, refused. */
	in.op = RW_OP_SAVE;
	n = rw_wire_answer_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.op != RW_OP_SAVE || !out.has_head || out.head.step != 41)
		return "answer: a save's head";
	in.has_head = false;
	n = rw_wire_answer_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "answer: a save without its head";
	/* A refusal carries its errno and no head. */
	in.status = EBUSY;
	in.has_head = false;
	in.op = RW_OP_INIT;
	n = rw_wire_answer_pack(rw_wc_msg_buf, sizeof(rw_wc_msg_buf), &in);
	if (n != RW_WIRE_ANSWER_SIZE ||
	    rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) ||
	    out.status != EBUSY || out.op != RW_OP_INIT || out.has_head)
		return "answer: a refusal";
	rw_wc_msg_buf[28] = 2;
	if (rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "answer: unknown flags";
	rw_wc_msg_buf[28] = 0;
	rw_wc_msg_buf[16] = 0;
	if (rw_wire_answer_parse(rw_wc_msg_buf, (size_t)n, &out, &why) !=
	    -EPROTO)
		return "answer: op 0";
	return NULL;
}

#endif /* _RW_TESTS_WIRE_CTL_CASES_H */

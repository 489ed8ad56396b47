// SPDX-License-Identifier: GPL-2.0
/*
 * Requests and answers on the RDMA wire, packed and checked (uapi
 * "Requests"): what a worker host asks of the box once set up, written
 * into the peer's inbox. Pure, as rdma/wire.c: the module and the cmocka
 * tests share it. As everywhere on the wire, anything but exactly what
 * this version sends is refused, and nothing here indexes memory with a
 * value it decoded.
 */
#include "wire.h"
#include "wire_priv.h"

static_assert(sizeof(struct rw_wire_run) == RW_WIRE_RUN_SIZE, "run size");
static_assert(sizeof(struct rw_wire_request) == RW_WIRE_REQUEST_SIZE,
	      "request header size");
static_assert(sizeof(struct rw_wire_answer) == RW_WIRE_ANSWER_SIZE,
	      "answer header size");
static_assert(RW_WIRE_INBOX_LEN <= RW_WIRE_MSG_MAX, "an inbox holds a message");

size_t rw_wire_request_size(u32 nr_segs, u32 nr_runs)
{
	u64 n = sizeof(struct rw_wire_request) +
		(u64)nr_segs * sizeof(struct rw_wire_seg) +
		(u64)nr_runs * sizeof(struct rw_wire_run);

	return n <= RW_WIRE_INBOX_LEN ? (size_t)n : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_request_size);

int rw_wire_request_pack(void *buf, size_t len,
			 const struct rw_wire_request_info *in,
			 const struct rw_wire_seg_info *segs,
			 const struct rw_wire_run_info *runs)
{
	size_t n = rw_wire_request_size(in->win.nr_segs, in->nr_runs);
	struct rw_wire_request h = {};
	struct rw_wire_run wr;
	u8 *p = buf;
	u32 i;

	if (!n || n > len)
		return -EMSGSIZE;
	rw_wire_msg_pack(&h.msg, RW_MSG_REQUEST, 0, n);
	h.op = cpu_to_le32(in->op);
	h.seq = cpu_to_le32(in->seq);
	h.timeout_ms = cpu_to_le32(in->timeout_ms);
	h.nr_runs = cpu_to_le32(in->nr_runs);
	h.seg_shift = cpu_to_le32(in->win.seg_shift);
	h.nr_segs = cpu_to_le32(in->win.nr_segs);
	h.at = cpu_to_le64(in->at);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	rw_wire_segs_pack(p, segs, in->win.nr_segs);
	p += (size_t)in->win.nr_segs * sizeof(struct rw_wire_seg);
	for (i = 0; i < in->nr_runs; i++, p += sizeof(wr)) {
		wr.first = cpu_to_le32(runs[i].first);
		wr.count = cpu_to_le32(runs[i].count);
		memcpy(p, &wr, sizeof(wr));
	}
	return (int)n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_request_pack);

void rw_wire_run_get(const struct rw_wire_request_info *r, u32 i,
		     struct rw_wire_run_info *out)
{
	struct rw_wire_run wr;

	memcpy(&wr, &r->runs[i], sizeof(wr));
	out->first = le32_to_cpu(wr.first);
	out->count = le32_to_cpu(wr.count);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_run_get);

/* RW_OP_INIT's runs: each in range, ascending, none touching the next. */
static int rw_wire_runs_check(const struct rw_wire_request_info *r,
			      u32 nr_chunks, const char **why)
{
	struct rw_wire_run_info run;
	u64 end = 0;
	u32 i;

	for (i = 0; i < r->nr_runs; i++) {
		rw_wire_run_get(r, i, &run);
		if (!run.count || (i && run.first <= end) ||
		    (u64)run.first + run.count > nr_chunks) {
			*why = "chunk runs out of range or out of order";
			return -EPROTO;
		}
		end = (u64)run.first + run.count;
	}
	return 0;
}

int rw_wire_request_parse(const void *data, size_t len, u32 nr_chunks,
			  struct rw_wire_request_info *out, const char **why)
{
	struct rw_wire_request h;
	const u8 *p = data;
	bool bad;
	size_t n;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(h), RW_MSG_REQUEST, &h.msg,
				why);
	if (ret)
		return ret;
	memcpy(&h, data, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->op = le32_to_cpu(h.op);
	out->seq = le32_to_cpu(h.seq);
	out->timeout_ms = le32_to_cpu(h.timeout_ms);
	out->nr_runs = le32_to_cpu(h.nr_runs);
	out->win.seg_shift = le32_to_cpu(h.seg_shift);
	out->win.nr_segs = le32_to_cpu(h.nr_segs);
	out->at = le64_to_cpu(h.at);
	if (h.msg.status || !out->op || out->op >= __RW_OP_MAX) {
		*why = "unknown op or a status in a request";
		return -EPROTO;
	}
	if (out->at) {
		*why = "a reserved field of a request is not 0";
		return -EPROTO;
	}
	n = rw_wire_request_size(out->win.nr_segs, out->nr_runs);
	if (!n || n != le32_to_cpu(h.msg.len) || n > len) {
		*why = "request length does not match its counts";
		return -EPROTO;
	}
	if (out->op == RW_OP_INIT || out->op == RW_OP_RESTORE ||
	    out->op == RW_OP_SAVE)
		bad = (out->op == RW_OP_INIT) != !!out->nr_runs ||
		      !out->win.nr_segs ||
		      out->win.seg_shift < RW_WIRE_SEG_SHIFT_MIN ||
		      out->win.seg_shift > RW_WIRE_SEG_SHIFT_MAX;
	else
		bad = out->nr_runs || out->win.nr_segs || out->win.seg_shift;
	if (bad) {
		*why = "a request's window or runs do not fit its op";
		return -EPROTO;
	}
	if (out->op != RW_OP_INIT_WAIT && out->op != RW_OP_SAVE &&
	    out->timeout_ms) {
		*why = "a timeout on a request that does not wait";
		return -EPROTO;
	}
	out->win.segs = (const void *)(p + sizeof(h));
	out->runs = (const void *)(p + sizeof(h) +
		    (size_t)out->win.nr_segs * sizeof(struct rw_wire_seg));
	ret = rw_wire_segs_check(out->win.segs, out->win.nr_segs, why);
	return ret ?: rw_wire_runs_check(out, nr_chunks, why);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_request_parse);

/* The checkpoint head travels little-endian, field by field. */
struct rw_wire_head {
	__le32 magic;
	__le32 head_len;
	__le64 layout_hash;
	__le32 nr_tensors;
	__le32 nr_chunks;
	__le32 chunk_size;
	__le32 nr_state;
	__le32 optim;
	__le32 hparams[6];
	__le32 reserved0;
	__le64 params_len;
	__le64 image_len;
	__le64 step;
	__le64 reserved[2];
};

static_assert(sizeof(struct rw_wire_head) == RW_CKPT_HEAD_SIZE,
	      "the head travels at its own size");

static void rw_wire_head_pack(struct rw_wire_head *w,
			      const struct rw_ckpt_head *h)
{
	u32 i;

	memset(w, 0, sizeof(*w));
	w->magic = cpu_to_le32(h->magic);
	w->head_len = cpu_to_le32(h->head_len);
	w->layout_hash = cpu_to_le64(h->layout_hash);
	w->nr_tensors = cpu_to_le32(h->nr_tensors);
	w->nr_chunks = cpu_to_le32(h->nr_chunks);
	w->chunk_size = cpu_to_le32(h->chunk_size);
	w->nr_state = cpu_to_le32(h->nr_state);
	w->optim = cpu_to_le32(h->optim);
	for (i = 0; i < 6; i++)
		w->hparams[i] = cpu_to_le32(h->hparams[i]);
	w->params_len = cpu_to_le64(h->params_len);
	w->image_len = cpu_to_le64(h->image_len);
	w->step = cpu_to_le64(h->step);
}

static int rw_wire_head_get(const struct rw_wire_head *w,
			    struct rw_ckpt_head *h, const char **why)
{
	u32 i;

	if (w->reserved0 || w->reserved[0] || w->reserved[1]) {
		*why = "non-zero reserved bytes in a head";
		return -EPROTO;
	}
	memset(h, 0, sizeof(*h));
	h->magic = le32_to_cpu(w->magic);
	h->head_len = le32_to_cpu(w->head_len);
	h->layout_hash = le64_to_cpu(w->layout_hash);
	h->nr_tensors = le32_to_cpu(w->nr_tensors);
	h->nr_chunks = le32_to_cpu(w->nr_chunks);
	h->chunk_size = le32_to_cpu(w->chunk_size);
	h->nr_state = le32_to_cpu(w->nr_state);
	h->optim = le32_to_cpu(w->optim);
	for (i = 0; i < 6; i++)
		h->hparams[i] = le32_to_cpu(w->hparams[i]);
	h->params_len = le64_to_cpu(w->params_len);
	h->image_len = le64_to_cpu(w->image_len);
	h->step = le64_to_cpu(w->step);
	if (h->magic != RW_CKPT_MAGIC || h->head_len != sizeof(*h)) {
		*why = "a head of another kind";
		return -EPROTO;
	}
	return 0;
}

size_t rw_wire_answer_size(const struct rw_wire_answer_info *in)
{
	return sizeof(struct rw_wire_answer) +
	       (in->has_head ? sizeof(struct rw_wire_head) : 0);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_answer_size);

int rw_wire_answer_pack(void *buf, size_t len,
			const struct rw_wire_answer_info *in)
{
	size_t n = rw_wire_answer_size(in);
	struct rw_wire_answer h = {};
	struct rw_wire_head wh;

	if (n > len || (in->has_head && in->status))
		return -EMSGSIZE;
	rw_wire_msg_pack(&h.msg, RW_MSG_ANSWER, in->status, n);
	h.op = cpu_to_le32(in->op);
	h.seq = cpu_to_le32(in->seq);
	h.len = cpu_to_le32((u32)(n - sizeof(h)));
	h.flags = cpu_to_le32(in->flags);
	memcpy(buf, &h, sizeof(h));
	if (in->has_head) {
		rw_wire_head_pack(&wh, &in->head);
		memcpy((u8 *)buf + sizeof(h), &wh, sizeof(wh));
	}
	return (int)n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_answer_pack);

int rw_wire_answer_parse(const void *data, size_t len,
			 struct rw_wire_answer_info *out, const char **why)
{
	struct rw_wire_answer h;
	struct rw_wire_head wh;
	u32 body;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(h), RW_MSG_ANSWER, &h.msg,
				why);
	if (ret)
		return ret;
	memcpy(&h, data, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->status = le16_to_cpu(h.msg.status);
	out->op = le32_to_cpu(h.op);
	out->seq = le32_to_cpu(h.seq);
	body = le32_to_cpu(h.len);
	out->flags = le32_to_cpu(h.flags);
	if (out->flags & ~RW_WIRE_PARAMS_SET || !out->op ||
	    out->op >= __RW_OP_MAX) {
		*why = "unknown op or flags in an answer";
		return -EPROTO;
	}
	out->has_head = (out->op == RW_OP_HEAD || out->op == RW_OP_SAVE) &&
			!out->status;
	if (body != (out->has_head ? sizeof(wh) : 0) ||
	    le32_to_cpu(h.msg.len) != sizeof(h) + body ||
	    sizeof(h) + (size_t)body > len) {
		*why = "answer length does not match its op";
		return -EPROTO;
	}
	if (!out->has_head)
		return 0;
	memcpy(&wh, (const u8 *)data + sizeof(h), sizeof(wh));
	return rw_wire_head_get(&wh, &out->head, why);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_answer_parse);

// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA wire, packed and checked: immediates and the private data of
 * the connect handshake (layouts in uapi/rackweave.h, "RDMA wire").
 *
 * Everything that arrives from the wire is refused unless it is exactly
 * what this version sends: a magic, a version, flags and reserved bytes
 * that must be zero, a type from a closed list and a chunk id below the
 * job's count. Nothing here indexes memory with what it decodes; callers
 * use the checked values.
 */
#include "wire.h"
#include "wire_priv.h"
#include "chunk/layout.h"

/*
 * The bit budget, checked when the module is built rather than when it is
 * loaded: the immediate's fields hold every type, every chunk id a layout
 * may have, and the request's rank field every rank.
 */
#define RW_WIRE_MAX_CHUNKS	(RW_IMM_CHUNK_MASK + 1U)
#define RW_WIRE_MAX_TYPES	(1U << (32 - RW_IMM_TYPE_SHIFT))
#define RW_WIRE_MAX_RANKS	(U16_MAX + 1U)
static_assert(RW_LAYOUT_MAX_CHUNKS <= RW_WIRE_MAX_CHUNKS,
	      "the chunk id covers every chunk");
static_assert(__RW_IMM_TYPE_MAX <= RW_WIRE_MAX_TYPES,
	      "the type bits cover every type");
static_assert(RW_IMM_CLOCK_SHIFT == RW_IMM_CHUNK_BITS,
	      "the clock starts where the chunk id ends");
static_assert(RW_IMM_TYPE_SHIFT - RW_IMM_CLOCK_SHIFT == 8,
	      "the clock is 8 bits, below the type");
static_assert(RW_JOB_MAX_WORKERS <= RW_WIRE_MAX_RANKS,
	      "the request's rank field holds every rank");

int rw_wire_imm_parse(u32 imm, u32 nr_chunks, struct rw_wire_imm *out)
{
	u32 type = imm >> RW_IMM_TYPE_SHIFT;
	u32 chunk = imm & RW_IMM_CHUNK_MASK;

	if (type == 0 || type >= __RW_IMM_TYPE_MAX)
		return -EPROTO;
	if (chunk >= nr_chunks || chunk >= RW_WIRE_MAX_CHUNKS)
		return -ERANGE;
	out->type = type;
	out->clock = (imm >> RW_IMM_CLOCK_SHIFT) & RW_IMM_CLOCK_MASK;
	out->chunk = chunk;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_imm_parse);

void rw_wire_req_pack(struct rw_wire_req *w, const struct rw_wire_req_info *in)
{
	memset(w, 0, sizeof(*w));
	w->magic = cpu_to_le32(RW_WIRE_MAGIC);
	w->version = RW_WIRE_VERSION;
	w->flags = (in->observer ? RW_WIRE_REQ_OBSERVER : 0) |
		   (in->box ? RW_WIRE_REQ_BOX : 0);
	w->rank = cpu_to_le16((u16)in->rank);
	w->epoch = cpu_to_le32(in->epoch);
	w->nic = (u8)in->nic;
	w->nr_nics = (u8)in->nr_nics;
	w->session = cpu_to_le16((u16)in->session);
	memcpy(w->job_tag, in->job_tag, sizeof(w->job_tag));
	w->nonce = cpu_to_le64(in->nonce);
	w->time_s = cpu_to_le64(in->time_s);
	memcpy(w->auth, in->auth, sizeof(w->auth));
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_req_pack);

int rw_wire_nics_check(u32 nic, u32 nr_nics, u32 session)
{
	if (!nr_nics)
		return nic || session ? -EPROTO : 0;
	if (nr_nics < 2 || nr_nics > RW_WIRE_MAX_NICS || nic >= nr_nics ||
	    !session || session > U16_MAX)
		return -EPROTO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_nics_check);

#define RW_WIRE_UNSET	0xffU

int rw_wire_assign(const int *chunk_node, u32 nr_chunks,
		   const int *link_node, u32 nr_links, u8 *link_of)
{
	u8 cand[RW_WIRE_MAX_NICS];
	u32 c, first, j, m, k;
	int n;

	if (!nr_links || nr_links > RW_WIRE_MAX_NICS)
		return -EINVAL;
	memset(link_of, RW_WIRE_UNSET, nr_chunks);
	/* One node at a time: the first chunk not yet given a connection. */
	for (first = 0; first < nr_chunks; first++) {
		if (link_of[first] != RW_WIRE_UNSET)
			continue;
		n = chunk_node[first];
		m = 0;
		for (j = 0; j < nr_links; j++)
			if (n != RW_WIRE_NO_NODE && link_node[j] == n)
				cand[m++] = (u8)j;
		if (!m)
			for (j = 0; j < nr_links; j++)
				cand[m++] = (u8)j;
		for (c = first, k = 0; c < nr_chunks; c++)
			if (chunk_node[c] == n)
				link_of[c] = cand[k++ % m];
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_assign);

/* Magic and version, the framing every handshake message starts with. */
static int rw_wire_check_frame(__le32 magic, u8 version, const char **why)
{
	if (le32_to_cpu(magic) != RW_WIRE_MAGIC) {
		*why = "not a RackWeave request (magic)";
		return -EPROTO;
	}
	if (version != RW_WIRE_VERSION) {
		*why = "unknown wire version";
		return -EPROTO;
	}
	return 0;
}

int rw_wire_req_parse(const void *data, size_t len,
		      struct rw_wire_req_info *out, const char **why)
{
	struct rw_wire_req w;
	int ret;

	if (!data || len < sizeof(w)) {
		*why = "connect request shorter than its header";
		return -EPROTO;
	}
	memcpy(&w, data, sizeof(w));
	ret = rw_wire_check_frame(w.magic, w.version, why);
	if (ret)
		return ret;
	if (w.flags & ~(RW_WIRE_REQ_OBSERVER | RW_WIRE_REQ_BOX) ||
	    w.flags == (RW_WIRE_REQ_OBSERVER | RW_WIRE_REQ_BOX)) {
		*why = "unknown flags";
		return -EPROTO;
	}
	if (rw_wire_nics_check(w.nic, w.nr_nics, le16_to_cpu(w.session))) {
		*why = "bad connection index, count or session";
		return -EPROTO;
	}
	if (w.flags & RW_WIRE_REQ_OBSERVER && (w.rank || w.nr_nics)) {
		*why = "an observer with a rank or several connections";
		return -EPROTO;
	}
	/* A box that gives chunks: its id, the set's epoch, one link. */
	if (w.flags & RW_WIRE_REQ_BOX &&
	    (!w.rank || !w.epoch || w.nr_nics)) {
		*why = "a giving box with no id or epoch, or several connections";
		return -EPROTO;
	}
	out->observer = w.flags & RW_WIRE_REQ_OBSERVER;
	out->box = w.flags & RW_WIRE_REQ_BOX;
	out->rank = le16_to_cpu(w.rank);
	out->epoch = le32_to_cpu(w.epoch);
	out->nic = w.nic;
	out->nr_nics = w.nr_nics;
	out->session = le16_to_cpu(w.session);
	memcpy(out->job_tag, w.job_tag, sizeof(out->job_tag));
	out->nonce = le64_to_cpu(w.nonce);
	out->time_s = le64_to_cpu(w.time_s);
	memcpy(out->auth, w.auth, sizeof(out->auth));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_req_parse);

void rw_wire_rej_pack(struct rw_wire_rej *w, int err)
{
	memset(w, 0, sizeof(*w));
	w->magic = cpu_to_le32(RW_WIRE_MAGIC);
	w->version = RW_WIRE_VERSION;
	w->reason = cpu_to_le16((u16)(err < 0 ? -err : err));
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_rej_pack);

int rw_wire_rej_parse(const void *data, size_t len)
{
	struct rw_wire_rej w;
	const char *why;
	u16 reason;

	if (!data || len < sizeof(w))
		return -EPROTO;
	memcpy(&w, data, sizeof(w));
	if (rw_wire_check_frame(w.magic, w.version, &why) || w.reserved)
		return -EPROTO;
	reason = le16_to_cpu(w.reason);
	return reason ? -(int)reason : -EPROTO;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_rej_parse);

/* ---- control messages ---- */

static_assert(sizeof(struct rw_wire_setup) == RW_WIRE_SETUP_SIZE,
	      "setup header size");
static_assert(sizeof(struct rw_wire_setup_reply) == RW_WIRE_REPLY_SIZE,
	      "reply header size");

void rw_wire_seg_get(const struct rw_wire_win *w, u32 i,
		     struct rw_wire_seg_info *out)
{
	struct rw_wire_seg s;

	memcpy(&s, &w->segs[i], sizeof(s));
	out->addr = le64_to_cpu(s.addr);
	out->rkey = le32_to_cpu(s.rkey);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_seg_get);

u64 rw_wire_nr_segs(u64 bytes, u32 shift)
{
	return (bytes >> shift) + !!(bytes & ((1ULL << shift) - 1));
}

int rw_wire_win_check(const struct rw_wire_win *w, u64 bytes, u32 chunk_size)
{
	if (w->seg_shift < RW_WIRE_SEG_SHIFT_MIN ||
	    w->seg_shift > RW_WIRE_SEG_SHIFT_MAX ||
	    (1ULL << w->seg_shift) < chunk_size || !bytes ||
	    rw_wire_nr_segs(bytes, w->seg_shift) != w->nr_segs)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_win_check);

void rw_wire_win_at(const struct rw_wire_win *w, u64 off,
		    struct rw_wire_seg_info *out)
{
	rw_wire_seg_get(w, (u32)(off >> w->seg_shift), out);
	out->addr += off & ((1ULL << w->seg_shift) - 1);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_win_at);

static size_t rw_wire_msg_size(size_t head, u32 nr_segs, u32 nr_tensors)
{
	u64 n = head + (u64)nr_segs * sizeof(struct rw_wire_seg) +
		(u64)nr_tensors * sizeof(struct rw_wire_tensor);

	return n <= RW_WIRE_MSG_MAX ? (size_t)n : 0;
}

size_t rw_wire_setup_size(u32 nr_segs, u32 nr_tensors)
{
	return rw_wire_msg_size(sizeof(struct rw_wire_setup), nr_segs,
				nr_tensors);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_setup_size);

size_t rw_wire_reply_size(u32 nr_segs)
{
	return rw_wire_msg_size(sizeof(struct rw_wire_setup_reply), nr_segs, 0);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_reply_size);

void rw_wire_msg_pack(struct rw_wire_msg *m, u32 type, u32 status,
		      size_t len)
{
	memset(m, 0, sizeof(*m));
	m->magic = cpu_to_le32(RW_WIRE_MAGIC);
	m->version = RW_WIRE_VERSION;
	m->type = (u8)type;
	m->status = cpu_to_le16((u16)status);
	m->len = cpu_to_le32((u32)len);
}

void rw_wire_segs_pack(u8 *p, const struct rw_wire_seg_info *segs, u32 n)
{
	struct rw_wire_seg s = {};
	u32 i;

	for (i = 0; i < n; i++, p += sizeof(s)) {
		s.addr = cpu_to_le64(segs[i].addr);
		s.rkey = cpu_to_le32(segs[i].rkey);
		memcpy(p, &s, sizeof(s));
	}
}

int rw_wire_setup_pack(void *buf, size_t len,
		       const struct rw_wire_setup_info *in,
		       const struct rw_wire_seg_info *segs,
		       const struct rw_tensor_desc *t)
{
	size_t n = rw_wire_setup_size(in->win.nr_segs, in->nr_tensors);
	struct rw_wire_setup h = {};
	struct rw_wire_tensor wt = {};
	u8 *p = buf;
	u32 i;

	if (!n || n > len)
		return -EMSGSIZE;
	rw_wire_msg_pack(&h.msg, RW_MSG_SETUP, 0, n);
	h.flags = cpu_to_le32(in->flags);
	h.nr_tensors = cpu_to_le32(in->nr_tensors);
	h.seg_shift = cpu_to_le32(in->win.seg_shift);
	h.nr_segs = cpu_to_le32(in->win.nr_segs);
	rw_wire_segs_pack((u8 *)&h.inbox, &in->inbox, 1);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	rw_wire_segs_pack(p, segs, in->win.nr_segs);
	p += (size_t)in->win.nr_segs * sizeof(struct rw_wire_seg);
	for (i = 0; i < in->nr_tensors; i++, p += sizeof(wt)) {
		wt.key = cpu_to_le64(t[i].key);
		wt.nelems = cpu_to_le64(t[i].nelems);
		wt.dtype = cpu_to_le32(t[i].dtype);
		wt.priority = cpu_to_le32(t[i].priority);
		memcpy(p, &wt, sizeof(wt));
	}
	return (int)n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_setup_pack);

int rw_wire_msg_check(const void *data, size_t len, size_t head,
		      u32 type, struct rw_wire_msg *m, const char **why)
{
	int ret;

	if (!data || len < head) {
		*why = "message shorter than its header";
		return -EPROTO;
	}
	memcpy(m, data, sizeof(*m));
	ret = rw_wire_check_frame(m->magic, m->version, why);
	if (ret)
		return ret;
	if (m->type != type) {
		*why = "unexpected message type";
		return -EPROTO;
	}
	if (m->reserved) {
		*why = "non-zero reserved bytes";
		return -EPROTO;
	}
	return 0;
}

int rw_wire_segs_check(const struct rw_wire_seg *segs, u32 n,
		       const char **why)
{
	struct rw_wire_seg s;
	u32 i;

	for (i = 0; i < n; i++) {
		memcpy(&s, &segs[i], sizeof(s));
		if (s.reserved) {
			*why = "non-zero reserved bytes in a segment";
			return -EPROTO;
		}
	}
	return 0;
}

/* A message's inbox segment: no reserved bits; all 0 is none. */
static int rw_wire_inbox_get(const struct rw_wire_seg *seg,
			     struct rw_wire_seg_info *out, const char **why)
{
	struct rw_wire_seg s;

	memcpy(&s, seg, sizeof(s));
	if (s.reserved) {
		*why = "non-zero reserved bytes in the inbox";
		return -EPROTO;
	}
	out->addr = le64_to_cpu(s.addr);
	out->rkey = le32_to_cpu(s.rkey);
	return 0;
}

int rw_wire_setup_parse(const void *data, size_t len,
			struct rw_wire_setup_info *out, const char **why)
{
	struct rw_wire_setup h;
	const u8 *p = data;
	size_t n;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(h), RW_MSG_SETUP, &h.msg,
				why);
	if (ret)
		return ret;
	memcpy(&h, data, sizeof(h));
	if (h.msg.status || le32_to_cpu(h.flags) & ~RW_DECLARE_VERIFY) {
		*why = "unknown flags or a status in a setup";
		return -EPROTO;
	}
	out->flags = le32_to_cpu(h.flags);
	out->nr_tensors = le32_to_cpu(h.nr_tensors);
	out->win.seg_shift = le32_to_cpu(h.seg_shift);
	out->win.nr_segs = le32_to_cpu(h.nr_segs);
	n = rw_wire_setup_size(out->win.nr_segs, out->nr_tensors);
	if (!out->nr_tensors || !out->win.nr_segs || !n ||
	    n != le32_to_cpu(h.msg.len) || n > len) {
		*why = "setup length does not match its counts";
		return -EPROTO;
	}
	if (out->win.seg_shift < RW_WIRE_SEG_SHIFT_MIN ||
	    out->win.seg_shift > RW_WIRE_SEG_SHIFT_MAX) {
		*why = "segment size out of range";
		return -EPROTO;
	}
	out->win.segs = (const void *)(p + sizeof(h));
	out->tensors = (const void *)(p + sizeof(h) +
			(size_t)out->win.nr_segs * sizeof(struct rw_wire_seg));
	ret = rw_wire_inbox_get(&h.inbox, &out->inbox, why);
	return ret ?: rw_wire_segs_check(out->win.segs, out->win.nr_segs, why);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_setup_parse);

void rw_wire_tensor_get(const struct rw_wire_setup_info *s, u32 i,
			struct rw_tensor_desc *out)
{
	struct rw_wire_tensor wt;

	memcpy(&wt, &s->tensors[i], sizeof(wt));
	out->key = le64_to_cpu(wt.key);
	out->nelems = le64_to_cpu(wt.nelems);
	out->dtype = le32_to_cpu(wt.dtype);
	out->priority = le32_to_cpu(wt.priority);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_tensor_get);

int rw_wire_reply_pack(void *buf, size_t len,
		       const struct rw_wire_reply_info *in,
		       const struct rw_wire_seg_info *segs)
{
	u32 nr_segs = in->status ? 0 : in->win.nr_segs;
	size_t n = rw_wire_reply_size(nr_segs);
	struct rw_wire_setup_reply h = {};

	if (!n || n > len)
		return -EMSGSIZE;
	rw_wire_msg_pack(&h.msg, RW_MSG_SETUP_REPLY, in->status, n);
	if (!in->status) {
		h.rank = cpu_to_le32(in->rank);
		h.nr_workers = cpu_to_le32(in->nr_workers);
		h.sync = cpu_to_le32(in->sync);
		h.epoch = cpu_to_le32(in->epoch);
		h.chunk_size = cpu_to_le32(in->chunk_size);
		h.nr_chunks = cpu_to_le32(in->nr_chunks);
		h.model_bytes = cpu_to_le64(in->model_bytes);
		h.credits = cpu_to_le32(in->credits);
		h.nic = (u8)in->nic;
		h.nr_nics = (u8)in->nr_nics;
		h.seg_shift = cpu_to_le32(in->win.seg_shift);
		h.nr_segs = cpu_to_le32(nr_segs);
		h.nr_own = cpu_to_le32(in->nr_own);
		h.flags = cpu_to_le32(in->flags);
		h.box_id = cpu_to_le32(in->box_id);
		h.nr_boxes = cpu_to_le32(in->nr_boxes);
		h.box_epoch = cpu_to_le32(in->box_epoch);
		h.box_digest = cpu_to_le64(in->box_digest);
		rw_wire_segs_pack((u8 *)&h.inbox, &in->inbox, 1);
	}
	memcpy(buf, &h, sizeof(h));
	rw_wire_segs_pack((u8 *)buf + sizeof(h), segs, nr_segs);
	return (int)n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_reply_pack);

/* The box-set fields of a reply from a box of a set (nr_boxes > 0). */
static bool rw_wire_box_ok(const struct rw_wire_reply_info *r)
{
	return r->box_id && r->box_id <= RW_BOX_MAX_ID &&
	       r->nr_boxes <= RW_JOB_MAX_BOXES &&
	       r->box_epoch && !r->nr_nics;
}

int rw_wire_reply_parse(const void *data, size_t len,
			struct rw_wire_reply_info *out, const char **why)
{
	struct rw_wire_setup_reply h;
	u64 chunks;
	size_t n;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(h), RW_MSG_SETUP_REPLY,
				&h.msg, why);
	if (ret)
		return ret;
	memcpy(&h, data, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->status = le16_to_cpu(h.msg.status);
	out->rank = le32_to_cpu(h.rank);
	out->nr_workers = le32_to_cpu(h.nr_workers);
	out->sync = le32_to_cpu(h.sync);
	out->epoch = le32_to_cpu(h.epoch);
	out->chunk_size = le32_to_cpu(h.chunk_size);
	out->nr_chunks = le32_to_cpu(h.nr_chunks);
	out->model_bytes = le64_to_cpu(h.model_bytes);
	out->credits = le32_to_cpu(h.credits);
	out->nic = h.nic;
	out->nr_nics = h.nr_nics;
	out->win.seg_shift = le32_to_cpu(h.seg_shift);
	out->win.nr_segs = le32_to_cpu(h.nr_segs);
	out->nr_own = le32_to_cpu(h.nr_own);
	out->box_id = le32_to_cpu(h.box_id);
	out->nr_boxes = le32_to_cpu(h.nr_boxes);
	out->box_epoch = le32_to_cpu(h.box_epoch);
	out->box_digest = le64_to_cpu(h.box_digest);
	out->win.segs = (const void *)((const u8 *)data + sizeof(h));
	ret = rw_wire_inbox_get(&h.inbox, &out->inbox, why);
	if (ret)
		return ret;
	n = rw_wire_reply_size(out->win.nr_segs);
	out->flags = le32_to_cpu(h.flags);
	if (!n || n != le32_to_cpu(h.msg.len) || n > len || h.reserved ||
	    h.reserved2 || out->flags & ~RW_WIRE_PARAMS_SET) {
		*why = "reply length does not match its counts";
		return -EPROTO;
	}
	if (out->status && (out->win.nr_segs || h.nic || h.nr_nics ||
			    out->nr_own || out->inbox.addr || out->inbox.rkey ||
			    out->flags || out->box_id || out->nr_boxes ||
			    out->box_epoch || out->box_digest)) {
		*why = "a refusal with a window or a connection index";
		return -EPROTO;
	}
	/* A box of a set: one connection to it, an id and an epoch. */
	if (out->nr_boxes ? !rw_wire_box_ok(out) :
	    out->box_id || out->box_epoch || out->box_digest) {
		*why = "bad box set";
		return -EPROTO;
	}
	/* The session stays the worker's: the one the count asks for. */
	if (rw_wire_nics_check(out->nic, out->nr_nics, !!out->nr_nics)) {
		*why = "bad connection index or count";
		return -EPROTO;
	}
	if (out->status)
		return 0;
	if (out->chunk_size < RW_LAYOUT_CHUNK_MIN ||
	    out->chunk_size > RW_LAYOUT_CHUNK_MAX ||
	    out->chunk_size & (out->chunk_size - 1)) {
		*why = "chunk size out of range";
		return -EPROTO;
	}
	chunks = rw_wire_nr_segs(out->model_bytes,
				 (u32)__builtin_ctz(out->chunk_size));
	if (!out->nr_workers ||
	    out->rank >= out->nr_workers || !out->credits ||
	    chunks != out->nr_chunks || out->nr_own > out->nr_chunks ||
	    (!out->nr_nics && !out->nr_boxes &&
	     out->nr_own != out->nr_chunks) ||
	    /* An observer's: no gradient window (uapi "Observers"). */
	    ((out->win.nr_segs || out->win.seg_shift) &&
	     rw_wire_win_check(&out->win,
			       (u64)out->nr_chunks * out->chunk_size,
			       out->chunk_size))) {
		*why = "reply geometry or window does not add up";
		return -EPROTO;
	}
	return rw_wire_segs_check(out->win.segs, out->win.nr_segs, why);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_reply_parse);

int rw_wire_replies_check(const struct rw_wire_reply_info *const *reps,
			  u32 n, const char **why)
{
	const struct rw_wire_reply_info *a, *o;
	u64 own;
	u32 i, j;

	if (!n || n > RW_WIRE_MAX_NICS) {
		*why = "connection count";
		return -EPROTO;
	}
	a = reps[0];
	own = a->nr_own;
	for (i = 0; i < n; i++) {
		o = reps[i];
		if (o->nr_boxes != a->nr_boxes || o->box_epoch != a->box_epoch ||
		    o->box_digest != a->box_digest) {
			*why = "boxes that disagree on the job's box set";
			return -EXDEV;
		}
		for (j = 0; j < i; j++)
			if (o->nr_boxes && reps[j]->box_id == o->box_id) {
				*why = "two connections to one box of the set";
				return -EXDEV;
			}
	}
	if (a->nr_boxes && a->nr_boxes != n) {
		*why = "a job over more boxes than the attachment names";
		return -EXDEV;
	}
	for (i = 1; i < n; i++) {
		o = reps[i];
		/* A worker's gate epoch is each box's own. */
		if (o->rank != a->rank || o->nr_workers != a->nr_workers ||
		    o->sync != a->sync ||
		    (!a->nr_boxes && o->epoch != a->epoch)) {
			*why = "connections of another rank or job";
			return -EPROTO;
		}
		if (o->chunk_size != a->chunk_size ||
		    o->nr_chunks != a->nr_chunks ||
		    o->model_bytes != a->model_bytes) {
			*why = "connections with different layouts";
			return -EPROTO;
		}
		own += o->nr_own;
	}
	if (own != a->nr_chunks) {
		*why = "the connections' chunks do not add up to the count";
		return -EPROTO;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_replies_check);

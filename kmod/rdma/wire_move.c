// SPDX-License-Identifier: GPL-2.0
/*
 * A move on the RDMA wire, packed and checked: notices (uapi "Notices"),
 * what a box tells a worker host of its job's move to another box set,
 * written into the peer's inbox past its answers; and gifts (uapi
 * "Gifts"), the chunks a box gives another at the move. Pure, as
 * rdma/wire.c: the module and the cmocka tests share it. Anything but
 * exactly what this version sends is refused.
 */
#include "wire.h"
#include "wire_priv.h"
#include "chunk/boxset.h"
#include "chunk/layout.h"

static_assert(sizeof(struct rw_wire_notice) == RW_WIRE_NOTICE_SIZE,
	      "notice header size");
static_assert(sizeof(struct rw_wire_box) == RW_WIRE_BOX_SIZE, "box size");
static_assert(RW_WIRE_NOTICE_OFF + RW_WIRE_NOTICE_SIZE +
	      RW_JOB_MAX_BOXES * RW_WIRE_BOX_SIZE <= RW_WIRE_INBOX_LEN,
	      "a notice of a whole set fits past the answers");
static_assert(RW_JOB_MAX_BOXES == RW_OWNER_MAX_BOXES, "one limit of boxes");
static_assert(sizeof(struct rw_wire_gift) == RW_WIRE_GIFT_SIZE, "gift size");
static_assert(sizeof(struct rw_wire_gift_reply) == RW_WIRE_GIFT_REPLY_SIZE,
	      "gift reply size");

size_t rw_wire_notice_size(u32 nr_boxes)
{
	return sizeof(struct rw_wire_notice) +
	       (size_t)nr_boxes * sizeof(struct rw_wire_box);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_notice_size);

int rw_wire_notice_pack(void *buf, size_t len,
			const struct rw_wire_notice_info *in)
{
	u32 nr = in->kind == RW_NOTICE_MOVE && in->set ? in->set->nr : 0, i;
	size_t n = rw_wire_notice_size(nr);
	struct rw_wire_notice h = {};
	struct rw_wire_box wb;
	u8 *p = buf;

	if (in->kind == RW_NOTICE_MOVE &&
	    (!in->set || !nr || nr > RW_JOB_MAX_BOXES))
		return -EINVAL;
	if (n > len || n > RW_WIRE_INBOX_LEN - RW_WIRE_NOTICE_OFF)
		return -EMSGSIZE;
	rw_wire_msg_pack(&h.msg, RW_MSG_NOTICE, 0, n);
	h.kind = cpu_to_le32(in->kind);
	h.seq = cpu_to_le32(in->seq);
	h.epoch = cpu_to_le32(in->epoch);
	h.stop_before = cpu_to_le32(in->stop_before);
	h.digest = cpu_to_le64(in->digest);
	h.nr_boxes = cpu_to_le32(nr);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	for (i = 0; i < nr; i++, p += sizeof(wb)) {
		const struct rw_box *b = &in->set->box[i];

		memset(&wb, 0, sizeof(wb));
		wb.id = cpu_to_le32(b->id);
		wb.family = cpu_to_le16(b->family);
		wb.port = cpu_to_le16(b->port);
		memcpy(wb.addr, b->addr, sizeof(wb.addr));
		memcpy(p, &wb, sizeof(wb));
	}
	return (int)n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_notice_pack);

int rw_wire_notice_parse(const void *data, size_t len, struct rw_boxset *set,
			 struct rw_wire_notice_info *out, const char **why)
{
	const u8 *p = data;
	struct rw_wire_notice h;
	struct rw_wire_box wb;
	bool move;
	u32 nr, i, k;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(h), RW_MSG_NOTICE, &h.msg,
				why);
	if (ret)
		return ret;
	memcpy(&h, data, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->kind = le32_to_cpu(h.kind);
	out->seq = le32_to_cpu(h.seq);
	out->epoch = le32_to_cpu(h.epoch);
	out->stop_before = le32_to_cpu(h.stop_before);
	out->digest = le64_to_cpu(h.digest);
	nr = le32_to_cpu(h.nr_boxes);
	move = out->kind == RW_NOTICE_MOVE;
	if (h.msg.status || h.reserved || !out->kind ||
	    out->kind >= __RW_NOTICE_MAX || !out->epoch) {
		*why = "unknown kind, a status or reserved bytes in a notice";
		return -EPROTO;
	}
	if (move ? !nr || nr > RW_JOB_MAX_BOXES || out->stop_before :
		   nr || !out->stop_before) {
		*why = "a notice's boxes or boundary do not fit its kind";
		return -EPROTO;
	}
	if (rw_wire_notice_size(nr) != le32_to_cpu(h.msg.len) ||
	    rw_wire_notice_size(nr) > len) {
		*why = "notice length does not match its boxes";
		return -EPROTO;
	}
	if (!move)
		return 0;
	memset(set, 0, sizeof(*set));
	set->epoch = out->epoch;
	set->nr = nr;
	for (i = 0, p += sizeof(h); i < nr; i++, p += sizeof(wb)) {
		memcpy(&wb, p, sizeof(wb));
		/* An IPv4 address is 4 bytes: nothing may hide behind it. */
		for (k = 4; le16_to_cpu(wb.family) == RW_BOX_AF_INET &&
		     k < sizeof(wb.addr); k++) {
			if (wb.addr[k]) {
				*why = "bytes past a notice's IPv4 address";
				return -EPROTO;
			}
		}
		set->box[i].id = le32_to_cpu(wb.id);
		set->box[i].family = le16_to_cpu(wb.family);
		set->box[i].port = le16_to_cpu(wb.port);
		memcpy(set->box[i].addr, wb.addr, sizeof(wb.addr));
	}
	out->set = set;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_notice_parse);

/* ---- gifts ---- */

u64 rw_wire_gift_rec_len(u32 nr_state, u32 chunk_size, bool half)
{
	return ((1 + (u64)nr_state) * chunk_size << (half ? 1 : 0)) +
	       sizeof(u64);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_rec_len);

size_t rw_wire_gift_size(u32 nr_segs, u32 nr_map)
{
	u64 n = sizeof(struct rw_wire_gift) +
		(u64)nr_segs * sizeof(struct rw_wire_seg) +
		((u64)nr_map + 63) / 64 * sizeof(u64);

	return n <= RW_WIRE_MSG_MAX ? (size_t)n : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_size);

int rw_wire_gift_pack(void *buf, size_t len, const struct rw_wire_gift_info *in,
		      const struct rw_wire_seg_info *segs)
{
	size_t n = rw_wire_gift_size(in->win.nr_segs, in->nr_map);
	struct rw_wire_gift h = {};
	u32 i, words = (in->nr_map + 63) / 64;
	u8 *p = buf;
	__le64 w;

	if (!n || n > len)
		return -EMSGSIZE;
	rw_wire_msg_pack(&h.msg, RW_MSG_GIFT, 0, n);
	h.giver = cpu_to_le32(in->giver);
	h.epoch = cpu_to_le32(in->epoch);
	h.digest = cpu_to_le64(in->digest);
	h.layout_hash = cpu_to_le64(in->layout_hash);
	h.nr_chunks = cpu_to_le32(in->nr_chunks);
	h.nr_state = cpu_to_le32(in->nr_state);
	h.chunk_size = cpu_to_le32(in->chunk_size);
	h.flags = cpu_to_le32((in->last_short ? RW_GIFT_LAST_SHORT : 0) |
			      (in->half ? RW_GIFT_HALF : 0));
	h.first = cpu_to_le32(in->first);
	h.nr_map = cpu_to_le32(in->nr_map);
	h.nr_given = cpu_to_le32(in->nr_given);
	h.seg_shift = cpu_to_le32(in->win.seg_shift);
	h.nr_segs = cpu_to_le32(in->win.nr_segs);
	h.off = cpu_to_le64(in->off);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	rw_wire_segs_pack(p, segs, in->win.nr_segs);
	p += (size_t)in->win.nr_segs * sizeof(struct rw_wire_seg);
	for (i = 0; i < words; i++, p += sizeof(w)) {
		w = cpu_to_le64(in->map[i]);
		memcpy(p, &w, sizeof(w));
	}
	return (int)n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_pack);

/* Bits set in @w (pure code has no hweight64()). */
static u32 rw_wire_pop64(u64 w)
{
	u32 n = 0;

	for (; w; w &= w - 1)
		n++;
	return n;
}

static u64 rw_wire_gift_word(const struct rw_wire_gift_info *g, u32 k)
{
	__le64 w;

	memcpy(&w, (const u8 *)g->wire_map + (size_t)k * sizeof(w), sizeof(w));
	return le64_to_cpu(w);
}

bool rw_wire_gift_has(const struct rw_wire_gift_info *g, u32 i)
{
	return rw_wire_gift_word(g, i / 64) >> (i % 64) & 1;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_has);

/* The geometry of a model a box could run. */
static bool rw_wire_gift_model_ok(const struct rw_wire_gift_info *g)
{
	return g->nr_chunks && g->nr_chunks <= RW_LAYOUT_MAX_CHUNKS &&
	       g->chunk_size >= RW_LAYOUT_CHUNK_MIN &&
	       g->chunk_size <= RW_LAYOUT_CHUNK_MAX &&
	       !(g->chunk_size & (g->chunk_size - 1)) &&
	       g->nr_state <= RW_WIRE_GIFT_STATE_MAX;
}

int rw_wire_gift_parse(const void *data, size_t len,
		       struct rw_wire_gift_info *out, const char **why)
{
	const u8 *p = data;
	struct rw_wire_gift h;
	u32 flags, words, k, count = 0;
	u64 w, bytes;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(h), RW_MSG_GIFT, &h.msg, why);
	if (ret)
		return ret;
	memcpy(&h, data, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->giver = le32_to_cpu(h.giver);
	out->epoch = le32_to_cpu(h.epoch);
	out->digest = le64_to_cpu(h.digest);
	out->layout_hash = le64_to_cpu(h.layout_hash);
	out->nr_chunks = le32_to_cpu(h.nr_chunks);
	out->nr_state = le32_to_cpu(h.nr_state);
	out->chunk_size = le32_to_cpu(h.chunk_size);
	flags = le32_to_cpu(h.flags);
	out->last_short = flags & RW_GIFT_LAST_SHORT;
	out->half = flags & RW_GIFT_HALF;
	out->first = le32_to_cpu(h.first);
	out->nr_map = le32_to_cpu(h.nr_map);
	out->nr_given = le32_to_cpu(h.nr_given);
	out->win.seg_shift = le32_to_cpu(h.seg_shift);
	out->win.nr_segs = le32_to_cpu(h.nr_segs);
	out->off = le64_to_cpu(h.off);
	if (h.msg.status || h.reserved || flags & ~(RW_GIFT_LAST_SHORT | RW_GIFT_HALF) ||
	    !out->giver || out->giver > RW_BOX_ID_MAX || !out->epoch) {
		*why = "a status, reserved bytes, unknown flags or no giver or epoch in a gift";
		return -EPROTO;
	}
	if (!rw_wire_gift_model_ok(out)) {
		*why = "a gift of a model no box runs";
		return -EPROTO;
	}
	if (!out->nr_map || out->nr_map > RW_WIRE_GIFT_MAP_MAX ||
	    out->first >= out->nr_chunks ||
	    out->nr_map > out->nr_chunks - out->first) {
		*why = "a gift's map outside its model";
		return -EPROTO;
	}
	if (out->win.seg_shift < RW_WIRE_SEG_SHIFT_MIN ||
	    out->win.seg_shift > RW_WIRE_SEG_SHIFT_MAX || !out->win.nr_segs) {
		*why = "a gift's window has no segments or a bad segment size";
		return -EPROTO;
	}
	if (!rw_wire_gift_size(out->win.nr_segs, out->nr_map) ||
	    rw_wire_gift_size(out->win.nr_segs, out->nr_map) !=
	    le32_to_cpu(h.msg.len) ||
	    rw_wire_gift_size(out->win.nr_segs, out->nr_map) > len) {
		*why = "gift length does not match its segments and map";
		return -EPROTO;
	}
	p += sizeof(h);
	out->win.segs = (const struct rw_wire_seg *)p;
	ret = rw_wire_segs_check(out->win.segs, out->win.nr_segs, why);
	if (ret)
		return ret;
	out->wire_map = p + (size_t)out->win.nr_segs * sizeof(struct rw_wire_seg);
	words = (out->nr_map + 63) / 64;
	for (k = 0; k < words; k++) {
		w = rw_wire_gift_word(out, k);
		/* No bit past the map's last chunk. */
		if (k == words - 1 && out->nr_map % 64 &&
		    w >> (out->nr_map % 64)) {
			*why = "a gift's map has bits past its chunks";
			return -EPROTO;
		}
		count += rw_wire_pop64(w);
	}
	if (!count || count != out->nr_given) {
		*why = "a gift's count does not match its map";
		return -EPROTO;
	}
	bytes = (u64)out->nr_given *
		rw_wire_gift_rec_len(out->nr_state, out->chunk_size,
				     out->half);
	if (out->off >= (u64)out->win.nr_segs << out->win.seg_shift ||
	    bytes > ((u64)out->win.nr_segs << out->win.seg_shift) - out->off) {
		*why = "a gift's records pass its window";
		return -EPROTO;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_parse);

void rw_wire_gift_reply_pack(struct rw_wire_gift_reply *r, u32 status,
			     u32 taken)
{
	memset(r, 0, sizeof(*r));
	rw_wire_msg_pack(&r->msg, RW_MSG_GIFT_REPLY, status, sizeof(*r));
	r->taken = cpu_to_le32(status ? 0 : taken);
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_reply_pack);

int rw_wire_gift_reply_parse(const void *data, size_t len, u32 *status,
			     u32 *taken, const char **why)
{
	struct rw_wire_gift_reply r;
	int ret;

	ret = rw_wire_msg_check(data, len, sizeof(r), RW_MSG_GIFT_REPLY,
				&r.msg, why);
	if (ret)
		return ret;
	memcpy(&r, data, sizeof(r));
	*status = le16_to_cpu(r.msg.status);
	*taken = le32_to_cpu(r.taken);
	if (le32_to_cpu(r.msg.len) != sizeof(r) || r.reserved ||
	    (*status && *taken)) {
		*why = "a gift reply's length, reserved bytes or count";
		return -EPROTO;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_gift_reply_parse);

// SPDX-License-Identifier: GPL-2.0
/*
 * Notices on the RDMA wire, packed and checked (uapi "Notices"): what a
 * box tells a worker host of its job's move to another box set, written
 * into the peer's inbox past its answers. Pure, as rdma/wire.c: the module
 * and the cmocka tests share it. Anything but exactly what this version
 * sends is refused.
 */
#include "wire.h"
#include "wire_priv.h"
#include "chunk/boxset.h"

static_assert(sizeof(struct rw_wire_notice) == RW_WIRE_NOTICE_SIZE,
	      "notice header size");
static_assert(sizeof(struct rw_wire_box) == RW_WIRE_BOX_SIZE, "box size");
static_assert(RW_WIRE_NOTICE_OFF + RW_WIRE_NOTICE_SIZE +
	      RW_JOB_MAX_BOXES * RW_WIRE_BOX_SIZE <= RW_WIRE_INBOX_LEN,
	      "a notice of a whole set fits past the answers");
static_assert(RW_JOB_MAX_BOXES == RW_OWNER_MAX_BOXES, "one limit of boxes");

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

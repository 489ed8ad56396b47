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
	w->rank = cpu_to_le16((u16)in->rank);
	w->epoch = cpu_to_le32(in->epoch);
	memcpy(w->job_tag, in->job_tag, sizeof(w->job_tag));
	w->nonce = cpu_to_le64(in->nonce);
	w->time_s = cpu_to_le64(in->time_s);
	memcpy(w->auth, in->auth, sizeof(w->auth));
}
EXPORT_SYMBOL_IF_KUNIT(rw_wire_req_pack);

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
	if (w.flags || w.reserved) {
		*why = "unknown flags or non-zero reserved bytes";
		return -EPROTO;
	}
	out->rank = le16_to_cpu(w.rank);
	out->epoch = le32_to_cpu(w.epoch);
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

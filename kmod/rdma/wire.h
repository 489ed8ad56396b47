/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA wire's pure half (implemented in rdma/wire.c): immediates and
 * the connect handshake's private data, packed and checked. The layouts
 * and their rules are in uapi/rackweave.h ("RDMA wire"). Pure logic (see
 * compat.h): the module, the cmocka tests and a raw test peer share it.
 */
#ifndef _RW_RDMA_WIRE_H
#define _RW_RDMA_WIRE_H

#include "compat.h"
#include "rackweave.h"

/* One immediate, decoded. */
struct rw_wire_imm {
	u32 type;			/* enum rw_imm_type */
	u32 clock;			/* low RW_IMM_CLOCK_MASK bits only */
	u32 chunk;
};

/*
 * Decode @imm (host order) for a job of @nr_chunks chunks: 0, or -EPROTO
 * for a type that is not one of enum rw_imm_type, -ERANGE for a chunk id
 * not below @nr_chunks. @out is written only on success.
 */
int rw_wire_imm_parse(u32 imm, u32 nr_chunks, struct rw_wire_imm *out);

/* A connect request, decoded (struct rw_wire_req without the framing). */
struct rw_wire_req_info {
	u32 rank;
	u32 epoch;
	u8 job_tag[RW_WIRE_TAG_LEN];
	u64 nonce;
	u64 time_s;
	u8 auth[RW_WIRE_AUTH_LEN];
};

void rw_wire_req_pack(struct rw_wire_req *w, const struct rw_wire_req_info *in);

/*
 * Check and decode the private data of a connect request: 0, or -EPROTO
 * with *@why saying what was wrong (too short, magic, version, flags,
 * reserved bytes). Bytes after the request (padding a transport adds) are
 * ignored. Nothing is authenticated here: the caller checks the tag and
 * the authenticator next.
 */
int rw_wire_req_parse(const void *data, size_t len,
		      struct rw_wire_req_info *out, const char **why);

/* A refusal for reject private data: @err a negative errno. */
void rw_wire_rej_pack(struct rw_wire_rej *w, int err);

/*
 * The reason of a refusal as a negative errno, or -EPROTO if @data is not
 * a RackWeave refusal (a transport-level reject carries none).
 */
int rw_wire_rej_parse(const void *data, size_t len);

#endif /* _RW_RDMA_WIRE_H */

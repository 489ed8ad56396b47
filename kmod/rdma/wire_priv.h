/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rdma/wire.c lends rdma/wire_ctl.c, and no one else: the framing of
 * control messages and their segments. Pure, as both files are.
 */
#ifndef _RW_RDMA_WIRE_PRIV_H
#define _RW_RDMA_WIRE_PRIV_H

#include "wire.h"

/* Segments of 2^@shift bytes that cover @bytes. */
u64 rw_wire_nr_segs(u64 bytes, u32 shift);
void rw_wire_msg_pack(struct rw_wire_msg *m, u32 type, u32 status,
		      size_t len);
void rw_wire_segs_pack(u8 *p, const struct rw_wire_seg_info *segs, u32 n);
/* The frame of a control message of @type; its length is checked later. */
int rw_wire_msg_check(const void *data, size_t len, size_t head,
		      u32 type, struct rw_wire_msg *m, const char **why);
/* Segment entries carry no reserved bits; their values are the peer's. */
int rw_wire_segs_check(const struct rw_wire_seg *segs, u32 n,
		       const char **why);

#endif /* _RW_RDMA_WIRE_PRIV_H */

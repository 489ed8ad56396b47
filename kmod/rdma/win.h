/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows (rdma/win.c): one of a job's engine buffers, as one worker sees
 * it, registered on an RDMA device with fast registration, segment by
 * segment. The keys a window hands out cover that worker's pages only.
 */
#ifndef _RW_RDMA_WIN_H
#define _RW_RDMA_WIN_H

#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

#include "engine.h"
#include "rdma/wire.h"

struct rw_win_seg {
	struct ib_mr *mr;
	struct sg_table sgt;
	int mapped;			/* entries DMA-mapped, 0: none */
};

struct rw_win {
	struct ib_device *dev;
	u32 seg_shift;
	u32 nr_segs;
	struct rw_win_seg *segs;
};

/*
 * The segment size (log2) for windows on @dev holding @chunk_size chunks:
 * the largest power of two the device registers at once, or 0 if it
 * cannot register one chunk.
 */
u32 rw_win_seg_shift(struct ib_device *dev, u32 chunk_size);

/*
 * Build @win over buffer @buf of @e as worker @worker sees it, in
 * 2^@seg_shift byte segments: memory regions allocated and mapped, not yet
 * registered. 0 or -errno; on error whatever was built is undone.
 */
int rw_win_map(struct rw_win *win, struct ib_pd *pd, struct rw_engine *e,
	       enum rw_engine_buf buf, u32 worker, u32 seg_shift);
/*
 * Post the registrations on @qp, unsignaled (@cqe sees only errors), with
 * @access: 0 or -errno from ib_post_send.
 */
int rw_win_post_reg(struct rw_win *win, struct ib_qp *qp, struct ib_cqe *cqe,
		    int access);
/* The segments as the wire carries them (@out has nr_segs entries). */
void rw_win_describe(const struct rw_win *win, struct rw_wire_seg_info *out);
/* Byte @off of the buffer: the local address and key to send from. */
void rw_win_at(const struct rw_win *win, u64 off, u64 *addr, u32 *lkey);
/* Undo rw_win_map once no work request on any QP can use @win. */
void rw_win_unmap(struct rw_win *win);

#endif /* _RW_RDMA_WIN_H */

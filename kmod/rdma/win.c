// SPDX-License-Identifier: GPL-2.0
/*
 * Windows: a buffer registered for one peer, on the box an engine buffer,
 * on a worker host a remote attachment's own (rdma/host_setup.c). Neither
 * is physically contiguous (the engine keeps each chunk in its own node's
 * memory, both come from vmalloc); fast registration gives a buffer one
 * address range per segment anyway, from a list of its pages. A segment
 * holds whole chunks, so every chunk is one range under one key, and a
 * single work request moves it.
 *
 * Neither the device's DMA-wide key nor a PD-wide remote key is ever used:
 * every key a peer learns covers its own segment of its own buffer.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rdma/win.h"

/*
 * A segment's region is allocated one page larger than the pages it maps.
 * Soft-RoCE (6.1's rxe_mr_copy) steps to the next block of its page table
 * after the last byte a transfer touches, and reads one pointer past the
 * table when a transfer ends at the end of a region whose page count fills
 * its blocks exactly (256 pages on 4 KiB pages). The spare page gives that
 * read a block to land in; it is never mapped nor addressed. So a segment
 * holds at most one page fewer than the device's list length.
 */
#define RW_WIN_SPARE_PAGES	1U

u32 rw_win_seg_shift(struct ib_device *dev, u32 chunk_size)
{
	u32 pages = dev->attrs.max_fast_reg_page_list_len;
	u32 shift;

	if (pages <= RW_WIN_SPARE_PAGES)
		return 0;
	shift = min_t(u32, ilog2(pages - RW_WIN_SPARE_PAGES) + PAGE_SHIFT,
		      RW_WIRE_SEG_SHIFT_MAX);
	return (1ULL << shift) >= chunk_size ? shift : 0;
}

/* Segment @i's pages, mapped for DMA, and a memory region for them. */
static int rw_win_seg_map(struct rw_win *win, struct ib_pd *pd,
			  const struct rw_win_pages *src, u32 i)
{
	struct rw_win_seg *s = &win->segs[i];
	u64 first = (u64)i << win->seg_shift;
	u64 bytes = min_t(u64, src->len - first, 1ULL << win->seg_shift);
	u32 n = DIV_ROUND_UP(bytes, PAGE_SIZE), p;
	struct scatterlist *sg;
	struct page *page;
	int ret;

	ret = sg_alloc_table(&s->sgt, n, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sg(s->sgt.sgl, sg, n, p) {
		page = src->page(src->arg, first + (u64)p * PAGE_SIZE);
		if (WARN_ON_ONCE(!page))
			return -EINVAL;
		sg_set_page(sg, page, PAGE_SIZE, 0);
	}
	s->mapped = ib_dma_map_sg(win->dev, s->sgt.sgl, n, DMA_BIDIRECTIONAL);
	if (!s->mapped)
		return -ENOMEM;
	s->mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, n + RW_WIN_SPARE_PAGES);
	if (IS_ERR(s->mr)) {
		ret = PTR_ERR(s->mr);
		s->mr = NULL;
		return ret;
	}
	ret = ib_map_mr_sg(s->mr, s->sgt.sgl, s->mapped, NULL, PAGE_SIZE);
	if (ret != s->mapped)
		return -EINVAL;
	/*
	 * Addressed from 0 at the window's start (the registration takes
	 * the region's iova as posted): a peer learns offsets into its own
	 * window, never where our memory is. Segments start on pages.
	 */
	s->mr->iova = first;
	return 0;
}

int rw_win_map(struct rw_win *win, struct ib_pd *pd,
	       const struct rw_win_pages *src, u32 seg_shift)
{
	u64 len = src->len;
	u32 i;
	int ret;

	win->dev = pd->device;
	win->seg_shift = seg_shift;
	win->nr_segs = DIV_ROUND_UP_ULL(len, 1ULL << seg_shift);
	win->segs = kvcalloc(win->nr_segs, sizeof(*win->segs), GFP_KERNEL);
	if (!win->segs) {
		win->nr_segs = 0;
		return -ENOMEM;
	}
	for (i = 0; i < win->nr_segs; i++) {
		ret = rw_win_seg_map(win, pd, src, i);
		if (ret) {
			rw_win_unmap(win);
			return ret;
		}
	}
	return 0;
}

int rw_win_post_reg(struct rw_win *win, struct ib_qp *qp, struct ib_cqe *cqe,
		    int access)
{
	struct ib_reg_wr reg = {
		.wr.opcode = IB_WR_REG_MR,
		.wr.wr_cqe = cqe,
		.access = access,
	};
	u32 i;
	int ret;

	for (i = 0; i < win->nr_segs; i++) {
		struct ib_mr *mr = win->segs[i].mr;

		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		reg.mr = mr;
		reg.key = mr->rkey;
		ret = ib_post_send(qp, &reg.wr, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

void rw_win_describe(const struct rw_win *win, struct rw_wire_seg_info *out)
{
	u32 i;

	for (i = 0; i < win->nr_segs; i++) {
		out[i].addr = win->segs[i].mr->iova;
		out[i].rkey = win->segs[i].mr->rkey;
	}
}

void rw_win_at(const struct rw_win *win, u64 off, u64 *addr, u32 *lkey)
{
	const struct ib_mr *mr = win->segs[off >> win->seg_shift].mr;

	*addr = mr->iova + (off & ((1ULL << win->seg_shift) - 1));
	*lkey = mr->lkey;
}

void rw_win_unmap(struct rw_win *win)
{
	u32 i;

	for (i = 0; i < win->nr_segs; i++) {
		struct rw_win_seg *s = &win->segs[i];

		if (s->mr)
			ib_dereg_mr(s->mr);
		if (s->mapped)
			ib_dma_unmap_sg(win->dev, s->sgt.sgl, s->sgt.orig_nents,
					DMA_BIDIRECTIONAL);
		sg_free_table(&s->sgt);
	}
	kvfree(win->segs);
	win->segs = NULL;
	win->nr_segs = 0;
}

static struct page *rw_win_vpage(void *buf, u64 off)
{
	return vmalloc_to_page((u8 *)buf + off);
}

int rw_win_vbuf(struct rw_win *win, void **buf, struct ib_pd *pd, u64 len,
		u32 seg_shift)
{
	struct rw_win_pages src = { .page = rw_win_vpage, .len = len };

	*buf = vzalloc(len);
	if (!*buf)
		return -ENOMEM;
	src.arg = *buf;
	return rw_win_map(win, pd, &src, seg_shift);
}

void rw_win_vbuf_free(struct rw_win *win, void **buf)
{
	rw_win_unmap(win);
	vfree(*buf);
	*buf = NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's memory arena on one node (arena.c): zeroed pages mapped at one
 * kernel address, allocated so that a box short of memory fails the
 * request instead of waking the OOM killer, and given up between pages
 * when the request's caller has gone.
 */
#ifndef _RW_ENGINE_ARENA_H
#define _RW_ENGINE_ARENA_H

#include <linux/types.h>

struct page;
struct rw_cancel;

struct rw_arena {
	void *addr;			/* NULL until allocated */
	struct page **pages;
	unsigned long nr_pages;
};

/*
 * Fill @a with @bytes (page-rounded) of zeroed memory, preferably on
 * @node. 0; -ENOMEM when the box has not the memory; -EINTR when the
 * calling task got a fatal signal, -ECONNABORTED when @cancel says its
 * caller has gone. On error nothing is left allocated.
 */
int rw_arena_alloc(struct rw_arena *a, size_t bytes, int node,
		   const struct rw_cancel *cancel);
/* Free what rw_arena_alloc() filled; an empty arena is fine. */
void rw_arena_free(struct rw_arena *a);
/* Bytes of bookkeeping an arena keeps per page (its page array). */
#define RW_ARENA_PAGE_META	sizeof(struct page *)

#endif /* _RW_ENGINE_ARENA_H */

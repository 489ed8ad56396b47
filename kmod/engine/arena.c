// SPDX-License-Identifier: GPL-2.0
/*
 * Arenas: the pages behind a job's parameters, optimizer state and receive
 * slots. Each page is allocated on its own, zeroed, with
 * __GFP_RETRY_MAYFAIL (reclaim may be tried hard, but the OOM killer is
 * never woken: a box out of memory refuses the run, it does not kill a
 * tenant's trainers), then the pages are mapped at one kernel address with
 * vmap(), so the engine sees one contiguous arena per node and
 * vmalloc_to_page() finds each page for the mmap fault handler and the
 * RDMA windows, as for vmalloc memory.
 *
 * A big arena takes a while. Every RW_ARENA_CHECK pages the allocation
 * asks whether its caller is still there: a fatal signal of the calling
 * task (a local declare) or the request's cancel hook (a remote worker's
 * setup whose connection is closing) stops it, and what it took so far
 * goes back at once.
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "engine/arena.h"
#include "engine/engine.h"

/* Pages between two looks at the caller: 1 MiB of 4 KiB pages. */
#define RW_ARENA_CHECK		256

#define RW_ARENA_GFP	(GFP_KERNEL | __GFP_ZERO | __GFP_RETRY_MAYFAIL | \
			 __GFP_NOWARN)

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Test builds only: make every MiB of an arena take this long, so that a
 * test can leave in the middle of a setup (tests/vm/limits.sh).
 */
static unsigned int rw_test_arena_ms;
module_param_named(test_arena_ms, rw_test_arena_ms, uint, 0644);
MODULE_PARM_DESC(test_arena_ms,
		 "Test builds only: sleep this many ms per MiB of a job's arenas (default 0)");

static void rw_arena_test_delay(void)
{
	unsigned int ms = READ_ONCE(rw_test_arena_ms);

	if (ms)
		msleep(ms);
}
#else
static inline void rw_arena_test_delay(void)
{
}
#endif

static void rw_arena_put_pages(struct page **pages, unsigned long n)
{
	while (n--)
		__free_page(pages[n]);
}

int rw_arena_alloc(struct rw_arena *a, size_t bytes, int node,
		   const struct rw_cancel *cancel)
{
	unsigned long n = PAGE_ALIGN(bytes) >> PAGE_SHIFT, i;
	struct page **pages;
	int ret;

	a->addr = NULL;
	a->pages = NULL;
	a->nr_pages = 0;
	if (!n)
		return 0;
	pages = kvmalloc_array(n, sizeof(*pages),
			       GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!(i % RW_ARENA_CHECK)) {
			ret = rw_cancelled(cancel);
			if (ret)
				goto err;
			cond_resched();
			rw_arena_test_delay();
		}
		pages[i] = alloc_pages_node(node, RW_ARENA_GFP, 0);
		if (!pages[i]) {
			ret = -ENOMEM;
			goto err;
		}
	}
	a->addr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	if (!a->addr) {
		ret = -ENOMEM;
		goto err;
	}
	a->pages = pages;
	a->nr_pages = n;
	return 0;
err:
	rw_arena_put_pages(pages, i);
	kvfree(pages);
	return ret;
}

void rw_arena_free(struct rw_arena *a)
{
	if (a->addr)
		vunmap(a->addr);
	if (a->pages)
		rw_arena_put_pages(a->pages, a->nr_pages);
	kvfree(a->pages);
	a->addr = NULL;
	a->pages = NULL;
	a->nr_pages = 0;
}

int rw_cancelled(const struct rw_cancel *c)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	if (c && c->gone && c->gone(c->arg))
		return -ECONNABORTED;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel glue of the aggregation engine: chooses the implementation at
 * load (agg_select.c does the timing) and wraps every call into float code
 * in kernel_fpu_begin()/kernel_fpu_end().
 *
 * An FPU section runs with preemption off, so it is bounded: one chunk
 * (at most RW_AGG_MAX_CHUNK_BYTES of output), cut further into slices of
 * about RW_AGG_FPU_BUDGET bytes of memory traffic when W makes a chunk's
 * traffic bigger than that. Elements are independent, so slicing changes
 * no result. A 32 KiB chunk summed over up to 30 workers is one section
 * (about 100 us at memory speed).
 *
 * This file itself has no float code and no FPU flags.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <kunit/visibility.h>

#include "agg.h"
#include "agg_arch.h"

/* Bytes read and written by one FPU section at most, and slice rounding. */
#define RW_AGG_FPU_BUDGET	SZ_1M
#define RW_AGG_SLICE_ALIGN	1024U

/* Scalar until rw_agg_init has run: always usable, never NULL. */
static const struct rw_agg_impl *rw_agg_cur = &rw_agg_impls[0];

static const struct rw_agg_impl *rw_agg_current(void)
{
	return READ_ONCE(rw_agg_cur);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* The tests walk the whole table, whatever was chosen. */
const struct rw_agg_impl *rw_agg_impl_at(unsigned int i)
{
	return i < rw_agg_nimpls ? &rw_agg_impls[i] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_impl_at);
#endif

const char *rw_agg_impl_name(void)
{
	return rw_agg_current()->name;
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_impl_name);

/* Run the selection benchmark; installs nothing. */
VISIBLE_IF_KUNIT int rw_agg_choose(struct rw_agg_choice *ch)
{
	void *scratch;
	int ret;

	scratch = kvmalloc(RW_AGG_SELECT_SCRATCH, GFP_KERNEL);
	if (!scratch)
		return -ENOMEM;
	ret = rw_agg_select(ch, scratch, RW_AGG_SELECT_SCRATCH);
	kvfree(scratch);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_choose);

/* MB/s of gradient for one implementation's best timing in the choice. */
static unsigned int rw_agg_mbps(const struct rw_agg_choice *ch, unsigned int i)
{
	return ch->ns[i] ? div64_u64((u64)ch->bytes * 1000, ch->ns[i]) : 0;
}

int rw_agg_init(void)
{
	struct rw_agg_choice ch;
	char figures[96] = "";
	unsigned int i, len = 0;
	int ret;

	ret = rw_agg_choose(&ch);
	if (ret) {
		pr_err("aggregation: selection benchmark failed: %d\n", ret);
		return ret;
	}
	for (i = 0; i < rw_agg_nimpls; i++) {
		if (!ch.ns[i])
			continue;
		len += scnprintf(figures + len, sizeof(figures) - len,
				 " %s=%u", rw_agg_impls[i].name,
				 rw_agg_mbps(&ch, i));
	}
	WRITE_ONCE(rw_agg_cur, ch.impl);
	pr_info("aggregation: using %s; MB/s of gradient on a cache-resident %ux%u KiB chunk:%s\n",
		ch.impl->name, RW_AGG_SELECT_NSRC,
		(unsigned int)(RW_AGG_SELECT_ELEMS * sizeof(float) / 1024),
		figures);
	return 0;
}

/* Elements per FPU section for this chunk's traffic per element. */
static unsigned int rw_agg_slice(const struct rw_agg_chunk *c,
				 unsigned int arrays)
{
	unsigned int per = (c->nsrc + arrays) * sizeof(float);
	unsigned int slice = RW_AGG_FPU_BUDGET / per;

	slice &= ~(RW_AGG_SLICE_ALIGN - 1);
	return max(slice, RW_AGG_SLICE_ALIGN);
}

int rw_agg_step_prepare(struct rw_agg_step *st,
			const struct rw_agg_hparams *hp, unsigned int nsrc,
			u64 t)
{
	int ret;

	kernel_fpu_begin();
	ret = rw_agg_prepare(st, hp, nsrc, t);
	kernel_fpu_end();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_step_prepare);

/*
 * Run a checked chunk through @impl in FPU sections of bounded traffic:
 * the sum when @st is NULL, else the optimizer step. @arrays counts the
 * non-slot arrays each element touches (read or written).
 */
static int rw_agg_sliced(const struct rw_agg_impl *impl,
			 const struct rw_agg_chunk *c,
			 const struct rw_agg_step *st, unsigned int arrays)
{
	struct rw_agg_chunk part = *c;
	unsigned int done, slice = rw_agg_slice(c, arrays);
	int ret = 0;

	for (done = 0; done < c->n && !ret; done += part.n) {
		part.off = c->off + done;
		part.n = min(slice, c->n - done);
		kernel_fpu_begin();
		ret = st ? rw_agg_update(impl, &part, st) :
			   rw_agg_sum(impl, &part);
		kernel_fpu_end();
	}
	return ret;
}

VISIBLE_IF_KUNIT int rw_agg_sum_chunk_with(const struct rw_agg_impl *impl,
					   const struct rw_agg_chunk *c)
{
	int ret = rw_agg_check(c, false, 0);

	if (ret || !c->n)
		return ret;
	return rw_agg_sliced(impl, c, NULL, 1);
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_sum_chunk_with);

VISIBLE_IF_KUNIT int rw_agg_update_chunk_with(const struct rw_agg_impl *impl,
					      const struct rw_agg_chunk *c,
					      const struct rw_agg_step *st)
{
	int ret;

	if (!st)
		return -EINVAL;
	ret = rw_agg_check(c, true, st->optim);
	if (ret || !c->n)
		return ret;
	/* Parameters and up to two state arrays, each read and written. */
	return rw_agg_sliced(impl, c, st, 6);
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_update_chunk_with);

int rw_agg_narrow_chunk(u16 *dst, const float *src, unsigned int n,
			u32 dtype)
{
	int ret;

	kernel_fpu_begin();
	ret = rw_agg_narrow(rw_agg_current(), dst, src, n, dtype);
	kernel_fpu_end();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_narrow_chunk);

int rw_agg_sum_chunk(const struct rw_agg_chunk *c)
{
	return rw_agg_sum_chunk_with(rw_agg_current(), c);
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_sum_chunk);

int rw_agg_update_chunk(const struct rw_agg_chunk *c,
			const struct rw_agg_step *st)
{
	return rw_agg_update_chunk_with(rw_agg_current(), c, st);
}
EXPORT_SYMBOL_IF_KUNIT(rw_agg_update_chunk);

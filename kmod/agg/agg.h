/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation engine as the rest of the module calls it: chosen once at
 * load, then one call per chunk from the aggregation kthreads (process
 * context only: each call takes the FPU). Types and limits are those of the
 * pure interface, agg_impl.h.
 */
#ifndef _RW_AGG_H
#define _RW_AGG_H

#include "agg_impl.h"

/* Pick the fastest usable implementation; logs the choice and timings. */
int rw_agg_init(void);
/* The implementation in use ("scalar" until rw_agg_init has run). */
const char *rw_agg_impl_name(void);

/* rw_agg_prepare inside an FPU section, for callers without float flags. */
int rw_agg_step_prepare(struct rw_agg_step *st,
			const struct rw_agg_hparams *hp, unsigned int nsrc,
			u64 t);
/*
 * One chunk of at most RW_AGG_MAX_CHUNK_BYTES of output: 0, -EINVAL or
 * -EOPNOTSUPP, as rw_agg_sum and rw_agg_update. For the aggregation
 * kthreads (process context): each FPU section, preemption off, covers at
 * most about 1 MiB of memory traffic, so a big chunk takes several.
 */
int rw_agg_sum_chunk(const struct rw_agg_chunk *c);
int rw_agg_update_chunk(const struct rw_agg_chunk *c,
			const struct rw_agg_step *st);
/*
 * @n floats narrowed to a 16-bit @dtype (rw_agg_narrow), in one FPU
 * section: n is at most a chunk's elements.
 */
int rw_agg_narrow_chunk(u16 *dst, const float *src, unsigned int n,
			u32 dtype);

#if IS_ENABLED(CONFIG_KUNIT)
const struct rw_agg_impl *rw_agg_impl_at(unsigned int i);
int rw_agg_choose(struct rw_agg_choice *ch);
int rw_agg_sum_chunk_with(const struct rw_agg_impl *impl,
			  const struct rw_agg_chunk *c);
int rw_agg_update_chunk_with(const struct rw_agg_impl *impl,
			     const struct rw_agg_chunk *c,
			     const struct rw_agg_step *st);
#endif

#endif /* _RW_AGG_H */

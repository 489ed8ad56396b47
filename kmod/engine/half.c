// SPDX-License-Identifier: GPL-2.0
/*
 * Chunks of a model with a 16-bit tensor (f16, bf16): the slots and the
 * published parameters hold each tensor in its type, so both directions
 * carry its bytes, while the optimizer steps an f32 master copy with f32
 * state (chunk/layout.h, rw_layout_half(): the part of a tensor at byte
 * offset b of the chunk has its master and state at 2 * b).
 *
 * A step goes over the chunk's tensors in runs (rw_layout_run(): each f32
 * tensor's part alone, 16-bit parts of one type that follow each other
 * together, the padding between them stepped as an f32 chunk's is). The
 * kernels widen the slots exactly and sum in f32 in rank order
 * (agg_impl.h), the step updates the master, then the run is published:
 * narrowed to nearest even into the parameters, or copied for f32.
 * Everything here runs inside the chunk's write section.
 */
#include <linux/string.h>

#include "rw.h"
#include "engine/engine.h"
#include "engine/engine_priv.h"
#include "agg/agg.h"
#include "agg/agg_half.h"

/* The tensors of chunk @c: [*@first, *@last) in layout order. */
static int rw_half_tensors(const struct rw_engine *e, u32 c, u32 *first,
			   u32 *last)
{
	u32 count;
	int ret;

	ret = rw_layout_chunk_tensors(&e->layout, c, first, &count);
	if (ret)
		*first = count = 0;
	*last = *first + count;
	return ret;
}

/* Where the run lies in an f32 array of the chunk: its master, a state. */
static float *rw_half_at(float *base, const struct rw_layout_run *run)
{
	return base ? base + run->off / 2 : NULL;
}

/*
 * The run's master into the published parameters: narrowed by the
 * selected kernels (the same bits as agg_half.h's, in an FPU section).
 */
static void rw_half_publish_run(struct rw_chunk *ch,
				const struct rw_layout_run *run)
{
	u8 *to = (u8 *)ch->params + run->off;
	const float *from = rw_half_at(ch->master, run);

	/* A 16-bit run of at most a chunk: the kernels take it. */
	if (run->dtype == RW_DTYPE_F32)
		memcpy(to, from, run->end - run->off);
	else
		rw_agg_narrow_chunk((u16 *)to, from, (run->end - run->off) / 2,
				    run->dtype);
}

int rw_engine_step_half(struct rw_engine *e, struct rw_engine_core *ec,
			u32 c, const void *const *src, u32 nsrc)
{
	struct rw_chunk *ch = &e->chunks[c];
	struct rw_layout_run run;
	u32 t, last, k;
	int ret;

	ret = rw_half_tensors(e, c, &t, &last);
	while (!ret && t < last) {
		struct rw_agg_chunk a = {
			.src = ec->segv,
			.nsrc = nsrc,
		};

		ret = rw_layout_run(&e->layout, c, &t, last, &run);
		if (ret)
			break;
		for (k = 0; k < nsrc; k++)
			ec->segv[k] = (const u8 *)src[k] + run.off;
		/* RW_DTYPE_* and enum rw_agg_dtype are the same numbers. */
		a.dtype = run.dtype;
		a.n = (run.end - run.off) / rw_dtype_size(run.dtype);
		a.out = rw_half_at(ch->master, &run);
		a.state[0] = rw_half_at(ch->state[0], &run);
		a.state[1] = rw_half_at(ch->state[1], &run);
		ret = rw_agg_update_chunk(&a, &ec->st);
		if (!ret)
			rw_half_publish_run(ch, &run);
	}
	return ret;
}

/* Call @fn on each run of chunk @c (the tensors' parts are checked). */
static void rw_half_each(struct rw_engine *e, u32 c,
			 void (*fn)(struct rw_chunk *ch,
				    const struct rw_layout_run *run))
{
	struct rw_layout_run run;
	u32 t, last;

	if (rw_half_tensors(e, c, &t, &last))
		return;
	while (t < last && !rw_layout_run(&e->layout, c, &t, last, &run))
		fn(&e->chunks[c], &run);
}

static void rw_half_widen_run(struct rw_chunk *ch,
			      const struct rw_layout_run *run)
{
	const u8 *from = (const u8 *)ch->params + run->off;
	float *to = rw_half_at(ch->master, run);

	if (run->dtype == RW_DTYPE_F32)
		memcpy(to, from, run->end - run->off);
	else
		rw_half_widen(to, (const u16 *)from, (run->end - run->off) / 2,
			      run->dtype == RW_DTYPE_BF16);
}

void rw_engine_half_widen(struct rw_engine *e, u32 c)
{
	if (e->half && rw_engine_has(e, c))
		rw_half_each(e, c, rw_half_widen_run);
}

void rw_engine_half_publish(struct rw_engine *e, u32 c)
{
	if (e->half && rw_engine_has(e, c))
		rw_half_each(e, c, rw_half_publish_run);
}

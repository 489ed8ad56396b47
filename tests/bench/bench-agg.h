/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scripts/bench-agg's native binary: the driver (bench-agg.c), its worker
 * pool (bench-agg-pool.c) and the memory-bound reference loops
 * (bench-agg-bound.c).
 */
#ifndef RW_BENCH_AGG_H
#define RW_BENCH_AGG_H

#include <stdbool.h>
#include <stddef.h>

#include "agg_impl.h"

#define MIB		(1024UL * 1024UL)
#define MAX_THREADS	64
#define MAX_W		8
/* In-cache runs: one chunk of this many elements per slot. */
#define CACHE_CHUNK	8192

/*
 * The bound's loops (bench-agg-bound.c): one shape of streaming loop over
 * nin input streams, storing to nout output streams unless store is
 * BENCH_ST_NONE. A wide shape on a CPU without AVX-512 does nothing.
 */
enum { BENCH_ST_NONE, BENCH_ST_NT, BENCH_ST_CACHED };

struct bench_shape {
	bool wide;		/* 512-bit vectors, else 256-bit */
	bool seq;		/* reads: one buffer after another */
	unsigned int unroll;	/* vectors per stream per step: 1, 2 or 4 */
	int store;		/* BENCH_ST_* */
};

bool bench_bound_have_avx512(void);
const char *bench_shape_name(const struct bench_shape *s, char *buf,
			     size_t len);
void bench_bound_loop(const struct bench_shape *s, float *const *in,
		      unsigned int nin, float *const *out, unsigned int nout,
		      size_t n);
void bench_bound_write(bool wide, float *const *bufs, unsigned int nbufs,
		       size_t n);

enum bench_kind {
	K_SUM_NT,		/* sum, streaming stores (the "sum" table) */
	K_MOM,			/* fused momentum, cached stores */
	K_SUM,			/* sum, cached stores (store policy) */
	K_MOM_NT,		/* fused momentum, streaming (store policy) */
	K_BOUND,		/* bound: a read or combined loop (shape) */
	K_WRITE,		/* bound: non-temporal write (shape.wide) */
	K_CACHE_SUM,		/* in-cache sum, cached stores */
	K_CACHE_SUM_NT,
	K_CACHE_MOM,
	K_QUIT,
};

struct bench_job {
	enum bench_kind kind;
	const struct rw_agg_impl *impl;
	unsigned int w;
	size_t chunk;		/* elements */
	bool fused;		/* bound: the momentum kernel's bytes */
	struct bench_shape shape;	/* bound: which loop */
	unsigned int active;	/* threads taking part */
	unsigned int iters;	/* in-cache repetitions */
};

double bench_now(void);
/* Start threads (pinned to CPUs 0..threads-1) with ws-byte arenas. */
void bench_pool_start(unsigned int threads, size_t ws);
void bench_pool_stop(void);
/* Elements in each of the W + 2 buffers of an arena for W workers. */
size_t bench_buf_elems(unsigned int w);
/* Run a job on the first j->active threads; seconds, wall. */
double bench_time(const struct bench_job *j);

#endif /* RW_BENCH_AGG_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scripts/bench-agg's native binary: the driver (bench-agg.c: options,
 * calibration of the bounds, the paired trials), its worker pool
 * (bench-agg-pool.c), the memory-bound reference loops (bench-agg-bound.c)
 * and the report of the results as text or JSON (bench-agg-report.c).
 */
#ifndef RW_BENCH_AGG_H
#define RW_BENCH_AGG_H

#include <stdbool.h>
#include <stddef.h>

#include "agg_impl.h"

#define MIB		(1024UL * 1024UL)
#define MAX_THREADS	64
#define MAX_W		64
#define MAX_SAMPLES	64	/* pairs, calibration rounds */
#define MAX_LIST	16	/* values of --w, of --chunk */
/* The headline configuration: W = 8, 32 KiB chunks. */
#define KEY_W		8
#define KEY_CHUNK	(32768 / sizeof(float))
/*
 * Chunk sizes the module accepts (RW_CHUNK_SIZE_MIN..MAX in
 * uapi/rackweave.h, powers of two); the kernels take at most
 * RW_AGG_MAX_CHUNK_BYTES.
 */
#define BENCH_CHUNK_MIN	4096U
#define BENCH_CHUNK_MAX	(1U << 20)
_Static_assert(BENCH_CHUNK_MAX <= RW_AGG_MAX_CHUNK_BYTES,
	       "a chunk the module accepts must fit the kernels");
/*
 * Every buffer is cut into this many slices of whole MiB; each timed
 * trial moves one slice of every buffer, the next trial the next slice,
 * so no trial finds in cache what the previous one touched.
 */
#define BENCH_SLICES	5
/* In-cache runs: one chunk of this many elements per slot... */
#define CACHE_CHUNK	8192
/* ...summed often enough for ~64 MiB of gradient per timed job. */
#define CACHE_ITERS	(64 * MIB / (KEY_W * CACHE_CHUNK * sizeof(float)))

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

/*
 * Kernel kinds, then the bound's. A 16-bit kind moves half the slot bytes
 * of its W: its bound is the W / 2 f32 loop over the same number of
 * elements (bench_kind_bytes_w()).
 */
enum bench_kind {
	K_SUM_NT,		/* sum, streaming stores (the "sum" table) */
	K_MOM,			/* fused momentum, cached stores */
	K_SUM,			/* sum, cached stores (store policy) */
	K_MOM_NT,		/* fused momentum, streaming (store policy) */
	K_SUM_BF16,		/* sum of bf16 slots, streaming stores */
	K_MOM_BF16,		/* fused momentum on bf16 slots, cached */
	K_SUM_F16,		/* the same, f16 slots */
	K_MOM_F16,
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
	size_t off, n;		/* elements: this trial's slice of each buffer */
};

/* Start threads (pinned to CPUs 0..threads-1) with ws-byte arenas. */
/* The slots' dtype of a kernel kind (enum rw_agg_dtype). */
static inline u32 bench_kind_dtype(enum bench_kind k)
{
	if (k == K_SUM_BF16 || k == K_MOM_BF16)
		return RW_AGG_BF16;
	if (k == K_SUM_F16 || k == K_MOM_F16)
		return RW_AGG_F16;
	return RW_AGG_F32;
}

/* A kernel kind with the momentum step fused, and one storing streaming. */
static inline bool bench_kind_fused(enum bench_kind k)
{
	return k == K_MOM || k == K_MOM_NT || k == K_MOM_BF16 || k == K_MOM_F16;
}

static inline bool bench_kind_stream(enum bench_kind k)
{
	return k == K_SUM_NT || k == K_MOM_NT || k == K_SUM_BF16 ||
	       k == K_SUM_F16;
}

/* The W of the f32 bound that moves a W-slot kernel's bytes. */
static inline unsigned int bench_kind_bytes_w(enum bench_kind k, unsigned int w)
{
	return bench_kind_dtype(k) == RW_AGG_F32 ? w : w / 2;
}

void bench_pool_start(unsigned int threads, size_t ws);
void bench_pool_stop(void);
/* Elements in each of the W + 2 buffers of an arena for W workers. */
size_t bench_buf_elems(unsigned int w);
/*
 * Run a job on the first j->active threads; seconds of CPU time of the
 * slowest thread (the time the loop ran, not the time others ran on its
 * CPU). *preempted
 * (may be NULL) tells whether the scheduler took a CPU away from any of
 * them during the job (an involuntary context switch).
 */
double bench_time(const struct bench_job *j, bool *preempted);

/* The driver (bench-agg.c): options, samples, configurations. */
struct bench_opts {
	bool json, quick;
	unsigned int threads, reps, pairs;
	size_t ws;
	const char *impl;
	unsigned long w[MAX_LIST], chunk[MAX_LIST];	/* chunk: bytes */
	unsigned int nw, nchunk;
};

extern struct bench_opts bench_opt;

struct series {
	double t[MAX_SAMPLES];
	unsigned int n;
};

static inline void series_add(struct series *s, double t)
{
	if (s->n < MAX_SAMPLES)
		s->t[s->n++] = t;
}

/* Quantile q of the samples, linear between order statistics; NaN if none. */
double bench_series_q(const struct series *s, double q);

static inline double series_min(const struct series *s)
{
	return bench_series_q(s, 0.0);
}

static inline double series_median(const struct series *s)
{
	return bench_series_q(s, 0.5);
}

/* Interquartile range: Q3 - Q1. */
static inline double series_iqr(const struct series *s)
{
	return bench_series_q(s, 0.75) - bench_series_q(s, 0.25);
}

/*
 * One configuration. A kernel (kind < K_BOUND): its trial times, the
 * bound trial paired with each, and the pair's ratio. A bound (K_BOUND):
 * the calibration's times, per round, and the loop it chose.
 */
struct entry {
	enum bench_kind kind;
	const struct rw_agg_impl *impl;
	unsigned int w, threads;
	size_t chunk;			/* elements */
	bool fused;			/* bound: of the momentum step */
	struct series s;		/* kernel time, or the bound (best way) */
	struct series b, r;		/* kernel: paired bound time, ratio */
	unsigned int preempted;		/* kernel: pairs the scheduler cut into */
	struct series rd, wr, cp;	/* bound: read, write, best combined */
	double shape_min[8];		/* bound: best time of each shape */
	int cand;			/* bound: shape index, -1: read + write */
};

extern struct entry *bench_entries;
extern unsigned int bench_nentries;
extern const struct rw_agg_impl *bench_impls[RW_AGG_MAX_IMPLS];
extern unsigned int bench_nimpls;

struct entry *bench_find(enum bench_kind kind, const struct rw_agg_impl *impl,
			 unsigned int w, size_t chunk, unsigned int thr,
			 bool fused);
/* Elements of each buffer one trial moves for W workers. */
size_t bench_slice_elems(unsigned int w);
/* GB/s of gradient: a trial of W workers on thr threads, or in cache. */
double bench_gbps(unsigned int w, unsigned int thr, size_t chunk_elems,
		  double t);
/* The name of the loop a bound entry's trials use. */
const char *bench_bound_shape(const struct entry *e, char *buf, size_t len);

/* The report (bench-agg-report.c), from the entries; selected: init's pick. */
void bench_report_json(const char *selected);
void bench_report_text(const char *selected);

#endif /* RW_BENCH_AGG_H */

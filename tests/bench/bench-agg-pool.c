// SPDX-License-Identifier: GPL-2.0
/*
 * bench-agg's worker pool: one pinned thread per CPU, each with its own
 * arena, first touched by itself, and the loops a job runs on it (the
 * kernels chunk by chunk over the big buffers, the bound's streaming
 * loops over the same buffers, and the in-cache repetitions). The driver
 * (bench-agg.c) times jobs.
 *
 * For W workers an arena holds W gradient buffers, the parameters (or the
 * sum) and the momentum buffer, each ws / (W + 2) bytes in whole MiB
 * (64 MiB at W = 8 with the default 640 MiB). Buffer k starts
 * k * BENCH_STAGGER bytes past its whole-MiB place: on huge pages,
 * buffers a whole number of MiB apart put the same element of every
 * stream in the same cache set, and with more streams than the L2 has
 * ways (W + 2 > 8 on this host's Zen 4) lines are evicted before they
 * are used (a W = 8 scalar sum ran at 4.8 GB/s, 12.8 staggered). The
 * module's slots sit on 4 KiB pages scattered in physical memory, whose
 * cache sets are as good as random, which the stagger stands in for.
 * A job works on one slice
 * of every buffer (j->off, j->n); the driver moves to the next slice for
 * each trial, so what one trial touched is hundreds of MiB behind when
 * it comes round again: far more than this VM's effective share of the
 * last-level cache, past which a plain read runs at DRAM speed.
 *
 * A job's time is the CPU time of the thread that ran it (of the slower
 * thread with several): on a shared host another task may take our CPU
 * in the middle of a trial, and the time it ran is not the loop's. Each
 * thread also counts its involuntary context switches over a job, so the
 * driver can count the trials that were interrupted all the same (the
 * other task may have evicted our TLB entries and cache lines).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "agg_impl.h"
#include "bench-agg.h"

/* One page and one line: a new L1 set and a new L2 set per buffer. */
#define BENCH_STAGGER	(4096 + 64)
/* Room for it at the end of an arena. */
#define BENCH_STAGGER_ROOM	(2 * MIB)
_Static_assert((MAX_W + 2) * BENCH_STAGGER <= BENCH_STAGGER_ROOM,
	       "the stagger of the last buffer must fit the arena");
/* Elements from one in-cache buffer to the next. */
#define CACHE_STRIDE	(CACHE_CHUNK + BENCH_STAGGER / sizeof(float))

struct bench_thread {
	pthread_t tid;
	unsigned int idx;
	float *arena;
	size_t arena_floats;
	float *cache;		/* in-cache buffers: MAX_W + 2 strides */
	/* The last job's; written before bench_end, read after it. */
	bool preempted;
	double cpu;		/* seconds of CPU time */
};

static size_t bench_ws;
static unsigned int bench_nthreads;
static struct bench_thread bench_threads[MAX_THREADS];
static struct bench_job bench_job;
static pthread_barrier_t bench_start, bench_end;

static double bench_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


/* Elements per buffer for W workers: ws / (W + 2), whole 1 MiB chunks. */
size_t bench_buf_elems(unsigned int w)
{
	size_t per = bench_ws / (w + 2);

	return (per / MIB) * MIB / sizeof(float);
}

static void bench_bufs(const struct bench_thread *t, unsigned int w,
		       float **grad, float **p, float **m)
{
	size_t n = bench_buf_elems(w);
	unsigned int k;

	for (k = 0; k < w; k++)
		grad[k] = t->arena + k * (n + BENCH_STAGGER / sizeof(float));
	*p = t->arena + w * (n + BENCH_STAGGER / sizeof(float));
	*m = t->arena + (w + 1) * (n + BENCH_STAGGER / sizeof(float));
}

/*
 * Small normal floats from integer bits: no NaN, no denormal, ever; and
 * read as 16-bit slots (either half of each float as bf16 or f16: 0x3fXX
 * and 0x38XX), normal values too, so no kind pays a microcode assist.
 */
static void bench_fill(float *f, size_t n, uint32_t seed)
{
	uint32_t *u = (uint32_t *)f;
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1664525U + 1013904223U;
		/* [0.5, 1), 14 random mantissa bits */
		u[i] = 0x3f003800U | (seed >> 9 & 0x7f0000U) | (seed >> 25);
	}
}

static void bench_step(struct rw_agg_step *st, unsigned int w)
{
	struct rw_agg_hparams hp = {
		.optim = RW_AGG_MOMENTUM, .lr = 1e-6f, .momentum = 0.9f,
	};

	if (rw_agg_prepare(st, &hp, w, 1))
		abort();
}

/* The kernels over the big buffers, one checked call per chunk. */
static void bench_run_kernel(const struct bench_job *j, struct bench_thread *t)
{
	bool fused = bench_kind_fused(j->kind);
	u32 flags = bench_kind_stream(j->kind) ? RW_AGG_F_STREAM : 0;
	u32 dtype = bench_kind_dtype(j->kind);
	size_t end = j->off + j->n, off;
	float *grad[MAX_W], *p, *m;
	const void *src[MAX_W];
	struct rw_agg_step st;
	unsigned int k;
	int ret = 0;

	bench_bufs(t, j->w, grad, &p, &m);
	bench_step(&st, j->w);
	for (off = j->off; off < end && !ret; off += j->chunk) {
		struct rw_agg_chunk c = {
			.src = src, .nsrc = j->w, .n = (unsigned int)j->chunk,
			.dtype = dtype, .flags = flags, .out = p + off,
			.state = { m + off, NULL },
		};

		/* 16-bit slots: the first half of each f32 slot's bytes. */
		for (k = 0; k < j->w; k++)
			src[k] = dtype == RW_AGG_F32 ? (void *)(grad[k] + off) :
				 (void *)((uint16_t *)grad[k] + off);
		ret = fused ? rw_agg_update(j->impl, &c, &st) :
			      rw_agg_sum(j->impl, &c);
	}
	if (ret)
		abort();
}

/*
 * The bound's loops over the same buffers: the sum reads the W slots and
 * writes the sum; the momentum step reads the slots, parameters and
 * buffer and writes parameters and buffer.
 */
static void bench_run_bound(const struct bench_job *j, struct bench_thread *t)
{
	float *in[MAX_W + 2], *out[2];
	unsigned int nin = j->w, nout = j->fused ? 2 : 1, k;

	bench_bufs(t, j->w, in, &out[0], &out[1]);
	for (k = 0; k < j->w; k++)
		in[k] += j->off;
	out[0] += j->off;
	out[1] += j->off;
	if (j->fused) {
		in[nin++] = out[0];
		in[nin++] = out[1];
	}
	if (j->kind == K_WRITE)
		bench_bound_write(j->shape.wide, out, nout, j->n);
	else
		bench_bound_loop(&j->shape, in, nin, out, nout, j->n);
}

static long bench_nivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nivcsw;
}

/*
 * W = 8 slots of one chunk, a sum, parameters and momentum, all in L2,
 * staggered as the arena's buffers are (whole chunks apart, the streams
 * met in one L1 set, and the scalar sum ran at 8 or 13 GB/s from one run
 * to the next).
 */
static void bench_run_cache(const struct bench_job *j, struct bench_thread *t)
{
	size_t n = j->chunk, stride = CACHE_STRIDE;
	const void *src[MAX_W];
	struct rw_agg_step st;
	struct rw_agg_chunk c = {
		.src = src, .nsrc = j->w, .n = (unsigned int)n,
		.dtype = RW_AGG_F32, .out = t->cache + j->w * stride,
		.state = { t->cache + (j->w + 1) * stride, NULL },
		.flags = j->kind == K_CACHE_SUM_NT ? RW_AGG_F_STREAM : 0,
	};
	unsigned int k, i;
	int ret = 0;

	for (k = 0; k < j->w; k++)
		src[k] = t->cache + k * stride;
	bench_step(&st, j->w);
	for (i = 0; i < j->iters; i++)
		ret |= j->kind == K_CACHE_MOM ? rw_agg_update(j->impl, &c, &st) :
						rw_agg_sum(j->impl, &c);
	if (ret)
		abort();
}

static void *bench_worker(void *arg)
{
	struct bench_thread *t = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->idx, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	/* First touch by the owner, so pages are local to its CPU's node. */
	bench_fill(t->arena, t->arena_floats, 1 + t->idx);
	bench_fill(t->cache, (MAX_W + 2) * CACHE_STRIDE, 7 + t->idx);
	for (;;) {
		pthread_barrier_wait(&bench_start);
		if (bench_job.kind == K_QUIT)
			break;
		t->preempted = false;
		t->cpu = 0.0;
		if (t->idx < bench_job.active) {
			long cs = bench_nivcsw();
			double c0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);

			switch (bench_job.kind) {
			case K_SUM_NT:
			case K_MOM:
			case K_SUM:
			case K_MOM_NT:
			case K_SUM_BF16:
			case K_MOM_BF16:
			case K_SUM_F16:
			case K_MOM_F16:
				bench_run_kernel(&bench_job, t);
				break;
			case K_BOUND:
			case K_WRITE:
				bench_run_bound(&bench_job, t);
				break;
			default:
				bench_run_cache(&bench_job, t);
				break;
			}
			t->cpu = bench_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
			t->preempted = bench_nivcsw() != cs;
		}
		pthread_barrier_wait(&bench_end);
	}
	return NULL;
}

/* Run one job on the pool: the CPU time of the slowest thread. */
double bench_time(const struct bench_job *j, bool *preempted)
{
	double t = 0.0;
	unsigned int i;

	bench_job = *j;
	pthread_barrier_wait(&bench_start);
	pthread_barrier_wait(&bench_end);
	if (preempted)
		*preempted = false;
	for (i = 0; i < j->active && i < bench_nthreads; i++) {
		if (bench_threads[i].cpu > t)
			t = bench_threads[i].cpu;
		if (preempted)
			*preempted |= bench_threads[i].preempted;
	}
	return t;
}

void bench_pool_start(unsigned int threads, size_t ws)
{
	size_t floats = (ws + BENCH_STAGGER_ROOM) / sizeof(float);
	unsigned int i;

	bench_ws = ws;
	bench_nthreads = threads;

	pthread_barrier_init(&bench_start, NULL, bench_nthreads + 1);
	pthread_barrier_init(&bench_end, NULL, bench_nthreads + 1);
	for (i = 0; i < bench_nthreads; i++) {
		struct bench_thread *t = &bench_threads[i];

		t->idx = i;
		t->arena_floats = floats;
		if (posix_memalign((void **)&t->arena, 2 * MIB,
				   bench_ws + BENCH_STAGGER_ROOM) ||
		    posix_memalign((void **)&t->cache, 4096,
				   (MAX_W + 2) * CACHE_STRIDE * sizeof(float))) {
			fprintf(stderr, "bench-agg: out of memory for %zu MiB per thread; try --ws\n",
				bench_ws / MIB);
			exit(1);
		}
		/* Huge pages where available: fewer TLB misses for all loops. */
		madvise(t->arena, bench_ws + BENCH_STAGGER_ROOM, MADV_HUGEPAGE);
		if (pthread_create(&t->tid, NULL, bench_worker, t)) {
			fprintf(stderr, "bench-agg: cannot start thread %u\n", i);
			exit(1);
		}
	}
}

void bench_pool_stop(void)
{
	struct bench_job quit = { .kind = K_QUIT };
	unsigned int i;

	bench_job = quit;
	pthread_barrier_wait(&bench_start);
	for (i = 0; i < bench_nthreads; i++) {
		pthread_join(bench_threads[i].tid, NULL);
		free(bench_threads[i].arena);
		free(bench_threads[i].cache);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * path-bench: one trial of the path benchmark (scripts/bench-path,
 * tests/bench/path-bench.sh): W worker processes train a model of MIB
 * mebibytes for ITERS BSP steps, either through the module or through a
 * user-space reference that moves the same bytes and runs the same
 * aggregation code. Method and figures: docs/performance.md ("Path
 * benchmark").
 *
 *   path-bench rw  JOB TOKEN_FILE W MIB ITERS
 *   path-bench ref W MIB CHUNK ITERS IMPL
 *
 * Both fork W workers. A step of worker r: write its gradient (every
 * float of the model, chunk by chunk), hand it over, wait until every
 * chunk is stepped, read the new parameters back (every byte, chunk by
 * chunk). The hand-over is what differs:
 *
 *   rw   the gradient buffer is the module's receive slots (mapped); one
 *        PUSHPULL ioctl queues every chunk on its owner core and returns
 *        when every chunk is fresh.
 *   ref  the gradient slots and parameters live in shared memory laid out
 *        as the module's arenas are (per chunk: parameters, then W slots);
 *        the worker counts itself in with an atomic add (the last one
 *        wakes the aggregators, a futex), and sleeps on the step counter.
 *        One aggregator process per online CPU, bound to it like the
 *        module's core threads, owns chunks c with c mod CPUs = its index
 *        (the chunk map's round robin on one node), sums the W slots of
 *        each chunk and applies SGD with rw_agg_update() of the module's
 *        own kmod/agg sources (implementation IMPL: the one the module
 *        chose, "rwctl -j status"), one call per chunk; the last one done
 *        bumps the step counter and wakes the workers.
 *
 * One warm-up step (page faults, first touch) is not timed. The trial's
 * time runs from the moment every worker is ready to the last worker's
 * last step. Output, one line:
 *
 *   trial MODE W CHUNK ITERS SECONDS STEPS_PER_S SUM AGG_NS
 *
 * SUM is the parameter checksum worker 0 read last: both modes compute
 * the same SGD steps on the same gradients, so the same bits. AGG_NS is
 * the reference's mean time in rw_agg_update() per chunk of the timed
 * steps (0 for rw, whose own is in the rw_step trace event).
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rackweave.h>

#include "agg_impl.h"

#define PB_MAX_W	64
#define PB_LR		0.001f

/* Shared by the launcher, its workers and (ref) its aggregators. */
struct pb_shared {
	_Atomic uint32_t ready;		/* workers past their warm-up */
	_Atomic uint32_t go;		/* 1: start timing */
	_Atomic uint32_t arrived;	/* ref: gradients handed over, all steps */
	_Atomic uint32_t done;		/* ref: aggregators done, all steps */
	_Atomic uint32_t step;		/* ref: steps published */
	_Atomic uint32_t stop;		/* ref: aggregators exit */
	_Atomic uint64_t agg_ns;	/* ref: in rw_agg_update, timed steps */
	_Atomic uint64_t agg_n;		/* ref: chunks it stepped, timed steps */
	uint32_t chunk;			/* rw: the job's chunk size */
	double t0;
	double t_end[PB_MAX_W];
	uint64_t sum[PB_MAX_W];
	int err[PB_MAX_W];
};

static double pb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pb_futex_wait(_Atomic uint32_t *p, uint32_t val)
{
	syscall(SYS_futex, p, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void pb_futex_wake(_Atomic uint32_t *p)
{
	syscall(SYS_futex, p, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/* Sleep until *p >= want. */
static void pb_wait_ge(_Atomic uint32_t *p, uint32_t want)
{
	uint32_t v;

	while ((v = atomic_load(p)) < want)
		pb_futex_wait(p, v);
}

/* The same two loops in both modes: the gradient out, the result back. */
static void pb_fill(void *chunk, size_t bytes, float val)
{
	float *f = chunk;
	size_t i;

	for (i = 0; i < bytes / sizeof(float); i++)
		f[i] = val;
}

static uint64_t pb_read(const void *chunk, size_t bytes)
{
	const uint64_t *q = chunk;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < bytes / sizeof(uint64_t); i++)
		s += q[i];
	return s;
}

static float pb_grad(uint32_t rank, uint32_t step)
{
	return (float)(rank + 1) * 0.25f + (float)(step % 7) * 0.125f;
}

static struct pb_shared *pb_shared_new(size_t extra, void **mem)
{
	size_t len = sizeof(struct pb_shared) + 4095 + extra;
	uint8_t *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mem)
		*mem = p + ((sizeof(struct pb_shared) + 4095) & ~(size_t)4095);
	return (struct pb_shared *)p;
}

/* Ready after the warm-up; wait for the launcher's go. */
static void pb_ready(struct pb_shared *sh)
{
	atomic_fetch_add(&sh->ready, 1);
	pb_futex_wake(&sh->ready);
	pb_wait_ge(&sh->go, 1);
}

/*
 * PATH_BENCH_TRACE=DIR: tracing on (DIR/tracing_on) for the timed steps
 * only, so a capture leaves out the set-up and the warm-up.
 */
static void pb_tracing(int on)
{
	const char *dir = getenv("PATH_BENCH_TRACE");
	char path[256];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/tracing_on", dir);
	f = fopen(path, "w");
	if (f) {
		fputs(on ? "1\n" : "0\n", f);
		fclose(f);
	}
}

/* The launcher: every worker ready, then go; the trial's time. */
static int pb_launch(struct pb_shared *sh, uint32_t w, pid_t *pids,
		     uint32_t npids, const char *mode, uint32_t chunk,
		     uint32_t iters)
{
	uint32_t r, v;
	double t1 = 0;
	int st, bad = 0;

	while ((v = atomic_load(&sh->ready)) < w) {
		/* A worker that died before it was ready fails the trial. */
		if (waitpid(-1, &st, WNOHANG) > 0) {
			bad = 1;
			break;
		}
		usleep(1000);
	}
	pb_tracing(1);
	sh->t0 = pb_now();
	atomic_store(&sh->go, 1);
	pb_futex_wake(&sh->go);
	for (r = 0; r < w && !bad; r++) {
		if (waitpid(pids[r], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) || sh->err[r])
			bad = 1;
		t1 = sh->t_end[r] > t1 ? sh->t_end[r] : t1;
	}
	pb_tracing(0);
	atomic_store(&sh->stop, 1);
	atomic_fetch_add(&sh->arrived, 1);
	pb_futex_wake(&sh->arrived);
	for (r = w; r < npids; r++)
		waitpid(pids[r], &st, 0);
	if (bad) {
		fprintf(stderr, "path-bench: a worker failed\n");
		return 1;
	}
	printf("trial %s %u %u %u %.6f %.4f %016llx %.0f\n", mode, w,
	       chunk ? chunk : sh->chunk, iters, t1 - sh->t0,
	       iters / (t1 - sh->t0), (unsigned long long)sh->sum[0],
	       sh->agg_n ? (double)sh->agg_ns / (double)sh->agg_n : 0.0);
	return 0;
}

/* ---- through the module ---- */

static int pb_rw_worker(const char *job, const uint8_t *token, uint32_t rank,
			uint64_t bytes, uint32_t iters, struct pb_shared *sh)
{
	struct rw_tensor_desc t = {
		.key = 1, .nelems = bytes / sizeof(float), .dtype = RW_DTYPE_F32,
	};
	struct rw_tensor_view v;
	struct rw_setup s;
	struct rw_ctx *ctx;
	uint64_t sum = 0, c;
	uint32_t i;
	int ret;

	ret = rw_ctx_open(&ctx, NULL);
	if (!ret)
		ret = rw_attach(ctx, job, token, rank, 0);
	if (!ret)
		ret = rw_declare(ctx, &t, 1, 0);
	if (!ret)
		ret = rw_map(ctx);
	if (!ret)
		ret = rw_setup_get(ctx, &s);
	if (!ret)
		ret = rw_tensor(ctx, 1, &v);
	if (!ret)
		ret = rw_set_timeout(ctx, 600000);
	if (!ret && !rank)
		sh->chunk = s.chunk_size;
	for (i = 0; !ret && i <= iters; i++) {
		if (i == 1)
			pb_ready(sh);
		for (c = 0; c < bytes; c += s.chunk_size)
			pb_fill((uint8_t *)v.grad + c, s.chunk_size,
				pb_grad(rank, i));
		ret = rw_pushpull(ctx, NULL, 0, 0);
		for (c = 0, sum = 0; !ret && c < bytes; c += s.chunk_size)
			sum += pb_read((const uint8_t *)v.params + c,
				       s.chunk_size);
	}
	sh->t_end[rank] = pb_now();
	sh->sum[rank] = sum;
	if (ret) {
		fprintf(stderr, "path-bench: rank %u: %s\n", rank,
			rw_strerror(ret));
		sh->err[rank] = 1;
		/* Let the launcher go on to see the failure. */
		if (i <= 1)
			pb_ready(sh);
	}
	rw_ctx_close(ctx);
	return ret ? 1 : 0;
}

static int pb_rw(int argc, char **argv)
{
	uint8_t token[RW_JOB_TOKEN_LEN];
	pid_t pids[PB_MAX_W];
	struct pb_shared *sh;
	uint32_t w, iters, r;
	uint64_t bytes;
	int ret;

	if (argc != 7)
		return 2;
	w = (uint32_t)atoi(argv[4]);
	bytes = (uint64_t)atoi(argv[5]) << 20;
	iters = (uint32_t)atoi(argv[6]);
	if (!w || w > PB_MAX_W || !bytes || !iters)
		return 2;
	ret = rw_token_read(argv[3], token);
	if (ret) {
		fprintf(stderr, "path-bench: token: %s\n", rw_strerror(ret));
		return 1;
	}
	sh = pb_shared_new(0, NULL);
	if (!sh)
		return 1;
	fflush(stdout);
	for (r = 0; r < w; r++) {
		pids[r] = fork();
		if (pids[r] < 0)
			return 1;
		if (!pids[r])
			_exit(pb_rw_worker(argv[2], token, r, bytes, iters, sh));
	}
	return pb_launch(sh, w, pids, w, "rw", 0, iters);
}

/* ---- the user-space reference ---- */

struct pb_ref {
	struct pb_shared *sh;
	uint8_t *mem;			/* per chunk: params, W slots */
	const struct rw_agg_impl *impl;
	uint64_t bytes;
	uint32_t w, chunk, nchunks, iters, ncpus;
};

static uint8_t *pb_ref_params(const struct pb_ref *p, uint32_t c)
{
	return p->mem + (size_t)c * (1 + p->w) * p->chunk;
}

static uint8_t *pb_ref_slot(const struct pb_ref *p, uint32_t c, uint32_t r)
{
	return pb_ref_params(p, c) + (size_t)(1 + r) * p->chunk;
}

static int pb_ref_worker(const struct pb_ref *p, uint32_t rank)
{
	struct pb_shared *sh = p->sh;
	uint64_t sum = 0;
	uint32_t i, c;

	for (i = 0; i <= p->iters; i++) {
		if (i == 1)
			pb_ready(sh);
		for (c = 0; c < p->nchunks; c++)
			pb_fill(pb_ref_slot(p, c, rank), p->chunk,
				pb_grad(rank, i));
		if (atomic_fetch_add(&sh->arrived, 1) + 1 == p->w * (i + 1))
			pb_futex_wake(&sh->arrived);
		pb_wait_ge(&sh->step, i + 1);
		for (c = 0, sum = 0; c < p->nchunks; c++)
			sum += pb_read(pb_ref_params(p, c), p->chunk);
	}
	sh->t_end[rank] = pb_now();
	sh->sum[rank] = sum;
	return 0;
}

static int pb_ref_agg(const struct pb_ref *p, uint32_t cpu)
{
	const void *src[PB_MAX_W];
	struct pb_shared *sh = p->sh;
	struct rw_agg_hparams hp = { .optim = RW_AGG_SGD, .lr = PB_LR };
	struct rw_agg_step st;
	struct rw_agg_chunk ac = {
		.src = src, .nsrc = p->w, .n = p->chunk / sizeof(float),
		.dtype = RW_AGG_F32,
	};
	cpu_set_t set;
	uint32_t i, c, r;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;
	for (i = 0;; i++) {
		uint32_t v;

		while ((v = atomic_load(&sh->arrived)) < p->w * (i + 1) &&
		       !atomic_load(&sh->stop))
			pb_futex_wait(&sh->arrived, v);
		if (atomic_load(&sh->stop))
			return 0;
		if (rw_agg_prepare(&st, &hp, p->w, (uint64_t)i + 1))
			return 1;
		for (c = cpu; c < p->nchunks; c += p->ncpus) {
			double t0;

			for (r = 0; r < p->w; r++)
				src[r] = pb_ref_slot(p, c, r);
			ac.out = (float *)pb_ref_params(p, c);
			t0 = pb_now();
			if (rw_agg_update(p->impl, &ac, &st))
				return 1;
			if (i) {
				atomic_fetch_add(&sh->agg_ns,
						 (uint64_t)((pb_now() - t0) * 1e9));
				atomic_fetch_add(&sh->agg_n, 1);
			}
		}
		if (atomic_fetch_add(&sh->done, 1) + 1 == p->ncpus * (i + 1)) {
			atomic_store(&sh->step, i + 1);
			pb_futex_wake(&sh->step);
		}
	}
}

static int pb_ref(int argc, char **argv)
{
	pid_t pids[PB_MAX_W + CPU_SETSIZE];
	struct pb_ref p = {};
	void *mem;
	uint32_t i;
	long n;

	if (argc != 7)
		return 2;
	p.w = (uint32_t)atoi(argv[2]);
	p.bytes = (uint64_t)atoi(argv[3]) << 20;
	p.chunk = (uint32_t)atoi(argv[4]);
	p.iters = (uint32_t)atoi(argv[5]);
	p.impl = rw_agg_impl_find(argv[6]);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (!p.w || p.w > PB_MAX_W || !p.bytes || !p.iters || p.chunk < 4096 ||
	    p.chunk > RW_AGG_MAX_CHUNK_BYTES || p.bytes % p.chunk || n < 1 ||
	    n > CPU_SETSIZE)
		return 2;
	if (!p.impl || !p.impl->usable()) {
		fprintf(stderr, "path-bench: no usable implementation '%s'\n",
			argv[6]);
		return 1;
	}
	p.ncpus = (uint32_t)n;
	p.nchunks = (uint32_t)(p.bytes / p.chunk);
	p.sh = pb_shared_new((size_t)p.nchunks * (1 + p.w) * p.chunk, &mem);
	if (!p.sh) {
		fprintf(stderr, "path-bench: no memory for the reference\n");
		return 1;
	}
	p.mem = mem;
	fflush(stdout);
	for (i = 0; i < p.w + p.ncpus; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (!pids[i])
			_exit(i < p.w ? pb_ref_worker(&p, i) :
			      pb_ref_agg(&p, i - p.w));
	}
	return pb_launch(p.sh, p.w, pids, p.w + p.ncpus, "ref", p.chunk,
			 p.iters);
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "rw"))
		ret = pb_rw(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "ref"))
		ret = pb_ref(argc, argv);
	if (ret == 2)
		fprintf(stderr,
			"usage: path-bench rw JOB TOKEN_FILE W MIB ITERS\n"
			"       path-bench ref W MIB CHUNK ITERS IMPL\n");
	return ret;
}

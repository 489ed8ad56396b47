// SPDX-License-Identifier: GPL-2.0
/*
 * average-check: the box as an all-reduce by averaging (a job with
 * "optim average"), seen by W workers through librackweave, one thread
 * and one context each.
 *
 *   average-check JOB TOKEN_FILE WORKERS ITERS { bsp | each }
 *
 * Every worker attaches at its rank, declares the model below (tensors
 * whose lengths leave tails for every vector width, chunks of the job's
 * size) and per iteration writes deterministic non-zero gradients spread
 * over 25 binades (so sums round, and differently in another order) and
 * pushpulls every chunk. After each pull it checks the parameter buffer:
 *
 *   bsp   the job is BSP: every element equals, bit for bit, the mean a
 *         trainer computes itself: the f32 sum of the W gradients of that
 *         iteration in rank order, times the f32 1/W that the module's
 *         kernels use ((float)(1.0 / W), rounded once); every chunk's
 *         version is the iteration count. The program also counts the
 *         elements whose sum in reverse rank order differs, and fails if
 *         there are none (the check could not tell the order then).
 *   each  the job steps per gradient (ASP, SSP, adaptive): a step writes
 *         the mean of the one gradient it applied, the gradient itself,
 *         so every element equals the element of one of the gradients
 *         pushed (any rank, any iteration), unscaled. Steps may land
 *         while the buffer is read, so this is checked per element. Once
 *         every worker is done, each chunk as a whole is one rank's
 *         gradient of the last iteration (a chunk's steps are applied in
 *         arrival order, and each rank's last gradient is its last
 *         arrival), and every chunk's version is W * ITERS.
 *
 * Output: one line per check, "ok: ..." or "error: ...", then
 * "average-check: exact" or "average-check: FAILED". Exit status 0 only
 * when every check passed.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rackweave.h>

#define AC_NR_TENSORS	4
#define AC_MAX_WORKERS	16

static const struct rw_tensor_desc ac_tensors[AC_NR_TENSORS] = {
	{ .key = 21, .nelems = 3001, .dtype = RW_DTYPE_F32 },
	{ .key = 22, .nelems = 7, .dtype = RW_DTYPE_F32 },
	{ .key = 23, .nelems = 20000, .dtype = RW_DTYPE_F32 },
	{ .key = 24, .nelems = 1, .dtype = RW_DTYPE_F32 },
};

struct ac_worker {
	uint32_t rank;
	struct rw_ctx *ctx;
	struct rw_setup setup;
	struct rw_tensor_view v[AC_NR_TENSORS];
	uint64_t bad;			/* elements that failed a check */
	uint64_t order_sensitive;	/* bsp: reverse order would differ */
	int err;			/* a failed call, or 0 */
	const char *what;
};

static const char *ac_job;
static uint8_t ac_token[RW_JOB_TOKEN_LEN];
static uint32_t ac_workers, ac_iters;
static bool ac_each;
static pthread_barrier_t ac_done;

static float ac_f32(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static uint32_t ac_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/*
 * Rank @r's gradient of element @k of tensor @t in iteration @i: a hash
 * made a float of either sign with exponent -12..12: never zero, and
 * distinct for every (r, i) in practice, so a value names its pusher.
 */
static float ac_grad(uint32_t r, uint32_t i, uint32_t t, uint64_t k)
{
	uint64_t x = ((uint64_t)r << 56) ^ ((uint64_t)i << 40) ^
		     ((uint64_t)t << 32) ^ k;

	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return ac_f32((x & 1 ? 0x80000000U : 0) |
		      (uint32_t)(127 - 12 + (x >> 1) % 25) << 23 |
		      (uint32_t)(x >> 40 & 0x7fffff));
}

/* The mean of iteration @i as a trainer computes it: rank order, f32. */
static float ac_mean(uint32_t i, uint32_t t, uint64_t k, float *rev)
{
	const float scale = (float)(1.0 / ac_workers);
	float s = ac_grad(0, i, t, k), b = ac_grad(ac_workers - 1, i, t, k);
	uint32_t r;

	for (r = 1; r < ac_workers; r++)
		s += ac_grad(r, i, t, k);
	for (r = ac_workers - 1; r-- > 0;)
		b += ac_grad(r, i, t, k);
	*rev = b * scale;
	return s * scale;
}

/* Whether @p is the element of some pushed gradient, unscaled. */
static bool ac_is_pushed(float p, uint32_t t, uint64_t k)
{
	uint32_t r, i, u = ac_bits(p);

	for (i = 0; i < ac_iters; i++)
		for (r = 0; r < ac_workers; r++)
			if (ac_bits(ac_grad(r, i, t, k)) == u)
				return true;
	return false;
}

static void ac_report(struct ac_worker *w, uint32_t i, uint32_t t,
		      uint64_t k, float got, float want)
{
	if (w->bad++ < 5)
		printf("error: rank %u iteration %u tensor %u element %" PRIu64
		       ": %a (%08x), want %a (%08x)\n", w->rank, i, t, k, got,
		       ac_bits(got), want, ac_bits(want));
}

static void ac_check_bsp(struct ac_worker *w, uint32_t i)
{
	const volatile uint64_t *ver = rw_versions(w->ctx);
	uint32_t t, c;
	uint64_t k;
	float rev;

	for (t = 0; t < AC_NR_TENSORS; t++) {
		const float *p = w->v[t].params;

		for (k = 0; k < w->v[t].nelems; k++) {
			float want = ac_mean(i, t, k, &rev);

			if (ac_bits(p[k]) != ac_bits(want))
				ac_report(w, i, t, k, p[k], want);
			w->order_sensitive += ac_bits(rev) != ac_bits(want);
		}
	}
	for (c = 0; c < w->setup.nr_chunks; c++)
		if (ver[c] != i + 1 && w->bad++ < 5)
			printf("error: rank %u iteration %u: chunk %u at version %" PRIu64 "\n",
			       w->rank, i, c, (uint64_t)ver[c]);
}

static void ac_check_each(struct ac_worker *w, uint32_t i)
{
	uint32_t t;
	uint64_t k;

	for (t = 0; t < AC_NR_TENSORS; t++) {
		const float *p = w->v[t].params;

		for (k = 0; k < w->v[t].nelems; k++) {
			float x = p[k];

			if (!ac_is_pushed(x, t, k) && w->bad++ < 5)
				printf("error: rank %u iteration %u tensor %u element %" PRIu64
				       ": %a is no gradient pushed\n",
				       w->rank, i, t, k, x);
		}
	}
}

static int ac_setup(struct ac_worker *w)
{
	uint32_t t;
	int ret;

	w->what = "open";
	ret = rw_ctx_open(&w->ctx, NULL);
	if (ret)
		return ret;
	w->what = "attach";
	ret = rw_attach(w->ctx, ac_job, ac_token, w->rank, 0);
	if (ret)
		return ret;
	w->what = "declare";
	ret = rw_declare(w->ctx, ac_tensors, AC_NR_TENSORS, 0);
	if (ret)
		return ret;
	w->what = "map";
	ret = rw_map(w->ctx);
	if (!ret)
		ret = rw_setup_get(w->ctx, &w->setup);
	for (t = 0; !ret && t < AC_NR_TENSORS; t++)
		ret = rw_tensor(w->ctx, ac_tensors[t].key, &w->v[t]);
	if (!ret)
		ret = rw_set_timeout(w->ctx, 60000);
	return ret;
}

static void *ac_run(void *arg)
{
	struct ac_worker *w = arg;
	uint32_t i, t;
	uint64_t k;

	w->err = ac_setup(w);
	for (i = 0; !w->err && i < ac_iters; i++) {
		for (t = 0; t < AC_NR_TENSORS; t++)
			for (k = 0; k < w->v[t].nelems; k++)
				((float *)w->v[t].grad)[k] =
					ac_grad(w->rank, i, t, k);
		w->what = "pushpull";
		w->err = rw_pushpull(w->ctx, NULL, 0, 0);
		if (w->err)
			break;
		if (ac_each)
			ac_check_each(w, i);
		else
			ac_check_bsp(w, i);
	}
	/* Everyone's last pull has returned: nothing moves any more. */
	pthread_barrier_wait(&ac_done);
	return NULL;
}

/*
 * After the run, per step-per-gradient rules: each chunk is, as a whole,
 * one rank's gradient of the last iteration, and has taken every push.
 */
static uint64_t ac_check_final(const struct ac_worker *w)
{
	const volatile uint64_t *ver = rw_versions(w->ctx);
	uint32_t cs = w->setup.chunk_size, n = w->setup.nr_chunks, c, t, r;
	uint32_t last = ac_iters - 1, *cand, hist[AC_MAX_WORKERS] = { 0 };
	uint64_t bad = 0, k;

	/* cand[c]: bit r set while rank r's last gradient fits chunk c. */
	cand = malloc(n * sizeof(*cand));
	if (!cand)
		return 1;
	for (c = 0; c < n; c++)
		cand[c] = (1U << ac_workers) - 1;
	for (t = 0; t < AC_NR_TENSORS; t++) {
		const float *p = w->v[t].params;

		for (k = 0; k < w->v[t].nelems; k++) {
			c = (uint32_t)((w->v[t].offset + 4 * k) / cs);
			for (r = 0; r < ac_workers; r++)
				if (ac_bits(p[k]) != ac_bits(ac_grad(r, last, t, k)))
					cand[c] &= ~(1U << r);
		}
	}
	for (c = 0; c < n; c++) {
		if (!cand[c] && bad++ < 5)
			printf("error: chunk %u is not one rank's last gradient\n", c);
		for (r = 0; r < ac_workers; r++)
			if (cand[c] & (1U << r)) {
				hist[r]++;
				break;
			}
		if (ver[c] != (uint64_t)ac_workers * ac_iters && bad++ < 5)
			printf("error: chunk %u at version %" PRIu64 ", want %u\n",
			       c, (uint64_t)ver[c], ac_workers * ac_iters);
	}
	printf("# last gradient applied per chunk, by rank:");
	for (r = 0; r < ac_workers; r++)
		printf(" %u", hist[r]);
	printf("\n");
	free(cand);
	return bad;
}

int main(int argc, char **argv)
{
	static struct ac_worker w[AC_MAX_WORKERS];
	pthread_t th[AC_MAX_WORKERS];
	uint64_t bad = 0, sensitive = 0, elems = 0;
	uint32_t r, t;
	int ret, failed = 0;

	if (argc != 6 || (strcmp(argv[5], "bsp") && strcmp(argv[5], "each"))) {
		fprintf(stderr, "usage: average-check JOB TOKEN_FILE WORKERS ITERS { bsp | each }\n");
		return 2;
	}
	ac_job = argv[1];
	ac_workers = (uint32_t)atoi(argv[3]);
	ac_iters = (uint32_t)atoi(argv[4]);
	ac_each = !strcmp(argv[5], "each");
	if (ac_workers < 1 || ac_workers > AC_MAX_WORKERS || ac_iters < 1) {
		fprintf(stderr, "average-check: 1..%u workers, at least one iteration\n",
			AC_MAX_WORKERS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rw_token_read(argv[2], ac_token);
	if (ret) {
		printf("error: token: %s\n", rw_strerror(ret));
		return 1;
	}
	pthread_barrier_init(&ac_done, NULL, ac_workers);
	for (r = 0; r < ac_workers; r++) {
		w[r].rank = r;
		if (pthread_create(&th[r], NULL, ac_run, &w[r])) {
			printf("error: thread %u\n", r);
			return 1;
		}
	}
	for (r = 0; r < ac_workers; r++)
		pthread_join(th[r], NULL);
	for (r = 0; r < ac_workers; r++) {
		if (w[r].err) {
			printf("error: rank %u: %s: %s\n", r, w[r].what,
			       rw_strerror(w[r].err));
			failed = 1;
		}
		bad += w[r].bad;
		sensitive += w[r].order_sensitive;
	}
	for (t = 0; t < AC_NR_TENSORS; t++)
		elems += ac_tensors[t].nelems;

	if (!ac_each) {
		printf("%s: %u workers x %u iterations x %" PRIu64
		       " elements, mean in rank order times %a: %" PRIu64
		       " mismatches\n", bad ? "error" : "ok", ac_workers,
		       ac_iters, elems, (double)(float)(1.0 / ac_workers), bad);
		/* One worker has one order: nothing to tell apart. */
		if (ac_workers > 2 && !sensitive) {
			printf("error: no element's mean depends on the order: the check proves nothing\n");
			failed = 1;
		} else {
			printf("ok: %" PRIu64 " of the elements checked would differ summed in reverse rank order\n",
			       sensitive);
		}
	} else {
		printf("%s: %u workers x %u iterations x %" PRIu64
		       " elements, every element pulled is a pushed gradient, unscaled: %"
		       PRIu64 " mismatches\n", bad ? "error" : "ok", ac_workers,
		       ac_iters, elems, bad);
		if (!failed) {
			uint64_t fb = ac_check_final(&w[0]);

			printf("%s: at the end every chunk is one rank's last gradient, at version %u\n",
			       fb ? "error" : "ok", ac_workers * ac_iters);
			bad += fb;
		}
	}
	for (r = 0; r < ac_workers; r++)
		rw_ctx_close(w[r].ctx);
	failed |= bad != 0;
	printf("average-check: %s\n", failed ? "FAILED" : "exact");
	return failed;
}

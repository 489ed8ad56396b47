// SPDX-License-Identifier: GPL-2.0
/*
 * bench-agg: the aggregation kernels of kmod/agg timed natively against
 * the memory bound measured by the same binary, in the same run, on the
 * same buffers with the same number of threads. Run it through
 * scripts/bench-agg; the method and results are in docs/performance.md
 * ("Aggregation kernels").
 *
 * - For every W of --w (default 1, 2, 4, 8) and chunk of --chunk (4K,
 *   32K, 256K, 1M), every usable implementation runs "sum" (streaming
 *   stores: the sum of a big buffer is not read again by this core) and
 *   "momentum" (the fused sum and heavy-ball step, cached stores: it
 *   rewrites lines it has just read), on one thread and on all CPUs (each
 *   thread its own buffers). The other store choices are timed at W = 8,
 *   32 KiB to justify these.
 * - The bound of a kernel is the time of the fastest plain streaming loop
 *   found that moves exactly its bytes (Sum: W slots read, one written.
 *   Momentum: W slots, parameters and buffer read, parameters and buffer
 *   written): a SIMD read of the inputs plus a non-temporal write of the
 *   outputs, or one loop doing both, in several shapes
 *   (bench-agg-bound.c). A calibration of --reps rounds picks the shape;
 *   its best-of times are the bounds table.
 * - Paired trials. On a shared host the memory bandwidth left to us moves
 *   by tens of percent within seconds, so a bound and a kernel timed at
 *   different moments do not compare. Each configuration is timed in
 *   --pairs pairs of short trials, the bound's loop and the kernel back
 *   to back on the same amount of memory (one slice of every buffer,
 *   about 5 ms at W = 8), and each pair gives one ratio = bound time /
 *   kernel time (1.0 = the memory limit). The headline, of the
 *   implementation rw_agg_select picks, is the median of the paired
 *   ratios, with their interquartile range; the best-of ratio (best
 *   bound trial over best kernel trial) is kept as detail. The
 *   order within a pair flips every pair (bound first, then kernel
 *   first), so what one trial leaves behind (dirty lines, a warm TLB)
 *   weighs on both sides alike; pair p of every configuration runs
 *   before pair p + 1 of any, so a noisy minute is spread over all of
 *   them. A trial's time is the CPU time of its thread (the slower
 *   thread's with several): on a shared host other tasks take our CPU in
 *   the middle of trials, and the time they run is not the loop's. Pairs
 *   with a trial so interrupted are counted (pairs_preempted).
 * - In cache: W = 8 slots of one 32 KiB chunk, resident in L2, summed over
 *   and over: what SIMD buys when memory is not the limit.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg_impl.h"
#include "bench-agg.h"

static const unsigned long bench_ws_all[] = { 1, 2, 4, 8 };
static const unsigned long bench_ws_quick[] = { 1, 8 };
static const unsigned long bench_chunks_all[] = { 4096, 32768, 262144, 1048576 };
static const unsigned long bench_chunks_quick[] = { 32768 };

struct bench_opts bench_opt = { .reps = 5, .pairs = 15, .ws = 640 * MIB };

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_series_q(const struct series *s, double q)
{
	double t[MAX_SAMPLES], h;
	unsigned int lo;

	if (!s->n)
		return NAN;
	memcpy(t, s->t, s->n * sizeof(double));
	qsort(t, s->n, sizeof(double), bench_cmp);
	h = q * (s->n - 1);
	lo = (unsigned int)h;
	if (lo + 1 >= s->n)
		return t[s->n - 1];
	return t[lo] + (h - lo) * (t[lo + 1] - t[lo]);
}

struct entry *bench_entries;
unsigned int bench_nentries;
static unsigned int bench_cap;

struct entry *bench_find(enum bench_kind kind, const struct rw_agg_impl *impl,
			 unsigned int w, size_t chunk, unsigned int thr,
			 bool fused)
{
	unsigned int i;

	for (i = 0; i < bench_nentries; i++) {
		struct entry *e = &bench_entries[i];

		if (e->kind == kind && e->impl == impl && e->w == w &&
		    e->chunk == chunk && e->threads == thr && e->fused == fused)
			return e;
	}
	return NULL;
}

static struct entry *bench_entry(enum bench_kind kind,
				 const struct rw_agg_impl *impl,
				 unsigned int w, size_t chunk,
				 unsigned int threads, bool fused)
{
	struct entry *e = bench_find(kind, impl, w, chunk, threads, fused);

	if (e)
		return e;
	if (bench_nentries == bench_cap) {
		bench_cap = bench_cap ? 2 * bench_cap : 256;
		bench_entries = realloc(bench_entries,
					bench_cap * sizeof(*bench_entries));
		if (!bench_entries)
			abort();
	}
	e = &bench_entries[bench_nentries++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->impl = impl;
	e->w = w;
	e->chunk = chunk;
	e->threads = threads;
	e->fused = fused;
	return e;
}

static struct entry *bench_bound(unsigned int w, unsigned int thr, bool fused)
{
	return bench_find(K_BOUND, NULL, w, 0, thr, fused);
}

const struct rw_agg_impl *bench_impls[RW_AGG_MAX_IMPLS];
unsigned int bench_nimpls;

static double bench_min2(double a, double b)
{
	return a < b ? a : b;
}

/*
 * A trial moves one slice of every buffer: BENCH_SLICES slices of whole
 * MiB (fewer when a buffer has fewer MiB), the next trial the next one.
 */
static unsigned int bench_nslices(unsigned int w)
{
	size_t mib = bench_buf_elems(w) * sizeof(float) / MIB;

	return mib < BENCH_SLICES ? (unsigned int)mib : BENCH_SLICES;
}

size_t bench_slice_elems(unsigned int w)
{
	size_t mib = bench_buf_elems(w) * sizeof(float) / MIB;

	return mib / bench_nslices(w) * (MIB / sizeof(float));
}

/* The next slice of the size a kernel of @w slots moves. */
static void bench_next_slice_of(struct bench_job *j, unsigned int w)
{
	static unsigned long trial;

	j->n = bench_slice_elems(w);
	j->off = (trial++ % bench_nslices(w)) * j->n;
}

static void bench_next_slice(struct bench_job *j)
{
	bench_next_slice_of(j, j->w);
}

double bench_gbps(unsigned int w, unsigned int thr, size_t chunk_elems,
		  double t)
{
	double bytes = chunk_elems ? (double)w * chunk_elems * sizeof(float) *
				     CACHE_ITERS :
				     (double)w * bench_slice_elems(w) *
				     sizeof(float) * thr;

	return bytes / t / 1e9;
}

/*
 * The shapes of loop the bound tries (bench-agg-bound.c). --explore-bound
 * times every shape of every loop; these are the ones that won, or came
 * within a few percent, on this host kind: the combined loop always beat
 * separate reads and writes, streaming stores win for the sum and cached
 * stores for the momentum step (it rewrites lines it has just read). The
 * separate read + write pair is timed too, as the plain definition of
 * the bound.
 */
static const struct bench_shape bench_read_shape = {
	.wide = true, .unroll = 4, .store = BENCH_ST_NONE,
};

static const struct bench_shape bench_sum_shapes[] = {
	{ .wide = true, .unroll = 1, .store = BENCH_ST_NT },
	{ .wide = true, .unroll = 4, .store = BENCH_ST_NT },
	{ .wide = false, .unroll = 1, .store = BENCH_ST_NT },
	{ .wide = false, .unroll = 2, .store = BENCH_ST_NT },
	{ .wide = false, .unroll = 4, .store = BENCH_ST_NT },
};

static const struct bench_shape bench_mom_shapes[] = {
	{ .wide = true, .unroll = 2, .store = BENCH_ST_CACHED },
	{ .wide = true, .unroll = 4, .store = BENCH_ST_CACHED },
	{ .wide = false, .unroll = 2, .store = BENCH_ST_CACHED },
	{ .wide = false, .unroll = 4, .store = BENCH_ST_CACHED },
};

static const struct bench_shape *bench_shapes(bool fused, unsigned int *n)
{
	*n = fused ? ARRAY_SIZE(bench_mom_shapes) : ARRAY_SIZE(bench_sum_shapes);
	return fused ? bench_mom_shapes : bench_sum_shapes;
}

/* One timed loop of the bound on slice j (j->n, j->off already set). */
static double bench_time_shape(struct bench_job j, enum bench_kind kind,
			       const struct bench_shape *shape, bool *pre)
{
	j.kind = kind;
	j.shape = *shape;
	if (pre)
		*pre = false;
	/* A 512-bit shape on a CPU without AVX-512 is not a candidate. */
	if (shape->wide && !bench_bound_have_avx512())
		return 1e30;
	return bench_time(&j, pre);
}

static void bench_separate_shapes(struct bench_shape *rs, struct bench_shape *ws)
{
	*rs = bench_read_shape;
	memset(ws, 0, sizeof(*ws));
	rs->wide = ws->wide = bench_bound_have_avx512();
}

/* One calibration round of the bound: every candidate, one slice each. */
static void bench_bound_once(unsigned int w, bool fused, unsigned int thr)
{
	struct bench_job j = { .w = w, .fused = fused, .active = thr };
	struct entry *e = bench_entry(K_BOUND, NULL, w, 0, thr, fused);
	struct bench_shape rs, ws;
	const struct bench_shape *shapes;
	unsigned int i, nshapes;
	double rd, wr, cp = 1e30, t;

	shapes = bench_shapes(fused, &nshapes);
	bench_separate_shapes(&rs, &ws);
	bench_next_slice(&j);
	rd = bench_time_shape(j, K_BOUND, &rs, NULL);
	wr = bench_time_shape(j, K_WRITE, &ws, NULL);
	for (i = 0; i < nshapes; i++) {
		bench_next_slice(&j);
		t = bench_time_shape(j, K_BOUND, &shapes[i], NULL);
		if (e->rd.n == 0 || t < e->shape_min[i])
			e->shape_min[i] = t;
		cp = bench_min2(cp, t);
	}
	series_add(&e->rd, rd);
	series_add(&e->wr, wr);
	series_add(&e->cp, cp);
	series_add(&e->s, bench_min2(rd + wr, cp));
}

/* After calibration: the bound's trials use the loop that was fastest. */
static void bench_bound_choose(struct entry *e)
{
	unsigned int i, nshapes;
	double best = series_min(&e->rd) + series_min(&e->wr);

	bench_shapes(e->fused, &nshapes);
	e->cand = -1;
	for (i = 0; i < nshapes; i++) {
		if (e->shape_min[i] < best) {
			best = e->shape_min[i];
			e->cand = (int)i;
		}
	}
}

const char *bench_bound_shape(const struct entry *e, char *buf, size_t len)
{
	unsigned int nshapes;
	const struct bench_shape *shapes = bench_shapes(e->fused, &nshapes);

	if (e->cand < 0)
		return "read+write-nt";
	return bench_shape_name(&shapes[e->cand], buf, len);
}

/*
 * One trial of a bound with its chosen loop, over the slice a kernel of
 * @kw slots moves (a 16-bit kernel's bound has W / 2 streams of as many
 * elements as the kernel's W: bench_kind_bytes_w()).
 */
static double bench_bound_trial(const struct entry *e, unsigned int kw,
				bool *pre)
{
	struct bench_job j = { .w = e->w, .fused = e->fused,
			       .active = e->threads };
	struct bench_shape rs, ws;
	unsigned int nshapes;
	double t;
	bool p2;

	bench_next_slice_of(&j, kw);
	if (e->cand >= 0)
		return bench_time_shape(j, K_BOUND,
					&bench_shapes(e->fused, &nshapes)[e->cand],
					pre);
	bench_separate_shapes(&rs, &ws);
	t = bench_time_shape(j, K_BOUND, &rs, pre);
	t += bench_time_shape(j, K_WRITE, &ws, &p2);
	*pre |= p2;
	return t;
}

static double bench_kernel_trial(const struct entry *e, bool *pre)
{
	struct bench_job j = { .kind = e->kind, .impl = e->impl, .w = e->w,
			       .chunk = e->chunk, .active = e->threads };

	bench_next_slice(&j);
	return bench_time(&j, pre);
}

/*
 * Pair p of kernel entry k: its bound and the kernel back to back, bound
 * first on even pairs and kernel first on odd ones.
 */
static void bench_pair(struct entry *k, unsigned int p)
{
	const struct entry *b = bench_bound(bench_kind_bytes_w(k->kind, k->w),
					    k->threads,
					    bench_kind_fused(k->kind));
	double tb, tk;
	bool pb, pk;

	if (p % 2) {
		tk = bench_kernel_trial(k, &pk);
		tb = bench_bound_trial(b, k->w, &pb);
	} else {
		tb = bench_bound_trial(b, k->w, &pb);
		tk = bench_kernel_trial(k, &pk);
	}
	k->preempted += pb || pk;
	series_add(&k->s, tk);
	series_add(&k->b, tb);
	series_add(&k->r, tb / tk);
}

/*
 * --explore-bound: every shape of every loop, one thread, best of the
 * repetitions, as GB/s of gradient the shape would allow (reads are
 * paired with the best write).
 */
static void bench_explore(void)
{
	unsigned int wi, f, wide, seq, u, st, r;
	char name[48];

	for (wi = 0; wi < bench_opt.nw; wi++) {
		unsigned int w = (unsigned int)bench_opt.w[wi];

		for (f = 0; f < 2; f++) {
			struct bench_job j = { .w = w, .fused = f, .active = 1 };
			double wr = 1e30;

			for (wide = 0; wide < 2; wide++) {
				struct bench_shape s = { .wide = wide };
				double t = 1e30;

				for (r = 0; r < bench_opt.reps; r++) {
					bench_next_slice(&j);
					t = bench_min2(t, bench_time_shape(j, K_WRITE, &s, NULL));
				}
				wr = bench_min2(wr, t);
				printf("W=%u %-8s write-nt/%s %8.2f GB/s raw\n", w,
				       f ? "momentum" : "sum", wide ? "512" : "256",
				       (f ? 2.0 : 1.0) * bench_slice_elems(w) *
				       sizeof(float) / t / 1e9);
			}
			for (wide = 0; wide < 2; wide++)
			for (seq = 0; seq < 2; seq++)
			for (u = 1; u <= 4; u *= 2)
			for (st = 0; st < 3; st++) {
				struct bench_shape s = { .wide = wide, .seq = seq,
							 .unroll = u, .store = st };
				double t = 1e30;

				if (seq && st != BENCH_ST_NONE)
					continue;
				for (r = 0; r < bench_opt.reps; r++) {
					bench_next_slice(&j);
					t = bench_min2(t, bench_time_shape(j, K_BOUND, &s, NULL));
				}
				printf("W=%u %-8s %-22s %8.2f GB/s of gradient\n", w,
				       f ? "momentum" : "sum",
				       bench_shape_name(&s, name, sizeof(name)),
				       bench_gbps(w, 1, 0,
						  st == BENCH_ST_NONE ? t + wr : t));
			}
		}
	}
}

static void bench_cache_once(enum bench_kind kind,
			     const struct rw_agg_impl *impl)
{
	struct bench_job j = { .kind = kind, .impl = impl, .w = KEY_W,
			       .chunk = CACHE_CHUNK, .active = 1,
			       .iters = CACHE_ITERS };

	series_add(&bench_entry(kind, impl, KEY_W, CACHE_CHUNK, 1, false)->s,
		   bench_time(&j, NULL));
}

/* Kernel entries of one thread count, in the order their pairs run. */
static void bench_configs(unsigned int thr)
{
	static const enum bench_kind main_kinds[] = { K_SUM_NT, K_MOM };
	static const enum bench_kind key_kinds[] = { K_SUM, K_MOM_NT };
	static const enum bench_kind half_kinds[] = {
		K_SUM_BF16, K_MOM_BF16, K_SUM_F16, K_MOM_F16,
	};
	unsigned int wi, ci, i, k;

	for (wi = 0; wi < bench_opt.nw; wi++) {
		for (ci = 0; ci < bench_opt.nchunk; ci++) {
			unsigned int w = (unsigned int)bench_opt.w[wi];
			size_t ch = bench_opt.chunk[ci] / sizeof(float);

			for (i = 0; i < bench_nimpls; i++) {
				for (k = 0; k < ARRAY_SIZE(main_kinds); k++)
					bench_entry(main_kinds[k], bench_impls[i], w, ch, thr, false);
				if (w != KEY_W || ch != KEY_CHUNK)
					continue;
				for (k = 0; k < ARRAY_SIZE(key_kinds); k++)
					bench_entry(key_kinds[k], bench_impls[i], w, ch, thr, false);
				/* 16-bit slots: the headline's configuration. */
				for (k = 0; thr == 1 && k < ARRAY_SIZE(half_kinds); k++)
					bench_entry(half_kinds[k], bench_impls[i], w, ch, thr, false);
			}
		}
	}
}

/* Whether --w names @w. */
static bool bench_has_w(unsigned long w)
{
	unsigned int i;

	for (i = 0; i < bench_opt.nw; i++)
		if (bench_opt.w[i] == w)
			return true;
	return false;
}

static void bench_run(void)
{
	unsigned int modes[2] = { 1, bench_opt.threads }, nmodes;
	unsigned int rep, m, wi, p, i, nkernels;

	nmodes = bench_opt.threads > 1 ? 2 : 1;
	/* Calibration: which loop is each bound (and the bounds table). */
	for (rep = 0; rep < bench_opt.reps; rep++) {
		for (m = 0; m < nmodes; m++) {
			for (wi = 0; wi < bench_opt.nw; wi++) {
				bench_bound_once((unsigned int)bench_opt.w[wi], false, modes[m]);
				bench_bound_once((unsigned int)bench_opt.w[wi], true, modes[m]);
			}
		}
		/* The 16-bit kernels' at W = 8 (bench_kind_bytes_w()). */
		if (bench_has_w(KEY_W) && !bench_has_w(KEY_W / 2)) {
			bench_bound_once(KEY_W / 2, false, 1);
			bench_bound_once(KEY_W / 2, true, 1);
		}
	}
	for (i = 0; i < bench_nentries; i++) {
		if (bench_entries[i].kind == K_BOUND)
			bench_bound_choose(&bench_entries[i]);
	}
	for (m = 0; m < nmodes; m++)
		bench_configs(modes[m]);
	nkernels = bench_nentries;
	for (p = 0; p < bench_opt.pairs; p++) {
		for (i = 0; i < nkernels; i++) {
			if (bench_entries[i].kind < K_BOUND)
				bench_pair(&bench_entries[i], p);
		}
		for (i = 0; i < bench_nimpls; i++) {
			bench_cache_once(K_CACHE_SUM, bench_impls[i]);
			bench_cache_once(K_CACHE_SUM_NT, bench_impls[i]);
			bench_cache_once(K_CACHE_MOM, bench_impls[i]);
		}
	}
}

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
"usage: bench-agg [--json] [--quick] [--w LIST] [--chunk LIST] [--pairs N]\n"
"                 [--reps N] [--threads N] [--ws MIB] [--impl NAME] [--explore-bound]\n"
"\n"
"Options:\n"
"  --json      one JSON object on stdout (keys below); else text tables\n"
"  --quick     a few seconds: W 1,8, chunk 32K, 7 pairs, 2 calibration\n"
"              rounds, 256 MiB per thread (--w, --chunk, --pairs, --reps,\n"
"              --ws given as well win)\n"
"  --w LIST    worker counts, comma-separated, each 1..%d (default 1,2,4,8)\n"
"  --chunk LIST  chunk sizes, comma-separated: bytes or with K or M\n"
"              (KiB, MiB); the module accepts powers of two from 4K to 1M\n"
"              (default 4K,32K,256K,1M)\n"
"  --pairs N   paired trials per configuration, 1..%d (default 15)\n"
"  --reps N    calibration rounds of the bound's loops, 1..%d (default 5)\n"
"  --threads N threads of the all-cores runs (default: online CPUs)\n"
"  --ws MIB    working set per thread in MiB (default 640); needs at least\n"
"              W + 2 MiB for the largest W\n"
"  --impl NAME time only this implementation (and scalar)\n"
"  --explore-bound  time every shape of bound loop for the W list, stop\n"
"  --help      this text\n"
"\n"
"Method: each configuration is timed in --pairs pairs of trials, the bound's\n"
"loop and the kernel back to back on one slice of every buffer; ratio = bound\n"
"time / kernel time (1.0 = the memory limit). Plain ratio keys are the median\n"
"of the paired ratios, *_iqr their interquartile range (Q3 - Q1), *_best the\n"
"best bound trial over the best kernel trial. GB/s are of gradient ingested\n"
"(W x bytes), median trial unless *_best.\n"
"\n"
"JSON keys (W = 8, 32 KiB chunks, one thread; null when --w lacks 8 or\n"
"--chunk lacks 32K):\n"
"  bound_gbps, bound_gbps_best     the sum's bound, trials paired with the sum\n"
"  best_impl                       the implementation of these figures: the one\n"
"                                  rw_agg_select picks at init, as the module does\n"
"  sum_gbps_w8_32k, sum_gbps_w8_32k_best\n"
"  sum_ratio_to_bound_w8_32k, sum_ratio_to_bound_w8_32k_iqr,\n"
"  sum_ratio_to_bound_w8_32k_best\n"
"  fused_momentum_gbps_w8_32k, fused_momentum_gbps_w8_32k_best\n"
"  fused_momentum_ratio_to_bound_w8_32k, fused_momentum_ratio_to_bound_w8_32k_iqr,\n"
"  fused_momentum_ratio_to_bound_w8_32k_best\n"
"  sum_bf16_ratio_to_bound_w8_32k, fused_momentum_bf16_ratio_to_bound_w8_32k,\n"
"  sum_f16_ratio_to_bound_w8_32k, fused_momentum_f16_ratio_to_bound_w8_32k,\n"
"  each with _iqr   16-bit slots (one thread, the headline's implementation)\n"
"                   against the bound of their bytes: W / 2 f32 streams\n"
"  simd_speedup_in_cache_32k, simd_speedup_in_cache_32k_iqr,\n"
"  simd_speedup_in_cache_32k_best  scalar time / best SIMD time, in-cache sum,\n"
"                                  paired by round\n"
"  selected_impl                   what rw_agg_select picked at init\n"
"  method (\"paired\"), threads, pairs, reps, quick, ws_mib_per_thread,\n"
"  bound_isa, w (list), chunks (list, bytes), pairs_preempted (pairs with a\n"
"  trial the scheduler cut into; its CPU time leaves the other task out)\n"
"  single_thread, all_cores        the W = 8, 32 KiB keys above (not the in-cache\n"
"                                  ones) for 1 thread and for --threads threads,\n"
"                                  plus threads and pairs\n"
"                                  (all_cores absent with one thread)\n"
"  bounds: [{kernel, w, threads, buffer_mib, trial_mib (per buffer), shape\n"
"          (the loop chosen), read_gbps, write_gbps, separate_gbps,\n"
"          combined_gbps, bound_gbps_best}]   calibration, best of --reps\n"
"  results: [{impl, kernel (sum, momentum, sum-cached, momentum-nt; in cache:\n"
"          sum, sum-nt, momentum), in_cache, w, chunk (bytes), threads, gbps,\n"
"          gbps_best, and out of cache: bound_gbps, ratio, ratio_iqr,\n"
"          ratio_best, pairs, preempted}]\n",
		MAX_W, MAX_SAMPLES, MAX_SAMPLES);
	exit(code);
}

static unsigned long bench_parse_size(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *s == '-')
		return 0;
	if (!strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "KiB"))
		v *= 1024;
	else if (!strcmp(end, "M") || !strcmp(end, "m") || !strcmp(end, "MiB"))
		v *= 1024 * 1024;
	else if (*end)
		return 0;
	return v;
}

/* --w or --chunk: a comma-separated list, each item checked. */
static void bench_parse_list(const char *arg, bool chunk, unsigned long *out,
			     unsigned int *n)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i;

	snprintf(buf, sizeof(buf), "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v = bench_parse_size(tok);

		if (chunk && (v < BENCH_CHUNK_MIN || v > BENCH_CHUNK_MAX || (v & (v - 1)))) {
			fprintf(stderr, "bench-agg: --chunk %s: the module accepts chunk sizes that are powers of two from 4 KiB to 1 MiB: 4K, 8K, 16K, 32K, 64K, 128K, 256K, 512K, 1M (or in bytes)\n",
				tok);
			exit(2);
		}
		if (!chunk && (v < 1 || v > MAX_W || strchr(tok, 'K') ||
			       strchr(tok, 'k') || strchr(tok, 'M') || strchr(tok, 'm'))) {
			fprintf(stderr, "bench-agg: --w %s: W is a worker count from 1 to %d\n",
				tok, MAX_W);
			exit(2);
		}
		for (i = 0; i < *n; i++) {
			if (out[i] == v) {
				fprintf(stderr, "bench-agg: --%s: %s is listed twice\n",
					chunk ? "chunk" : "w", tok);
				exit(2);
			}
		}
		if (*n == MAX_LIST) {
			fprintf(stderr, "bench-agg: --%s: at most %d values\n",
				chunk ? "chunk" : "w", MAX_LIST);
			exit(2);
		}
		out[(*n)++] = v;
	}
	if (!*n) {
		fprintf(stderr, "bench-agg: --%s needs a comma-separated list\n",
			chunk ? "chunk" : "w");
		exit(2);
	}
}

static void bench_default_list(unsigned long *out, unsigned int *n,
			       const unsigned long *def, unsigned int ndef)
{
	if (*n)
		return;
	memcpy(out, def, ndef * sizeof(*def));
	*n = ndef;
}

static void bench_parse(int argc, char **argv, bool *explore)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quick", no_argument, NULL, 'q' },
		{ "threads", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'r' },
		{ "pairs", required_argument, NULL, 'p' },
		{ "ws", required_argument, NULL, 's' },
		{ "w", required_argument, NULL, 'W' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "impl", required_argument, NULL, 'i' },
		{ "explore-bound", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool reps_set = false, ws_set = false, pairs_set = false;
	unsigned int i;
	int c;

	bench_opt.threads = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	while ((c = getopt_long(argc, argv, "jqt:r:p:s:W:c:i:xh", lo, NULL)) != -1) {
		switch (c) {
		case 'j': bench_opt.json = true; break;
		case 'q': bench_opt.quick = true; break;
		case 't': bench_opt.threads = (unsigned int)atoi(optarg); break;
		case 'r': bench_opt.reps = (unsigned int)atoi(optarg); reps_set = true; break;
		case 'p': bench_opt.pairs = (unsigned int)atoi(optarg); pairs_set = true; break;
		case 's': bench_opt.ws = (size_t)atol(optarg) * MIB; ws_set = true; break;
		case 'W': bench_parse_list(optarg, false, bench_opt.w, &bench_opt.nw); break;
		case 'c': bench_parse_list(optarg, true, bench_opt.chunk, &bench_opt.nchunk); break;
		case 'i': bench_opt.impl = optarg; break;
		case 'x': *explore = true; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (bench_opt.quick) {
		bench_opt.reps = reps_set ? bench_opt.reps : 2;
		bench_opt.pairs = pairs_set ? bench_opt.pairs : 7;
		bench_opt.ws = ws_set ? bench_opt.ws : 256 * MIB;
		bench_default_list(bench_opt.w, &bench_opt.nw, bench_ws_quick, ARRAY_SIZE(bench_ws_quick));
		bench_default_list(bench_opt.chunk, &bench_opt.nchunk, bench_chunks_quick,
				   ARRAY_SIZE(bench_chunks_quick));
	}
	bench_default_list(bench_opt.w, &bench_opt.nw, bench_ws_all, ARRAY_SIZE(bench_ws_all));
	bench_default_list(bench_opt.chunk, &bench_opt.nchunk, bench_chunks_all,
			   ARRAY_SIZE(bench_chunks_all));
	if (bench_opt.threads < 1 || bench_opt.threads > MAX_THREADS || bench_opt.reps < 1 ||
	    bench_opt.reps > MAX_SAMPLES || bench_opt.pairs < 1 || bench_opt.pairs > MAX_SAMPLES) {
		fprintf(stderr, "bench-agg: threads 1..%d, reps and pairs 1..%d\n",
			MAX_THREADS, MAX_SAMPLES);
		exit(2);
	}
	for (i = 0; i < bench_opt.nw; i++) {
		if (bench_opt.ws / (bench_opt.w[i] + 2) < MIB) {
			fprintf(stderr, "bench-agg: --ws %zu MiB is too small for W = %lu: it needs at least %lu MiB (W + 2)\n",
				bench_opt.ws / MIB, bench_opt.w[i], bench_opt.w[i] + 2);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	struct rw_agg_choice ch;
	void *scratch;
	bool explore = false;
	unsigned int i;

	bench_parse(argc, argv, &explore);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = &rw_agg_impls[i];

		if (!impl->usable())
			continue;
		if (bench_opt.impl && i && strcmp(bench_opt.impl, impl->name))
			continue;
		bench_impls[bench_nimpls++] = impl;
	}
	if (bench_opt.impl && !rw_agg_impl_find(bench_opt.impl)) {
		fprintf(stderr, "bench-agg: no implementation named %s\n", bench_opt.impl);
		return 2;
	}

	scratch = malloc(RW_AGG_SELECT_SCRATCH);
	if (!scratch || rw_agg_select(&ch, scratch, RW_AGG_SELECT_SCRATCH))
		return 1;
	free(scratch);

	bench_pool_start(bench_opt.threads, bench_opt.ws);
	if (explore) {
		bench_explore();
		bench_pool_stop();
		return 0;
	}
	bench_run();
	bench_pool_stop();

	if (bench_opt.json)
		bench_report_json(ch.impl->name);
	else
		bench_report_text(ch.impl->name);
	free(bench_entries);
	return 0;
}

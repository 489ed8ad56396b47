// SPDX-License-Identifier: GPL-2.0
/*
 * bench-agg: the aggregation kernels of kmod/agg timed natively against
 * the memory bound measured by the same binary, in the same run, on the
 * same buffers with the same number of threads. Run it through
 * scripts/bench-agg; the method and results are in docs/performance.md
 * ("Aggregation kernels").
 *
 * - For W in {1, 2, 4, 8} and chunks of {4K, 32K, 256K, 1M}, every usable
 *   implementation runs "sum" (streaming stores: the sum of a big buffer
 *   is not read again by this core) and "momentum" (the fused sum and
 *   heavy-ball step, cached stores: it rewrites lines it has just read),
 *   on one thread and on all CPUs (each thread its own buffers). The
 *   other store choices are timed at W = 8, 32 KiB to justify these.
 * - The bound of a kernel is the time of the fastest plain streaming loop
 *   found that moves exactly its bytes (Sum: W slots read, one written.
 *   Momentum: W slots, parameters and buffer read, parameters and buffer
 *   written): a SIMD read of the inputs plus a non-temporal write of the
 *   outputs, or one loop doing both, in several shapes
 *   (bench-agg-bound.c). ratio = bound time / kernel time; 1.0 = the
 *   memory limit, and a kernel clearly above 1 would mean a weak bound.
 * - All of it is repeated --reps times, interleaved so drift hits every
 *   series alike, and reported as best (minimum time) and median.
 *   Headline ratios are best against best.
 * - In cache: W = 8 slots of one 32 KiB chunk, resident in L2, summed over
 *   and over: what SIMD buys when memory is not the limit.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg_impl.h"
#include "bench-agg.h"

#define MAX_REPS	64
#define KEY_W		8
#define KEY_CHUNK	(32768 / sizeof(float))

static const unsigned int bench_ws_all[] = { 1, 2, 4, 8 };
static const unsigned int bench_ws_quick[] = { 1, 8 };
static const size_t bench_chunks_all[] = { 4096, 32768, 262144, 1048576 };
static const size_t bench_chunks_quick[] = { 32768 };

static struct {
	bool json, quick;
	unsigned int threads, reps;
	size_t ws;
	const char *impl;
} opt = { .reps = 5, .ws = 640 * MIB };

/* Enough repetitions for ~64 MiB of gradient per timed job. */
#define CACHE_ITERS	(64 * MIB / (KEY_W * CACHE_CHUNK * sizeof(float)))

struct series {
	double t[MAX_REPS];
	unsigned int n;
};

static void series_add(struct series *s, double t)
{
	if (s->n < MAX_REPS)
		s->t[s->n++] = t;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double series_min(const struct series *s)
{
	double m = s->t[0];
	unsigned int i;

	for (i = 1; i < s->n; i++)
		m = s->t[i] < m ? s->t[i] : m;
	return m;
}

static double series_median(const struct series *s)
{
	double t[MAX_REPS];

	memcpy(t, s->t, s->n * sizeof(double));
	qsort(t, s->n, sizeof(double), bench_cmp);
	return s->n % 2 ? t[s->n / 2] : (t[s->n / 2 - 1] + t[s->n / 2]) / 2;
}

/* One timed series: a kernel, or a bound, for one configuration. */
struct entry {
	enum bench_kind kind;		/* K_BOUND: a bound */
	const struct rw_agg_impl *impl;
	unsigned int w, threads;
	size_t chunk;
	bool fused;
	struct series s;		/* kernel time, or the bound */
	struct series rd, wr;		/* bound: best read, write */
	struct series cp;		/* bound: best combined loop */
};

static struct entry *bench_entries;
static unsigned int bench_nentries, bench_cap;

static struct entry *bench_entry(enum bench_kind kind,
				 const struct rw_agg_impl *impl,
				 unsigned int w, size_t chunk,
				 unsigned int threads, bool fused)
{
	struct entry *e;
	unsigned int i;

	for (i = 0; i < bench_nentries; i++) {
		e = &bench_entries[i];
		if (e->kind == kind && e->impl == impl && e->w == w &&
		    e->chunk == chunk && e->threads == threads &&
		    e->fused == fused)
			return e;
	}
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

static const struct rw_agg_impl *bench_impls[RW_AGG_MAX_IMPLS];
static unsigned int bench_nimpls;

static double bench_min2(double a, double b)
{
	return a < b ? a : b;
}

/* GB/s of gradient ingested, for a time t of W workers on thr threads. */
static double bench_gbps(unsigned int w, unsigned int thr, size_t chunk_elems,
			 double t)
{
	double bytes = chunk_elems ? (double)w * chunk_elems * sizeof(float) *
				     CACHE_ITERS :
				     (double)w * bench_buf_elems(w) *
				     sizeof(float) * thr;

	return bytes / t / 1e9;
}

/*
 * The shapes of loop the bound tries each repetition (bench-agg-bound.c).
 * --explore-bound times every shape of every loop; these are the ones
 * that won, or came within a few percent, on this host kind: the
 * combined loop always beat separate reads and writes, streaming stores
 * win for the sum and cached stores for the momentum step (it rewrites
 * lines it has just read). The separate read + write pair is timed too,
 * as the plain definition of the bound. Dropping the losers keeps the
 * default run short.
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

static double bench_time_shape(enum bench_kind kind,
			       const struct bench_shape *shape,
			       unsigned int w, bool fused, unsigned int thr)
{
	struct bench_job j = { .kind = kind, .w = w, .fused = fused,
			       .active = thr, .shape = *shape };

	/* A 512-bit shape on a CPU without AVX-512 is not a candidate. */
	if (shape->wide && !bench_bound_have_avx512())
		return 1e30;
	return bench_time(&j);
}

/* One repetition of the bound: the fastest way found to move the bytes. */
static void bench_bound_once(unsigned int w, bool fused, unsigned int thr)
{
	const struct bench_shape *shapes = fused ? bench_mom_shapes :
						   bench_sum_shapes;
	unsigned int i, nshapes = fused ? ARRAY_SIZE(bench_mom_shapes) :
					  ARRAY_SIZE(bench_sum_shapes);
	struct entry *e = bench_entry(K_BOUND, NULL, w, 0, thr, fused);
	struct bench_shape rs = bench_read_shape, ws = { 0 };
	double rd, wr, cp = 1e30;

	rs.wide = ws.wide = bench_bound_have_avx512();
	rd = bench_time_shape(K_BOUND, &rs, w, fused, thr);
	wr = bench_time_shape(K_WRITE, &ws, w, fused, thr);
	for (i = 0; i < nshapes; i++)
		cp = bench_min2(cp, bench_time_shape(K_BOUND, &shapes[i], w,
						     fused, thr));
	series_add(&e->rd, rd);
	series_add(&e->wr, wr);
	series_add(&e->cp, cp);
	series_add(&e->s, bench_min2(rd + wr, cp));
}

/*
 * --explore-bound: every shape of every loop, one thread, best of the
 * repetitions, as GB/s of gradient the shape would allow (reads are
 * paired with the best write).
 */
static void bench_explore(void)
{
	static const unsigned int ws[] = { 1, 2, 4, 8 };
	unsigned int wi, f, wide, seq, u, st;
	char name[48];

	for (wi = 0; wi < ARRAY_SIZE(ws); wi++) {
		for (f = 0; f < 2; f++) {
			double wr = 1e30;

			for (wide = 0; wide < 2; wide++) {
				struct bench_shape s = { .wide = wide };
				double t = 1e30;

				for (u = 0; u < opt.reps; u++)
					t = bench_min2(t, bench_time_shape(K_WRITE, &s, ws[wi], f, 1));
				wr = bench_min2(wr, t);
				printf("W=%u %-8s write-nt/%s %8.2f GB/s raw\n", ws[wi],
				       f ? "momentum" : "sum", wide ? "512" : "256",
				       (f ? 2.0 : 1.0) * bench_buf_elems(ws[wi]) *
				       sizeof(float) / t / 1e9);
			}
			for (wide = 0; wide < 2; wide++)
			for (seq = 0; seq < 2; seq++)
			for (u = 1; u <= 4; u *= 2)
			for (st = 0; st < 3; st++) {
				struct bench_shape s = { .wide = wide, .seq = seq,
							 .unroll = u, .store = st };
				double t = 1e30;
				unsigned int r;

				if (seq && st != BENCH_ST_NONE)
					continue;
				for (r = 0; r < opt.reps; r++)
					t = bench_min2(t, bench_time_shape(K_BOUND, &s, ws[wi], f, 1));
				printf("W=%u %-8s %-22s %8.2f GB/s of gradient\n", ws[wi],
				       f ? "momentum" : "sum",
				       bench_shape_name(&s, name, sizeof(name)),
				       bench_gbps(ws[wi], 1, 0,
						  st == BENCH_ST_NONE ? t + wr : t));
			}
		}
	}
}

static void bench_kernel_once(enum bench_kind kind,
			      const struct rw_agg_impl *impl, unsigned int w,
			      size_t chunk, unsigned int thr)
{
	struct bench_job j = { .kind = kind, .impl = impl, .w = w,
			       .chunk = chunk, .active = thr };

	series_add(&bench_entry(kind, impl, w, chunk, thr, false)->s,
		   bench_time(&j));
}


static void bench_cache_once(enum bench_kind kind,
			     const struct rw_agg_impl *impl)
{
	struct bench_job j = { .kind = kind, .impl = impl, .w = KEY_W,
			       .chunk = CACHE_CHUNK, .active = 1,
			       .iters = CACHE_ITERS };

	series_add(&bench_entry(kind, impl, KEY_W, CACHE_CHUNK, 1, false)->s,
		   bench_time(&j));
}

static void bench_run(void)
{
	const unsigned int *ws = opt.quick ? bench_ws_quick : bench_ws_all;
	unsigned int nw = opt.quick ? ARRAY_SIZE(bench_ws_quick) :
				      ARRAY_SIZE(bench_ws_all);
	const size_t *chunks = opt.quick ? bench_chunks_quick : bench_chunks_all;
	unsigned int nc = opt.quick ? ARRAY_SIZE(bench_chunks_quick) :
				      ARRAY_SIZE(bench_chunks_all);
	unsigned int modes[2] = { 1, opt.threads }, nmodes;
	unsigned int rep, m, wi, ci, i;

	nmodes = opt.threads > 1 ? 2 : 1;
	for (rep = 0; rep < opt.reps; rep++) {
		for (m = 0; m < nmodes; m++) {
			for (wi = 0; wi < nw; wi++) {
				unsigned int w = ws[wi];

				bench_bound_once(w, false, modes[m]);
				bench_bound_once(w, true, modes[m]);
				for (ci = 0; ci < nc; ci++) {
					size_t ch = chunks[ci] / sizeof(float);

					for (i = 0; i < bench_nimpls; i++) {
						bench_kernel_once(K_SUM_NT, bench_impls[i], w, ch, modes[m]);
						bench_kernel_once(K_MOM, bench_impls[i], w, ch, modes[m]);
						if (w != KEY_W || ch != KEY_CHUNK)
							continue;
						bench_kernel_once(K_SUM, bench_impls[i], w, ch, modes[m]);
						bench_kernel_once(K_MOM_NT, bench_impls[i], w, ch, modes[m]);
					}
				}
			}
		}
		for (i = 0; i < bench_nimpls; i++) {
			bench_cache_once(K_CACHE_SUM, bench_impls[i]);
			bench_cache_once(K_CACHE_SUM_NT, bench_impls[i]);
			bench_cache_once(K_CACHE_MOM, bench_impls[i]);
		}
	}
}

static const char *bench_kind_name(enum bench_kind k)
{
	switch (k) {
	case K_SUM_NT: return "sum";
	case K_MOM: return "momentum";
	case K_SUM: return "sum-cached";
	case K_MOM_NT: return "momentum-nt";
	case K_CACHE_SUM: return "sum";
	case K_CACHE_SUM_NT: return "sum-nt";
	case K_CACHE_MOM: return "momentum";
	default: return "bound";
	}
}

static struct entry *bench_find(enum bench_kind kind,
				const struct rw_agg_impl *impl,
				unsigned int w, size_t chunk,
				unsigned int thr, bool fused)
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

static struct entry *bench_bound(unsigned int w, unsigned int thr, bool fused)
{
	return bench_find(K_BOUND, NULL, w, 0, thr, fused);
}

/* The bound's time over the kernel's: best/best or median/median. */
static double bench_ratio(const struct entry *k, bool median)
{
	const struct entry *b = bench_bound(k->w, k->threads,
					    k->kind == K_MOM ||
					    k->kind == K_MOM_NT);

	if (median)
		return series_median(&b->s) / series_median(&k->s);
	return series_min(&b->s) / series_min(&k->s);
}

struct headline {
	unsigned int threads;
	const struct rw_agg_impl *best;
	double bound_gbps, sum_gbps, sum_ratio, mom_gbps, mom_ratio;
	double sum_ratio_med, mom_ratio_med;
};

static void bench_headline(struct headline *h, unsigned int thr)
{
	struct entry *b = bench_bound(KEY_W, thr, false), *e, *best = NULL;
	unsigned int i;

	h->threads = thr;
	for (i = 0; i < bench_nimpls; i++) {
		e = bench_find(K_SUM_NT, bench_impls[i], KEY_W, KEY_CHUNK, thr, false);
		if (!best || series_min(&e->s) < series_min(&best->s))
			best = e;
	}
	h->best = best->impl;
	h->bound_gbps = bench_gbps(KEY_W, thr, 0, series_min(&b->s));
	h->sum_gbps = bench_gbps(KEY_W, thr, 0, series_min(&best->s));
	h->sum_ratio = bench_ratio(best, false);
	h->sum_ratio_med = bench_ratio(best, true);
	e = bench_find(K_MOM, h->best, KEY_W, KEY_CHUNK, thr, false);
	h->mom_gbps = bench_gbps(KEY_W, thr, 0, series_min(&e->s));
	h->mom_ratio = bench_ratio(e, false);
	h->mom_ratio_med = bench_ratio(e, true);
}

/* Best SIMD over scalar, in-cache sum with cached stores. */
static double bench_speedup(void)
{
	struct entry *sc = bench_find(K_CACHE_SUM, &rw_agg_impls[0], KEY_W,
				      CACHE_CHUNK, 1, false);
	double best = 0.0;
	unsigned int i;

	if (!sc)
		return 0.0;
	for (i = 0; i < bench_nimpls; i++) {
		struct entry *e = bench_find(K_CACHE_SUM, bench_impls[i], KEY_W,
					     CACHE_CHUNK, 1, false);
		double x = series_min(&sc->s) / series_min(&e->s);

		if (bench_impls[i] != &rw_agg_impls[0] && x > best)
			best = x;
	}
	return best;
}

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: bench-agg [--json] [--quick] [--threads N] [--reps N] [--ws MIB] [--impl NAME]\n"
		"  --json      one JSON object on stdout\n"
		"  --quick     W {1,8}, 32 KiB chunks, 2 reps, 256 MiB per thread\n"
		"  --threads   threads of the all-cores runs (default: online CPUs)\n"
		"  --reps      repetitions per series (default 5)\n"
		"  --ws        working set per thread in MiB (default 640)\n"
		"  --impl      time only this implementation (and scalar)\n"
		"  --explore-bound  time every shape of bound loop and stop\n");
	exit(code);
}

/*
 * Bytes one pass of a bound entry reads and writes over all its threads:
 * W slots (plus parameters and momentum when fused) in, the sum (or
 * parameters and momentum) out.
 */
static void entry_bytes(const struct entry *e, double *rd, double *wr)
{
	double buf = (double)bench_buf_elems(e->w) * sizeof(float) * e->threads;

	*rd = (e->w + (e->fused ? 2 : 0)) * buf;
	*wr = (e->fused ? 2 : 1) * buf;
}

static void print_headline_json(const char *key, const struct headline *h)
{
	printf("  \"%s\": {\"threads\": %u, \"best_impl\": \"%s\", \"bound_gbps\": %.2f, "
	       "\"sum_gbps_w8_32k\": %.2f, \"sum_ratio_to_bound_w8_32k\": %.3f, "
	       "\"sum_ratio_to_bound_w8_32k_median\": %.3f, "
	       "\"fused_momentum_gbps_w8_32k\": %.2f, "
	       "\"fused_momentum_ratio_to_bound_w8_32k\": %.3f, "
	       "\"fused_momentum_ratio_to_bound_w8_32k_median\": %.3f},\n",
	       key, h->threads, h->best->name, h->bound_gbps, h->sum_gbps,
	       h->sum_ratio, h->sum_ratio_med, h->mom_gbps, h->mom_ratio,
	       h->mom_ratio_med);
}

static void print_json(const struct headline *one, const struct headline *all,
		       const char *selected)
{
	unsigned int i, n = 0;

	printf("{\n");
	printf("  \"bound_gbps\": %.2f,\n  \"best_impl\": \"%s\",\n",
	       one->bound_gbps, one->best->name);
	printf("  \"sum_gbps_w8_32k\": %.2f,\n", one->sum_gbps);
	printf("  \"sum_ratio_to_bound_w8_32k\": %.3f,\n", one->sum_ratio);
	printf("  \"fused_momentum_gbps_w8_32k\": %.2f,\n", one->mom_gbps);
	printf("  \"fused_momentum_ratio_to_bound_w8_32k\": %.3f,\n",
	       one->mom_ratio);
	printf("  \"simd_speedup_in_cache_32k\": %.2f,\n", bench_speedup());
	printf("  \"selected_impl\": \"%s\",\n", selected);
	printf("  \"threads\": %u, \"reps\": %u, \"quick\": %s, \"ws_mib_per_thread\": %zu, "
	       "\"bound_isa\": \"%s\",\n", opt.threads, opt.reps,
	       opt.quick ? "true" : "false", opt.ws / MIB, bench_bound_have_avx512() ? "avx512+avx2" : "avx2");
	print_headline_json("single_thread", one);
	if (all)
		print_headline_json("all_cores", all);
	printf("  \"bounds\": [");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		double rd, wr;

		if (e->kind != K_BOUND)
			continue;
		entry_bytes(e, &rd, &wr);
		printf("%s\n    {\"kernel\": \"%s\", \"w\": %u, \"threads\": %u, "
		       "\"buffer_mib\": %zu, \"read_gbps\": %.2f, \"write_gbps\": %.2f, "
		       "\"separate_gbps\": %.2f, \"combined_gbps\": %.2f, "
		       "\"bound_gbps\": %.2f, \"bound_gbps_median\": %.2f}", n++ ? "," : "",
		       e->fused ? "momentum" : "sum", e->w, e->threads,
		       bench_buf_elems(e->w) * sizeof(float) / MIB,
		       rd / series_min(&e->rd) / 1e9, wr / series_min(&e->wr) / 1e9,
		       bench_gbps(e->w, e->threads, 0,
				  series_min(&e->rd) + series_min(&e->wr)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->cp)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->s)),
		       bench_gbps(e->w, e->threads, 0, series_median(&e->s)));
	}
	printf("\n  ],\n  \"results\": [");
	for (i = 0, n = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		bool cache = e->kind >= K_CACHE_SUM;

		if (e->kind == K_BOUND)
			continue;
		printf("%s\n    {\"impl\": \"%s\", \"kernel\": \"%s\", \"in_cache\": %s, "
		       "\"w\": %u, \"chunk\": %zu, \"threads\": %u, "
		       "\"gbps_best\": %.2f, \"gbps_median\": %.2f",
		       n++ ? "," : "", e->impl->name, bench_kind_name(e->kind),
		       cache ? "true" : "false", e->w, e->chunk * sizeof(float),
		       e->threads,
		       bench_gbps(e->w, e->threads, cache ? e->chunk : 0, series_min(&e->s)),
		       bench_gbps(e->w, e->threads, cache ? e->chunk : 0, series_median(&e->s)));
		if (!cache)
			printf(", \"ratio_best\": %.3f, \"ratio_median\": %.3f",
			       bench_ratio(e, false), bench_ratio(e, true));
		printf("}");
	}
	printf("\n  ]\n}\n");
}

static void print_headline(const struct headline *h)
{
	printf("  %u thread%s: best %s; bound %.2f GB/s of gradient; sum %.2f GB/s, ratio %.3f (median %.3f); "
	       "sum+momentum %.2f GB/s, ratio %.3f (median %.3f)\n",
	       h->threads, h->threads > 1 ? "s" : "", h->best->name,
	       h->bound_gbps, h->sum_gbps, h->sum_ratio, h->sum_ratio_med,
	       h->mom_gbps, h->mom_ratio, h->mom_ratio_med);
}

static void print_text(const struct headline *one, const struct headline *all,
		       const char *selected)
{
	unsigned int i;

	printf("bench-agg: %u thread%s, %zu MiB per thread, %u reps, bound loops %s, init selection: %s\n\n",
	       opt.threads, opt.threads > 1 ? "s" : "", opt.ws / MIB, opt.reps,
	       bench_bound_have_avx512() ? "avx512+avx2" : "avx2", selected);
	printf("Bounds: raw read and write GB/s; then GB/s of gradient the memory allows\n"
	       "by separate read + write loops, by one combined loop, and the bound (best)\n");
	printf("  %-9s %2s %3s %6s %8s %8s %9s %9s %9s\n", "kernel", "W", "thr",
	       "MiB", "read", "write", "separate", "combined", "bound");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		double rd, wr;

		if (e->kind != K_BOUND)
			continue;
		entry_bytes(e, &rd, &wr);
		printf("  %-9s %2u %3u %6zu %8.2f %8.2f %9.2f %9.2f %9.2f\n",
		       e->fused ? "momentum" : "sum", e->w, e->threads,
		       bench_buf_elems(e->w) * sizeof(float) / MIB,
		       rd / series_min(&e->rd) / 1e9, wr / series_min(&e->wr) / 1e9,
		       bench_gbps(e->w, e->threads, 0,
				  series_min(&e->rd) + series_min(&e->wr)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->cp)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->s)));
	}
	printf("\nKernels (GB/s of gradient best/median; ratio = bound time / kernel time)\n");
	printf("  %-7s %-12s %2s %6s %3s %8s %8s %6s %6s\n", "impl", "kernel",
	       "W", "chunk", "thr", "best", "median", "ratio", "med");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		bool cache = e->kind >= K_CACHE_SUM;

		if (e->kind == K_BOUND)
			continue;
		printf("  %-7s %-12s %2u %5zuK %3u %8.2f %8.2f", e->impl->name,
		       cache ? "cache" : bench_kind_name(e->kind), e->w,
		       e->chunk * sizeof(float) / 1024, e->threads,
		       bench_gbps(e->w, e->threads, cache ? e->chunk : 0, series_min(&e->s)),
		       bench_gbps(e->w, e->threads, cache ? e->chunk : 0, series_median(&e->s)));
		if (cache)
			printf("  (in cache: %s)\n", bench_kind_name(e->kind));
		else
			printf(" %6.3f %6.3f\n", bench_ratio(e, false),
			       bench_ratio(e, true));
	}
	printf("\nW = 8, 32 KiB chunks:\n");
	print_headline(one);
	if (all)
		print_headline(all);
	printf("  in cache, best SIMD over scalar (sum): %.2fx\n", bench_speedup());
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quick", no_argument, NULL, 'q' },
		{ "threads", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'r' },
		{ "ws", required_argument, NULL, 'w' },
		{ "impl", required_argument, NULL, 'i' },
		{ "explore-bound", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct headline one, all;
	struct rw_agg_choice ch;
	void *scratch;
	bool reps_set = false, ws_set = false, explore = false;
	unsigned int i;
	int c;

	opt.threads = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	while ((c = getopt_long(argc, argv, "jqt:r:w:i:xh", lo, NULL)) != -1) {
		switch (c) {
		case 'j': opt.json = true; break;
		case 'q': opt.quick = true; break;
		case 't': opt.threads = (unsigned int)atoi(optarg); break;
		case 'r': opt.reps = (unsigned int)atoi(optarg); reps_set = true; break;
		case 'w': opt.ws = (size_t)atol(optarg) * MIB; ws_set = true; break;
		case 'i': opt.impl = optarg; break;
		case 'x': explore = true; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (opt.quick && !reps_set)
		opt.reps = 2;
	if (opt.quick && !ws_set)
		opt.ws = 256 * MIB;
	if (opt.threads < 1 || opt.threads > MAX_THREADS || opt.reps < 1 ||
	    opt.reps > MAX_REPS || opt.ws < 64 * MIB) {
		fprintf(stderr, "bench-agg: threads 1..%d, reps 1..%d, ws >= 64 MiB\n",
			MAX_THREADS, MAX_REPS);
		return 2;
	}
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = &rw_agg_impls[i];

		if (!impl->usable())
			continue;
		if (opt.impl && i && strcmp(opt.impl, impl->name))
			continue;
		bench_impls[bench_nimpls++] = impl;
	}
	if (opt.impl && !rw_agg_impl_find(opt.impl)) {
		fprintf(stderr, "bench-agg: no implementation named %s\n", opt.impl);
		return 2;
	}

	scratch = malloc(RW_AGG_SELECT_SCRATCH);
	if (!scratch || rw_agg_select(&ch, scratch, RW_AGG_SELECT_SCRATCH))
		return 1;
	free(scratch);

	bench_pool_start(opt.threads, opt.ws);
	if (explore) {
		bench_explore();
		bench_pool_stop();
		return 0;
	}
	bench_run();
	bench_pool_stop();

	bench_headline(&one, 1);
	if (opt.threads > 1)
		bench_headline(&all, opt.threads);
	if (opt.json)
		print_json(&one, opt.threads > 1 ? &all : NULL, ch.impl->name);
	else
		print_text(&one, opt.threads > 1 ? &all : NULL, ch.impl->name);
	free(bench_entries);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bench-agg's report: the headline (W = 8, 32 KiB chunks), the bounds'
 * calibration and every configuration's paired ratios, as text tables or
 * one JSON object (the keys: bench-agg --help). Ratios are the median of
 * the paired ratios, with their interquartile range; "best" figures are
 * the best bound trial over the best kernel trial. Reads the entries the
 * driver (bench-agg.c) filled.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agg_impl.h"
#include "bench-agg.h"

static const char *bench_kind_name(enum bench_kind k)
{
	switch (k) {
	case K_SUM_NT: return "sum";
	case K_MOM: return "momentum";
	case K_SUM: return "sum-cached";
	case K_MOM_NT: return "momentum-nt";
	case K_SUM_BF16: return "sum-bf16";
	case K_MOM_BF16: return "momentum-bf16";
	case K_SUM_F16: return "sum-f16";
	case K_MOM_F16: return "momentum-f16";
	case K_CACHE_SUM: return "sum";
	case K_CACHE_SUM_NT: return "sum-nt";
	case K_CACHE_MOM: return "momentum";
	default: return "bound";
	}
}

/* The W = 8, 32 KiB figures of one thread count; NULL: not measured. */
struct headline {
	unsigned int threads;
	const struct entry *sum, *mom;
};

static void bench_headline(struct headline *h, unsigned int thr,
			   const struct rw_agg_impl *selected)
{
	const struct entry *e;
	unsigned int i;
	bool found;

	memset(h, 0, sizeof(*h));
	h->threads = thr;
	/*
	 * The implementation rw_agg_select picks at init, as the module runs
	 * it. Picking the best of two medians instead flipped between AVX2
	 * and AVX-512 from run to run and moved the headline with it; only
	 * when --impl left the selected one out, the best sum.
	 */
	h->sum = bench_find(K_SUM_NT, selected, KEY_W, KEY_CHUNK, thr, false);
	found = h->sum != NULL;
	for (i = 0; !found && i < bench_nimpls; i++) {
		e = bench_find(K_SUM_NT, bench_impls[i], KEY_W, KEY_CHUNK, thr, false);
		if (e && (!h->sum || series_median(&e->r) > series_median(&h->sum->r)))
			h->sum = e;
	}
	if (h->sum)
		h->mom = bench_find(K_MOM, h->sum->impl, KEY_W, KEY_CHUNK, thr, false);
}

/* In cache, sum with cached stores: scalar time over SIMD time. */
struct speedup {
	double median, iqr, best;
	bool have;
};

static void bench_speedup(struct speedup *sp)
{
	const struct entry *sc = bench_find(K_CACHE_SUM, &rw_agg_impls[0], KEY_W,
					    CACHE_CHUNK, 1, false);
	unsigned int i, r;

	memset(sp, 0, sizeof(*sp));
	for (i = 0; sc && i < bench_nimpls; i++) {
		const struct entry *e = bench_find(K_CACHE_SUM, bench_impls[i],
						   KEY_W, CACHE_CHUNK, 1, false);
		struct series x = { .n = 0 };

		if (bench_impls[i] == &rw_agg_impls[0] || !e)
			continue;
		for (r = 0; r < e->s.n && r < sc->s.n; r++)
			series_add(&x, sc->s.t[r] / e->s.t[r]);
		if (sp->have && series_median(&x) <= sp->median)
			continue;
		sp->have = true;
		sp->median = series_median(&x);
		sp->iqr = series_iqr(&x);
		sp->best = series_min(&sc->s) / series_min(&e->s);
	}
}

/*
 * Bytes one trial of a bound entry reads and writes over all its threads:
 * W slots (plus parameters and momentum when fused) in, the sum (or
 * parameters and momentum) out.
 */
static void entry_bytes(const struct entry *e, double *rd, double *wr)
{
	double buf = (double)bench_slice_elems(e->w) * sizeof(float) * e->threads;

	*rd = (e->w + (e->fused ? 2 : 0)) * buf;
	*wr = (e->fused ? 2 : 1) * buf;
}

/* A number, or null when x is NaN (not measured). */
static void json_num(const char *key, double x, const char *fmt, const char *sep)
{
	printf("\"%s\": ", key);
	if (isnan(x))
		printf("null");
	else
		printf(fmt, x);
	printf("%s", sep);
}

/* GB/s of gradient: a 16-bit kind's W slots are W / 2 f32 ones in bytes. */
static double entry_gbps(const struct entry *e, double t)
{
	bool cache = e->kind >= K_CACHE_SUM;

	return bench_gbps(bench_kind_bytes_w(e->kind, e->w), e->threads,
			  cache ? e->chunk : 0, t);
}

static double med_gbps(const struct entry *e, const struct series *s)
{
	return e ? entry_gbps(e, series_median(s)) : NAN;
}

static double best_gbps(const struct entry *e, const struct series *s)
{
	return e ? entry_gbps(e, series_min(s)) : NAN;
}

static double ratio_med(const struct entry *e)
{
	return e ? series_median(&e->r) : NAN;
}

static double ratio_iqr(const struct entry *e)
{
	return e ? series_iqr(&e->r) : NAN;
}

static double ratio_best(const struct entry *e)
{
	return e ? series_min(&e->b) / series_min(&e->s) : NAN;
}

/* The headline keys of one thread count, each followed by sep. */
static void print_headline_keys(const struct headline *h, const char *sep)
{
	const struct entry *s = h->sum, *m = h->mom;

	json_num("bound_gbps", s ? med_gbps(s, &s->b) : NAN, "%.2f", sep);
	json_num("bound_gbps_best", s ? best_gbps(s, &s->b) : NAN, "%.2f", sep);
	if (s)
		printf("\"best_impl\": \"%s\"%s", s->impl->name, sep);
	else
		printf("\"best_impl\": null%s", sep);
	json_num("sum_gbps_w8_32k", s ? med_gbps(s, &s->s) : NAN, "%.2f", sep);
	json_num("sum_gbps_w8_32k_best", s ? best_gbps(s, &s->s) : NAN, "%.2f", sep);
	json_num("sum_ratio_to_bound_w8_32k", ratio_med(s), "%.3f", sep);
	json_num("sum_ratio_to_bound_w8_32k_iqr", ratio_iqr(s), "%.3f", sep);
	json_num("sum_ratio_to_bound_w8_32k_best", ratio_best(s), "%.3f", sep);
	json_num("fused_momentum_gbps_w8_32k", m ? med_gbps(m, &m->s) : NAN, "%.2f", sep);
	json_num("fused_momentum_gbps_w8_32k_best", m ? best_gbps(m, &m->s) : NAN,
		 "%.2f", sep);
	json_num("fused_momentum_ratio_to_bound_w8_32k", ratio_med(m), "%.3f", sep);
	json_num("fused_momentum_ratio_to_bound_w8_32k_iqr", ratio_iqr(m), "%.3f", sep);
	json_num("fused_momentum_ratio_to_bound_w8_32k_best", ratio_best(m), "%.3f", sep);
}

/*
 * The 16-bit kernels of the headline's implementation (one thread): each
 * ratio to the bound for their bytes, and its IQR.
 */
static void print_half_keys(const struct headline *h)
{
	static const struct {
		enum bench_kind kind;
		const char *key;
	} keys[] = {
		{ K_SUM_BF16, "sum_bf16_ratio_to_bound_w8_32k" },
		{ K_MOM_BF16, "fused_momentum_bf16_ratio_to_bound_w8_32k" },
		{ K_SUM_F16, "sum_f16_ratio_to_bound_w8_32k" },
		{ K_MOM_F16, "fused_momentum_f16_ratio_to_bound_w8_32k" },
	};
	char name[80];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct entry *e = h->sum ?
			bench_find(keys[i].kind, h->sum->impl, KEY_W, KEY_CHUNK,
				   1, false) : NULL;

		json_num(keys[i].key, ratio_med(e), "%.3f", ",\n  ");
		snprintf(name, sizeof(name), "%s_iqr", keys[i].key);
		json_num(name, ratio_iqr(e), "%.3f", ",\n  ");
	}
}

static void print_json_bounds(void)
{
	unsigned int i, n = 0;
	char name[48];

	printf("  \"bounds\": [");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		double rd, wr;

		if (e->kind != K_BOUND)
			continue;
		entry_bytes(e, &rd, &wr);
		printf("%s\n    {\"kernel\": \"%s\", \"w\": %u, \"threads\": %u, "
		       "\"buffer_mib\": %zu, \"trial_mib\": %zu, \"shape\": \"%s\", "
		       "\"read_gbps\": %.2f, \"write_gbps\": %.2f, "
		       "\"separate_gbps\": %.2f, \"combined_gbps\": %.2f, "
		       "\"bound_gbps_best\": %.2f}", n++ ? "," : "",
		       e->fused ? "momentum" : "sum", e->w, e->threads,
		       bench_buf_elems(e->w) * sizeof(float) / MIB,
		       bench_slice_elems(e->w) * sizeof(float) / MIB,
		       bench_bound_shape(e, name, sizeof(name)),
		       rd / series_min(&e->rd) / 1e9, wr / series_min(&e->wr) / 1e9,
		       bench_gbps(e->w, e->threads, 0,
				  series_min(&e->rd) + series_min(&e->wr)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->cp)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->s)));
	}
	printf("\n  ],\n");
}

static void print_json_results(void)
{
	unsigned int i, n = 0;

	printf("  \"results\": [");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		bool cache = e->kind >= K_CACHE_SUM;

		if (e->kind == K_BOUND)
			continue;
		printf("%s\n    {\"impl\": \"%s\", \"kernel\": \"%s\", \"in_cache\": %s, "
		       "\"w\": %u, \"chunk\": %zu, \"threads\": %u, "
		       "\"gbps\": %.2f, \"gbps_best\": %.2f",
		       n++ ? "," : "", e->impl->name, bench_kind_name(e->kind),
		       cache ? "true" : "false", e->w, e->chunk * sizeof(float),
		       e->threads, entry_gbps(e, series_median(&e->s)),
		       entry_gbps(e, series_min(&e->s)));
		if (!cache)
			printf(", \"bound_gbps\": %.2f, \"ratio\": %.3f, \"ratio_iqr\": %.3f, "
			       "\"ratio_best\": %.3f, \"pairs\": %u, \"preempted\": %u",
			       med_gbps(e, &e->b), ratio_med(e), ratio_iqr(e),
			       ratio_best(e), e->r.n, e->preempted);
		printf("}");
	}
	printf("\n  ]\n");
}

/* Pairs, over every configuration, during which the scheduler cut in. */
static unsigned int bench_preempted(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < bench_nentries; i++)
		n += bench_entries[i].preempted;
	return n;
}

/* The headlines of one thread and of all; *all NULL with one thread. */
static void bench_headlines(struct headline *one, struct headline *all,
			    struct headline **allp, const char *selected)
{
	const struct rw_agg_impl *sel = rw_agg_impl_find(selected);

	bench_headline(one, 1, sel);
	*allp = NULL;
	if (bench_opt.threads > 1) {
		bench_headline(all, bench_opt.threads, sel);
		*allp = all;
	}
}

void bench_report_json(const char *selected)
{
	struct headline one_, all_, *one = &one_, *all;
	struct speedup sp;
	unsigned int i;

	bench_headlines(one, &all_, &all, selected);
	bench_speedup(&sp);
	printf("{\n  ");
	print_headline_keys(one, ",\n  ");
	print_half_keys(one);
	json_num("simd_speedup_in_cache_32k", sp.have ? sp.median : NAN, "%.2f", ",\n  ");
	json_num("simd_speedup_in_cache_32k_iqr", sp.have ? sp.iqr : NAN, "%.2f", ",\n  ");
	json_num("simd_speedup_in_cache_32k_best", sp.have ? sp.best : NAN, "%.2f", ",\n  ");
	printf("\"selected_impl\": \"%s\",\n", selected);
	printf("  \"method\": \"paired\", \"threads\": %u, \"pairs\": %u, \"reps\": %u, "
	       "\"quick\": %s, \"ws_mib_per_thread\": %zu, \"bound_isa\": \"%s\",\n",
	       bench_opt.threads, bench_opt.pairs, bench_opt.reps, bench_opt.quick ? "true" : "false",
	       bench_opt.ws / MIB, bench_bound_have_avx512() ? "avx512+avx2" : "avx2");
	printf("  \"pairs_preempted\": %u,\n", bench_preempted());
	printf("  \"w\": [");
	for (i = 0; i < bench_opt.nw; i++)
		printf("%s%lu", i ? ", " : "", bench_opt.w[i]);
	printf("], \"chunks\": [");
	for (i = 0; i < bench_opt.nchunk; i++)
		printf("%s%lu", i ? ", " : "", bench_opt.chunk[i]);
	printf("],\n");
	printf("  \"single_thread\": {\"threads\": 1, ");
	print_headline_keys(one, ", ");
	printf("\"pairs\": %u},\n", one->sum ? one->sum->r.n : 0);
	if (all) {
		printf("  \"all_cores\": {\"threads\": %u, ", all->threads);
		print_headline_keys(all, ", ");
		printf("\"pairs\": %u},\n", all->sum ? all->sum->r.n : 0);
	}
	print_json_bounds();
	print_json_results();
	printf("}\n");
}

/* 16-bit slots, one line per dtype: sum and fused momentum ratios. */
static void print_half_headline(const struct headline *h)
{
	static const enum bench_kind kinds[2][2] = {
		{ K_SUM_BF16, K_MOM_BF16 }, { K_SUM_F16, K_MOM_F16 },
	};
	unsigned int i;

	for (i = 0; h->sum && i < 2; i++) {
		const struct entry *s = bench_find(kinds[i][0], h->sum->impl,
						   KEY_W, KEY_CHUNK, 1, false);
		const struct entry *m = bench_find(kinds[i][1], h->sum->impl,
						   KEY_W, KEY_CHUNK, 1, false);

		if (s && m)
			printf("  %s slots, 1 thread, %s: sum %.3f (IQR %.3f), fused momentum %.3f (IQR %.3f) of the bound for their bytes\n",
			       i ? "f16" : "bf16", h->sum->impl->name,
			       ratio_med(s), ratio_iqr(s), ratio_med(m),
			       ratio_iqr(m));
	}
}

static void print_headline(const struct headline *h)
{
	const struct entry *s = h->sum, *m = h->mom;

	if (!s || !m) {
		printf("  %u thread%s: not measured (needs 8 in --w and 32K in --chunk)\n",
		       h->threads, h->threads > 1 ? "s" : "");
		return;
	}
	printf("  %u thread%s, %s: bound %.2f GB/s of gradient; sum %.2f GB/s, ratio %.3f (IQR %.3f, best-of %.3f);\n"
	       "    sum+momentum %.2f GB/s, ratio %.3f (IQR %.3f, best-of %.3f)\n",
	       h->threads, h->threads > 1 ? "s" : "", s->impl->name,
	       med_gbps(s, &s->b), med_gbps(s, &s->s), ratio_med(s),
	       ratio_iqr(s), ratio_best(s), med_gbps(m, &m->s), ratio_med(m),
	       ratio_iqr(m), ratio_best(m));
}

static void print_text_bounds(void)
{
	unsigned int i;
	char name[48];

	printf("Bounds (calibration, best of %u): raw read and write GB/s; then GB/s of\n"
	       "gradient by separate read + write loops, by one combined loop, the best,\n"
	       "and the loop the paired trials use\n", bench_opt.reps);
	printf("  %-9s %2s %3s %6s %8s %8s %9s %9s %9s  %s\n", "kernel", "W", "thr",
	       "MiB", "read", "write", "separate", "combined", "bound", "loop");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		double rd, wr;

		if (e->kind != K_BOUND)
			continue;
		entry_bytes(e, &rd, &wr);
		printf("  %-9s %2u %3u %6zu %8.2f %8.2f %9.2f %9.2f %9.2f  %s\n",
		       e->fused ? "momentum" : "sum", e->w, e->threads,
		       bench_slice_elems(e->w) * sizeof(float) / MIB,
		       rd / series_min(&e->rd) / 1e9, wr / series_min(&e->wr) / 1e9,
		       bench_gbps(e->w, e->threads, 0,
				  series_min(&e->rd) + series_min(&e->wr)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->cp)),
		       bench_gbps(e->w, e->threads, 0, series_min(&e->s)),
		       bench_bound_shape(e, name, sizeof(name)));
	}
}

void bench_report_text(const char *selected)
{
	struct headline one_, all_, *one = &one_, *all;
	struct speedup sp;
	unsigned int i;

	bench_headlines(one, &all_, &all, selected);
	bench_speedup(&sp);
	printf("bench-agg: %u thread%s, %zu MiB per thread, %u pairs, %u calibration rounds,\n"
	       "bound loops %s, init selection: %s; %u pairs had a trial cut into by\n"
	       "the scheduler (their CPU time leaves the other task out)\n\n",
	       bench_opt.threads, bench_opt.threads > 1 ? "s" : "",
	       bench_opt.ws / MIB, bench_opt.pairs, bench_opt.reps,
	       bench_bound_have_avx512() ? "avx512+avx2" : "avx2", selected,
	       bench_preempted());
	print_text_bounds();
	printf("\nKernels: GB/s of gradient (median, best trial); ratio = bound time / kernel\n"
	       "time, median of the pairs, its IQR, and best-of\n");
	printf("  %-7s %-12s %2s %6s %3s %8s %8s %6s %6s %6s\n", "impl", "kernel",
	       "W", "chunk", "thr", "median", "best", "ratio", "IQR", "best");
	for (i = 0; i < bench_nentries; i++) {
		const struct entry *e = &bench_entries[i];
		bool cache = e->kind >= K_CACHE_SUM;

		if (e->kind == K_BOUND)
			continue;
		printf("  %-7s %-12s %2u %5zuK %3u %8.2f %8.2f", e->impl->name,
		       cache ? "cache" : bench_kind_name(e->kind), e->w,
		       e->chunk * sizeof(float) / 1024, e->threads,
		       entry_gbps(e, series_median(&e->s)),
		       entry_gbps(e, series_min(&e->s)));
		if (cache)
			printf("  (in cache: %s)\n", bench_kind_name(e->kind));
		else
			printf(" %6.3f %6.3f %6.3f\n", ratio_med(e), ratio_iqr(e),
			       ratio_best(e));
	}
	printf("\nW = 8, 32 KiB chunks:\n");
	print_headline(one);
	print_half_headline(one);
	if (all)
		print_headline(all);
	if (sp.have)
		printf("  in cache, best SIMD over scalar (sum): %.2fx (IQR %.2f, best-of %.2fx)\n",
		       sp.median, sp.iqr, sp.best);
}

/* "32K", "1M", "4096": bytes; 0 for anything else. */

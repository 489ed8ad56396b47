// SPDX-License-Identifier: GPL-2.0
/*
 * The memory bound the aggregation kernels are measured against: plain
 * streaming loops that move exactly the bytes a kernel must read and
 * write, with no arithmetic to speak of. If a kernel ever ran much faster
 * than the bound, the bound would be wrong, not the kernel fast, so the
 * bound is the fastest of several shapes of loop (bench-agg.c times them
 * all and keeps the best):
 *
 * - reads: OR into independent vector accumulators (one-cycle latency,
 *   so only the loads limit the loop), either one buffer after another or
 *   all streams at once (each step loads `unroll` vectors of every
 *   stream, as the kernels do); the result goes to a volatile sink;
 * - writes: non-temporal stores of a register (no read-for-ownership),
 *   then sfence;
 * - combined: the all-streams read storing its OR to every output in the
 *   same loop, with streaming or cached stores.
 *
 * Each shape exists for 512-bit and 256-bit vectors and for 1, 2 or 4
 * vectors per stream per step; on this host's CPUs the narrower, less
 * unrolled loops are sometimes the faster for streaming stores, which is
 * why they are all tried. Function-level target attributes: the file is
 * built without -m flags. Buffers are 64-byte aligned and their sizes
 * multiples of 64 floats (bench-agg-pool.c sees to that).
 */
#include <stdint.h>
#include <stdio.h>

#include "bench-agg.h"

#define B_V16	unsigned int __attribute__((__vector_size__(64)))
#define B_V8	unsigned int __attribute__((__vector_size__(32)))
#define B_F16	float __attribute__((__vector_size__(64)))
#define B_F8	float __attribute__((__vector_size__(32)))

static volatile unsigned int bench_sink;

bool bench_bound_have_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f");
}

const char *bench_shape_name(const struct bench_shape *s, char *buf,
			     size_t len)
{
	static const char *const st[] = {
		[BENCH_ST_NONE] = "read", [BENCH_ST_NT] = "copy-nt",
		[BENCH_ST_CACHED] = "copy-cached",
	};

	snprintf(buf, len, "%s%s/%s/u%u", st[s->store],
		 s->seq ? "-seq" : "", s->wide ? "512" : "256", s->unroll);
	return buf;
}

/* Loads through memcpy: no alias or alignment assumption. */
#define BENCH_LD(V, p)	({ V _v; __builtin_memcpy(&_v, (p), sizeof(_v)); _v; })

/*
 * One step: `U` vectors of every input ORed together, then stored to
 * every output. U is 1, 2 or 4; the unused accumulators fold away.
 */
#define BENCH_LOOP_FN(name, isa, V, F, lanes, U, ntstore)		\
__attribute__((target(isa)))						\
static void name(float *const *in, unsigned int nin, float *const *out, \
		 unsigned int nout, size_t n, int store)		\
{									\
	V z = { 0 }, a0 = z, a1 = z, a2 = z, a3 = z;			\
	size_t i;							\
	unsigned int k;							\
									\
	for (i = 0; i + (U) * (lanes) <= n; i += (U) * (lanes)) {	\
		if (store != BENCH_ST_NONE)				\
			a0 = a1 = a2 = a3 = z;				\
		for (k = 0; k < nin; k++) {				\
			const float *s = in[k] + i;			\
									\
			a0 |= BENCH_LD(V, s);				\
			if ((U) > 1)					\
				a1 |= BENCH_LD(V, s + (lanes));		\
			if ((U) > 2) {					\
				a2 |= BENCH_LD(V, s + 2 * (lanes));	\
				a3 |= BENCH_LD(V, s + 3 * (lanes));	\
			}						\
		}							\
		for (k = 0; k < nout && store != BENCH_ST_NONE; k++) {	\
			float *d = out[k] + i;				\
									\
			if (store == BENCH_ST_NT) {			\
				ntstore(d, (F)a0);			\
				if ((U) > 1)				\
					ntstore(d + (lanes), (F)a1);	\
				if ((U) > 2) {				\
					ntstore(d + 2 * (lanes), (F)a2); \
					ntstore(d + 3 * (lanes), (F)a3); \
				}					\
				continue;				\
			}						\
			__builtin_memcpy(d, &a0, sizeof(a0));		\
			if ((U) > 1)					\
				__builtin_memcpy(d + (lanes), &a1, sizeof(a1)); \
			if ((U) > 2) {					\
				__builtin_memcpy(d + 2 * (lanes), &a2, sizeof(a2)); \
				__builtin_memcpy(d + 3 * (lanes), &a3, sizeof(a3)); \
			}						\
		}							\
	}								\
	a0 |= a1 | a2 | a3;						\
	bench_sink = a0[0] | a0[(lanes) - 1];				\
	if (store == BENCH_ST_NT)					\
		__builtin_ia32_sfence();				\
}

BENCH_LOOP_FN(bench_loop512u1, "avx512f", B_V16, B_F16, 16, 1,
	      __builtin_ia32_movntps512)
BENCH_LOOP_FN(bench_loop512u4, "avx512f", B_V16, B_F16, 16, 4,
	      __builtin_ia32_movntps512)
BENCH_LOOP_FN(bench_loop512u2, "avx512f", B_V16, B_F16, 16, 2,
	      __builtin_ia32_movntps512)
BENCH_LOOP_FN(bench_loop256u1, "avx2", B_V8, B_F8, 8, 1,
	      __builtin_ia32_movntps256)
BENCH_LOOP_FN(bench_loop256u2, "avx2", B_V8, B_F8, 8, 2,
	      __builtin_ia32_movntps256)
BENCH_LOOP_FN(bench_loop256u4, "avx2", B_V8, B_F8, 8, 4,
	      __builtin_ia32_movntps256)

__attribute__((target("avx512f")))
static void bench_write512(float *p, size_t n)
{
	B_F16 z = { 0 };
	size_t i;

	for (i = 0; i < n; i += 16)
		__builtin_ia32_movntps512(p + i, z);
}

__attribute__((target("avx")))
static void bench_write256(float *p, size_t n)
{
	B_F8 z = { 0 };
	size_t i;

	for (i = 0; i < n; i += 8)
		__builtin_ia32_movntps256(p + i, z);
}

static void bench_loop(const struct bench_shape *s, float *const *in,
		       unsigned int nin, float *const *out,
		       unsigned int nout, size_t n)
{
	static void (*const fns[2][3])(float *const *, unsigned int,
				       float *const *, unsigned int, size_t,
				       int) = {
		{ bench_loop256u1, bench_loop256u2, bench_loop256u4 },
		{ bench_loop512u1, bench_loop512u2, bench_loop512u4 },
	};

	fns[s->wide][s->unroll >= 4 ? 2 : s->unroll - 1](in, nin, out, nout,
							  n, s->store);
}

void bench_bound_loop(const struct bench_shape *s, float *const *in,
		      unsigned int nin, float *const *out, unsigned int nout,
		      size_t n)
{
	unsigned int b;

	if (s->wide && !bench_bound_have_avx512())
		return;
	if (!s->seq) {
		bench_loop(s, in, nin, out, nout, n);
		return;
	}
	for (b = 0; b < nin; b++)
		bench_loop(s, &in[b], 1, NULL, 0, n);
}

void bench_bound_write(bool wide, float *const *bufs, unsigned int nbufs,
		       size_t n)
{
	unsigned int b;

	if (wide && !bench_bound_have_avx512())
		return;
	for (b = 0; b < nbufs; b++) {
		if (wide)
			bench_write512(bufs[b], n);
		else
			bench_write256(bufs[b], n);
	}
	__builtin_ia32_sfence();
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the aggregation tests (test-agg-*): buffers at chosen
 * misalignments with guard zones, reproducible random data, and ulp
 * distances for comparing optimizer results.
 */
#ifndef RW_TEST_AGGTEST_H
#define RW_TEST_AGGTEST_H

#include <stddef.h>
#include <stdint.h>

#include "agg_impl.h"

/* Floats of guard before and after every test buffer. */
#define AGGT_GUARD	32
#define AGGT_GUARD_BITS	0x7fa5a5a5U	/* a NaN nobody computes */

struct aggt_buf {
	float *p;		/* n floats at the requested misalignment */
	size_t n;
	float *base;		/* 64-byte aligned allocation */
};

/* n floats starting mis floats past a 64-byte boundary, guards set. */
void aggt_alloc(struct aggt_buf *b, size_t n, unsigned int mis);
void aggt_free(struct aggt_buf *b);
/* Whether the guards on both sides are intact. */
int aggt_guards_ok(const struct aggt_buf *b);

/* xorshift64*: the same data on every run and machine. */
uint64_t aggt_rand(uint64_t *s);
/* Uniform in [lo, hi). */
float aggt_uniform(uint64_t *s, float lo, float hi);
void aggt_fill(float *p, size_t n, uint64_t *s, float lo, float hi);

uint32_t aggt_bits(float f);
float aggt_from_bits(uint32_t u);
/* Distance in representable floats; huge for a sign change or NaN. */
uint32_t aggt_ulp(float a, float b);

/* The i-th implementation if this CPU can run it, else NULL. */
const struct rw_agg_impl *aggt_impl(unsigned int i);

#endif /* RW_TEST_AGGTEST_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the aggregation tests; see aggtest.h.
 */
#include <stdlib.h>
#include <string.h>

#include "aggtest.h"

void aggt_alloc(struct aggt_buf *b, size_t n, unsigned int mis)
{
	size_t total = n + mis + 2 * AGGT_GUARD + 16, i;
	void *mem = NULL;

	if (posix_memalign(&mem, 64, total * sizeof(float)))
		abort();
	b->base = mem;
	b->p = b->base + AGGT_GUARD + mis;
	b->n = n;
	for (i = 0; i < total; i++)
		b->base[i] = aggt_from_bits(AGGT_GUARD_BITS);
}

void aggt_free(struct aggt_buf *b)
{
	free(b->base);
	b->base = b->p = NULL;
}

int aggt_guards_ok(const struct aggt_buf *b)
{
	size_t i;

	for (i = 0; i < AGGT_GUARD; i++) {
		if (aggt_bits(b->p[-1 - (long)i]) != AGGT_GUARD_BITS ||
		    aggt_bits(b->p[b->n + i]) != AGGT_GUARD_BITS)
			return 0;
	}
	return 1;
}

uint64_t aggt_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

float aggt_uniform(uint64_t *s, float lo, float hi)
{
	double u = (double)(aggt_rand(s) >> 11) / (double)(1ULL << 53);

	return (float)(lo + (hi - lo) * u);
}

void aggt_fill(float *p, size_t n, uint64_t *s, float lo, float hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = aggt_uniform(s, lo, hi);
}

uint32_t aggt_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

float aggt_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Map floats onto a line of integers so that neighbours differ by one. */
static int64_t aggt_ordered(float f)
{
	uint32_t u = aggt_bits(f);

	return (u & 0x80000000U) ? -(int64_t)(u & 0x7fffffffU) : (int64_t)u;
}

uint32_t aggt_ulp(float a, float b)
{
	int64_t d;

	if (a != a || b != b)
		return (a != a && b != b) ? 0 : UINT32_MAX;
	d = aggt_ordered(a) - aggt_ordered(b);
	if (d < 0)
		d = -d;
	return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

const struct rw_agg_impl *aggt_impl(unsigned int i)
{
	if (i >= rw_agg_nimpls || !rw_agg_impls[i].usable())
		return NULL;
	return &rw_agg_impls[i];
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model the wire tests train, shared by the remote trainer
 * (wire-train.c, over verbs) and the local one (wire-local.c, through
 * librackweave): four tensors, gradients that are small integers, and
 * their exact result. With SGD at a power-of-two learning rate and two
 * workers every intermediate value is exact in single precision, so the
 * box's parameters after N iterations must equal wm_expect() to the bit.
 */
#ifndef _RW_TESTS_WIRE_MODEL_H
#define _RW_TESTS_WIRE_MODEL_H

/* The includer brings struct rw_tensor_desc (the uapi or the library). */
#include <stdint.h>

#define WM_NR_TENSORS	4
#define WM_LR		0.5

static const struct rw_tensor_desc wm_tensors[WM_NR_TENSORS] = {
	{ .key = 11, .nelems = 3000, .dtype = RW_DTYPE_F32 },
	{ .key = 12, .nelems = 10, .dtype = RW_DTYPE_F32 },
	{ .key = 13, .nelems = 20000, .dtype = RW_DTYPE_F32 },
	{ .key = 14, .nelems = 1, .dtype = RW_DTYPE_F32 },
};

/* Rank @r's gradient of element @k of tensor @t in iteration @i. */
static inline float wm_grad(uint32_t r, uint32_t i, uint32_t t, uint64_t k)
{
	return (float)((k + 3 * t + i) % 9) - 4.0f + (float)r;
}

/* The parameter after @iters BSP steps of @workers workers, from zero. */
static inline float wm_expect(uint32_t workers, uint32_t iters, uint32_t t,
			      uint64_t k)
{
	double p = 0;
	uint32_t i, r;

	for (i = 0; i < iters; i++) {
		double sum = 0;

		for (r = 0; r < workers; r++)
			sum += wm_grad(r, i, t, k);
		p -= WM_LR * (sum / workers);
	}
	return (float)p;
}

/* FNV-1a over @len bytes: the trainers print it to compare their views. */
static inline uint64_t wm_hash(const void *p, uint64_t len)
{
	const uint8_t *b = p;
	uint64_t h = 1469598103934665603ULL;

	while (len--) {
		h ^= *b++;
		h *= 1099511628211ULL;
	}
	return h;
}

#endif /* _RW_TESTS_WIRE_MODEL_H */

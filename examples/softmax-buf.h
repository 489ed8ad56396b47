/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The softmax model (softmax.h) in a RackWeave job's buffers: its two
 * tensors declared in f32, bf16 or f16 (or mixed: the weights in bf16,
 * the bias in f32), the parameters read as floats and the gradients
 * written in the tensors' types. The model's code computes in float
 * either way; a 16-bit tensor's gradient is rounded to nearest even into
 * the gradient buffer and its parameters widened out of the parameter
 * buffer (rw_dtype_from_float(3), rw_dtype_to_float(3)), so the bytes
 * that cross the wire halve and tests/vm/softmax-ref --dtype can
 * reproduce the run bit for bit.
 */
#ifndef RW_EXAMPLES_SOFTMAX_BUF_H
#define RW_EXAMPLES_SOFTMAX_BUF_H

#include <stdbool.h>
#include <stdint.h>

#include <rackweave.h>

#include "softmax.h"

struct softmax_buf {
	struct rw_tensor_view w, b;
};

/*
 * --dtype NAME: the types of W and b in @dt: f32, bf16, f16, or mixed
 * (W bf16, b f32). -EINVAL for another name.
 */
int softmax_buf_dtype(const char *name, uint32_t dt[2]);

/* The model's tensors, as every rank (and an observer) declares them. */
void softmax_buf_tensors(struct rw_tensor_desc t[2], const uint32_t dt[2]);

/* Find the declared tensors in the mapped buffers (rw_tensor(3)). */
int softmax_buf_find(struct rw_ctx *ctx, struct softmax_buf *m);

/* The published parameters as floats. */
void softmax_buf_params(const struct softmax_buf *m, float *w, float *b);

/* Whether the published parameters are @w and @b in the tensors' types. */
bool softmax_buf_holds(const struct softmax_buf *m, const float *w,
		       const float *b);

/* @w and @b in the tensors' types into @flat, a buffer laid out as the job's. */
void softmax_buf_put(const struct softmax_buf *m, void *flat, const float *w,
		     const float *b);

/*
 * The mean gradient of samples [@first, @first + @n) at @w, @b, into the
 * gradient buffer: straight for f32 tensors, through floats narrowed for
 * 16-bit ones.
 */
void softmax_buf_grad(const struct softmax_buf *m, const float *w,
		      const float *b, const struct softmax_data *d,
		      uint32_t first, uint32_t n);

#endif /* RW_EXAMPLES_SOFTMAX_BUF_H */

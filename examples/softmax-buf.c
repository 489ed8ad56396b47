// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* The softmax model in a job's buffers, in its tensors' types (softmax-buf.h). */
#include <errno.h>
#include <string.h>

#include "softmax-buf.h"

int softmax_buf_dtype(const char *name, uint32_t dt[2])
{
	static const struct {
		const char *name;
		uint32_t w, b;
	} types[] = {
		{ "f32", RW_DTYPE_F32, RW_DTYPE_F32 },
		{ "bf16", RW_DTYPE_BF16, RW_DTYPE_BF16 },
		{ "f16", RW_DTYPE_F16, RW_DTYPE_F16 },
		{ "mixed", RW_DTYPE_BF16, RW_DTYPE_F32 },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!strcmp(name, types[i].name)) {
			dt[0] = types[i].w;
			dt[1] = types[i].b;
			return 0;
		}
	}
	return -EINVAL;
}

void softmax_buf_tensors(struct rw_tensor_desc t[2], const uint32_t dt[2])
{
	memset(t, 0, 2 * sizeof(*t));
	t[0].key = SOFTMAX_KEY_W;
	t[0].nelems = SOFTMAX_NW;
	t[0].dtype = dt[0];
	t[1].key = SOFTMAX_KEY_B;
	t[1].nelems = SOFTMAX_NB;
	t[1].dtype = dt[1];
}

int softmax_buf_find(struct rw_ctx *ctx, struct softmax_buf *m)
{
	int err = rw_tensor(ctx, SOFTMAX_KEY_W, &m->w);

	return err ? err : rw_tensor(ctx, SOFTMAX_KEY_B, &m->b);
}

void softmax_buf_params(const struct softmax_buf *m, float *w, float *b)
{
	/* Types the library knows: declared and mapped through it. */
	rw_dtype_to_float(w, m->w.params, SOFTMAX_NW, m->w.dtype);
	rw_dtype_to_float(b, m->b.params, SOFTMAX_NB, m->b.dtype);
}

static size_t softmax_buf_esize(const struct rw_tensor_view *v)
{
	return v->dtype == RW_DTYPE_F32 ? 4 : 2;
}

bool softmax_buf_holds(const struct softmax_buf *m, const float *w,
		       const float *b)
{
	static unsigned char nw[SOFTMAX_NW * sizeof(float)];
	static unsigned char nb[SOFTMAX_NB * sizeof(float)];

	rw_dtype_from_float(nw, w, SOFTMAX_NW, m->w.dtype);
	rw_dtype_from_float(nb, b, SOFTMAX_NB, m->b.dtype);
	return !memcmp(m->w.params, nw, SOFTMAX_NW * softmax_buf_esize(&m->w)) &&
	       !memcmp(m->b.params, nb, SOFTMAX_NB * softmax_buf_esize(&m->b));
}

void softmax_buf_put(const struct softmax_buf *m, void *flat, const float *w,
		     const float *b)
{
	rw_dtype_from_float((char *)flat + m->w.offset, w, SOFTMAX_NW,
			    m->w.dtype);
	rw_dtype_from_float((char *)flat + m->b.offset, b, SOFTMAX_NB,
			    m->b.dtype);
}

void softmax_buf_grad(const struct softmax_buf *m, const float *w,
		      const float *b, const struct softmax_data *d,
		      uint32_t first, uint32_t n)
{
	static float gw[SOFTMAX_NW], gb[SOFTMAX_NB];
	bool f32 = m->w.dtype == RW_DTYPE_F32 && m->b.dtype == RW_DTYPE_F32;

	if (f32) {
		softmax_grad(w, b, d, first, n, m->w.grad, m->b.grad);
		return;
	}
	softmax_grad(w, b, d, first, n, gw, gb);
	rw_dtype_from_float(m->w.grad, gw, SOFTMAX_NW, m->w.dtype);
	rw_dtype_from_float(m->b.grad, gb, SOFTMAX_NB, m->b.dtype);
}

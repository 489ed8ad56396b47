// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Model layout in user space. The module owns the layout, but a trainer
 * needs to know where its tensors are without a system call per lookup,
 * so the library recomputes offsets from the declared tensors with the
 * module's placement rule (kmod/chunk/layout.h): tensor 0 at offset 0,
 * each next tensor at the first multiple of 64 bytes at or after the end
 * of the previous one. rw_map() cross-checks the result against the
 * module's model_bytes.
 *
 * The rule is restated here rather than kmod/chunk/layout.c compiled in:
 * that file is GPL-2.0 only, and linking it would take away the MIT choice
 * this library offers to the programs that link it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

uint32_t rw_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case RW_DTYPE_F32:
		return 4;
	case RW_DTYPE_F16:
	case RW_DTYPE_BF16:
		return 2;
	default:
		return 0;
	}
}

/* qsort() has no context argument; the keys travel inside the entries. */
struct rw_model_sort {
	uint64_t key;
	uint32_t idx;
};

static int rw_model_cmp(const void *a, const void *b)
{
	const struct rw_model_sort *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Offsets of every tensor and the end of the last one. */
static int rw_model_place(const struct rw_tensor_desc *t, uint32_t n,
			  uint64_t *offsets, uint64_t *bytes)
{
	uint64_t end = 0, off, len;
	uint32_t i, esize;

	for (i = 0; i < n; i++) {
		esize = rw_dtype_size(t[i].dtype);
		if (!esize || !t[i].nelems)
			return -EINVAL;
		if (end > UINT64_MAX - (RW_MODEL_ALIGN - 1))
			return -EOVERFLOW;
		off = (end + RW_MODEL_ALIGN - 1) & ~(uint64_t)(RW_MODEL_ALIGN - 1);
		if (t[i].nelems > UINT64_MAX / esize)
			return -EOVERFLOW;
		len = t[i].nelems * esize;
		if (off > UINT64_MAX - len)
			return -EOVERFLOW;
		offsets[i] = off;
		end = off + len;
	}
	*bytes = end;
	return 0;
}

int rw_model_build(struct rw_model *m, const struct rw_tensor_desc *t,
		   uint32_t n)
{
	struct rw_model_sort *sorted = NULL;
	struct rw_model nm = { 0 };
	uint32_t i;
	int err;

	if (!m || !t || !n)
		return -EINVAL;
	if (n > RW_MAX_TENSORS)
		return -E2BIG;

	nm.nr = n;
	nm.t = calloc(n, sizeof(*nm.t));
	nm.offsets = calloc(n, sizeof(*nm.offsets));
	nm.by_key = calloc(n, sizeof(*nm.by_key));
	sorted = calloc(n, sizeof(*sorted));
	err = -ENOMEM;
	if (!nm.t || !nm.offsets || !nm.by_key || !sorted)
		goto err_free;

	for (i = 0; i < n; i++) {
		nm.t[i].key = t[i].key;
		nm.t[i].nelems = t[i].nelems;
		nm.t[i].dtype = t[i].dtype;
		nm.t[i].priority = t[i].priority;
		sorted[i].key = t[i].key;
		sorted[i].idx = i;
	}
	err = rw_model_place(nm.t, n, nm.offsets, &nm.bytes);
	if (err)
		goto err_free;

	qsort(sorted, n, sizeof(*sorted), rw_model_cmp);
	err = -EINVAL;
	for (i = 0; i < n; i++) {
		if (i && sorted[i].key == sorted[i - 1].key)
			goto err_free;
		nm.by_key[i] = sorted[i].idx;
	}

	free(sorted);
	*m = nm;
	return 0;

err_free:
	free(sorted);
	rw_model_free(&nm);
	return err;
}

void rw_model_free(struct rw_model *m)
{
	free(m->t);
	free(m->offsets);
	free(m->by_key);
	memset(m, 0, sizeof(*m));
}

int rw_model_find(const struct rw_model *m, uint64_t key, uint32_t *idx)
{
	uint32_t lo = 0, hi = m->nr, mid;
	uint64_t k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		k = m->t[m->by_key[mid]].key;
		if (k == key) {
			*idx = m->by_key[mid];
			return 0;
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

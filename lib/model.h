/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The model as this process declared it: the tensors, where each lies in
 * the flat buffer, and an index by key. Not installed.
 */
#ifndef RW_LIB_MODEL_H
#define RW_LIB_MODEL_H

#include <stdint.h>

#include <rackweave/uapi.h>

/* Tensor i starts at the first multiple of this after tensor i - 1 ends. */
#define RW_MODEL_ALIGN		64U

/*
 * Immutable once built; the owner (struct rw_ctx) replaces it whole under
 * its lock. @t, @offsets and @by_key hold @nr entries each.
 */
struct rw_model {
	struct rw_tensor_desc *t;	/* declared order, reserved fields 0 */
	uint64_t *offsets;		/* byte offset of each tensor */
	uint32_t *by_key;		/* indices into @t, sorted by key */
	uint32_t nr;			/* 0: nothing declared */
	uint64_t bytes;			/* end of the last tensor */
};

/* Bytes per element of @dtype, 0 if the library does not know it. */
uint32_t rw_dtype_size(uint32_t dtype);

/*
 * Build @m from @t[0..n): copies the descriptors (reserved fields cleared)
 * and lays them out. -EINVAL: n == 0, a NULL array, a tensor without
 * elements, an unknown dtype, a duplicate key; -E2BIG: more than
 * RW_MAX_TENSORS; -EOVERFLOW: sizes past 64 bits; -ENOMEM. @m is written on
 * success only.
 */
int rw_model_build(struct rw_model *m, const struct rw_tensor_desc *t,
		   uint32_t n);

/* Free what rw_model_build() allocated and reset @m to empty. */
void rw_model_free(struct rw_model *m);

/* Index (declared order) of the tensor with @key; -ENOENT if none. */
int rw_model_find(const struct rw_model *m, uint64_t key, uint32_t *idx);

#endif /* RW_LIB_MODEL_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run the checkpoint tests save, restore and damage
 * (test-lib-ckpt.c, test-lib-checkpoint.c): its head and a host-order
 * image whose largest version is the head's step. Include after
 * <cmocka.h>, test-lib-mock.c and lib/ckpt.h.
 */
#ifndef RW_TEST_CKPTTEST_H
#define RW_TEST_CKPTTEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rackweave.h>

/* A small run: Adam (two state arrays), 3 chunks of 64 bytes. */
#define CKT_CHUNKS	3
#define CKT_CHUNK	64
#define CKT_STATE	2
#define CKT_PARAMS	(CKT_CHUNKS * CKT_CHUNK)
#define CKT_IMAGE	((1 + CKT_STATE) * CKT_PARAMS + 8 * CKT_CHUNKS)
#define CKT_FILE	(RW_CKPT_OVERHEAD + CKT_IMAGE)
#define CKT_STEP	0x0102030405060708ULL
#define CKT_HASH	0x0123456789abcdefULL

static inline uint32_t ckt_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline void ckt_head(struct rw_ckpt_head *h, uint32_t nr_chunks,
			    uint32_t chunk_size, uint32_t optim,
			    uint32_t nr_state, uint64_t step)
{
	memset(h, 0, sizeof(*h));
	h->magic = RW_CKPT_MAGIC;
	h->head_len = sizeof(*h);
	h->layout_hash = CKT_HASH;
	h->nr_tensors = 2;
	h->nr_chunks = nr_chunks;
	h->chunk_size = chunk_size;
	h->nr_state = nr_state;
	h->optim = optim;
	h->hparams[0] = ckt_bits(0.01f);
	h->hparams[1] = ckt_bits(0.9f);
	h->hparams[2] = ckt_bits(0.0f);
	h->hparams[3] = ckt_bits(0.9f);
	h->hparams[4] = ckt_bits(0.999f);
	h->hparams[5] = ckt_bits(1e-8f);
	h->params_len = (uint64_t)nr_chunks * chunk_size;
	h->image_len = (1 + (uint64_t)nr_state) * h->params_len +
		       8ULL * nr_chunks;
	h->step = step;
}

/*
 * A host-order image for @h: floats from a seed, then versions whose
 * largest, at the middle chunk, is the head's step.
 */
static inline unsigned char *ckt_image(const struct rw_ckpt_head *h,
				       uint32_t seed)
{
	unsigned char *img = malloc(h->image_len);
	uint64_t words = (h->image_len - 8ULL * h->nr_chunks) / 4, v, i;
	uint32_t x = seed * 2654435761U + 1;
	float f;

	assert_non_null(img);
	for (i = 0; i < words; i++) {
		x = x * 1664525U + 1013904223U;
		f = (float)(int32_t)x / 65536.0f;
		memcpy(img + 4 * i, &f, 4);
	}
	if (words)
		memcpy(img, &(float){ 1.5f }, 4);	/* bits 0x3fc00000 */
	for (i = 0; i < h->nr_chunks; i++) {
		v = i == h->nr_chunks / 2 ? h->step : h->step - 1 - i;
		memcpy(img + 4 * words + 8 * i, &v, 8);
	}
	return img;
}

/* The test run's file, encoded from a separate image. */

#endif /* RW_TEST_CKPTTEST_H */

// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * The checkpoint file format (docs/checkpoint.md), encoded and decoded
 * without the device; checkpoint.c moves files between a path and the
 * module with it.
 *
 * Everything the module exchanges is in host order; a file is
 * little-endian, converted field by field and word by word (the image is
 * float32 data, 4-byte words, then u64 versions), so that any host writes
 * the same bytes. The conversion runs on every host: on a little-endian
 * one each word is copied to itself, which costs a pass over memory and
 * keeps the one code path the tests run the one big-endian hosts run.
 *
 * A decoder that accepts a file has checked every length in it against
 * the others before reading past the prefix, so a damaged length is
 * reported as such and never read past; the checksum then covers the rest.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"
#include "crc32c.h"

/* The layout docs/checkpoint.md describes, head offsets from the head. */
_Static_assert(sizeof(struct rw_ckpt_head) == RW_CKPT_HEAD_SIZE, "head");
_Static_assert(offsetof(struct rw_ckpt_head, layout_hash) == 8, "hash");
_Static_assert(offsetof(struct rw_ckpt_head, hparams) == 36, "hparams");
_Static_assert(offsetof(struct rw_ckpt_head, params_len) == 64, "params");
_Static_assert(offsetof(struct rw_ckpt_head, step) == 80, "step");
_Static_assert(sizeof(RW_CKPT_FILE_MAGIC) - 1 == RW_CKPT_FILE_MAGIC_LEN,
	       "magic");

int rw_ckpt_fail(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* ---- little-endian fields ---- */

static void rw_put32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void rw_put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t rw_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t rw_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

#define RW_HEAD_AT(f)	offsetof(struct rw_ckpt_head, f)

static void rw_ckpt_head_put(unsigned char *p, const struct rw_ckpt_head *h)
{
	int i;

	rw_put32(p + RW_HEAD_AT(magic), h->magic);
	rw_put32(p + RW_HEAD_AT(head_len), h->head_len);
	rw_put64(p + RW_HEAD_AT(layout_hash), h->layout_hash);
	rw_put32(p + RW_HEAD_AT(nr_tensors), h->nr_tensors);
	rw_put32(p + RW_HEAD_AT(nr_chunks), h->nr_chunks);
	rw_put32(p + RW_HEAD_AT(chunk_size), h->chunk_size);
	rw_put32(p + RW_HEAD_AT(nr_state), h->nr_state);
	rw_put32(p + RW_HEAD_AT(optim), h->optim);
	for (i = 0; i < 6; i++)
		rw_put32(p + RW_HEAD_AT(hparams) + 4 * i, h->hparams[i]);
	rw_put32(p + RW_HEAD_AT(reserved0), h->reserved0);
	rw_put64(p + RW_HEAD_AT(params_len), h->params_len);
	rw_put64(p + RW_HEAD_AT(image_len), h->image_len);
	rw_put64(p + RW_HEAD_AT(step), h->step);
	rw_put64(p + RW_HEAD_AT(reserved), h->reserved[0]);
	rw_put64(p + RW_HEAD_AT(reserved) + 8, h->reserved[1]);
}

static void rw_ckpt_head_get(struct rw_ckpt_head *h, const unsigned char *p)
{
	int i;

	h->magic = rw_get32(p + RW_HEAD_AT(magic));
	h->head_len = rw_get32(p + RW_HEAD_AT(head_len));
	h->layout_hash = rw_get64(p + RW_HEAD_AT(layout_hash));
	h->nr_tensors = rw_get32(p + RW_HEAD_AT(nr_tensors));
	h->nr_chunks = rw_get32(p + RW_HEAD_AT(nr_chunks));
	h->chunk_size = rw_get32(p + RW_HEAD_AT(chunk_size));
	h->nr_state = rw_get32(p + RW_HEAD_AT(nr_state));
	h->optim = rw_get32(p + RW_HEAD_AT(optim));
	for (i = 0; i < 6; i++)
		h->hparams[i] = rw_get32(p + RW_HEAD_AT(hparams) + 4 * i);
	h->reserved0 = rw_get32(p + RW_HEAD_AT(reserved0));
	h->params_len = rw_get64(p + RW_HEAD_AT(params_len));
	h->image_len = rw_get64(p + RW_HEAD_AT(image_len));
	h->step = rw_get64(p + RW_HEAD_AT(step));
	h->reserved[0] = rw_get64(p + RW_HEAD_AT(reserved));
	h->reserved[1] = rw_get64(p + RW_HEAD_AT(reserved) + 8);
}

/*
 * The image between host order and little-endian, @src to @dst (the same
 * buffer, or two that do not overlap): the parameter and state arrays as
 * u32 words, the versions as u64.
 */
static void rw_ckpt_image_order(const struct rw_ckpt_head *h, const void *src,
				void *dst, bool to_le)
{
	size_t words = (size_t)(h->image_len - 8ULL * h->nr_chunks) / 4;
	const unsigned char *s = src;
	unsigned char *d = dst;
	uint32_t w;
	uint64_t v;
	size_t i;

	for (i = 0; i < words; i++, s += 4, d += 4) {
		memcpy(&w, s, 4);
		w = to_le ? htole32(w) : le32toh(w);
		memcpy(d, &w, 4);
	}
	for (i = 0; i < h->nr_chunks; i++, s += 8, d += 8) {
		memcpy(&v, s, 8);
		v = to_le ? htole64(v) : le64toh(v);
		memcpy(d, &v, 8);
	}
}

/* The largest chunk version of an image in host order, or (@le) a file's. */
static uint64_t rw_ckpt_image_step(const struct rw_ckpt_head *h,
				   const void *image, bool le)
{
	const unsigned char *p = (const unsigned char *)image + h->image_len -
				 8ULL * h->nr_chunks;
	uint64_t v, max = 0;
	uint32_t c;

	for (c = 0; c < h->nr_chunks; c++) {
		memcpy(&v, p + 8ULL * c, 8);
		v = le ? le64toh(v) : v;
		if (v > max)
			max = v;
	}
	return max;
}

int rw_ckpt_head_check(const struct rw_ckpt_head *h, char *why,
		       size_t whylen)
{
	uint64_t params, image, arrays;

	if (h->magic != RW_CKPT_MAGIC)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "head magic 0x%08" PRIx32 ", not 0x%08x",
				    h->magic, RW_CKPT_MAGIC);
	if (h->head_len != RW_CKPT_HEAD_SIZE)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "head_len %" PRIu32 ", not %d", h->head_len,
				    RW_CKPT_HEAD_SIZE);
	if (h->reserved0 || h->reserved[0] || h->reserved[1])
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "reserved head fields are not zero");
	if (!h->nr_tensors || !h->nr_chunks)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%" PRIu32 " tensors in %" PRIu32 " chunks",
				    h->nr_tensors, h->nr_chunks);
	/* Whole float32 words per chunk: the image converts word by word. */
	if (h->chunk_size < 4 || (h->chunk_size & (h->chunk_size - 1)))
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "chunk_size %" PRIu32 " is not a power of two of at least 4",
				    h->chunk_size);
	/* Twice the chunk size: a model with a 16-bit tensor's f32 masters. */
	params = (uint64_t)h->nr_chunks * h->chunk_size;
	if (h->params_len != params && h->params_len != 2 * params)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "params_len %" PRIu64 " is not nr_chunks %"
				    PRIu32 " x chunk_size %" PRIu32
				    " (or twice that, for 16-bit tensors)",
				    (uint64_t)h->params_len, h->nr_chunks,
				    h->chunk_size);
	params = h->params_len;
	if (__builtin_mul_overflow(1 + (uint64_t)h->nr_state, params, &arrays) ||
	    __builtin_add_overflow(arrays, 8ULL * h->nr_chunks, &image) ||
	    image != h->image_len)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "image_len %" PRIu64 " does not match nr_state %"
				    PRIu32 ", params_len %" PRIu64 " and nr_chunks %"
				    PRIu32 " ((1 + nr_state) x params_len + 8 x nr_chunks)",
				    (uint64_t)h->image_len, h->nr_state,
				    (uint64_t)h->params_len, h->nr_chunks);
	/* The file, and the byte read past it (rw_ckpt_read_file). */
	if (image > SIZE_MAX - RW_CKPT_OVERHEAD - 1)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "image_len %" PRIu64 " does not fit in memory",
				    image);
	return 0;
}

size_t rw_ckpt_file_len(const struct rw_ckpt_head *h)
{
	return RW_CKPT_OVERHEAD + (size_t)h->image_len;
}

int rw_ckpt_encode(const struct rw_ckpt_head *h, const void *image,
		   void *out, size_t len, char *why, size_t whylen)
{
	unsigned char *p = out;
	char reason[256];
	uint64_t step;
	int err;

	err = rw_ckpt_head_check(h, reason, sizeof(reason));
	if (err)
		return rw_ckpt_fail(why, whylen, err, "bad head: %s", reason);
	if (len != rw_ckpt_file_len(h))
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%zu bytes for a file of %zu", len,
				    rw_ckpt_file_len(h));
	step = rw_ckpt_image_step(h, image, false);
	if (step != h->step)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "bad head: step %" PRIu64 ", but the largest chunk version is %"
				    PRIu64, (uint64_t)h->step, step);

	memcpy(p, RW_CKPT_FILE_MAGIC, RW_CKPT_FILE_MAGIC_LEN);
	rw_put32(p + 8, RW_CKPT_FORMAT);
	rw_put32(p + 12, RW_CKPT_HEAD_SIZE);
	rw_ckpt_head_put(p + RW_CKPT_PREFIX_LEN, h);
	rw_ckpt_image_order(h, image, p + RW_CKPT_IMAGE_OFF, true);
	rw_put64(p + len - RW_CKPT_SUM_LEN,
		 rw_crc32c(0, p, len - RW_CKPT_SUM_LEN));
	return 0;
}

int rw_ckpt_decode_head(const void *buf, size_t len, struct rw_ckpt_head *h,
			size_t *file_len, char *why, size_t whylen)
{
	const unsigned char *p = buf;
	size_t cmp = len < RW_CKPT_FILE_MAGIC_LEN ? len : RW_CKPT_FILE_MAGIC_LEN;
	char reason[256];
	uint32_t v;

	if (memcmp(p, RW_CKPT_FILE_MAGIC, cmp))
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "not a RackWeave checkpoint (it does not start with \"RWCKPT\\0\\n\")");
	if (len < RW_CKPT_PREFIX_LEN)
		goto short_header;
	v = rw_get32(p + 8);
	if (v > RW_CKPT_FORMAT)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "format version %" PRIu32 ", newer than this librackweave reads (%u): restore it with a newer RackWeave",
				    v, RW_CKPT_FORMAT);
	if (v < RW_CKPT_FORMAT)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "format version %" PRIu32 ", older than any this librackweave reads (%u)",
				    v, RW_CKPT_FORMAT);
	v = rw_get32(p + 12);
	if (v != RW_CKPT_HEAD_SIZE)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "head length %" PRIu32 ", but format %u has a %d-byte head",
				    v, RW_CKPT_FORMAT, RW_CKPT_HEAD_SIZE);
	if (len < RW_CKPT_IMAGE_OFF)
		goto short_header;
	rw_ckpt_head_get(h, p + RW_CKPT_PREFIX_LEN);
	if (rw_ckpt_head_check(h, reason, sizeof(reason)))
		return rw_ckpt_fail(why, whylen, -EINVAL, "corrupt head: %s",
				    reason);
	*file_len = rw_ckpt_file_len(h);
	return 0;

short_header:
	return rw_ckpt_fail(why, whylen, -EINVAL,
			    "truncated in the header: %zu bytes, the header alone is %d",
			    len, RW_CKPT_IMAGE_OFF);
}

int rw_ckpt_len_check(const struct rw_ckpt_head *h, uint64_t len, char *why,
		      size_t whylen)
{
	uint64_t want = rw_ckpt_file_len(h);

	if (len > want)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%" PRIu64 " bytes after the checksum (the file has %"
				    PRIu64 ", its head says %" PRIu64 ")",
				    len - want, len, want);
	if (len < RW_CKPT_IMAGE_OFF + h->image_len)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "truncated in the image: %" PRIu64 " bytes, its head says %"
				    PRIu64, len, want);
	if (len < want)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "truncated in the checksum: %" PRIu64 " bytes, its head says %"
				    PRIu64, len, want);
	return 0;
}

int rw_ckpt_decode(void *buf, size_t len, struct rw_ckpt_head *h,
		   void **image, char *why, size_t whylen)
{
	unsigned char *p = buf;
	struct rw_ckpt_head head;
	uint64_t stored, step;
	uint32_t sum;
	size_t want;
	int err;

	err = rw_ckpt_decode_head(buf, len, &head, &want, why, whylen);
	if (err)
		return err;
	err = rw_ckpt_len_check(&head, len, why, whylen);
	if (err)
		return err;
	stored = rw_get64(p + len - RW_CKPT_SUM_LEN);
	sum = rw_crc32c(0, p, len - RW_CKPT_SUM_LEN);
	if (stored != sum)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "checksum mismatch: the file is damaged (CRC-32C 0x%08"
				    PRIx32 " computed, 0x%08" PRIx64 " stored)",
				    sum, stored);

	step = rw_ckpt_image_step(&head, p + RW_CKPT_IMAGE_OFF, true);
	if (step != head.step)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "corrupt head: step %" PRIu64 ", but the largest chunk version is %"
				    PRIu64, (uint64_t)head.step, step);

	/* Checked: now to host order, the head just before the image. */
	rw_ckpt_image_order(&head, p + RW_CKPT_IMAGE_OFF, p + RW_CKPT_IMAGE_OFF,
			    false);
	memcpy(p + RW_CKPT_PREFIX_LEN, &head, sizeof(head));
	*h = head;
	*image = p + RW_CKPT_IMAGE_OFF;
	return 0;
}

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The checkpoint file format (docs/checkpoint.md), encoded and decoded
 * without the device (ckpt.c): what checkpoint.c's rw_checkpoint_save()
 * and rw_checkpoint_restore() use, and what tests/user/test-lib-ckpt.c
 * checks byte by byte. Not installed.
 *
 * A file is the prefix (magic, format version, head length), the head
 * (struct rw_ckpt_head), the image, then the checksum, all little-endian:
 *
 *   0                    RW_CKPT_FILE_MAGIC, 8 bytes
 *   8                    u32 RW_CKPT_FORMAT
 *   12                   u32 head length, RW_CKPT_HEAD_SIZE
 *   16                   the head, its fields in order
 *   RW_CKPT_IMAGE_OFF    the image, head.image_len bytes
 *   ... + image_len      u64: CRC-32C of every byte before it
 *
 * Both directions work in place so that a checkpoint of gigabytes is held
 * once: the module writes the image straight into the file buffer at
 * RW_CKPT_IMAGE_OFF, and a decoded file holds the head and the image in
 * host order at RW_CKPT_PREFIX_LEN, as RW_INIT_CHECKPOINT takes them.
 */
#ifndef RW_LIB_CKPT_H
#define RW_LIB_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

#define RW_CKPT_FILE_MAGIC	"RWCKPT\0\n"
#define RW_CKPT_FILE_MAGIC_LEN	8
#define RW_CKPT_FORMAT		1U
#define RW_CKPT_PREFIX_LEN	16
#define RW_CKPT_IMAGE_OFF	(RW_CKPT_PREFIX_LEN + RW_CKPT_HEAD_SIZE)
#define RW_CKPT_SUM_LEN		8
/* The file's length but for the image. */
#define RW_CKPT_OVERHEAD	(RW_CKPT_IMAGE_OFF + RW_CKPT_SUM_LEN)

/*
 * Whether @h can describe a run's checkpoint: the magic and head length of
 * this uapi, reserved fields zero, at least one tensor and chunk, a
 * power-of-two chunk size, params_len = nr_chunks * chunk_size (twice that
 * for a model with a 16-bit tensor), image_len
 * = (1 + nr_state) * params_len + 8 * nr_chunks, and a whole file that
 * fits in memory. 0, or -EINVAL with the reason in @why (if not NULL).
 */
int rw_ckpt_head_check(const struct rw_ckpt_head *h, char *why,
		       size_t whylen);

/* The file's length for a head that passed rw_ckpt_head_check(). */
size_t rw_ckpt_file_len(const struct rw_ckpt_head *h);

/*
 * Write the file of head @h and image @image (host order) to @out, @len
 * bytes (rw_ckpt_file_len(@h); else -EINVAL). @image may be
 * @out + RW_CKPT_IMAGE_OFF (converted in place) or a buffer that does not
 * overlap @out. 0, or -EINVAL with @why for a head that fails
 * rw_ckpt_head_check() or whose step is not the largest chunk version
 * (nothing is written then).
 */
int rw_ckpt_encode(const struct rw_ckpt_head *h, const void *image,
		   void *out, size_t len, char *why, size_t whylen);

/*
 * The head of the file whose first @len bytes are @buf, checked as far as
 * the prefix and head go (magic, format version, head length, the head's
 * own consistency); *@file_len is then the whole file's length. -EINVAL
 * with the reason in @why; a @len too short for the prefix and head is
 * "truncated in the header".
 */
int rw_ckpt_decode_head(const void *buf, size_t len, struct rw_ckpt_head *h,
			size_t *file_len, char *why, size_t whylen);

/*
 * Check the whole file of @len bytes at @buf (everything
 * rw_ckpt_decode_head() checks, then the length, the checksum and that
 * the step is the largest chunk version); on success convert it in
 * place: *@h is the head, and @buf + RW_CKPT_PREFIX_LEN holds the head
 * and *@image the image, in host order, contiguous. On failure @buf is
 * unchanged and -EINVAL comes with the reason in @why.
 */
int rw_ckpt_decode(void *buf, size_t len, struct rw_ckpt_head *h,
		   void **image, char *why, size_t whylen);

/*
 * Whether a file of @len bytes has the length head @h (checked) gives it:
 * 0, or -EINVAL and which way it is wrong in @why (truncated in the image,
 * truncated in the checksum, bytes after the checksum).
 */
int rw_ckpt_len_check(const struct rw_ckpt_head *h, uint64_t len, char *why,
		      size_t whylen);

/* Format a reason into @why (if not NULL) and return @err. */
int rw_ckpt_fail(char *why, size_t whylen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* RW_LIB_CKPT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The checkpoint file format (lib/ckpt.c, docs/checkpoint.md), without a
 * device: CRC-32C against the RFC 3720 vectors and its two
 * implementations against each other; a round trip whose bytes are
 * checked against the document field by field; and every corruption
 * refused with its reason: truncation at every length (header, image,
 * checksum), trailing bytes, each byte of a file flipped three ways (and
 * hundreds of a larger one), another magic, an older and a newer format
 * version, a head length that lies, heads whose lengths disagree (with a
 * checksum made to fit, so the checksum is not what catches them). The
 * encoder writes no file the decoder would refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

#include "../../lib/ckpt.h"
#include "../../lib/crc32c.h"
#include "ckpttest.h"

static unsigned char *ckt_file(struct rw_ckpt_head *h, unsigned char **img)
{
	unsigned char *f = malloc(CKT_FILE + 1);
	char why[256] = "";

	assert_non_null(f);
	ckt_head(h, CKT_CHUNKS, CKT_CHUNK, RW_OPTIM_ADAM, CKT_STATE, CKT_STEP);
	*img = ckt_image(h, 7);
	if (rw_ckpt_encode(h, *img, f, CKT_FILE, why, sizeof(why)))
		fail_msg("encode: %s", why);
	return f;
}

static uint64_t ckt_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void ckt_put_le(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/* Make the checksum fit the bytes again, after a deliberate change. */
static void ckt_reseal(unsigned char *f, size_t len)
{
	ckt_put_le(f + len - 8, rw_crc32c_sw(0, f, len - 8), 8);
}

/* Decode a copy of @f: the return, and the reason in @why. */
static int ckt_decode(const unsigned char *f, size_t len, char *why,
		      size_t whylen)
{
	unsigned char *copy = malloc(len ? len : 1);
	struct rw_ckpt_head h;
	void *image;
	int err;

	assert_non_null(copy);
	memcpy(copy, f, len);
	why[0] = '\0';
	err = rw_ckpt_decode(copy, len, &h, &image, why, whylen);
	/* A refused file is left as it was. */
	if (err && memcmp(copy, f, len))
		fail_msg("a refused decode changed the buffer");
	free(copy);
	return err;
}

static void ckt_refused(const unsigned char *f, size_t len, const char *what)
{
	char why[512];

	if (ckt_decode(f, len, why, sizeof(why)) != -EINVAL)
		fail_msg("%zu bytes accepted (want '%s')", len, what);
	if (!strstr(why, what))
		fail_msg("%zu bytes: want '%s', got '%s'", len, what, why);
}

/* ---- CRC-32C ---- */

static void ckt_crc_vectors(void **state)
{
	unsigned char buf[32];
	int i;

	(void)state;
	assert_int_equal(rw_crc32c(0, "123456789", 9), 0xe3069283U);
	assert_int_equal(rw_crc32c_sw(0, "123456789", 9), 0xe3069283U);
	/* RFC 3720, B.4. */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(rw_crc32c(0, buf, 32), 0x8a9136aaU);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(rw_crc32c(0, buf, 32), 0x62a8ab43U);
	for (i = 0; i < 32; i++)
		buf[i] = (unsigned char)i;
	assert_int_equal(rw_crc32c(0, buf, 32), 0x46dd794eU);
	assert_int_equal(rw_crc32c_sw(0, buf, 32), 0x46dd794eU);
	for (i = 0; i < 32; i++)
		buf[i] = (unsigned char)(31 - i);
	assert_int_equal(rw_crc32c(0, buf, 32), 0x113fdb5cU);
	/* Continuing a CRC is the CRC of the whole. */
	assert_int_equal(rw_crc32c(rw_crc32c(0, buf, 13), buf + 13, 19),
			 0x113fdb5cU);
	assert_int_equal(rw_crc32c(0, NULL, 0), 0);
}

/* Hardware and tables agree at every length and alignment. */
static void ckt_crc_paths(void **state)
{
	unsigned char buf[4096 + 16];
	uint32_t x = 1;
	size_t off, len;

	(void)state;
	for (off = 0; off < sizeof(buf); off++) {
		x = x * 1664525U + 1013904223U;
		buf[off] = (unsigned char)(x >> 24);
	}
	for (off = 0; off < 16; off++)
		for (len = 0; len <= 4096; len += len < 64 ? 1 : 61)
			if (rw_crc32c(0x1234, buf + off, len) !=
			    rw_crc32c_sw(0x1234, buf + off, len))
				fail_msg("offset %zu, length %zu", off, len);
}

/* ---- the format ---- */

/* The bytes of docs/checkpoint.md, field by field. */
static void ckt_round_trip(void **state)
{
	struct rw_ckpt_head h, back;
	unsigned char *f, *img, *inplace;
	const unsigned char *p;
	char why[256];
	void *image;
	int i;

	(void)state;
	f = ckt_file(&h, &img);
	assert_memory_equal(f, "RWCKPT\0\n", 8);
	assert_int_equal(ckt_le(f + 8, 4), 1);
	assert_int_equal(ckt_le(f + 12, 4), 104);
	p = f + 16;
	assert_memory_equal(p, "CKPT", 4);
	assert_int_equal(ckt_le(p + 4, 4), 104);
	assert_true(ckt_le(p + 8, 8) == CKT_HASH);
	assert_int_equal(ckt_le(p + 16, 4), 2);
	assert_int_equal(ckt_le(p + 20, 4), CKT_CHUNKS);
	assert_int_equal(ckt_le(p + 24, 4), CKT_CHUNK);
	assert_int_equal(ckt_le(p + 28, 4), CKT_STATE);
	assert_int_equal(ckt_le(p + 32, 4), RW_OPTIM_ADAM);
	for (i = 0; i < 6; i++)
		assert_int_equal(ckt_le(p + 36 + 4 * i, 4), h.hparams[i]);
	assert_int_equal(ckt_le(p + 36, 4), 0x3c23d70a);	/* 0.01f */
	assert_int_equal(ckt_le(p + 60, 4), 0);
	assert_int_equal(ckt_le(p + 64, 8), CKT_PARAMS);
	assert_int_equal(ckt_le(p + 72, 8), CKT_IMAGE);
	assert_memory_equal(p + 80, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	assert_true(rwm_zero(p + 88, 16));
	/* The image: 1.5f as a little-endian word, then the versions. */
	assert_memory_equal(f + 120, "\x00\x00\xc0\x3f", 4);
	for (i = 1; i < (1 + CKT_STATE) * CKT_PARAMS / 4; i++)
		assert_int_equal(ckt_le(f + 120 + 4 * i, 4),
				 ckt_le(img + 4 * i, 4));
	p = f + 120 + (1 + CKT_STATE) * CKT_PARAMS;
	assert_true(ckt_le(p, 8) == CKT_STEP - 1);
	assert_true(ckt_le(p + 8, 8) == CKT_STEP);
	assert_true(ckt_le(p + 16, 8) == CKT_STEP - 3);
	/* The checksum: CRC-32C of all before it, zero-extended. */
	assert_int_equal(ckt_le(f + CKT_FILE - 8, 4),
			 rw_crc32c_sw(0, f, CKT_FILE - 8));
	assert_int_equal(ckt_le(f + CKT_FILE - 4, 4), 0);

	/* Encoding in place (the image where the file has it): same bytes. */
	inplace = malloc(CKT_FILE);
	assert_non_null(inplace);
	memcpy(inplace + RW_CKPT_IMAGE_OFF, img, CKT_IMAGE);
	assert_int_equal(rw_ckpt_encode(&h, inplace + RW_CKPT_IMAGE_OFF,
					inplace, CKT_FILE, why, sizeof(why)), 0);
	assert_memory_equal(inplace, f, CKT_FILE);

	/* Decoded: the head and image, in host order, head before image. */
	assert_int_equal(rw_ckpt_decode(inplace, CKT_FILE, &back, &image, why,
					sizeof(why)), 0);
	assert_memory_equal(&back, &h, sizeof(h));
	assert_ptr_equal(image, inplace + RW_CKPT_IMAGE_OFF);
	assert_memory_equal(image, img, CKT_IMAGE);
	assert_memory_equal(inplace + RW_CKPT_PREFIX_LEN, &h, sizeof(h));
	free(inplace);
	free(img);
	free(f);
}

/* A checkpoint of a realistic size: 4 KiB chunks, momentum, step 0. */
static void ckt_round_trip_large(void **state)
{
	struct rw_ckpt_head h, back;
	unsigned char *img, *f;
	char why[256] = "";
	void *image;
	size_t len;

	(void)state;
	ckt_head(&h, 257, 4096, RW_OPTIM_MOMENTUM, 1, 0);
	img = ckt_image(&h, 3);
	/* Step 0: every version 0 (ckt_image would wrap below it). */
	memset(img + h.image_len - 8 * 257, 0, 8 * 257);
	len = rw_ckpt_file_len(&h);
	assert_int_equal(len, 120 + 2 * 257 * 4096 + 8 * 257 + 8);
	f = malloc(len);
	assert_non_null(f);
	if (rw_ckpt_encode(&h, img, f, len, why, sizeof(why)))
		fail_msg("encode: %s", why);
	if (rw_ckpt_decode(f, len, &back, &image, why, sizeof(why)))
		fail_msg("decode: %s", why);
	assert_memory_equal(&back, &h, sizeof(h));
	assert_memory_equal(image, img, h.image_len);
	free(f);
	free(img);
}

/* Every length short of the file, and one byte more. */
static void ckt_truncated(void **state)
{
	struct rw_ckpt_head h;
	unsigned char *f, *img;
	size_t len;

	(void)state;
	f = ckt_file(&h, &img);
	for (len = 0; len < CKT_FILE; len++) {
		if (len < RW_CKPT_IMAGE_OFF)
			ckt_refused(f, len, "truncated in the header");
		else if (len < RW_CKPT_IMAGE_OFF + CKT_IMAGE)
			ckt_refused(f, len, "truncated in the image");
		else
			ckt_refused(f, len, "truncated in the checksum");
	}
	ckt_refused(f, 0, "truncated in the header: 0 bytes, the header alone is 120");
	ckt_refused(f, 500, "truncated in the image: 500 bytes, its head says 728");
	ckt_refused(f, 724, "truncated in the checksum: 724 bytes, its head says 728");
	f[CKT_FILE] = 0;
	ckt_refused(f, CKT_FILE + 1,
		    "1 bytes after the checksum (the file has 729, its head says 728)");
	free(img);
	free(f);
}

/* The reason a flip at @off of the small file must give. */
static const char *ckt_flip_reason(size_t off)
{
	size_t h = off - RW_CKPT_PREFIX_LEN;

	if (off < 8)
		return "not a RackWeave checkpoint";
	if (off < 12)
		return "format version";
	if (off < 16)
		return "head length";
	if (off >= RW_CKPT_IMAGE_OFF)
		return "checksum mismatch: the file is damaged";
	/* Fields whose own checks catch any change, before the checksum. */
	if (h < 8 || (h >= 20 && h < 32) || (h >= 60 && h < 80) || h >= 88)
		return "corrupt head: ";
	return "checksum mismatch: the file is damaged";
}

static void ckt_flipped(void **state)
{
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };
	struct rw_ckpt_head h;
	unsigned char *f, *img;
	size_t off, m;

	(void)state;
	f = ckt_file(&h, &img);
	for (off = 0; off < CKT_FILE; off++) {
		for (m = 0; m < sizeof(masks); m++) {
			f[off] ^= masks[m];
			ckt_refused(f, CKT_FILE, ckt_flip_reason(off));
			f[off] ^= masks[m];
		}
	}
	ckt_refused(f, 0, "truncated");	/* the buffer is intact again: */
	assert_int_equal(ckt_decode(f, CKT_FILE, (char[256]){ 0 }, 256), 0);
	free(img);
	free(f);
}

/* Many positions of a larger file, image and checksum included. */
static void ckt_flipped_large(void **state)
{
	struct rw_ckpt_head h;
	unsigned char *img, *f;
	uint32_t x = 99;
	size_t len, off;
	int i;

	(void)state;
	ckt_head(&h, 64, 4096, RW_OPTIM_ADAM, 2, 1000);
	img = ckt_image(&h, 5);
	len = rw_ckpt_file_len(&h);
	f = malloc(len);
	assert_non_null(f);
	assert_int_equal(rw_ckpt_encode(&h, img, f, len, NULL, 0), 0);
	for (i = 0; i < 300; i++) {
		x = x * 1664525U + 1013904223U;
		off = i < 8 ? len - 1 - (size_t)i :
		      RW_CKPT_IMAGE_OFF + x % (len - RW_CKPT_OVERHEAD);
		f[off] ^= (unsigned char)(1U << (i % 8));
		ckt_refused(f, len, "checksum mismatch: the file is damaged");
		f[off] ^= (unsigned char)(1U << (i % 8));
	}
	free(f);
	free(img);
}

static void ckt_magic(void **state)
{
	struct rw_ckpt_head h;
	unsigned char *f, *img;

	(void)state;
	f = ckt_file(&h, &img);
	memcpy(f, "RWCKPT\0\r", 8);
	ckt_refused(f, CKT_FILE,
		    "not a RackWeave checkpoint (it does not start with \"RWCKPT\\0\\n\")");
	ckt_refused(f, 8, "not a RackWeave checkpoint");
	memcpy(f, "PK\3\4", 4);
	ckt_refused(f, 4, "not a RackWeave checkpoint");
	ckt_refused(f, CKT_FILE, "not a RackWeave checkpoint");
	free(img);
	free(f);
}

/* Checksums made to fit: the version check itself refuses. */
static void ckt_version(void **state)
{
	struct rw_ckpt_head h;
	unsigned char *f, *img;

	(void)state;
	f = ckt_file(&h, &img);
	ckt_put_le(f + 8, 0, 4);
	ckt_reseal(f, CKT_FILE);
	ckt_refused(f, CKT_FILE,
		    "format version 0, older than any this librackweave reads (1)");
	ckt_put_le(f + 8, 2, 4);
	ckt_reseal(f, CKT_FILE);
	ckt_refused(f, CKT_FILE,
		    "format version 2, newer than this librackweave reads (1): restore it with a newer RackWeave");
	/* Newer files may be longer: the version is read before the length. */
	ckt_refused(f, 16, "format version 2, newer");
	free(img);
	free(f);
}

static void ckt_head_length(void **state)
{
	static const uint32_t lies[] = { 0, 100, 103, 105, 112, 0xffffffffU };
	struct rw_ckpt_head h;
	unsigned char *f, *img;
	char want[128];
	size_t i;

	(void)state;
	f = ckt_file(&h, &img);
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		ckt_put_le(f + 12, lies[i], 4);
		ckt_reseal(f, CKT_FILE);
		snprintf(want, sizeof(want),
			 "head length %u, but format 1 has a 104-byte head",
			 lies[i]);
		ckt_refused(f, CKT_FILE, want);
	}
	ckt_put_le(f + 12, 104, 4);
	/* The head's own copy of its length lies. */
	ckt_put_le(f + 16 + 4, 112, 4);
	ckt_reseal(f, CKT_FILE);
	ckt_refused(f, CKT_FILE, "corrupt head: head_len 112, not 104");
	free(img);
	free(f);
}

/* Lengths in the head that disagree, with a checksum that fits. */
static void ckt_lengths(void **state)
{
	static const struct {
		int off, size;		/* in the head */
		uint64_t value;
		const char *why;
	} lies[] = {
		{ 72, 8, CKT_IMAGE + 8,
		  "corrupt head: image_len 608 does not match nr_state 2, params_len 192 and nr_chunks 3" },
		{ 72, 8, CKT_IMAGE - 24,
		  "corrupt head: image_len 576 does not match" },
		{ 28, 4, 1,
		  "corrupt head: image_len 600 does not match nr_state 1, params_len 192 and nr_chunks 3" },
		{ 28, 4, 0xffffffffU, "corrupt head: image_len 600 does not match" },
		{ 64, 8, CKT_PARAMS + 64,
		  "corrupt head: params_len 256 is not nr_chunks 3 x chunk_size 64" },
		{ 20, 4, 4,
		  "corrupt head: params_len 192 is not nr_chunks 4 x chunk_size 64" },
		{ 20, 4, 0, "corrupt head: 2 tensors in 0 chunks" },
		{ 24, 4, 48, "corrupt head: chunk_size 48 is not a power of two" },
		{ 24, 4, 128, "corrupt head: params_len 192 is not nr_chunks 3 x chunk_size 128" },
		{ 16, 4, 0, "corrupt head: 0 tensors in 3 chunks" },
		{ 0, 4, 0x54504b44, "corrupt head: head magic 0x54504b44, not 0x54504b43" },
		{ 60, 4, 1, "corrupt head: reserved head fields are not zero" },
		{ 96, 8, 1ULL << 40, "corrupt head: reserved head fields are not zero" },
		{ 80, 8, CKT_STEP + 1,
		  "corrupt head: step 72623859790382857, but the largest chunk version is 72623859790382856" },
	};
	struct rw_ckpt_head h;
	unsigned char *f, *img, *copy;
	size_t i;

	(void)state;
	f = ckt_file(&h, &img);
	copy = malloc(CKT_FILE);
	assert_non_null(copy);
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		memcpy(copy, f, CKT_FILE);
		ckt_put_le(copy + 16 + lies[i].off, lies[i].value, lies[i].size);
		ckt_reseal(copy, CKT_FILE);
		ckt_refused(copy, CKT_FILE, lies[i].why);
	}
	free(copy);
	free(img);
	free(f);
}

/* The encoder writes no file a decoder would refuse. */
static void ckt_encode_refuses(void **state)
{
	struct rw_ckpt_head h, bad;
	unsigned char *img, *out;
	char why[256];

	(void)state;
	ckt_head(&h, CKT_CHUNKS, CKT_CHUNK, RW_OPTIM_ADAM, CKT_STATE, CKT_STEP);
	img = ckt_image(&h, 1);
	out = calloc(1, CKT_FILE + 8);
	assert_non_null(out);
	bad = h;
	bad.step++;
	assert_int_equal(rw_ckpt_encode(&bad, img, out, CKT_FILE, why,
					sizeof(why)), -EINVAL);
	assert_string_equal(why, "bad head: step 72623859790382857, but the largest chunk version is 72623859790382856");
	bad = h;
	bad.image_len += 8;
	assert_int_equal(rw_ckpt_encode(&bad, img, out, CKT_FILE + 8, why,
					sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "bad head: image_len 608 does not match"));
	assert_int_equal(rw_ckpt_encode(&h, img, out, CKT_FILE + 1, why,
					sizeof(why)), -EINVAL);
	assert_string_equal(why, "729 bytes for a file of 728");
	assert_true(rwm_zero(out, CKT_FILE + 8));
	free(out);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ckt_crc_vectors),
		cmocka_unit_test(ckt_crc_paths),
		cmocka_unit_test(ckt_round_trip),
		cmocka_unit_test(ckt_round_trip_large),
		cmocka_unit_test(ckt_truncated),
		cmocka_unit_test(ckt_flipped),
		cmocka_unit_test(ckt_flipped_large),
		cmocka_unit_test(ckt_magic),
		cmocka_unit_test(ckt_version),
		cmocka_unit_test(ckt_head_length),
		cmocka_unit_test(ckt_lengths),
		cmocka_unit_test(ckt_encode_refuses),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

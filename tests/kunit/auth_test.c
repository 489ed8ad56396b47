// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rackweave_auth: HMAC-SHA256 against RFC 4231's test cases,
 * and the job tag and connect authenticator (kmod/rdma/auth.c) against
 * values computed outside the kernel (Python's hmac module) from the
 * construction documented there, so a peer written elsewhere agrees.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "rw.h"
#include "rdma/auth.h"
#include "rdma/wire.h"

struct rw_auth_t_vec {
	const char *name;
	u8 key_byte;			/* 0: use key */
	size_t key_len;
	const char *key;
	const char *data;
	u8 mac[SHA256_DIGEST_SIZE];
};

static const struct rw_auth_t_vec rw_auth_t_vecs[] = {
	{ "RFC 4231 case 1", 0x0b, 20, NULL, "Hi There",
	  { 0xb0, 0x34, 0x4c, 0x61, 0xd8, 0xdb, 0x38, 0x53, 0x5c, 0xa8, 0xaf,
	    0xce, 0xaf, 0x0b, 0xf1, 0x2b, 0x88, 0x1d, 0xc2, 0x00, 0xc9, 0x83,
	    0x3d, 0xa7, 0x26, 0xe9, 0x37, 0x6c, 0x2e, 0x32, 0xcf, 0xf7 } },
	{ "RFC 4231 case 2", 0, 4, "Jefe", "what do ya want for nothing?",
	  { 0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24,
	    0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27,
	    0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43 } },
	{ "RFC 4231 case 6 (key longer than a block)", 0xaa, 131, NULL,
	  "Test Using Larger Than Block-Size Key - Hash Key First",
	  { 0x60, 0xe4, 0x31, 0x59, 0x1e, 0xe0, 0xb6, 0x7f, 0x0d, 0x8a, 0x26,
	    0xaa, 0xcb, 0xf5, 0xb7, 0x7f, 0x8e, 0x0b, 0xc6, 0x21, 0x37, 0x28,
	    0xc5, 0x14, 0x05, 0x46, 0x04, 0x0f, 0x0e, 0xe3, 0x7f, 0x54 } },
};

static void rw_auth_t_vec_desc(const struct rw_auth_t_vec *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_auth_t_vec, rw_auth_t_vecs, rw_auth_t_vec_desc);

static void rw_auth_hmac_test(struct kunit *test)
{
	const struct rw_auth_t_vec *v = test->param_value;
	size_t n = strlen(v->data), half = n / 2;
	/* The message in two parts: parts concatenate. */
	const struct rw_auth_part parts[] = {
		{ v->data, half }, { v->data + half, n - half },
	};
	u8 key[131], mac[SHA256_DIGEST_SIZE];

	if (v->key)
		memcpy(key, v->key, v->key_len);
	else
		memset(key, v->key_byte, v->key_len);
	rw_auth_hmac(key, v->key_len, parts, ARRAY_SIZE(parts), mac);
	KUNIT_EXPECT_EQ(test, memcmp(mac, v->mac, sizeof(mac)), 0);
}

/* Token 00 01 .. 1f, job "train1", rank 3, epoch 7: see the file comment. */
static const u8 rw_auth_t_tag[RW_WIRE_TAG_LEN] = {
	0x9c, 0xcd, 0x56, 0x7f, 0x56, 0x9b, 0x21, 0x89,
};

/*
 * ... nonce 0x1122334455667788, time_s 1795000000, wire version 6 (the
 * version is signed: a request of another version never verifies).
 */
static const u8 rw_auth_t_auth[RW_WIRE_AUTH_LEN] = {
	0x4d, 0x7f, 0x39, 0xef, 0x8c, 0x02, 0x51, 0xcc,
	0x86, 0x17, 0xd8, 0x93, 0xd2, 0x7e, 0x39, 0x26,
};

static void rw_auth_t_setup(u8 *token, struct rw_wire_req *w)
{
	struct rw_wire_req_info in = {
		.rank = 3, .epoch = 7, .nonce = 0x1122334455667788ULL,
		.time_s = 1795000000ULL,
	};
	u32 i;

	for (i = 0; i < RW_JOB_TOKEN_LEN; i++)
		token[i] = (u8)i;
	rw_auth_job_tag(token, "train1", in.job_tag);
	rw_wire_req_pack(w, &in);
}

static void rw_auth_known_values_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_wire_req w;

	rw_auth_t_setup(token, &w);
	KUNIT_EXPECT_EQ(test, memcmp(w.job_tag, rw_auth_t_tag, RW_WIRE_TAG_LEN), 0);
	rw_auth_req_sign(token, &w);
	KUNIT_EXPECT_EQ(test, memcmp(w.auth, rw_auth_t_auth, RW_WIRE_AUTH_LEN), 0);
	KUNIT_EXPECT_TRUE(test, rw_auth_req_ok(token, &w));
}

static void rw_auth_tag_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN], a[RW_WIRE_TAG_LEN], b[RW_WIRE_TAG_LEN];
	struct rw_wire_req w;

	rw_auth_t_setup(token, &w);
	rw_auth_job_tag(token, "train1", a);
	rw_auth_job_tag(token, "train2", b);
	KUNIT_EXPECT_NE(test, memcmp(a, b, sizeof(a)), 0);
	token[31] ^= 1;
	rw_auth_job_tag(token, "train1", b);
	KUNIT_EXPECT_NE(test, memcmp(a, b, sizeof(a)), 0);
}

/* Any byte changed in flight, or another token, and the check fails. */
static void rw_auth_tamper_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_wire_req w, bad;
	size_t i;

	rw_auth_t_setup(token, &w);
	rw_auth_req_sign(token, &w);
	KUNIT_ASSERT_TRUE(test, rw_auth_req_ok(token, &w));
	for (i = 0; i < sizeof(w); i++) {
		bad = w;
		((u8 *)&bad)[i] ^= 0x01;
		KUNIT_EXPECT_FALSE_MSG(test, rw_auth_req_ok(token, &bad),
				       "byte %zu flipped", i);
	}
	token[0] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, rw_auth_req_ok(token, &w));
}

static struct kunit_case rw_auth_test_cases[] = {
	KUNIT_CASE_PARAM(rw_auth_hmac_test, rw_auth_t_vec_gen_params),
	KUNIT_CASE(rw_auth_known_values_test),
	KUNIT_CASE(rw_auth_tag_test),
	KUNIT_CASE(rw_auth_tamper_test),
	{}
};

static struct kunit_suite rw_auth_test_suite = {
	.name = "rackweave_auth",
	.test_cases = rw_auth_test_cases,
};

kunit_test_suite(rw_auth_test_suite);

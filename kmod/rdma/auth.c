// SPDX-License-Identifier: GPL-2.0
/*
 * Who may connect: HMAC-SHA256 (RFC 2104) over the kernel's SHA-256
 * library, keyed by a job's 32-byte token, for the two values of the
 * connect request that prove a peer holds the token:
 *
 *   job tag        HMAC(token, "rackweave job tag" NUL name)[0..7]
 *   authenticator  HMAC(token, "rackweave connect" NUL request bytes
 *                  before the authenticator)[0..15]
 *
 * The labels keep the two uses apart (a tag is never a valid
 * authenticator), and the authenticator covers the rank, epoch, nonce and
 * time, so none of them can be changed in flight. Truncating HMAC-SHA256
 * to 128 bits leaves 2^128 guesses to forge an authenticator; the tag is
 * not a secret proof, only a name that does not give the name away.
 */
#include <crypto/algapi.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "auth.h"

static const char rw_auth_tag_label[] = "rackweave job tag";
static const char rw_auth_req_label[] = "rackweave connect";

void rw_auth_hmac(const u8 *key, size_t key_len,
		  const struct rw_auth_part *parts, u32 nr_parts,
		  u8 out[SHA256_DIGEST_SIZE])
{
	u8 k[SHA256_BLOCK_SIZE] = {}, pad[SHA256_BLOCK_SIZE];
	struct sha256_state st;
	u32 i;

	/* A key longer than a block is replaced by its hash. */
	if (key_len > SHA256_BLOCK_SIZE)
		sha256(key, key_len, k);
	else
		memcpy(k, key, key_len);

	for (i = 0; i < SHA256_BLOCK_SIZE; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&st);
	sha256_update(&st, pad, sizeof(pad));
	for (i = 0; i < nr_parts; i++)
		sha256_update(&st, parts[i].data, parts[i].len);
	sha256_final(&st, out);

	for (i = 0; i < SHA256_BLOCK_SIZE; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&st);
	sha256_update(&st, pad, sizeof(pad));
	sha256_update(&st, out, SHA256_DIGEST_SIZE);
	sha256_final(&st, out);

	memzero_explicit(k, sizeof(k));
	memzero_explicit(pad, sizeof(pad));
}
EXPORT_SYMBOL_IF_KUNIT(rw_auth_hmac);

void rw_auth_job_tag(const u8 token[RW_JOB_TOKEN_LEN], const char *name,
		     u8 tag[RW_WIRE_TAG_LEN])
{
	const struct rw_auth_part parts[] = {
		{ rw_auth_tag_label, sizeof(rw_auth_tag_label) },
		{ name, strnlen(name, RW_JOB_NAME_MAX) },
	};
	u8 mac[SHA256_DIGEST_SIZE];

	rw_auth_hmac(token, RW_JOB_TOKEN_LEN, parts, ARRAY_SIZE(parts), mac);
	memcpy(tag, mac, RW_WIRE_TAG_LEN);
	memzero_explicit(mac, sizeof(mac));
}
EXPORT_SYMBOL_IF_KUNIT(rw_auth_job_tag);

static void rw_auth_req_mac(const u8 token[RW_JOB_TOKEN_LEN],
			    const struct rw_wire_req *w,
			    u8 mac[SHA256_DIGEST_SIZE])
{
	const struct rw_auth_part parts[] = {
		{ rw_auth_req_label, sizeof(rw_auth_req_label) },
		{ w, offsetof(struct rw_wire_req, auth) },
	};

	rw_auth_hmac(token, RW_JOB_TOKEN_LEN, parts, ARRAY_SIZE(parts), mac);
}

void rw_auth_req_sign(const u8 token[RW_JOB_TOKEN_LEN], struct rw_wire_req *w)
{
	u8 mac[SHA256_DIGEST_SIZE];

	rw_auth_req_mac(token, w, mac);
	memcpy(w->auth, mac, sizeof(w->auth));
	memzero_explicit(mac, sizeof(mac));
}
EXPORT_SYMBOL_IF_KUNIT(rw_auth_req_sign);

bool rw_auth_req_ok(const u8 token[RW_JOB_TOKEN_LEN],
		    const struct rw_wire_req *w)
{
	u8 mac[SHA256_DIGEST_SIZE];
	bool ok;

	rw_auth_req_mac(token, w, mac);
	ok = !crypto_memneq(mac, w->auth, sizeof(w->auth));
	memzero_explicit(mac, sizeof(mac));
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(rw_auth_req_ok);

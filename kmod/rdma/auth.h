/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may connect (implemented in rdma/auth.c): the job tag and the connect
 * request's authenticator, both HMAC-SHA256 keyed by the job's token, so
 * only a holder of the token can name a job on the wire or connect to it.
 */
#ifndef _RW_RDMA_AUTH_H
#define _RW_RDMA_AUTH_H

#include <crypto/sha2.h>
#include <linux/types.h>

#include "rackweave.h"

/* One piece of an HMAC's message. */
struct rw_auth_part {
	const void *data;
	size_t len;
};

/* HMAC-SHA256 (RFC 2104) of the concatenated @parts under @key. */
void rw_auth_hmac(const u8 *key, size_t key_len,
		  const struct rw_auth_part *parts, u32 nr_parts,
		  u8 out[SHA256_DIGEST_SIZE]);

/* The tag that names job @name on the wire (name: NUL-terminated). */
void rw_auth_job_tag(const u8 token[RW_JOB_TOKEN_LEN], const char *name,
		     u8 tag[RW_WIRE_TAG_LEN]);

/* Fill @w->auth: the authenticator of everything in @w before it. */
void rw_auth_req_sign(const u8 token[RW_JOB_TOKEN_LEN], struct rw_wire_req *w);

/* Whether @w->auth is right for @token, compared in constant time. */
bool rw_auth_req_ok(const u8 token[RW_JOB_TOKEN_LEN],
		    const struct rw_wire_req *w);

#endif /* _RW_RDMA_AUTH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who gets in (implemented in rdma/admit.c): the box's checks of a connect
 * request, run before anything is created for the peer.
 */
#ifndef _RW_RDMA_ADMIT_H
#define _RW_RDMA_ADMIT_H

#include <linux/types.h>

#include "rdma/wire.h"

struct rw_job;

struct rw_admit {
	struct rw_job *job;		/* a reference, on success */
	struct rw_wire_req_info req;
	/* The request's RDMA READ limits (rdma_cm's), set by the listener. */
	u8 peer_initiator_depth;
	u8 peer_responder_resources;
};

/*
 * Check the private data of a connect request at @now (CLOCK_REALTIME,
 * seconds): 0 with *@out filled, or the refusal as a negative errno, as
 * uapi/rackweave.h ("RDMA wire") lists them, with *@why saying what was
 * wrong for the log. Only an authenticated request leaves a trace: its
 * nonce, in its rank's table (refused or not; admit.c says why). Nothing
 * else changes.
 */
int rw_admit_check(const void *data, size_t len, s64 now,
		   struct rw_admit *out, const char **why);

#endif /* _RW_RDMA_ADMIT_H */

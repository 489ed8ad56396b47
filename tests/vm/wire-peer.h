/* SPDX-License-Identifier: GPL-2.0 */
/* What wire-peer.c (connect) and wire-train.c (its train mode) share. */
#ifndef _RW_TESTS_WIRE_PEER_H
#define _RW_TESTS_WIRE_PEER_H

#include <rdma/rdma_cma.h>

/*
 * The QP's queues. Receives take the box's parameter writes, which may
 * come for every chunk a worker pushed (a push holds no credit once
 * received), so there are more of them than sends: a write that finds no
 * receive waits for rdma_cm's minimum RNR timer, 655 ms, before its
 * retry, which user space cannot shorten.
 */
#define WIRE_PEER_SENDS	1024
#define WIRE_PEER_RECVS	4096

/* "EACCES" for EACCES: the names the tests match. */
const char *wire_errno_name(int e);

/*
 * Poll @cq, past send completions, for the first receive (@ms at most):
 * 0 and its byte count in *@len, or 1 after printing the error.
 */
int wire_recv_wait(struct ibv_cq *cq, int ms, uint32_t *len);

/* @len zeroed bytes at *@buf, page-aligned, registered with access @acc. */
struct ibv_mr *wire_reg(struct ibv_pd *pd, void **buf, size_t len, int acc);

/*
 * Train over the established connection @id (argv: RANK WORKERS ITERS
 * [FAULT]); the exit status wire-peer returns.
 */
int wire_train(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	       struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv);

/* The same, bench mode (argv: RANK NELEMS ITERS [OPTION...]). */
int wire_bench(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	       struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv);

/*
 * Setup mode (wire-setup.c; argv: NELEMS [drop MS]): declare a model of
 * NELEMS f32 and print the box's answer, or disconnect after MS ms.
 */
int wire_setup(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	       struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv);

/*
 * Gift mode (wire-gift.c; argv: CASE): as a box of the job's set, offer
 * a gift wrong on purpose and print the box's reply, then whether it hung
 * up.
 */
int wire_gift(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	      struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv);

#endif /* _RW_TESTS_WIRE_PEER_H */

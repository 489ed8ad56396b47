// SPDX-License-Identifier: GPL-2.0
/*
 * wire-peer's setup mode: a peer that declares a model it has no memory
 * for, as a tenant probing the box's limits would.
 *
 *   wire-peer SRC DST PORT REQUEST_HEX setup NELEMS [drop MS]
 *
 * Sends one setup message for a model of one f32 tensor of NELEMS
 * elements, whose window claims one segment of the largest size over a
 * registration of one page (the box takes a peer's word for its window:
 * a write past the registration fails at the peer, and the connection
 * closes). Prints the box's answer: "refused EDQUOT" (and so on) or
 * "set up N chunks", then disconnects. With "drop MS" it waits MS
 * milliseconds after sending, prints "dropped" and disconnects without
 * waiting for the answer: the box must give the setup up.
 * Exit status: 0 for an answer or a drop, 1 on an error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "rdma/wire.h"
#include "wire-peer.h"

#define SETUP_WAIT_MS	120000

/* The box's reply to the setup, printed. */
static int setup_answer(struct ibv_cq *cq, const void *msg)
{
	struct rw_wire_reply_info rep;
	const char *why = "";
	uint32_t len;

	if (wire_recv_wait(cq, SETUP_WAIT_MS, &len))
		return 1;
	if (rw_wire_reply_parse(msg, len, &rep, &why)) {
		printf("error: reply: %s\n", why);
		return 1;
	}
	if (rep.status)
		printf("refused %s\n", wire_errno_name((int)rep.status));
	else
		printf("set up %u chunks\n", rep.nr_chunks);
	return 0;
}

int wire_setup(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	       struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv)
{
	struct rw_tensor_desc one = { .key = 1, .dtype = RW_DTYPE_F32 };
	struct rw_wire_setup_info si = {
		.nr_tensors = 1,
		.win = { .seg_shift = RW_WIRE_SEG_SHIFT_MAX, .nr_segs = 1 },
	};
	struct rw_wire_seg_info seg = {};
	struct ibv_mr *in_mr, *out_mr, *win_mr;
	struct ibv_recv_wr rwr = { .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.num_sge = 1,
	}, *bad;
	struct ibv_sge in_sge, out_sge;
	struct rdma_cm_event *ev;
	void *in, *out, *win;
	long drop_ms = -1;
	int n;

	(void)ch;
	if (argc < 1)
		return 2;
	one.nelems = strtoull(argv[0], NULL, 0);
	if (argc == 3 && !strcmp(argv[1], "drop"))
		drop_ms = strtol(argv[2], NULL, 0);
	else if (argc != 1)
		return 2;
	in_mr = wire_reg(pd, &in, RW_WIRE_MSG_MAX, IBV_ACCESS_LOCAL_WRITE);
	out_mr = wire_reg(pd, &out, RW_WIRE_MSG_MAX, 0);
	win_mr = wire_reg(pd, &win, RW_WIRE_MSG_MAX, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	if (!in_mr || !out_mr || !win_mr) {
		printf("error: registration: %s\n", strerror(errno));
		return 1;
	}
	in_sge = (struct ibv_sge){
		.addr = (uintptr_t)in, .length = RW_WIRE_MSG_MAX,
		.lkey = in_mr->lkey,
	};
	rwr.sg_list = &in_sge;
	if (ibv_post_recv(id->qp, &rwr, &rbad)) {
		printf("error: post_recv: %s\n", strerror(errno));
		return 1;
	}
	seg.addr = (uintptr_t)win;
	seg.rkey = win_mr->rkey;
	n = rw_wire_setup_pack(out, RW_WIRE_MSG_MAX, &si, &seg, &one);
	if (n < 0) {
		printf("error: setup pack: %d\n", n);
		return 1;
	}
	out_sge = (struct ibv_sge){
		.addr = (uintptr_t)out, .length = (uint32_t)n,
		.lkey = out_mr->lkey,
	};
	wr.sg_list = &out_sge;
	if (ibv_post_send(id->qp, &wr, &bad)) {
		printf("error: post_send: %s\n", strerror(errno));
		return 1;
	}
	if (drop_ms < 0) {
		n = setup_answer(cq, in);
	} else {
		usleep((useconds_t)drop_ms * 1000);
		printf("dropped\n");
		n = 0;
	}
	/* Leave at once, as a peer that goes away does. */
	rdma_disconnect(id);
	if (!rdma_get_cm_event(ch, &ev))
		rdma_ack_cm_event(ev);
	return n;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * wire-peer's gift mode: a peer admitted as a box of the job's set that
 * gives chunks of a move (uapi "Gifts"), its gift wrong on purpose.
 *
 *   wire-peer SRC DST PORT REQUEST_HEX gift CASE
 *
 * The gift is box 2's (the request must say box 2). CASE "set": a
 * well-formed gift of one chunk for a set the job does not
 * have (epoch 9, digest 1); "short": a gift cut after its header. Prints
 * the box's reply ("refused EXDEV", "took N") and then, waiting up to
 * 10 s for the box to hang up, "closed by the box" or "still open".
 * Exit status: 0 for a reply, 1 on an error.
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

#define GIFT_WAIT_MS	60000

/* The box's reply to the gift, printed. */
static int gift_reply(struct ibv_cq *cq, const void *msg)
{
	u32 status, taken, len;
	const char *why = "";

	if (wire_recv_wait(cq, GIFT_WAIT_MS, &len))
		return 1;
	if (rw_wire_gift_reply_parse(msg, len, &status, &taken, &why)) {
		printf("error: reply: %s\n", why);
		return 1;
	}
	if (status)
		printf("refused %s\n", wire_errno_name((int)status));
	else
		printf("took %u\n", taken);
	return 0;
}

/* Whether the box hangs up within 10 s: what it says of the link. */
static void gift_hangup(struct rdma_event_channel *ch)
{
	struct pollfd fd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&fd, 1, 10000) > 0 && !rdma_get_cm_event(ch, &ev)) {
		printf("%s\n", ev->event == RDMA_CM_EVENT_DISCONNECTED ?
		       "closed by the box" : rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
		return;
	}
	printf("still open\n");
}

int wire_gift(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	      struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv)
{
	static const u64 map[1] = { 1 };
	struct rw_wire_gift_info g = {
		.giver = 2, .epoch = 9, .digest = 1, .layout_hash = 1,
		.nr_chunks = 23, .chunk_size = 4096, .first = 0, .nr_map = 23,
		.nr_given = 1, .win = { .seg_shift = 12, .nr_segs = 2 },
		.map = map,
	};
	struct rw_wire_seg_info segs[2];
	struct ibv_mr *in_mr, *out_mr, *win_mr;
	struct ibv_recv_wr rwr = { .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.num_sge = 1,
	}, *bad;
	struct ibv_sge in_sge, out_sge;
	void *in, *out, *win;
	int n, i;

	if (argc != 1 || (strcmp(argv[0], "set") && strcmp(argv[0], "short")))
		return 2;
	in_mr = wire_reg(pd, &in, RW_WIRE_MSG_MAX, IBV_ACCESS_LOCAL_WRITE);
	out_mr = wire_reg(pd, &out, RW_WIRE_MSG_MAX, 0);
	win_mr = wire_reg(pd, &win, 2 << 12, IBV_ACCESS_REMOTE_READ);
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
	for (i = 0; i < 2; i++) {
		segs[i].addr = (uintptr_t)win + ((u64)i << 12);
		segs[i].rkey = win_mr->rkey;
	}
	n = rw_wire_gift_pack(out, RW_WIRE_MSG_MAX, &g, segs);
	if (n < 0) {
		printf("error: gift pack: %d\n", n);
		return 1;
	}
	if (!strcmp(argv[0], "short"))
		n = RW_WIRE_GIFT_SIZE;
	out_sge = (struct ibv_sge){
		.addr = (uintptr_t)out, .length = (uint32_t)n,
		.lkey = out_mr->lkey,
	};
	wr.sg_list = &out_sge;
	if (ibv_post_send(id->qp, &wr, &bad)) {
		printf("error: post_send: %s\n", strerror(errno));
		return 1;
	}
	n = gift_reply(cq, in);
	if (!n)
		gift_hangup(ch);
	rdma_disconnect(id);
	return n;
}

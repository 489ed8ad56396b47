// SPDX-License-Identifier: GPL-2.0
/*
 * wire-peer's "train" mode: a remote worker written straight against
 * libibverbs, speaking the data path as uapi/rackweave.h documents it
 * ("Control messages"), with the module's pure wire.c and layout.c for
 * packing and geometry only.
 *
 *   wire-peer SRC DST PORT REQUEST_HEX train RANK WORKERS ITERS [FAULT]
 *
 * Sends the setup for the model of wire-model.h with its parameter
 * window, reads the reply and the initial parameters, then per iteration
 * writes every chunk's gradient with an immediate and waits for every
 * chunk's answer. Prints "set up N chunks" and then, as wire-local does:
 *
 *   trained ITERS exact HASH | trained ITERS mismatch N HASH
 *   refused ERRNO            the box refused the setup
 *
 * FAULT "hold" keeps the connection after the result until stdin ends;
 * "stream" trains as bench's stream goes (below): each chunk's gradient of
 * the next iteration written and pushed as soon as its answer is in, so
 * the box sees a chunk's next push before the last ones of its iteration.
 *
 *   wire-peer SRC DST PORT REQUEST_HEX bench RANK NELEMS ITERS [OPTION...]
 *
 * declares one tensor of NELEMS floats, times the initial parameters (a
 * pull of the model), then ITERS iterations of pushing every chunk and
 * waiting for every answer, then a stream of BENCH_STREAM_ITERS
 * iterations (each chunk pushed again as soon as its answer is in, as
 * ib_write_bw streams), and prints
 *   bench bytes B chunks N credits C iters I pull_s P push_s S
 *         pushpull_s T stream_iters J stream_push_s U stream_pushpull_s V
 * OPTIONs: "hold" (keep the connection until stdin closes), "reverse"
 * (the iterations push the last chunk first), "nostream" (no stream:
 * J is 0 and U and V are the iterations' S and T).
 * (push_s: the time until the iterations' pushes had completed).
 * "wait" prints "window ADDR RKEY", the address and key of chunk 0's slot
 * in the box's gradient window, then waits for stdin to end before it
 * trains, and prints "pushed" once the pushes of the first iteration are
 * out (their writes acknowledged), before their answers.
 *
 * "foreign", once set up, reads "ADDR RKEY" from stdin (a "window" line
 * of another peer), then RDMA WRITEs 4 KiB (1024.0f each) at ADDR under
 * RKEY, a key the box gave another connection, without an immediate;
 * "foreign-imm" writes 64 bytes there with a push's immediate for chunk 0
 * (one packet: the box's receive takes it); "past" writes 4 KiB at once
 * under its own window's key, just past the window's end. Each prints
 * "write failed: STATUS" or "write completed", and after a failure waits
 * for the box to end the connection ("disconnected"; foreign_write() says
 * why that may come first).
 *
 * Any other FAULT breaks the protocol once the run is set up, and the box
 * must end the connection ("disconnected" is printed):
 *   bad-imm      a push whose chunk id is beyond the model
 *   twice        a chunk pushed twice before its answer
 *   other-nic    (a request naming one connection of several) a chunk
 *                another connection carries
 *   bad-window   (at setup) a parameter window too small for the model:
 *                refused EINVAL
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "rdma/wire.h"
#include "chunk/layout.h"
#include "wire-model.h"
#include "wire-peer.h"

#define TR_WAIT_MS	60000
#define BENCH_STREAM_ITERS 4	/* the stream pushes each chunk this often */

struct tr {
	struct rdma_cm_id *id;
	struct rdma_event_channel *ch;
	struct ibv_cq *cq;
	uint8_t *msg;			/* receives land here (the reply) */
	uint8_t *out;			/* the setup */
	float *grad, *params;
	struct ibv_mr *msg_mr, *out_mr, *grad_mr, *params_mr;
	const struct rw_tensor_desc *tensors;
	uint32_t nr_tensors;
	struct rw_layout l;
	struct rw_layout_tensor lt[WM_NR_TENSORS];
	u64 offs[WM_NR_TENSORS];
	u32 by_key[WM_NR_TENSORS];
	struct rw_wire_reply_info rep;
	struct rw_wire_seg segs[256];	/* the box's gradient window */
	int got_reply;
	uint32_t params_seen;		/* parameter writes received */
	uint8_t *awaiting;		/* [nr_chunks] */
	uint8_t *have;			/* [nr_chunks] parameters came */
	uint32_t in_flight;
	uint32_t sq;			/* sends not yet completed */
	/*
	 * The stream's answered chunks, a ring of nr_chunks: a chunk is in it
	 * at most once, from its answer until the stream takes it to push it
	 * again. Answers also come while a push waits for a credit.
	 */
	uint32_t *answered;
	uint32_t ans_head, ans_tail;	/* taken, added (mod 2^32) */
	int fill;			/* stream: write each gradient first */
	int reverse;			/* iterations push the last chunk first */
	int announce;			/* print "pushed" after iteration 0's */
	uint32_t rank;
};

static int post_recv(struct tr *t)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->msg, .length = RW_WIRE_MSG_MAX,
		.lkey = t->msg_mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(t->id->qp, &wr, &bad);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait (100 ms at most) for the CQ's channel to fire. A connection event
 * meanwhile (the box disconnected, its device or module went) ends the
 * run: -1 with the event printed ("disconnected" for a disconnect).
 */
static int wait_cq(struct tr *t)
{
	struct pollfd pfd[2] = {
		{ .fd = t->cq->channel->fd, .events = POLLIN },
		{ .fd = t->ch->fd, .events = POLLIN },
	};
	struct rdma_cm_event *ev;
	struct ibv_cq *cq;
	void *ctx;

	if (poll(pfd, 2, 100) <= 0)
		return 0;
	/*
	 * Completions first: the box's last message completes here before
	 * its disconnect can arrive, and must not be lost to it.
	 */
	if (pfd[1].revents && !pfd[0].revents) {
		if (rdma_get_cm_event(t->ch, &ev)) {
			printf("error: rdma_get_cm_event: %s\n", strerror(errno));
			return -1;
		}
		printf("%s\n", ev->event == RDMA_CM_EVENT_DISCONNECTED ?
		       "disconnected" : rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (ibv_get_cq_event(t->cq->channel, &cq, &ctx))
		return -1;
	ibv_ack_cq_events(cq, 1);
	return 0;
}

/* Wait for and handle one completion: 0, or -1 with a line printed. */
/*
 * Whether the box's window names an address outside [0, its size): the
 * module registers windows from 0, so segment i is at i << seg_shift and
 * nothing in the reply says where the box's memory is.
 */
static int leaks_addresses(const struct rw_wire_win *w)
{
	uint64_t size = (uint64_t)w->nr_segs << w->seg_shift;
	struct rw_wire_seg_info s;
	uint32_t i;

	for (i = 0; i < w->nr_segs; i++) {
		rw_wire_seg_get(w, i, &s);
		if (s.addr >= size || size - s.addr < (1ULL << w->seg_shift))
			return 1;
	}
	return 0;
}

static int step(struct tr *t)
{
	long end = now_ms() + TR_WAIT_MS;
	struct rw_wire_imm imm;
	const char *why = "";
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(t->cq, 1, &wc)) == 0) {
		if (now_ms() > end) {
			printf("error: no completion in %d ms (%u parameter writes in, %u pushes unanswered, %u sends incomplete)\n",
			       TR_WAIT_MS, t->params_seen, t->in_flight, t->sq);
			return -1;
		}
		/* Sleep until the next completion: arm, look again, wait. */
		if (ibv_req_notify_cq(t->cq, 0))
			return -1;
		n = ibv_poll_cq(t->cq, 1, &wc);
		if (n)
			break;
		if (wait_cq(t) < 0)
			return -1;
	}
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		printf("error: completion: %s\n",
		       n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		return -1;
	}
	switch (wc.opcode) {
	case IBV_WC_RDMA_WRITE:
	case IBV_WC_SEND:
		t->sq--;
		return 0;
	case IBV_WC_RECV:
		if (post_recv(t) || rw_wire_reply_parse(t->msg, wc.byte_len,
							&t->rep, &why)) {
			printf("error: reply: %s\n", why);
			return -1;
		}
		if (t->rep.win.nr_segs > sizeof(t->segs) / sizeof(t->segs[0])) {
			printf("error: reply: too many segments\n");
			return -1;
		}
		memcpy(t->segs, t->rep.win.segs,
		       t->rep.win.nr_segs * sizeof(t->segs[0]));
		t->rep.win.segs = t->segs;
		if (!t->rep.status && leaks_addresses(&t->rep.win)) {
			printf("error: reply: a window address past the window's own bytes (a kernel address?)\n");
			return -1;
		}
		t->got_reply = 1;
		return 0;
	case IBV_WC_RECV_RDMA_WITH_IMM:
		if (post_recv(t) || !t->got_reply ||
		    rw_wire_imm_parse(ntohl(wc.imm_data), t->rep.nr_chunks,
				      &imm) || imm.type != RW_IMM_PARAMS) {
			printf("error: bad write from the box\n");
			return -1;
		}
		t->params_seen++;
		t->have[imm.chunk] = 1;
		if (t->awaiting[imm.chunk]) {
			t->awaiting[imm.chunk] = 0;
			t->in_flight--;
			if (t->answered)
				t->answered[t->ans_tail++ % t->rep.nr_chunks] =
					imm.chunk;
		}
		return 0;
	default:
		printf("error: unexpected completion %d\n", wc.opcode);
		return -1;
	}
}

static int push(struct tr *t, uint32_t iter, uint32_t chunk, uint32_t id)
{
	uint64_t off = (uint64_t)chunk * t->rep.chunk_size;
	struct rw_wire_seg_info at;
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->grad + off,
		.length = (uint32_t)(t->rep.model_bytes - off <
				     t->rep.chunk_size ?
				     t->rep.model_bytes - off :
				     t->rep.chunk_size),
		.lkey = t->grad_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.sg_list = &sge, .num_sge = 1,
		.imm_data = htonl(RW_IMM(RW_IMM_PUSH, iter, id)),
	}, *bad;

	/*
	 * A credit is a receive the box keeps posted: pushes on their way
	 * (sends not yet completed) stay below the credits; a received push
	 * waiting for its answer holds none.
	 */
	while (t->sq >= t->rep.credits || t->sq >= WIRE_PEER_SENDS - 1)
		if (step(t))
			return -1;
	rw_wire_win_at(&t->rep.win, off, &at);
	wr.wr.rdma.remote_addr = at.addr;
	wr.wr.rdma.rkey = at.rkey;
	if (ibv_post_send(t->id->qp, &wr, &bad)) {
		printf("error: post: %s\n", strerror(errno));
		return -1;
	}
	t->sq++;
	if (id < t->rep.nr_chunks && !t->awaiting[id]) {
		t->awaiting[id] = 1;
		t->in_flight++;
	}
	return 0;
}

static int send_setup(struct tr *t, const char *fault)
{
	struct rw_wire_setup_info si = {
		.nr_tensors = t->nr_tensors,
		.win = { .seg_shift = RW_WIRE_SEG_SHIFT_MAX, .nr_segs = 1 },
	};
	struct rw_wire_seg_info seg = {
		.addr = (uintptr_t)t->params, .rkey = t->params_mr->rkey,
	};
	struct ibv_sge sge = { .addr = (uintptr_t)t->out, .lkey = t->out_mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.sg_list = &sge, .num_sge = 1,
	}, *bad;
	int n;

	if (fault && !strcmp(fault, "bad-window"))
		si.win.nr_segs = 2;
	n = rw_wire_setup_pack(t->out, RW_WIRE_MSG_MAX, &si, &seg, t->tensors);
	if (n < 0)
		return -1;
	sge.length = (uint32_t)n;
	if (ibv_post_send(t->id->qp, &wr, &bad))
		return -1;
	t->sq++;
	return 0;
}

/* Wait for the box to end the connection. */
static int await_disconnect(struct tr *t)
{
	struct pollfd pfd = { .fd = t->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, TR_WAIT_MS) != 1 || rdma_get_cm_event(t->ch, &ev)) {
		printf("error: the box kept the connection\n");
		return 1;
	}
	printf("%s\n", ev->event == RDMA_CM_EVENT_DISCONNECTED ?
	       "disconnected" : rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	return 0;
}

struct ibv_mr *wire_reg(struct ibv_pd *pd, void **buf, size_t len, int acc)
{
	/*
	 * A spare page past the registration, as the module's windows have
	 * (soft-RoCE reads past a page table a region fills exactly, when a
	 * transfer ends at the region's end: kmod/rdma/win.c).
	 */
	size_t reg = ((len + 4095) & ~(size_t)4095) + 4096;

	*buf = aligned_alloc(4096, reg);
	if (!*buf)
		return NULL;
	memset(*buf, 0, reg);
	return ibv_reg_mr(pd, *buf, reg, acc);
}

/*
 * Connect's second half: registrations, receives, the setup and its reply,
 * then every chunk's initial parameters. 0, 3 (refused, printed) or 1.
 */
static int start(struct tr *t, struct ibv_pd *pd, uint32_t rank,
		 const char *fault, double *pull_s)
{
	uint64_t bytes;
	double t0;
	uint32_t i;

	for (i = 0; i < t->nr_tensors; i++)
		t->lt[i] = (struct rw_layout_tensor){
			.key = t->tensors[i].key,
			.nelems = t->tensors[i].nelems,
			.dtype = t->tensors[i].dtype,
		};
	if (rw_layout_init(&t->l, t->lt, t->nr_tensors, RW_LAYOUT_CHUNK_MIN,
			   t->offs, t->by_key)) {
		printf("error: layout\n");
		return 1;
	}
	bytes = t->l.geom.total_bytes;
	t->msg_mr = wire_reg(pd, (void **)&t->msg, RW_WIRE_MSG_MAX,
			IBV_ACCESS_LOCAL_WRITE);
	t->out_mr = wire_reg(pd, (void **)&t->out, RW_WIRE_MSG_MAX, 0);
	t->grad_mr = wire_reg(pd, (void **)&t->grad, bytes, 0);
	t->params_mr = wire_reg(pd, (void **)&t->params, bytes,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!t->msg_mr || !t->out_mr || !t->grad_mr || !t->params_mr) {
		printf("error: registration: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < WIRE_PEER_RECVS; i++)
		if (post_recv(t)) {
			printf("error: post_recv: %s\n", strerror(errno));
			return 1;
		}
	if (send_setup(t, fault)) {
		printf("error: setup: %s\n", strerror(errno));
		return 1;
	}
	while (!t->got_reply)
		if (step(t))
			return 1;
	if (t->rep.status) {
		printf("refused %s\n", wire_errno_name((int)t->rep.status));
		return 3;
	}
	t->awaiting = calloc(t->rep.nr_chunks, 1);
	t->have = calloc(t->rep.nr_chunks, 1);
	if (!t->awaiting || !t->have || t->rep.model_bytes != bytes ||
	    t->rep.rank != rank) {
		printf("error: reply geometry differs from the model\n");
		return 1;
	}
	printf("set up %u chunks\n", t->rep.nr_chunks);
	/* Every chunk's current parameters come first: a pull of the model. */
	t0 = now_s();
	while (t->params_seen < t->rep.nr_own)
		if (step(t))
			return 1;
	*pull_s = now_s() - t0;
	return 0;
}

/* Push every chunk (iteration @iter) and wait for every answer. */
static int iterate(struct tr *t, uint32_t iter, double *push_s)
{
	double t0 = now_s();
	uint32_t c;

	for (c = 0; c < t->rep.nr_chunks; c++) {
		uint32_t k = t->reverse ? t->rep.nr_chunks - 1 - c : c;

		if (push(t, iter, k, k))
			return -1;
	}
	/* The pushes are out once their sends complete. */
	while (t->sq)
		if (step(t))
			return -1;
	*push_s += now_s() - t0;
	if (t->announce && !iter) {
		printf("pushed\n");
		fflush(stdout);
	}
	while (t->in_flight)
		if (step(t))
			return -1;
	return 0;
}

/* Write rank t->rank's gradient of iteration @iter into chunk @c alone. */
static void fill_chunk(struct tr *t, uint32_t iter, uint32_t c)
{
	uint64_t lo = (uint64_t)c * t->rep.chunk_size;
	uint64_t hi = lo + t->rep.chunk_size, k, end;
	uint32_t i;

	for (i = 0; i < t->nr_tensors; i++) {
		k = lo > t->offs[i] ? (lo - t->offs[i]) / 4 : 0;
		end = hi > t->offs[i] ? (hi - t->offs[i]) / 4 : 0;
		if (end > t->tensors[i].nelems)
			end = t->tensors[i].nelems;
		for (; k < end; k++)
			t->grad[t->offs[i] / 4 + k] = wm_grad(t->rank, iter, i, k);
	}
}

static int stream_push(struct tr *t, uint32_t iter, uint32_t c)
{
	if (t->fill)
		fill_chunk(t, iter, c);
	return push(t, iter, c, c);
}

/*
 * The stream: each chunk pushed again as soon as its answer is in, until
 * it has been pushed @iters times, so the link never waits for a
 * straggler of the iteration before (as ib_write_bw's stream does not).
 * The last chunk's first push is held back until another chunk's second
 * push is out: the box always sees a chunk of the next iteration before
 * the end of this one, and must count it in the next. *push_s is the
 * time until the last push completed, *all_s until the last answer.
 */
static int stream(struct tr *t, uint32_t iters, double *push_s,
		  double *all_s)
{
	uint32_t n = t->rep.nr_chunks, held = n > 1, c, i;
	uint32_t *iter_of = calloc(n, sizeof(*iter_of));
	uint64_t left = (uint64_t)n * iters;
	double t0 = now_s();
	int ret = -1;

	t->answered = calloc(n, sizeof(*t->answered));
	t->ans_head = t->ans_tail = 0;
	*push_s = 0;
	if (!iter_of || !t->answered)
		goto out;
	for (c = 0; c < n - held; c++, left--)
		if (stream_push(t, 0, c))
			goto out;
	while (t->in_flight || t->sq || held) {
		if (step(t))
			goto out;
		if (!left && !t->sq && !*push_s)
			*push_s = now_s() - t0;
		while (t->ans_head != t->ans_tail) {
			c = t->answered[t->ans_head++ % n];
			i = iter_of[c] + 1;
			if (i >= iters)
				continue;
			if (stream_push(t, i, c))
				goto out;
			iter_of[c] = i;
			left--;
			/*
			 * The held chunk goes right after the first push of
			 * the next iteration: the box parks next-iteration
			 * pushes until this iteration's last is in, and with
			 * more chunks than credits, parked pushes alone
			 * would take every credit the held chunk needs.
			 */
			if (held) {
				if (stream_push(t, 0, n - 1))
					goto out;
				held = 0;
				left--;
			}
		}
		/* A one-iteration stream: the last once all is answered. */
		if (held && iters == 1 && !t->in_flight) {
			if (stream_push(t, 0, n - 1))
				goto out;
			held = 0;
			left--;
		}
	}
	*all_s = now_s() - t0;
	ret = 0;
out:
	free(iter_of);
	free(t->answered);
	t->answered = NULL;
	return ret;
}

static void hold(void)
{
	char buf[64];

	while (fread(buf, 1, sizeof(buf), stdin) > 0)
		;
}

#define FOREIGN_WR_ID	0xf0f0

/*
 * A write this connection has no right to: @len bytes of 1024.0f at
 * @addr under @rkey, with a push's immediate for chunk 0 if @imm. Prints
 * how it completed ("write failed: STATUS") and the box's disconnect
 * ("disconnected"), in the order they came; 0 if both came, 1 otherwise.
 * Soft-RoCE completes the box's receive of a refused one-packet write
 * with immediate before it sends the NAK, and a box quick to close can
 * then move its QP to the error state first, which drops the NAK: the
 * write is never acknowledged, and fails here with a flush once the box's
 * disconnect has this side close too.
 */
static int foreign_write(struct tr *t, uint64_t addr, uint32_t rkey,
			 uint32_t len, int imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->grad, .length = len,
		.lkey = t->grad_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = FOREIGN_WR_ID,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.sg_list = &sge, .num_sge = 1,
		.imm_data = htonl(RW_IMM(RW_IMM_PUSH, 0, 0)),
	}, *bad;
	struct pollfd pfd = { .fd = t->ch->fd, .events = POLLIN };
	long end = now_ms() + TR_WAIT_MS;
	struct rdma_cm_event *ev;
	int n, gone = 0;
	struct ibv_wc wc;
	uint32_t i;

	for (i = 0; i < len / 4; i++)
		t->grad[i] = 1024.0f;
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(t->id->qp, &wr, &bad)) {
		printf("error: post: %s\n", strerror(errno));
		return 1;
	}
	/* Other completions (a flushed receive, the setup's send) pass. */
	for (;;) {
		n = ibv_poll_cq(t->cq, 1, &wc);
		if (n < 0) {
			printf("error: poll failed\n");
			return 1;
		}
		if (n && wc.wr_id == FOREIGN_WR_ID)
			break;
		if (n)
			continue;
		if (now_ms() > end) {
			printf("error: the write never completed\n");
			return 1;
		}
		if (gone || poll(&pfd, 1, 1) != 1)
			continue;
		if (rdma_get_cm_event(t->ch, &ev))
			return 1;
		printf("%s\n", ev->event == RDMA_CM_EVENT_DISCONNECTED ?
		       "disconnected" : rdma_event_str(ev->event));
		gone = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
		if (!gone)
			return 1;
		/* The write's QP goes to the error state: it flushes. */
		rdma_disconnect(t->id);
	}
	if (wc.status == IBV_WC_SUCCESS) {
		printf("write completed\n");
		return 1;
	}
	printf("write failed: %s\n", ibv_wc_status_str(wc.status));
	fflush(stdout);
	return gone ? 0 : await_disconnect(t);
}

int wire_train(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	       struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv)
{
	struct tr t = {
		.id = id, .ch = ch, .cq = cq,
		.tensors = wm_tensors, .nr_tensors = WM_NR_TENSORS,
	};
	uint32_t rank, workers, iters, i, c, k;
	const char *fault = argc > 3 ? argv[3] : NULL;
	double pull_s, push_s = 0;
	uint64_t bad = 0;
	int ret;

	if (argc < 3)
		return 2;
	rank = (uint32_t)atoi(argv[0]);
	workers = (uint32_t)atoi(argv[1]);
	iters = (uint32_t)atoi(argv[2]);
	ret = start(&t, pd, rank, fault, &pull_s);
	if (ret)
		return ret;
	fflush(stdout);
	if (fault && !strcmp(fault, "wait")) {
		struct rw_wire_seg_info at;

		rw_wire_win_at(&t.rep.win, 0, &at);
		printf("window %llu %u\n", (unsigned long long)at.addr,
		       at.rkey);
		fflush(stdout);
		hold();
		t.announce = 1;
	}
	if (fault && (!strcmp(fault, "foreign") ||
		      !strcmp(fault, "foreign-imm"))) {
		int imm = !strcmp(fault, "foreign-imm");
		unsigned long long addr;
		unsigned int rkey;

		if (scanf("%*s %llu %u", &addr, &rkey) != 2) {
			printf("error: no \"window ADDR RKEY\" on stdin\n");
			return 1;
		}
		return foreign_write(&t, addr, rkey, imm ? 64 : 4096, imm);
	}
	if (fault && !strcmp(fault, "past")) {
		uint64_t last = (uint64_t)(t.rep.nr_chunks - 1) *
				t.rep.chunk_size;
		struct rw_wire_seg_info at;

		rw_wire_win_at(&t.rep.win, last, &at);
		return foreign_write(&t, at.addr + t.rep.chunk_size, at.rkey,
				     4096, 0);
	}
	if (fault && !strcmp(fault, "bad-imm")) {
		if (push(&t, 0, 0, t.rep.nr_chunks))
			return 1;
		return await_disconnect(&t);
	}
	if (fault && !strcmp(fault, "other-nic")) {
		/* A connection of several pushes a sibling's chunk. */
		for (c = 0; c < t.rep.nr_chunks; c++)
			if (!t.have[c])
				break;
		if (c == t.rep.nr_chunks) {
			printf("error: every chunk is this connection's\n");
			return 1;
		}
		if (push(&t, 0, c, c))
			return 1;
		return await_disconnect(&t);
	}
	if (fault && !strcmp(fault, "twice")) {
		if (push(&t, 0, 0, 0) || push(&t, 0, 0, 0))
			return 1;
		return await_disconnect(&t);
	}
	if (fault && !strcmp(fault, "stream")) {
		t.fill = 1;
		t.rank = rank;
		if (stream(&t, iters, &push_s, &pull_s))
			return 1;
	}
	for (i = 0; !t.fill && i < iters; i++) {
		for (c = 0; c < WM_NR_TENSORS; c++)
			for (k = 0; k < wm_tensors[c].nelems; k++)
				t.grad[t.offs[c] / 4 + k] = wm_grad(rank, i, c, k);
		if (iterate(&t, i, &push_s))
			return 1;
	}
	for (c = 0; c < WM_NR_TENSORS; c++)
		for (k = 0; k < wm_tensors[c].nelems; k++)
			bad += t.params[t.offs[c] / 4 + k] !=
			       wm_expect(workers, iters, c, k);
	if (bad)
		printf("trained %u mismatch %llu ", iters,
		       (unsigned long long)bad);
	else
		printf("trained %u exact ", iters);
	printf("%016llx\n", (unsigned long long)
	       wm_hash(t.params, t.l.geom.total_bytes));
	if (fault && !strcmp(fault, "hold"))
		hold();
	return bad ? 1 : 0;
}

int wire_bench(struct rdma_event_channel *ch, struct rdma_cm_id *id,
	       struct ibv_pd *pd, struct ibv_cq *cq, int argc, char **argv)
{
	struct rw_tensor_desc one = { .key = 1, .dtype = RW_DTYPE_F32 };
	struct tr t = {
		.id = id, .ch = ch, .cq = cq, .tensors = &one, .nr_tensors = 1,
	};
	double pull_s, push_s = 0, t0, all_s, sp_s, sa_s;
	uint32_t rank, iters, i, stream_iters = BENCH_STREAM_ITERS;
	int ret, hold_on = 0, a;

	if (argc < 3)
		return 2;
	rank = (uint32_t)atoi(argv[0]);
	one.nelems = strtoull(argv[1], NULL, 0);
	iters = (uint32_t)atoi(argv[2]);
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "hold"))
			hold_on = 1;
		else if (!strcmp(argv[a], "reverse"))
			t.reverse = 1;
		else if (!strcmp(argv[a], "nostream"))
			stream_iters = 0;
		else
			return 2;
	}
	ret = start(&t, pd, rank, NULL, &pull_s);
	if (ret)
		return ret;
	t0 = now_s();
	for (i = 0; i < iters; i++)
		if (iterate(&t, i, &push_s))
			return 1;
	all_s = now_s() - t0;
	sp_s = push_s;
	sa_s = all_s;
	if (stream_iters && stream(&t, stream_iters, &sp_s, &sa_s))
		return 1;
	printf("bench bytes %llu chunks %u credits %u iters %u pull_s %.6f push_s %.6f pushpull_s %.6f stream_iters %u stream_push_s %.6f stream_pushpull_s %.6f\n",
	       (unsigned long long)t.rep.model_bytes, t.rep.nr_chunks,
	       t.rep.credits, iters,
	       pull_s, push_s, all_s, stream_iters, sp_s, sa_s);
	if (hold_on)
		hold();
	return 0;
}

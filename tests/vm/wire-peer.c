// SPDX-License-Identifier: GPL-2.0
/*
 * wire-peer: a raw RDMA peer for the box's listener, written against
 * Debian's librdmacm and libibverbs rather than RackWeave's own code, so
 * the tests see the box as a stranger on the wire does.
 *
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX [HOLD]
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX train ARGS...
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX setup ARGS...
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX gift CASE
 *   wire-peer SRC_ADDR DST_ADDR PORT @FILE
 *
 * Connects from SRC_ADDR to the box at DST_ADDR:PORT with REQUEST_HEX as
 * the connect request's private data (tests/vm/wire-req.py builds one) and
 * prints one line:
 *
 *   accepted                  then holds the connection until stdin ends
 *                             (HOLD "stdin") or disconnects at once
 *   refused EACCES            the box's refusal (struct rw_wire_rej)
 *   rejected without reason   a reject carrying no RackWeave refusal
 *   error: ...                anything else
 *
 * After "accepted" and a hold, it also prints "disconnected" when the box
 * closed the connection first, or "closed" when it did. Exit status: 0
 * accepted, 3 refused, 1 error. After "accepted", "train" trains as a
 * remote worker and "bench" times one (wire-train.c says how); "setup"
 * only declares a model (wire-setup.c); "gift" offers a bad gift as a box
 * of the job's set would (wire-gift.c).
 *
 * @FILE holds one request a line: each is a connect of its own, one after
 * the other from this one process (a VM starts a process in about half a
 * second), each printing its outcome line; an accepted one is closed at
 * once. Exit status 0, or 1 at the first error.
 */
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "rdma/wire.h"
#include "wire-peer.h"

#define TIMEOUT_MS	5000

const char *wire_errno_name(int e)
{
	static const struct { int e; const char *n; } names[] = {
		{ EPROTO, "EPROTO" }, { EACCES, "EACCES" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EBUSY, "EBUSY" },
		{ ERANGE, "ERANGE" }, { EADDRINUSE, "EADDRINUSE" },
		{ ESTALE, "ESTALE" }, { ENOMEM, "ENOMEM" },
		{ EINVAL, "EINVAL" }, { EEXIST, "EEXIST" },
		{ EDQUOT, "EDQUOT" }, { ENOSPC, "ENOSPC" },
		{ ECONNABORTED, "ECONNABORTED" }, { EXDEV, "EXDEV" },
		{ EAGAIN, "EAGAIN" },
	};
	static char buf[24];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

int wire_recv_wait(struct ibv_cq *cq, int ms, uint32_t *len)
{
	struct ibv_wc wc;
	int n, waited = 0;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			break;
		if (!n) {
			if (waited++ > ms)
				break;
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("error: completion: %s\n",
			       ibv_wc_status_str(wc.status));
			return 1;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		*len = wc.byte_len;
		return 0;
	}
	printf("error: no answer in %d ms\n", ms);
	return 1;
}

static int resolve(const char *host, const char *port, struct addrinfo **ai)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };

	return getaddrinfo(host, port, &hints, ai);
}

/* The next event, which must be @want: 0, or -1 with a line printed. */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		printf("error: rdma_get_cm_event: %s\n", strerror(errno));
		return -1;
	}
	if (ev->event != want) {
		*out = ev;
		if (want == RDMA_CM_EVENT_ADDR_RESOLVED ||
		    want == RDMA_CM_EVENT_ROUTE_RESOLVED)
			printf("error: %s (status %d)\n",
			       rdma_event_str(ev->event), ev->status);
		return 1;
	}
	*out = ev;
	return 0;
}

static int hex_decode(const char *s, unsigned char *buf, size_t max)
{
	size_t n = strlen(s), i;
	unsigned int v;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		buf[i] = (unsigned char)v;
	}
	return (int)(n / 2);
}

/* One connection's id and verbs objects. */
struct peer {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
};

static void peer_free(struct peer *p)
{
	if (p->id && p->id->qp)
		rdma_destroy_qp(p->id);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->cc)
		ibv_destroy_comp_channel(p->cc);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	memset(p, 0, sizeof(*p));
}

/*
 * Connect from @src to @dst with the @len bytes of @pdata as the request:
 * 0 accepted, 3 refused, 1 error, with a line printed for the last two.
 * Every event taken is acknowledged, so peer_free() never waits. @small:
 * queues of one entry, for a connection that carries nothing (soft-RoCE
 * allocates and clears a queue's every entry, which costs under TCG).
 */
static int peer_connect(struct rdma_event_channel *ch, struct addrinfo *src,
			struct addrinfo *dst, const unsigned char *pdata,
			int len, bool small, struct peer *p)
{
	unsigned int sends = small ? 1 : WIRE_PEER_SENDS;
	unsigned int recvs = small ? 1 : WIRE_PEER_RECVS;
	struct rdma_conn_param param = { 0 };
	struct ibv_qp_init_attr qpa = { 0 };
	struct rdma_cm_event *ev;
	int ret, rej;

	memset(p, 0, sizeof(*p));
	if (rdma_create_id(ch, &p->id, NULL, RDMA_PS_TCP)) {
		printf("error: rdma_create_id: %s\n", strerror(errno));
		p->id = NULL;
		return 1;
	}
	if (rdma_resolve_addr(p->id, src->ai_addr, dst->ai_addr, TIMEOUT_MS)) {
		printf("error: rdma_resolve_addr: %s\n", strerror(errno));
		return 1;
	}
	ret = expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
	if (ret >= 0)
		rdma_ack_cm_event(ev);
	if (ret)
		return 1;
	if (rdma_resolve_route(p->id, TIMEOUT_MS)) {
		printf("error: rdma_resolve_route: %s\n", strerror(errno));
		return 1;
	}
	ret = expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	if (ret >= 0)
		rdma_ack_cm_event(ev);
	if (ret)
		return 1;

	p->pd = ibv_alloc_pd(p->id->verbs);
	/* Completions wake the trainer (wire-train.c) rather than spin. */
	p->cc = p->pd ? ibv_create_comp_channel(p->id->verbs) : NULL;
	p->cq = p->cc ? ibv_create_cq(p->id->verbs, sends + recvs, NULL,
				      p->cc, 0) : NULL;
	qpa.send_cq = p->cq;
	qpa.recv_cq = p->cq;
	qpa.cap.max_send_wr = sends;
	qpa.cap.max_recv_wr = recvs;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.qp_type = IBV_QPT_RC;
	if (!p->cq || rdma_create_qp(p->id, p->pd, &qpa)) {
		printf("error: QP: %s\n", strerror(errno));
		return 1;
	}
	param.private_data = pdata;
	param.private_data_len = (uint8_t)len;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(p->id, &param)) {
		printf("error: rdma_connect: %s\n", strerror(errno));
		return 1;
	}
	ret = expect(ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret < 0)
		return 1;
	if (ret > 0) {
		if (ev->event != RDMA_CM_EVENT_REJECTED) {
			printf("error: %s\n", rdma_event_str(ev->event));
			rdma_ack_cm_event(ev);
			return 1;
		}
		rej = rw_wire_rej_parse(ev->param.conn.private_data,
					ev->param.conn.private_data_len);
		if (rej == -EPROTO && ev->param.conn.private_data_len == 0)
			printf("rejected without reason\n");
		else
			printf("refused %s\n", wire_errno_name(-rej));
		rdma_ack_cm_event(ev);
		return 3;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

/* Close an accepted connection from our side. */
static void peer_close(struct rdma_event_channel *ch, struct peer *p)
{
	struct rdma_cm_event *ev;

	rdma_disconnect(p->id);
	if (expect(ch, RDMA_CM_EVENT_DISCONNECTED, &ev) >= 0)
		rdma_ack_cm_event(ev);
}

/* @FILE: one connect per request line, one outcome line each. */
static int peer_batch(struct rdma_event_channel *ch, struct addrinfo *src,
		      struct addrinfo *dst, const char *file)
{
	unsigned char pdata[56];
	char line[256];
	struct peer p;
	int len, ret = 0;
	FILE *f;

	f = fopen(file, "r");
	if (!f) {
		printf("error: %s: %s\n", file, strerror(errno));
		return 1;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!*line)
			continue;
		len = hex_decode(line, pdata, sizeof(pdata));
		if (len < 0) {
			printf("error: %s: not a request in hex\n", file);
			ret = 1;
			break;
		}
		ret = peer_connect(ch, src, dst, pdata, len, true, &p);
		if (!ret) {
			printf("accepted\n");
			peer_close(ch, &p);
		}
		peer_free(&p);
		ret = ret == 1;
	}
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	struct addrinfo *src, *dst;
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	unsigned char pdata[56];
	struct peer p;
	int len, ret;

	if (argc < 5 || (argc > 6 && strcmp(argv[5], "train") &&
			  strcmp(argv[5], "bench") && strcmp(argv[5], "setup") &&
			  strcmp(argv[5], "gift"))) {
		fprintf(stderr, "usage: wire-peer SRC DST PORT REQUEST_HEX [stdin | train ARGS... | bench ARGS... | setup ARGS... | gift CASE]\n"
			"       wire-peer SRC DST PORT @FILE\n");
		return 2;
	}
	len = argv[4][0] == '@' ? 0 : hex_decode(argv[4], pdata, sizeof(pdata));
	if (len < 0 || resolve(argv[1], "0", &src) ||
	    resolve(argv[2], argv[3], &dst)) {
		fprintf(stderr, "wire-peer: bad address, port or request\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch) {
		printf("error: rdma_create_event_channel: %s\n", strerror(errno));
		return 1;
	}
	if (argv[4][0] == '@')
		return peer_batch(ch, src, dst, argv[4] + 1);
	ret = peer_connect(ch, src, dst, pdata, len, false, &p);
	if (ret)
		return ret;
	printf("accepted\n");

	if (argc > 6 && !strcmp(argv[5], "setup"))
		return wire_setup(ch, p.id, p.pd, p.cq, argc - 6, argv + 6);
	if (argc > 6 && !strcmp(argv[5], "gift"))
		return wire_gift(ch, p.id, p.pd, p.cq, argc - 6, argv + 6);
	if (argc > 6 && !strcmp(argv[5], "bench"))
		return wire_bench(ch, p.id, p.pd, p.cq, argc - 6, argv + 6);
	if (argc > 6)
		return wire_train(ch, p.id, p.pd, p.cq, argc - 6, argv + 6);
	if (argc == 6) {
		/* Hold until stdin ends or the box disconnects. */
		struct pollfd fds[2] = {
			{ .fd = 0, .events = POLLIN },
			{ .fd = ch->fd, .events = POLLIN },
		};
		char buf[64];

		for (;;) {
			if (poll(fds, 2, -1) < 0)
				break;
			if (fds[1].revents) {
				if (!rdma_get_cm_event(ch, &ev)) {
					printf("%s\n", ev->event ==
					       RDMA_CM_EVENT_DISCONNECTED ?
					       "disconnected" :
					       rdma_event_str(ev->event));
					rdma_ack_cm_event(ev);
				}
				return 0;
			}
			if (fds[0].revents && read(0, buf, sizeof(buf)) <= 0)
				break;
		}
	}
	peer_close(ch, &p);
	printf("closed\n");
	rdma_destroy_qp(p.id);
	rdma_destroy_id(p.id);
	return 0;
}

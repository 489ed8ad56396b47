// SPDX-License-Identifier: GPL-2.0
/*
 * wire-peer: a raw RDMA peer for the box's listener, written against
 * Debian's librdmacm and libibverbs rather than RackWeave's own code, so
 * the tests see the box as a stranger on the wire does.
 *
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX [HOLD]
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX train ARGS...
 *   wire-peer SRC_ADDR DST_ADDR PORT REQUEST_HEX setup ARGS...
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
 * only declares a model (wire-setup.c).
 */
#include <errno.h>
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
		{ ECONNABORTED, "ECONNABORTED" },
	};
	static char buf[24];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
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

int main(int argc, char **argv)
{
	struct rdma_conn_param param = { 0 };
	struct ibv_qp_init_attr qpa = { 0 };
	struct addrinfo *src, *dst;
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	unsigned char pdata[56];
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	int len, ret, rej;

	if (argc < 5 || (argc > 6 && strcmp(argv[5], "train") &&
			  strcmp(argv[5], "bench") && strcmp(argv[5], "setup"))) {
		fprintf(stderr, "usage: wire-peer SRC DST PORT REQUEST_HEX [stdin | train ARGS... | bench ARGS... | setup ARGS...]\n");
		return 2;
	}
	len = hex_decode(argv[4], pdata, sizeof(pdata));
	if (len < 0 || resolve(argv[1], "0", &src) ||
	    resolve(argv[2], argv[3], &dst)) {
		fprintf(stderr, "wire-peer: bad address, port or request\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		printf("error: rdma_create_id: %s\n", strerror(errno));
		return 1;
	}
	if (rdma_resolve_addr(id, src->ai_addr, dst->ai_addr, TIMEOUT_MS)) {
		printf("error: rdma_resolve_addr: %s\n", strerror(errno));
		return 1;
	}
	if (expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev))
		return 1;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, TIMEOUT_MS)) {
		printf("error: rdma_resolve_route: %s\n", strerror(errno));
		return 1;
	}
	if (expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev))
		return 1;
	rdma_ack_cm_event(ev);

	pd = ibv_alloc_pd(id->verbs);
	/* Completions wake the trainer (wire-train.c) rather than spin. */
	cc = pd ? ibv_create_comp_channel(id->verbs) : NULL;
	cq = cc ? ibv_create_cq(id->verbs, WIRE_PEER_SENDS + WIRE_PEER_RECVS,
				NULL, cc, 0) : NULL;
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.cap.max_send_wr = WIRE_PEER_SENDS;
	qpa.cap.max_recv_wr = WIRE_PEER_RECVS;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.qp_type = IBV_QPT_RC;
	if (!cq || rdma_create_qp(id, pd, &qpa)) {
		printf("error: QP: %s\n", strerror(errno));
		return 1;
	}
	param.private_data = pdata;
	param.private_data_len = (uint8_t)len;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param)) {
		printf("error: rdma_connect: %s\n", strerror(errno));
		return 1;
	}
	ret = expect(ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret < 0)
		return 1;
	if (ret > 0) {
		if (ev->event != RDMA_CM_EVENT_REJECTED) {
			printf("error: %s\n", rdma_event_str(ev->event));
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
	printf("accepted\n");

	if (argc > 6 && !strcmp(argv[5], "setup"))
		return wire_setup(ch, id, pd, cq, argc - 6, argv + 6);
	if (argc > 6 && !strcmp(argv[5], "bench"))
		return wire_bench(ch, id, pd, cq, argc - 6, argv + 6);
	if (argc > 6)
		return wire_train(ch, id, pd, cq, argc - 6, argv + 6);
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
	rdma_disconnect(id);
	if (!expect(ch, RDMA_CM_EVENT_DISCONNECTED, &ev))
		rdma_ack_cm_event(ev);
	printf("closed\n");
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return 0;
}

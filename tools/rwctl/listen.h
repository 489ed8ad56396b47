/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl listen: the box's RDMA listeners, where workers on other hosts
 * connect (listen.c), and the requests that add and delete them
 * (listen-genl.c).
 */
#ifndef RWCTL_LISTEN_H
#define RWCTL_LISTEN_H

#include <stddef.h>
#include <stdint.h>

struct rwctl_err;
struct rwctl_listener;
struct rwctl_printer;
struct rwctl_status;

/* What "listen add" and "listen del" send. */
struct rwctl_listen_req {
	uint8_t addr[16];		/* network order */
	size_t addr_len;		/* 4 or 16 */
	unsigned int port;		/* 1..65535 */
};

/*
 * "ADDR [port N]": 0, or -EINVAL with a sentence in @msg. The port
 * defaults to RW_WIRE_PORT.
 */
int rwctl_listen_parse(int argc, char **argv, struct rwctl_listen_req *r,
		       char *msg, size_t msglen);

/* "10.77.0.1:18515" or "[fe80::1]:18515". */
void rwctl_listen_format(char *buf, size_t len, int family,
			 const uint8_t *addr, unsigned int port);

/* Where listeners are added and deleted (tests bring their own). */
struct rwctl_listen_backend {
	int (*add)(const struct rwctl_listen_req *r, struct rwctl_err *e);
	int (*del)(const struct rwctl_listen_req *r, struct rwctl_err *e);
};

extern const struct rwctl_listen_backend rwctl_listen_genl_backend;

/* The "listeners" array of a status, as "listen show" and "dev show" print it. */
void rwctl_listen_print_list(struct rwctl_printer *p,
			     const struct rwctl_status *st);

#endif /* RWCTL_LISTEN_H */

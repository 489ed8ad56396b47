/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzers (genl-fuzz, dev-fuzz, storm) share: a seeded generator that
 * replays a run from its seed, the options every run takes (--seed,
 * --seconds, --iterations), boundary values, a clock and a netlink socket.
 * Header only: each fuzzer is one file.
 */
#ifndef RW_TESTS_VM_FUZZ_COMMON_H
#define RW_TESTS_VM_FUZZ_COMMON_H

#include <errno.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* splitmix64: one word of state, so a seed is the whole replay key. */
struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n); n > 0. */
static inline uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return fz_next(r) % n;
}

/* True with probability pct / 100. */
static inline int fz_pct(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

static inline void fz_bytes(struct fz_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)fz_next(r);
}

/* The interesting 32-bit values around @lo..@hi and the type's edges. */
static inline uint32_t fz_u32_edge(struct fz_rng *r, uint32_t lo, uint32_t hi)
{
	const uint32_t v[] = {
		0, 1, 2, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, hi * 2,
		0x7fffffffU, 0x80000000U, 0xfffffffeU, 0xffffffffU,
		4096, 65536, 1U << 20, (1U << 20) + 1, 3000,
	};

	if (fz_pct(r, 20))
		return (uint32_t)fz_next(r);
	return v[fz_below(r, ARRAY_SIZE(v))];
}

static inline uint64_t fz_u64_edge(struct fz_rng *r)
{
	const uint64_t v[] = {
		0, 1, 2, 3, 4, 15, 16, 63, 64, 4095, 4096, 65535, 65536,
		0xffffffffULL, 0x100000000ULL, 1ULL << 40, 1ULL << 62,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 1,
	};

	if (fz_pct(r, 20))
		return fz_next(r);
	return v[fz_below(r, ARRAY_SIZE(v))];
}

static inline double fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --seed N, --seconds S, --iterations N: the options every fuzzer takes. */
struct fz_opts {
	uint64_t seed;
	double seconds;		/* 0: only the iteration count limits */
	uint64_t iterations;	/* 0: only the time limits */
};

/* Parses one of the common options at argv[*i]; 1 if it was one. */
static inline int fz_common_opt(struct fz_opts *o, int argc, char **argv,
				int *i)
{
	const char *a = argv[*i];

	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(a, "--seed"))
		o->seed = strtoull(argv[++*i], NULL, 0);
	else if (!strcmp(a, "--seconds"))
		o->seconds = strtod(argv[++*i], NULL);
	else if (!strcmp(a, "--iterations"))
		o->iterations = strtoull(argv[++*i], NULL, 0);
	else
		return 0;
	return 1;
}

/* A seed from the clock unless --seed gave one. */
static inline void fz_seed_default(struct fz_opts *o)
{
	struct timespec ts;

	if (o->seed)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	o->seed = (uint64_t)ts.tv_sec * 1000003ULL ^ (uint64_t)ts.tv_nsec;
}

static inline int fz_more(const struct fz_opts *o, double start, uint64_t n)
{
	if (o->iterations && n >= o->iterations)
		return 0;
	if (o->seconds > 0 && fz_now() - start >= o->seconds)
		return 0;
	return o->iterations || o->seconds > 0 || n < 1000;
}

/*
 * A generic netlink socket for the netlink fuzzers: bound, acks without the
 * request echoed (and with extended acks if @ext_ack), @rcvbuf bytes of
 * receive buffer, and a minute's receive timeout (no answer in a minute is
 * a hang, even on a loaded TCG host). -1 with errno on failure.
 */
static inline int fz_nl_socket(int rcvbuf, bool ext_ack)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 60 };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (ext_ack)
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

#endif /* RW_TESTS_VM_FUZZ_COMMON_H */

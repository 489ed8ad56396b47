// SPDX-License-Identifier: GPL-2.0
/*
 * storm: RackWeave's control and data paths raced against each other for a
 * fixed time, on jobs of their own (st-bsp, st-ssp, st-ada: 2 workers,
 * BSP, SSP 2 and adaptive 1..3 when made).
 *
 *   storm --token-file PATH [--seed N] [--seconds S]
 *
 * Threads, all at once:
 *  - one per job and rank: forks a small trainer (attach, declare a 3-tensor
 *    model, map its gradients, parameters and versions, push and pull every
 *    chunk with a 2 s timeout, again and again) and kills it with SIGKILL
 *    after 20..500 ms, while it holds its mappings; one child in four
 *    instead leaves by itself after a few steps (close, then munmap);
 *  - a deleter: forced deletion of a job (workers attached) and a new job
 *    of the same name at once;
 *  - a policy switcher: sync BSP, SSP, adaptive, ASP, a quorum, an
 *    eviction time, on a running job;
 *  - a reader: statistics, topology, status and job dumps;
 *  - a monitor: sockets joining the "events" group, reading a while,
 *    closing.
 * Every netlink answer must be an ACK or a documented errno; a child must
 * end by our SIGKILL or exit 0 (it exits 3 on an errno the uapi does not
 * document for the call, and a granted mapping must not fault); a child
 * that a SIGKILL does not end within 60 s is a hang. Afterwards the jobs
 * are deleted; the caller unloads the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rackweave/uapi.h>

#include "fuzz-common.h"

#define NR_JOBS		3
#define WORKERS		2

static const char *const jobs[NR_JOBS] = { "st-bsp", "st-ssp", "st-ada" };
static struct fz_opts opt;
static uint8_t token[RW_JOB_TOKEN_LEN];
static uint16_t family;
static uint32_t mcgrp;
static atomic_bool stop;
static atomic_ullong n_children, n_killed, n_left, n_del, n_new,
	n_policy, n_reads, n_listeners, n_events;

__attribute__((noreturn, format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - storm: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (seed %llu)\n", (unsigned long long)opt.seed);
	fflush(stdout);
	_exit(1);
}

/* ---- netlink: one request, its ACK or errno ---- */

struct req {
	unsigned char buf[1024];
	struct nlmsghdr *nh;
};

static void req_init(struct req *r, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *gh;

	memset(r->buf, 0, sizeof(r->buf));
	r->nh = (struct nlmsghdr *)r->buf;
	r->nh->nlmsg_type = family;
	r->nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	gh = NLMSG_DATA(r->nh);
	gh->cmd = cmd;
	gh->version = RW_GENL_VERSION;
}

static void req_put(struct req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(r->buf + NLMSG_ALIGN(r->nh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	r->nh->nlmsg_len = NLMSG_ALIGN(r->nh->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void req_u32(struct req *r, uint16_t type, uint32_t v)
{
	req_put(r, type, &v, sizeof(v));
}

static void req_name(struct req *r, const char *name)
{
	req_put(r, RW_JOB_A_NAME, name, strlen(name) + 1);
}

static int nl_open(void)
{
	int fd = fz_nl_socket(1 << 20, false);

	if (fd < 0)
		fail("netlink socket: %s", strerror(errno));
	return fd;
}

static const int sane[] = { 0, EINVAL, ERANGE, EPERM, EEXIST, ENOENT, EBUSY,
			    ENOSPC, EOPNOTSUPP, ENOMEM };

/* Sends @r and reads until its end; returns 0 or -errno. */
static int req_send(int fd, struct req *r)
{
	static _Thread_local unsigned char buf[64 * 1024];
	static atomic_uint seq;
	const struct nlmsghdr *nh;
	unsigned int i;
	ssize_t n;
	int len, err;

	r->nh->nlmsg_seq = atomic_fetch_add(&seq, 1) + 1;
	if (send(fd, r->buf, r->nh->nlmsg_len, 0) < 0)
		fail("send: %s", strerror(errno));
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("no answer to command %u: %s",
			     ((struct genlmsghdr *)NLMSG_DATA(r->nh))->cmd,
			     strerror(errno));
		len = (int)n;
		for (nh = (const struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != r->nh->nlmsg_seq ||
			    (nh->nlmsg_type != NLMSG_ERROR &&
			     nh->nlmsg_type != NLMSG_DONE))
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR)
				err = ((const struct nlmsgerr *)NLMSG_DATA(nh))->error;
			else
				memcpy(&err, NLMSG_DATA(nh), sizeof(err));
			for (i = 0; i < ARRAY_SIZE(sane); i++)
				if (sane[i] == -err)
					return err;
			fail("command %u answered errno %d (%s)",
			     ((struct genlmsghdr *)NLMSG_DATA(r->nh))->cmd,
			     -err, strerror(-err));
		}
	}
}

static void resolve(void)
{
	unsigned char buf[8192];
	const struct nlattr *a, *g, *ga;
	struct nlmsghdr *nh;
	struct req r;
	int fd = nl_open(), rem, grem, glen;

	req_init(&r, CTRL_CMD_GETFAMILY, 0);
	r.nh->nlmsg_type = GENL_ID_CTRL;
	r.nh->nlmsg_flags = NLM_F_REQUEST;
	((struct genlmsghdr *)NLMSG_DATA(r.nh))->version = 1;
	req_put(&r, CTRL_ATTR_FAMILY_NAME, RW_GENL_NAME, sizeof(RW_GENL_NAME));
	if (send(fd, r.buf, r.nh->nlmsg_len, 0) < 0 ||
	    recv(fd, buf, sizeof(buf), 0) < (ssize_t)NLMSG_HDRLEN)
		fail("resolving the family: %s", strerror(errno));
	nh = (struct nlmsghdr *)buf;
	if (nh->nlmsg_type != GENL_ID_CTRL)
		fail("family %s not found", RW_GENL_NAME);
	a = (const struct nlattr *)((unsigned char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	for (rem = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	     rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			memcpy(&family, (const char *)a + NLA_HDRLEN, 2);
		if ((a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		g = (const void *)((const char *)a + NLA_HDRLEN);
		for (grem = a->nla_len - NLA_HDRLEN;
		     grem >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN;
		     grem -= NLA_ALIGN(g->nla_len),
		     g = (const void *)((const char *)g + NLA_ALIGN(g->nla_len))) {
			ga = (const void *)((const char *)g + NLA_HDRLEN);
			for (glen = g->nla_len - NLA_HDRLEN;
			     glen >= NLA_HDRLEN && ga->nla_len >= NLA_HDRLEN;
			     glen -= NLA_ALIGN(ga->nla_len),
			     ga = (const void *)((const char *)ga + NLA_ALIGN(ga->nla_len)))
				if ((ga->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_ID)
					memcpy(&mcgrp, (const char *)ga + NLA_HDRLEN, 4);
		}
	}
	close(fd);
	if (!family || !mcgrp)
		fail("no id or events group for family %s", RW_GENL_NAME);
}

/* Job i as made: BSP, SSP 2, adaptive 1..3. */
static int job_new(int fd, unsigned int i)
{
	struct req r;

	req_init(&r, RW_CMD_JOB_NEW, 0);
	req_name(&r, jobs[i]);
	req_u32(&r, RW_JOB_A_WORKERS, WORKERS);
	req_u32(&r, RW_JOB_A_CHUNK_SIZE, 4096);
	req_put(&r, RW_JOB_A_TOKEN, token, sizeof(token));
	if (i == 1) {
		req_u32(&r, RW_JOB_A_SYNC, RW_SYNC_SSP);
		req_u32(&r, RW_JOB_A_STALENESS, 2);
	} else if (i == 2) {
		req_u32(&r, RW_JOB_A_SYNC, RW_SYNC_ADAPTIVE);
		req_u32(&r, RW_JOB_A_STALENESS_LO, 1);
		req_u32(&r, RW_JOB_A_STALENESS_HI, 3);
	}
	return req_send(fd, &r);
}

static int job_del(int fd, unsigned int i)
{
	struct req r;

	req_init(&r, RW_CMD_JOB_DEL, 0);
	req_name(&r, jobs[i]);
	req_u32(&r, RW_JOB_A_FLAGS, RW_JOB_DEL_FORCE);
	return req_send(fd, &r);
}

/* ---- a trainer child: what it does until killed ---- */

static const struct rw_tensor_desc model[] = {
	{ .key = 11, .nelems = 1000, .dtype = RW_DTYPE_F32 },
	{ .key = 22, .nelems = 3000, .dtype = RW_DTYPE_F32 },
	{ .key = 33, .nelems = 16, .dtype = RW_DTYPE_F32 },
};

/* Exits 0 on a refusal the uapi documents for the call, 3 otherwise. */
static void child_err(const char *what, int e)
{
	const int ok[] = { ENOENT, EADDRINUSE, ENOTCONN, ENODEV, ESTALE,
			   ETIMEDOUT, EEXIST, EINTR, ECONNRESET };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		if (ok[i] == e)
			_exit(0);
	/* No stdio: another thread may have held its lock at fork. */
	dprintf(2, "# storm child: %s: errno %d\n", what, e);
	_exit(3);
}

static void child(unsigned int job, uint32_t rank, int leave_after)
{
	struct rw_attach a = { .size = sizeof(a), .rank = rank };
	struct rw_declare d = { .size = sizeof(d), .nr_tensors = 3,
				.tensors = (uintptr_t)model };
	struct rw_setup s = { .size = sizeof(s) };
	struct rw_xfer x = { .size = sizeof(x), .timeout_ms = 2000 };
	float *grad;
	const float *params;
	const volatile uint64_t *ver;
	int fd, step;
	size_t i;

	fd = open(RW_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		child_err("open", errno);
	snprintf(a.job, sizeof(a.job), "%s", jobs[job]);
	memcpy(a.token, token, sizeof(token));
	if (ioctl(fd, RW_IOC_ATTACH, &a))
		child_err("attach", errno);
	if (ioctl(fd, RW_IOC_DECLARE, &d))
		child_err("declare", errno);
	if (ioctl(fd, RW_IOC_SETUP, &s))
		child_err("setup", errno);
	grad = mmap(NULL, s.grad_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)s.grad_offset);
	params = mmap(NULL, s.params_len, PROT_READ, MAP_SHARED, fd,
		      (off_t)s.params_offset);
	ver = mmap(NULL, s.versions_len, PROT_READ, MAP_SHARED, fd,
		   (off_t)s.versions_offset);
	if (grad == MAP_FAILED || params == MAP_FAILED || ver == MAP_FAILED)
		child_err("mmap", errno);
	for (step = 0; leave_after < 0 || step < leave_after; step++) {
		for (i = 0; i < s.grad_len / sizeof(float); i += 64)
			grad[i] = 0.001f * (float)(rank + 1) + params[i] * 0.f;
		if (ioctl(fd, RW_IOC_PUSHPULL, &x))
			child_err("pushpull", errno);
		(void)ver[0];
	}
	/* Leaving: the file goes first, the mappings after it. */
	close(fd);
	(void)ver[0];
	munmap(grad, s.grad_len);
	_exit(0);
}

static void *rank_thread(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	struct fz_rng r = { opt.seed * 31 + id };
	int st, leave, tries;
	pid_t pid;

	while (!atomic_load(&stop)) {
		leave = fz_pct(&r, 25) ? 1 + (int)fz_below(&r, 4) : -1;
		pid = fork();
		if (pid < 0)
			fail("fork: %s", strerror(errno));
		if (!pid)
			child(id / WORKERS, id % WORKERS, leave);
		atomic_fetch_add(&n_children, 1);
		usleep(20000 + (useconds_t)fz_below(&r, 480000));
		kill(pid, SIGKILL);
		for (tries = 0; waitpid(pid, &st, WNOHANG) == 0; tries++) {
			if (tries > 6000)
				fail("a trainer child ignored SIGKILL for 60 s: a hang");
			usleep(10000);
		}
		if (WIFEXITED(st) && WEXITSTATUS(st))
			fail("a trainer child (%s rank %u) exited %d",
			     jobs[id / WORKERS], id % WORKERS, WEXITSTATUS(st));
		if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
			fail("a trainer child (%s rank %u) died of %s",
			     jobs[id / WORKERS], id % WORKERS,
			     strsignal(WTERMSIG(st)));
		if (WIFEXITED(st))
			atomic_fetch_add(&n_left, 1);
		else
			atomic_fetch_add(&n_killed, 1);
	}
	return NULL;
}

static void *del_thread(void *arg)
{
	struct fz_rng r = { opt.seed * 37 + 1 };
	int fd = nl_open();
	unsigned int i;

	(void)arg;
	while (!atomic_load(&stop)) {
		i = (unsigned int)fz_below(&r, NR_JOBS);
		if (!job_del(fd, i))
			atomic_fetch_add(&n_del, 1);
		if (!job_new(fd, i))
			atomic_fetch_add(&n_new, 1);
		usleep(50000 + (useconds_t)fz_below(&r, 400000));
	}
	close(fd);
	return NULL;
}

static void *policy_thread(void *arg)
{
	struct fz_rng r = { opt.seed * 41 + 2 };
	int fd = nl_open();
	struct req q;

	(void)arg;
	while (!atomic_load(&stop)) {
		req_init(&q, RW_CMD_POLICY_SET, 0);
		req_name(&q, jobs[fz_below(&r, NR_JOBS)]);
		switch (fz_below(&r, 7)) {
		case 0:
			req_u32(&q, RW_JOB_A_SYNC, RW_SYNC_BSP);
			break;
		case 1:
			req_u32(&q, RW_JOB_A_SYNC, RW_SYNC_SSP);
			req_u32(&q, RW_JOB_A_STALENESS, 1 + (uint32_t)fz_below(&r, 4));
			break;
		case 2:
			req_u32(&q, RW_JOB_A_SYNC, RW_SYNC_ADAPTIVE);
			req_u32(&q, RW_JOB_A_STALENESS_LO, 1);
			req_u32(&q, RW_JOB_A_STALENESS_HI, 2 + (uint32_t)fz_below(&r, 4));
			break;
		case 3:
			req_u32(&q, RW_JOB_A_SYNC, RW_SYNC_ASP);
			break;
		case 4:
			req_u32(&q, RW_JOB_A_SYNC, RW_SYNC_BSP);
			req_u32(&q, RW_JOB_A_QUORUM, 1 + (uint32_t)fz_below(&r, 2));
			break;
		case 5:
			req_u32(&q, RW_JOB_A_EVICT_MS, fz_pct(&r, 50) ? 0 : 300);
			break;
		default:
			/* Refused while a run lives (EBUSY). */
			req_u32(&q, RW_JOB_A_WORKERS, WORKERS);
			break;
		}
		if (!req_send(fd, &q))
			atomic_fetch_add(&n_policy, 1);
		usleep((useconds_t)fz_below(&r, 100000));
	}
	close(fd);
	return NULL;
}

static void *read_thread(void *arg)
{
	const uint8_t cmds[] = { RW_CMD_STATS_GET, RW_CMD_TOPO_GET,
				 RW_CMD_JOB_GET, RW_CMD_STATUS_GET };
	struct fz_rng r = { opt.seed * 43 + 3 };
	int fd = nl_open();
	struct req q;
	uint8_t cmd;

	(void)arg;
	while (!atomic_load(&stop)) {
		cmd = cmds[fz_below(&r, ARRAY_SIZE(cmds))];
		req_init(&q, cmd, cmd == RW_CMD_JOB_GET && fz_pct(&r, 70) ?
			 NLM_F_DUMP : 0);
		if (cmd != RW_CMD_STATUS_GET && !(q.nh->nlmsg_flags & NLM_F_DUMP))
			req_name(&q, jobs[fz_below(&r, NR_JOBS)]);
		req_send(fd, &q);
		atomic_fetch_add(&n_reads, 1);
	}
	close(fd);
	return NULL;
}

static void *monitor_thread(void *arg)
{
	struct fz_rng r = { opt.seed * 47 + 4 };
	unsigned char buf[16384];
	struct pollfd p;
	double until;
	ssize_t n;

	(void)arg;
	while (!atomic_load(&stop)) {
		p.fd = nl_open();
		p.events = POLLIN;
		if (setsockopt(p.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &mcgrp,
			       sizeof(mcgrp)))
			fail("joining events: %s", strerror(errno));
		atomic_fetch_add(&n_listeners, 1);
		until = fz_now() + 0.05 + fz_below(&r, 500) / 1000.0;
		while (fz_now() < until && !atomic_load(&stop)) {
			if (poll(&p, 1, 50) <= 0)
				continue;
			n = recv(p.fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n > 0)
				atomic_fetch_add(&n_events, 1);
		}
		close(p.fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NR_JOBS * WORKERS + 4];
	const char *token_file = NULL;
	unsigned int i, nt = 0;
	double start;
	FILE *f;
	int fd, j;

	for (j = 1; j < argc; j++) {
		if (fz_common_opt(&opt, argc, argv, &j))
			continue;
		if (j + 1 < argc && !strcmp(argv[j], "--token-file")) {
			token_file = argv[++j];
			continue;
		}
		fprintf(stderr, "usage: storm --token-file PATH [--seed N] [--seconds S]\n");
		return 2;
	}
	if (!token_file)
		fail("--token-file is required");
	f = fopen(token_file, "rb");
	if (!f || fread(token, 1, sizeof(token), f) != sizeof(token))
		fail("reading the token %s", token_file);
	fclose(f);
	fz_seed_default(&opt);
	if (opt.seconds <= 0)
		opt.seconds = 10;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# storm: seed %llu, %.0f s\n", (unsigned long long)opt.seed,
	       opt.seconds);
	resolve();
	fd = nl_open();
	for (i = 0; i < NR_JOBS; i++) {
		job_del(fd, i);
		if (job_new(fd, i))
			fail("making job %s", jobs[i]);
	}

	start = fz_now();
	for (i = 0; i < NR_JOBS * WORKERS; i++)
		pthread_create(&t[nt++], NULL, rank_thread, (void *)(uintptr_t)i);
	pthread_create(&t[nt++], NULL, del_thread, NULL);
	pthread_create(&t[nt++], NULL, policy_thread, NULL);
	pthread_create(&t[nt++], NULL, read_thread, NULL);
	pthread_create(&t[nt++], NULL, monitor_thread, NULL);
	while (fz_now() - start < opt.seconds)
		usleep(100000);
	atomic_store(&stop, true);
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NR_JOBS; i++)
		if (job_del(fd, i))
			fail("deleting job %s at the end", jobs[i]);
	close(fd);
	printf("# storm: seed %llu: %.1f s: %llu trainer children (%llu killed with SIGKILL, %llu ended by themselves: left, or refused), %llu forced deletions and %llu new jobs, %llu policy changes accepted, %llu reads, %llu event listeners (%llu event reads)\n",
	       (unsigned long long)opt.seed, fz_now() - start, n_children,
	       n_killed, n_left, n_del, n_new, n_policy, n_reads, n_listeners,
	       n_events);
	printf("ok - storm: every answer an ACK or a documented errno, every child ended by SIGKILL or cleanly, no hang\n");
	return 0;
}

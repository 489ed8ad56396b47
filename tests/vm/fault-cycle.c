// SPDX-License-Identifier: GPL-2.0
/*
 * fault-cycle: the life cycle of a job and its workers, over and over, for
 * tests/vm/faults.sh and tests/vm/cycles.sh. One cycle: job add (generic
 * netlink), every rank opens /dev/rackweave, attaches, declares the model,
 * sets up and maps its three buffers, a policy set, ITERS iterations of BSP
 * (the first ranks push and later pull, the last one pushpulls), the
 * parameters checked against float32 SGD, then unmap, close and job del.
 *
 *   fault-cycle [-f|-n [-s STRIDE]] [-c CYCLES] [-w WORKERS] [-i ITERS] PREFIX
 *
 * With -f, the process marks itself in /proc/self/make-it-fail around each
 * call into the kernel the cycle makes (and only then: its own startup,
 * printing and page touching are never failed), so that failslab,
 * fail_page_alloc or fail_usercopy with task-filter set fail, at their
 * probability, the allocations and copies made for it. With -n, cycle N
 * fails fault point N * STRIDE + 1 of those the cycle's calls pass
 * (/proc/thread-self/fail-nth), until a cycle passes fewer: with STRIDE 1
 * (the default) every point fails once, in order.
 * A call that fails must fail with a clean errno (ENOMEM, ENOBUFS,
 * EFAULT); the cycle is then abandoned: its files closed, `job del force`
 * without injection, and the job must be gone. Jobs are named PREFIX-N.
 *
 * Prints "# " lines: cycles that completed, cycles a failure ended (per
 * call and errno), and "ok"/"not ok" TAP lines for what must hold.
 * Exits 1 if a check failed, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "dev-check.h"

#define MAX_WORKERS	8
#define XFER_TIMEOUT_MS	20000

enum step {
	S_JOB_ADD, S_OPEN, S_ATTACH, S_DECLARE, S_SETUP, S_MMAP, S_POLICY,
	S_PUSH, S_PULL, S_PUSHPULL, S_MUNMAP, S_JOB_DEL, NR_STEPS
};

static const char *const step_name[NR_STEPS] = {
	"job add", "open", "attach", "declare", "setup", "mmap", "policy set",
	"push", "pull", "pushpull", "munmap", "job del",
};

static struct nl_sock *sk;
static int family;
static int fail_fd = -1;	/* make-it-fail (-f) or fail-nth (-n) */
static unsigned int nr_workers = 2;
static int iters = 2;

/* Failures per step and errno (clean ones only; others fail a check). */
static unsigned long fails[NR_STEPS][3];
static const int clean_errno[3] = { ENOMEM, ENOBUFS, EFAULT };
static unsigned long completed, abandoned;

/*
 * -f: make-it-fail marks this task for the fault attributes' task-filter.
 * The write that clears it may itself be failed (fail_usercopy): retry.
 */
static void inject_task(int on)
{
	int i;

	for (i = 0; i < 1000; i++)
		if (pwrite(fail_fd, on ? "1" : "0", 1, 0) == 1)
			return;
	printf("not ok - fault-cycle: write /proc/self/make-it-fail: %s\n",
	       strerror(errno));
	exit(1);
}

/*
 * -n: fail-nth counts every fault point this thread passes (an allocation
 * failslab or fail_page_alloc would consider, a user copy) and fails the
 * nth. It counts only inside the cycle's calls: armed with what is left
 * before each, read back and disarmed after. Reading it is a user copy
 * too, counted after the value was taken: at 1 the read itself gets
 * EFAULT, which tells the value.
 */
static unsigned int nth_left;	/* fault points left before the failure */

static void inject_nth(int on)
{
	char buf[16];
	ssize_t n;

	if (on) {
		if (!nth_left)
			return;
		n = snprintf(buf, sizeof(buf), "%u", nth_left);
		if (pwrite(fail_fd, buf, (size_t)n, 0) != n)
			goto err;
		return;
	}
	if (!nth_left)
		return;
	n = pread(fail_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0 && errno == EFAULT) {
		nth_left = 1;
	} else if (n > 0) {
		buf[n] = 0;
		nth_left = (unsigned int)strtoul(buf, NULL, 10);
	} else {
		goto err;
	}
	/* Disarm; a write that fails is the count running out on its copy. */
	if (nth_left && pwrite(fail_fd, "0", 1, 0) != 1 && errno != EFAULT)
		goto err;
	return;
err:
	printf("not ok - fault-cycle: /proc/thread-self/fail-nth: %s\n",
	       strerror(errno));
	exit(1);
}

static int inject_mode;		/* 0, 'f' or 'n' */

static void inject(int on)
{
	if (inject_mode == 'f')
		inject_task(on);
	else if (inject_mode == 'n')
		inject_nth(on);
}

/* ---- generic netlink, with the kernel's own errno ---- */

struct answer {
	int err;		/* the kernel's errno, negative; 0 on an ack */
	int done;		/* the ack or the error has come */
};

static int on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct answer *a = arg;

	(void)nla;
	a->err = e->error;
	a->done = 1;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct answer *a = arg;

	(void)msg;
	a->err = 0;
	a->done = 1;
	return NL_STOP;
}

struct att {
	int type;
	const void *data;
	int len;
};

/* (Re)open the generic netlink socket, without injection; 0 or -1. */
static int genl_open(void)
{
	if (sk)
		nl_socket_free(sk);
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) ||
	    (family = genl_ctrl_resolve(sk, RW_GENL_NAME)) < 0) {
		printf("not ok - fault-cycle: generic netlink family %s\n",
		       RW_GENL_NAME);
		return -1;
	}
	return 0;
}

/*
 * cmd with attributes a[0..n), injection as asked; 0 or -errno. A reply
 * (job add, job get) comes before the ack: read until the ack or the
 * error, or the next call would read this one's.
 */
static int genl_call(int cmd, const struct att *a, int n, int faults)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct answer ans = { .err = -EIO };
	int ret, i;

	if (!msg)
		return -ENOMEM;
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, cmd,
		    RW_GENL_VERSION);
	for (i = 0; i < n; i++)
		nla_put(msg, a[i].type, a[i].len, a[i].data);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_err, &ans);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &ans);
	inject(faults);
	errno = 0;
	ret = nl_send_auto(sk, msg);
	while (ret >= 0 && !ans.done)
		ret = nl_recvmsgs_default(sk);
	/*
	 * No answer from the kernel: the socket's own errno (ENOBUFS when
	 * the reply or the ack could not be allocated).
	 */
	if (!ans.done && errno)
		ans.err = -errno;
	inject(0);
	nlmsg_free(msg);
	/*
	 * A failure under injection may leave half an answer queued (a
	 * reply without its ack, an error the socket holds): start afresh.
	 */
	if (faults && ans.err && genl_open())
		exit(1);
	return ans.err;
}

static int job_add(const char *name, int faults)
{
	uint32_t w = nr_workers, cs = CHUNK_SIZE;
	struct att a[] = {
		{ RW_JOB_A_NAME, name, (int)strlen(name) + 1 },
		{ RW_JOB_A_WORKERS, &w, sizeof(w) },
		{ RW_JOB_A_CHUNK_SIZE, &cs, sizeof(cs) },
		{ RW_JOB_A_TOKEN, token, sizeof(token) },
	};

	return genl_call(RW_CMD_JOB_NEW, a, ARRAY_SIZE(a), faults);
}

static int job_name_call(int cmd, const char *name, uint32_t attr,
			 uint32_t val, int faults)
{
	struct att a[] = {
		{ RW_JOB_A_NAME, name, (int)strlen(name) + 1 },
		{ (int)attr, &val, sizeof(val) },
	};

	return genl_call(cmd, a, attr ? 2 : 1, faults);
}

/* ---- one cycle ---- */

static struct worker w[MAX_WORKERS];
static float expect_p[MODEL_CHUNKS * CHUNK_SIZE / sizeof(float)];

static int close_enough(float got, float want)
{
	return fabsf(got - want) <= 1e-6f + 1e-5f * fabsf(want);
}

/* p - lr * mean of the ranks' gradients, in float32. */
static void sgd_step(int iter)
{
	for (size_t t = 0; t < ARRAY_SIZE(model); t++) {
		float *p = expect_p + model_off[t] / sizeof(float);

		for (uint64_t i = 0; i < model[t].nelems; i++) {
			float g = 0;

			for (uint32_t r = 0; r < nr_workers; r++)
				g += grad_of(r, i, iter);
			p[i] = p[i] - LR * (g / (float)nr_workers);
		}
	}
}

static int params_right(const struct worker *wk, int iter)
{
	size_t n = MODEL_BYTES / sizeof(float);

	for (uint32_t c = 0; c < MODEL_CHUNKS; c++)
		if (wk->versions[c] != (uint64_t)iter)
			return 0;
	for (size_t i = 0; i < n; i++)
		if (!close_enough(wk->params[i], expect_p[i])) {
			printf("#   rank %u float %zu is %.9g, want %.9g\n",
			       wk->rank, i, (double)wk->params[i],
			       (double)expect_p[i]);
			return 0;
		}
	return 1;
}

static int bad;			/* a check of this run failed */
static int last_err;		/* what ended the last abandoned cycle */

/* A step failed with ret: count it if clean, flag it if not. */
static void note(enum step s, int ret, const char *name)
{
	for (int i = 0; i < 3; i++)
		if (ret == -clean_errno[i]) {
			fails[s][i]++;
			return;
		}
	printf("not ok - fault-cycle: %s: %s failed with %s (%d), not a clean errno\n",
	       name, step_name[s], strerror(-ret), ret);
	bad = 1;
}

/*
 * munmap may fail too (ENOMEM: the VMA tree's nodes are allocated): a
 * mapping left in place would keep the file and with it the rank. Retry,
 * counting the failures.
 */
static void unmap(const volatile void *p, size_t len)
{
	int i;

	for (i = 0; p && i < 1000; i++) {
		if (!munmap((void *)p, len))
			return;
		note(S_MUNMAP, -errno, "munmap");
	}
	if (p) {
		printf("not ok - fault-cycle: munmap failed 1000 times\n");
		bad = 1;
	}
}

static void release_all(void)
{
	for (uint32_t r = 0; r < nr_workers; r++) {
		unmap(w[r].grad, w[r].s.grad_len);
		unmap(w[r].params, w[r].s.params_len);
		unmap(w[r].versions, w[r].s.versions_len);
		w[r].grad = NULL;
		w[r].params = NULL;
		w[r].versions = NULL;
		if (w[r].fd >= 0)
			close(w[r].fd);
		w[r].fd = -1;
	}
}

static int call(int fd, unsigned long cmd, int faults)
{
	struct rw_xfer x;
	int ret;

	xfer_init(&x, NULL, 0, 0);
	x.timeout_ms = XFER_TIMEOUT_MS;
	inject(faults);
	ret = xfer_raw(fd, cmd, &x);
	inject(0);
	return ret;
}

/* Open, attach, declare, set up and map rank r; 0 or -errno (in *s). */
static int worker_up(uint32_t r, int faults, enum step *s)
{
	struct worker *wk = &w[r];
	int ret, fd;

	memset(wk, 0, sizeof(*wk));
	wk->rank = r;
	*s = S_OPEN;
	inject(faults);
	fd = open(RW_DEV_PATH, O_RDWR | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	wk->fd = fd < 0 ? -1 : fd;
	if (!ret) {
		*s = S_ATTACH;
		ret = attach(wk->fd, r, 0);
	}
	if (!ret) {
		*s = S_DECLARE;
		ret = declare(wk->fd, model, MODEL_TENSORS, 0);
	}
	if (!ret) {
		*s = S_SETUP;
		ret = setup(wk->fd, &wk->s);
	}
	if (!ret) {
		*s = S_MMAP;
		ret = worker_map(wk, 0);
	}
	inject(0);
	return ret;
}

/* One iteration of BSP: 0 or -errno (in *s). */
static int iteration(int iter, int faults, enum step *s)
{
	uint32_t last = nr_workers - 1, r;
	int ret;

	for (r = 0; r < nr_workers; r++)
		write_grads(&w[r], iter);
	for (r = 0; r < last; r++) {
		*s = S_PUSH;
		ret = call(w[r].fd, RW_IOC_PUSH, faults);
		if (ret)
			return ret;
	}
	*s = S_PUSHPULL;
	ret = call(w[last].fd, RW_IOC_PUSHPULL, faults);
	for (r = 0; !ret && r < last; r++) {
		*s = S_PULL;
		ret = call(w[r].fd, RW_IOC_PULL, faults);
	}
	return ret;
}

/* After a job del (@how): the job must be gone. */
static void expect_gone(const char *name, const char *how)
{
	int ret = job_name_call(RW_CMD_JOB_GET, name, 0, 0, 0);

	if (ret != -ENOENT) {
		printf("not ok - fault-cycle: %s: gone after %s (get: %d)\n",
		       name, how, ret);
		bad = 1;
	}
}

static void cycle(const char *prefix, unsigned long n, int faults)
{
	char name[RW_JOB_NAME_MAX];
	enum step s = S_JOB_ADD;
	int ret, it, right = 1;
	uint32_t r;

	snprintf(name, sizeof(name), "%s-%lu", prefix, n);
	job = name;
	for (size_t i = 0; i < sizeof(token); i++)
		token[i] = (uint8_t)rand();
	for (r = 0; r < MAX_WORKERS; r++)
		w[r].fd = -1;
	memset(expect_p, 0, sizeof(expect_p));

	ret = job_add(name, faults);
	for (r = 0; !ret && r < nr_workers; r++)
		ret = worker_up(r, faults, &s);
	if (!ret) {
		s = S_POLICY;
		ret = job_name_call(RW_CMD_POLICY_SET, name, RW_JOB_A_EVICT_MS,
				    60000, faults);
	}
	for (it = 1; !ret && it <= iters; it++) {
		ret = iteration(it, faults, &s);
		if (ret)
			break;
		sgd_step(it);
		for (r = 0; r < nr_workers; r++)
			right &= params_right(&w[r], it);
	}
	/* Teardown under injection too: it must not need what it cannot get. */
	inject(faults);
	release_all();
	inject(0);
	if (!ret) {
		s = S_JOB_DEL;
		ret = job_name_call(RW_CMD_JOB_DEL, name, 0, 0, faults);
	}
	if (!ret) {
		completed++;
		if (!right) {
			printf("not ok - fault-cycle: %s: every rank sees the exact SGD result\n",
			       name);
			bad = 1;
		}
		expect_gone(name, "job del");
		return;
	}

	/* A failure: clean errno, and nothing of the job may stay. */
	abandoned++;
	note(s, ret, name);
	last_err = ret;
	ret = job_name_call(RW_CMD_JOB_DEL, name, RW_JOB_A_FLAGS,
			    RW_JOB_DEL_FORCE, 0);
	if (ret && ret != -ENOENT) {
		printf("not ok - fault-cycle: %s: job del force after a failed %s: %s\n",
		       name, step_name[s], strerror(-ret));
		bad = 1;
	}
	/* ENOBUFS: the ack was lost, the job may well have been made. */
	if (s == S_JOB_ADD && !ret && last_err == -ENOMEM) {
		printf("not ok - fault-cycle: %s: job add failed but made the job\n",
		       name);
		bad = 1;
	}
	expect_gone(name, "job del force");
}

static int usage(void)
{
	fprintf(stderr, "usage: fault-cycle [-f|-n [-s STRIDE]] [-c CYCLES] [-w WORKERS] [-i ITERS] PREFIX\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long cycles = 1, stride = 1, n;
	int faults = 0, opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = (size_t)sysconf(_SC_PAGESIZE);
	mode = "fault-cycle";
	while ((opt = getopt(argc, argv, "fns:c:w:i:")) != -1) {
		switch (opt) {
		case 'f':
		case 'n': inject_mode = opt; faults = 1; break;
		case 'c': cycles = strtoul(optarg, NULL, 10); break;
		case 's': stride = strtoul(optarg, NULL, 10); break;
		case 'w': nr_workers = (unsigned int)atoi(optarg); break;
		case 'i': iters = atoi(optarg); break;
		default: return usage();
		}
	}
	if (optind != argc - 1 || !nr_workers || nr_workers > MAX_WORKERS ||
	    iters < 1 || !cycles || !stride)
		return usage();
	srand((unsigned int)getpid());

	if (genl_open())
		return 1;
	if (faults) {
		const char *f = inject_mode == 'f' ? "/proc/self/make-it-fail" :
			"/proc/thread-self/fail-nth";

		fail_fd = open(f, O_RDWR | O_CLOEXEC);
		if (fail_fd < 0) {
			printf("not ok - fault-cycle: open %s: %s\n", f,
			       strerror(errno));
			return 1;
		}
	}

	int swept = 0;

	for (n = 0; n < cycles; n++) {
		/*
		 * -n: cycle n fails fault point n * stride + 1, until the
		 * cycle passes fewer.
		 */
		nth_left = inject_mode == 'n' ? (unsigned int)(n * stride + 1) : 0;
		cycle(argv[optind], n, faults);
		if (inject_mode == 'n' && nth_left) {
			printf("# fail-nth: the life cycle passes about %lu fault points; every %lu%s failed once\n",
			       n * stride, stride, stride == 1 ? "" : "th");
			n++;
			swept = 1;
			break;
		}
	}
	cycles = n;
	/*
	 * Not an error: the life cycle passes many more fault points than a
	 * bounded sweep reaches (most in paths with a fallback, such as a
	 * lost event or kvmalloc's vmalloc after its kmalloc).
	 */
	if (inject_mode == 'n' && !swept)
		printf("# fail-nth: fault points 1 to %lu (every %lu%s) failed once; the cycle passes more\n",
		       (cycles - 1) * stride + 1, stride, stride == 1 ? "" : "th");

	printf("# %lu cycles: %lu completed, %lu ended by an injected failure\n",
	       cycles, completed, abandoned);
	for (int s = 0; s < NR_STEPS; s++)
		for (int e = 0; e < 3; e++)
			if (fails[s][e])
				printf("#   %s: %lu x %s\n", step_name[s],
				       fails[s][e], strerror(clean_errno[e]));
	printf("# completed %lu abandoned %lu\n", completed, abandoned);
	nl_socket_free(sk);
	return bad;
}

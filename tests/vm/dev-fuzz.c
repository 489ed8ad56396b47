// SPDX-License-Identifier: GPL-2.0
/*
 * dev-fuzz: random sequences of calls on /dev/rackweave from several
 * threads at once, against a sane job (--job, its token and worker count)
 * and against garbage.
 *
 *   dev-fuzz --job NAME --token-file PATH --workers W [--seed N]
 *            [--seconds S] [--iterations N] [--threads T] [--victim NAME]
 *            [--rwctl PATH]
 *
 * Every thread draws calls from one table: open and close of files (a
 * close may come while another thread is inside a call on the same fd, or
 * after its number went to a new file), every ioctl of uapi/rackweave.h
 * with structs that are mostly right and otherwise carry boundary values
 * (sizes, flags, reserved bytes, ranks, ranges, tensor layouts, timeouts,
 * pointers that fault), unknown ioctl numbers, mmap at random offsets,
 * lengths and protections (and MAP_PRIVATE), touching the pages mapped,
 * munmap of all or part of a mapping (a split), mprotect adding write,
 * mremap growing, poll; the main thread also forks children that use the
 * inherited files and mappings and are sometimes killed with SIGKILL
 * while they do. Blocking calls take random timeouts, 0 (no limit)
 * included: a watchdog interrupts a call after 1.5 s with a signal (so
 * EINTR paths run too) and calls a call still inside the kernel after
 * 120 s a hang.
 *
 * Every answer must be 0 or an errno the uapi documents for that call;
 * a mapping that was granted must not fault (SIGBUS), a read-only buffer
 * must not become writable, and no mapping may grow. The attach attempts
 * on the --victim job never carry its token: they must be refused.
 *
 * Layouts stay small (a few MiB at most) or beyond the module's limits
 * (E2BIG, EOVERFLOW): a layout of GiBs is a memory limit, not a bug to
 * find here (docs/fuzzing.md). If the job is gone (the netlink fuzzer may
 * delete it), the main thread makes it again with --rwctl.
 *
 * Each thread's generator is seeded from --seed and its index; threads
 * interleave as the scheduler decides, so a replay repeats the same
 * calls per thread, not the same interleaving.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
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
#include "../../uapi/rackweave_sizes.h"

#include "fuzz-common.h"

#define MAX_THREADS	8
#define NR_SLOTS	8
#define NR_MAPS		32
#define SCRATCH		(1U << 20)

extern char **environ;

static struct {
	struct fz_opts o;
	const char *job;
	const char *token_file;
	const char *victim;
	const char *rwctl;
	uint32_t workers;
	unsigned int threads;
} opt = { .workers = 2, .threads = 3 };

static uint8_t token[RW_JOB_TOKEN_LEN];
static size_t page;

/* The files: slots[i] is an fd or -1. */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static int slots[NR_SLOTS];

/* The mappings granted; touched and unmapped under map_lock. */
struct map {
	unsigned char *p;
	size_t len;
	int prot;
	uint64_t base;		/* RW_MMAP_* it came from */
};
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct map maps[NR_MAPS];

static atomic_bool stop;
/* Fuzzing threads not yet returned: the watchdog outlives every one. */
static atomic_uint running;
static atomic_bool job_gone;
static double start;

/* Per thread: when its current call began (0: not in one), for the watchdog. */
static _Atomic double busy_since[MAX_THREADS];
static pthread_t tids[MAX_THREADS];

/* Counts. */
static atomic_ullong n_calls, n_ioctls, n_maps_ok, n_maps, n_unmaps,
	n_touches, n_forks, n_kills, n_closes, n_opens, n_eintr, n_ok,
	n_remade, n_polls, n_steps;
static atomic_ullong n_err[160];

static __thread int self = -1;
static __thread struct fz_rng rng;
static __thread const char *cur_op = "start";
static __thread uint64_t cur_iter;
static __thread sigjmp_buf touch_jmp;
static __thread volatile sig_atomic_t touching;

__attribute__((noreturn, format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	va_list ap;

	pthread_mutex_lock(&once);
	printf("not ok - dev-fuzz: thread %d, %s: ", self, cur_op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (seed %llu, thread %d call %llu)\n",
	       (unsigned long long)opt.o.seed, self,
	       (unsigned long long)cur_iter);
	fflush(stdout);
	_exit(1);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void on_fault(int sig)
{
	if (touching)
		siglongjmp(touch_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- calls, checked against the errnos the uapi gives each ---- */

enum call { C_ATTACH, C_DECLARE, C_SETUP, C_XFER, C_INIT, C_CKPT,
	    C_VERSION, C_UNKNOWN, C_MMAP, __C_MAX };

static const int common_errs[] = { EINVAL, EFAULT, ENOTCONN, ENODEV, ESTALE,
				   EINTR, EBADF, ENOTTY, ENOMEM, EPERM,
				   ECONNRESET };
static const int call_errs[__C_MAX][16] = {
	[C_ATTACH] = { ENOENT, EACCES, ERANGE, EADDRINUSE, EISCONN,
		       EAFNOSUPPORT, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT,
		       ECONNREFUSED, EADDRNOTAVAIL, EBUSY, EPROTO, ENXIO },
	[C_DECLARE] = { EEXIST, ENOENT, EOPNOTSUPP, E2BIG, EOVERFLOW,
			ETIMEDOUT, EFBIG },
	[C_XFER] = { ENOENT, EALREADY, E2BIG, EAGAIN, ETIMEDOUT },
	[C_INIT] = { ENOENT, EBUSY, ETIMEDOUT, EOPNOTSUPP, E2BIG },
	[C_CKPT] = { EBUSY, ETIMEDOUT, EOPNOTSUPP },
	/* mm's own: EOVERFLOW for an offset plus length past 2^64. */
	[C_MMAP] = { EACCES, ENOMEM, ENODEV, EOVERFLOW },
};

static const char *const call_names[__C_MAX] = {
	"attach", "declare", "setup", "xfer", "params init", "checkpoint",
	"version", "unknown ioctl", "mmap",
};

static void judge(enum call c, int ret)
{
	unsigned int i;
	int e = ret < 0 ? -ret : 0;

	atomic_fetch_add(&n_calls, 1);
	if (!e) {
		atomic_fetch_add(&n_ok, 1);
		return;
	}
	atomic_fetch_add(&n_err[e < 160 ? e : 0], 1);
	if (e == EINTR)
		atomic_fetch_add(&n_eintr, 1);
	if (c == C_VERSION && e != EINVAL && e != EFAULT && e != EBADF &&
	    e != EINTR)
		fail("errno %s", strerrorname_np(e));
	if (c == C_UNKNOWN)
		return;		/* may have hit a real command: any errno */
	for (i = 0; i < ARRAY_SIZE(common_errs); i++)
		if (common_errs[i] == e)
			return;
	for (i = 0; i < ARRAY_SIZE(call_errs[c]) && call_errs[c][i]; i++)
		if (call_errs[c][i] == e)
			return;
	fail("%s: errno %d (%s) is not one the uapi documents",
	     call_names[c], e, strerrorname_np(e) ?: "?");
}

static int sys_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	busy_since[self] = fz_now();
	ret = ioctl(fd, cmd, arg);
	busy_since[self] = 0;
	atomic_fetch_add(&n_ioctls, 1);
	return ret < 0 ? -errno : ret;
}

/* ---- what a call's struct is made of ---- */

static unsigned char scratch[MAX_THREADS + 1][SCRATCH];

/* A user pointer: mostly @good, sometimes NULL, unmapped or kernel space. */
static uint64_t gen_ptr(const void *good)
{
	const uint64_t bad[] = { 0, 1, 4096, 0xffffffffff600000ULL,
				 0xffff888000000000ULL, 0x7ffffffff000ULL,
				 ~0ULL };

	if (fz_pct(&rng, 92))
		return (uint64_t)(uintptr_t)good;
	return bad[fz_below(&rng, ARRAY_SIZE(bad))];
}

/* size, flags, reserved: right mostly. */
static void gen_head(uint32_t *size, uint32_t want, uint32_t *flags,
		     uint32_t all)
{
	*size = fz_pct(&rng, 96) ? want : fz_u32_edge(&rng, want, want);
	*flags = fz_pct(&rng, 93) ? (uint32_t)fz_below(&rng, (uint64_t)all + 1) & all :
		 (uint32_t)fz_next(&rng);
}

static void gen_reserved(void *p, size_t len)
{
	if (fz_pct(&rng, 4))
		fz_bytes(&rng, p, len);
}

/* An open file mostly; now and then whatever the slot holds (-1). */
static int pick_fd(void)
{
	int fd = -1, tries;

	pthread_mutex_lock(&slot_lock);
	for (tries = 0; fd < 0 && tries < (fz_pct(&rng, 97) ? 8 : 1); tries++)
		fd = slots[fz_below(&rng, NR_SLOTS)];
	pthread_mutex_unlock(&slot_lock);
	return fd;
}

/* Keeps @fd in a free slot; false (and closed) if none is free. */
static bool keep_fd(int fd)
{
	int i = (int)fz_below(&rng, NR_SLOTS), n;

	pthread_mutex_lock(&slot_lock);
	for (n = 0; n < NR_SLOTS && slots[i] >= 0; n++)
		i = (i + 1) % NR_SLOTS;
	if (n < NR_SLOTS)
		slots[i] = fd;
	pthread_mutex_unlock(&slot_lock);
	if (n == NR_SLOTS)
		close(fd);
	return n < NR_SLOTS;
}

static void op_open(void)
{
	int fd;

	cur_op = "open";
	fd = open(RW_DEV_PATH, O_RDWR | O_CLOEXEC |
		  (fz_pct(&rng, 20) ? O_NONBLOCK : 0));
	if (fd < 0)
		fail("open: %s", strerror(errno));
	atomic_fetch_add(&n_opens, 1);
	keep_fd(fd);
}

/* A close, maybe while another thread is inside a call on the fd. */
static void op_close(void)
{
	int i, fd;

	cur_op = "close";
	pthread_mutex_lock(&slot_lock);
	i = (int)fz_below(&rng, NR_SLOTS);
	fd = slots[i];
	slots[i] = -1;
	pthread_mutex_unlock(&slot_lock);
	if (fd >= 0) {
		close(fd);
		atomic_fetch_add(&n_closes, 1);
	}
}

static void op_attach(void)
{
	struct rw_attach a;
	uint64_t p = fz_below(&rng, 100);
	int fd = pick_fd(), ret;
	bool remote = false;

	cur_op = "attach";
	memset(&a, 0, sizeof(a));
	gen_head(&a.size, sizeof(a), &a.flags, 0);
	if (fz_pct(&rng, 12))
		a.flags |= RW_ATTACH_OBSERVER;
	if (p < 78) {
		snprintf(a.job, sizeof(a.job), "%s", opt.job);
		memcpy(a.token, token, sizeof(token));
		if (fz_pct(&rng, 5))
			a.token[fz_below(&rng, sizeof(a.token))] ^= 1;
	} else if (p < 86 && opt.victim) {
		/* Never the victim's token: a refusal, nothing else. */
		snprintf(a.job, sizeof(a.job), "%s", opt.victim);
		fz_bytes(&rng, a.token, sizeof(a.token));
	} else if (p < 92) {
		memset(a.job, 'f', sizeof(a.job));	/* no NUL */
	} else {
		snprintf(a.job, sizeof(a.job), "fz-none%u",
			 (unsigned int)fz_below(&rng, 4));
	}
	a.rank = fz_pct(&rng, 85) ? (uint32_t)fz_below(&rng, opt.workers) :
		 fz_u32_edge(&rng, 0, opt.workers);
	if (a.flags & RW_ATTACH_OBSERVER && fz_pct(&rng, 80))
		a.rank = 0;
	if (fz_pct(&rng, 2)) {
		/*
		 * Remote: a family that is not one, or loopback where no
		 * RDMA device answers (quick refusals, no long waits).
		 */
		remote = true;
		a.flags |= RW_ATTACH_REMOTE;
		a.box_family = fz_pct(&rng, 50) ? AF_INET : (uint16_t)fz_next(&rng);
		a.box_port = (uint16_t)fz_next(&rng);
		a.box_addr[0] = 127;
		a.box_addr[3] = 1;
	} else if (fz_pct(&rng, 2)) {
		a.box_port = 1;		/* box fields without REMOTE */
	}
	gen_reserved(&a.reserved, sizeof(a.reserved));
	ret = sys_ioctl(fd, RW_IOC_ATTACH, fz_pct(&rng, 97) ? (void *)&a :
			(void *)(uintptr_t)gen_ptr(NULL));
	if (ret == 0 && opt.victim && !strcmp(a.job, opt.victim))
		fail("attached to the victim job %s without its token",
		     opt.victim);
	if (ret == -ENOENT && !strcmp(a.job, opt.job) && !remote)
		atomic_store(&job_gone, true);
	judge(C_ATTACH, remote && ret < 0 ? -EHOSTUNREACH : ret);
}

/* The sane model: 3 tensors over 4 chunks of 4 KiB (as dev-check's). */
static const struct rw_tensor_desc model[] = {
	{ .key = 11, .nelems = 1000, .dtype = RW_DTYPE_F32 },
	{ .key = 22, .nelems = 3000, .dtype = RW_DTYPE_F32 },
	{ .key = 33, .nelems = 16, .dtype = RW_DTYPE_F32 },
};

static void op_declare(void)
{
	struct rw_tensor_desc *t = (void *)scratch[self];
	struct rw_declare d;
	uint32_t i, nr = ARRAY_SIZE(model);
	int fd = pick_fd();

	cur_op = "declare";
	memset(&d, 0, sizeof(d));
	gen_head(&d.size, sizeof(d), &d.flags, RW_DECLARE_FLAGS_ALL);
	memcpy(t, model, sizeof(model));
	if (fz_pct(&rng, 35)) {
		const uint32_t nrs[] = { 0, 1, 2, 3, 4, 7, 100, 1000 };
		/* Small, or beyond the layout's limits: never GiBs. */
		const uint64_t nel[] = { 0, 1, 15, 16, 17, 1023, 1024, 1025,
					 4096, 65536, 1U << 20,
					 1ULL << 40, 1ULL << 61, 1ULL << 62,
					 ~0ULL, ~0ULL / 4 + 1 };

		nr = nrs[fz_below(&rng, ARRAY_SIZE(nrs))];
		for (i = 0; i < nr; i++) {
			t[i].key = fz_pct(&rng, 80) ? 11 * (i + 1) :
				   fz_u64_edge(&rng);
			t[i].nelems = nel[fz_below(&rng, ARRAY_SIZE(nel))];
			t[i].dtype = fz_pct(&rng, 85) ? RW_DTYPE_F32 :
				     (uint32_t)fz_below(&rng, 5);
			t[i].priority = fz_pct(&rng, 90) ? 0 :
					fz_u32_edge(&rng, 0, RW_PRIORITY_MAX + 1);
		}
	}
	d.nr_tensors = fz_pct(&rng, 97) ? nr :
		       fz_u32_edge(&rng, 1, RW_MAX_TENSORS);
	d.tensors = gen_ptr(t);
	if (d.nr_tensors > 1000 && d.tensors == (uint64_t)(uintptr_t)t)
		d.tensors = 4096;	/* beyond scratch: a fault, not a read */
	if (fz_pct(&rng, 3))
		d.reserved0 = 1;
	gen_reserved(d.reserved, sizeof(d.reserved));
	judge(C_DECLARE, sys_ioctl(fd, RW_IOC_DECLARE, &d));
}

static void op_setup(void)
{
	struct rw_setup s;
	int fd = pick_fd();

	cur_op = "setup";
	memset(&s, 0, sizeof(s));
	gen_head(&s.size, sizeof(s), &s.flags, RW_SETUP_FLAGS_ALL);
	gen_reserved(s.reserved, sizeof(s.reserved));
	if (fz_pct(&rng, 10))
		fz_bytes(&rng, &s.rank, 64);	/* out fields: ignored */
	judge(C_SETUP, sys_ioctl(fd, RW_IOC_SETUP,
				 (void *)(uintptr_t)gen_ptr(&s)));
}

/* Ranges: chunks 0..5 (the model has 4), tensor keys, boundaries. */
static uint32_t gen_ranges(struct rw_range *r, uint32_t *flags, uint32_t keys)
{
	uint32_t i, nr = fz_pct(&rng, 35) ? 0 : 1 + (uint32_t)fz_below(&rng, 4);

	for (i = 0; i < nr; i++) {
		if (*flags & keys) {
			const uint64_t k[] = { 11, 22, 33, 0, 44, ~0ULL };

			r[i].first = k[fz_below(&rng, ARRAY_SIZE(k))];
			r[i].count = fz_pct(&rng, 90) ? 0 : 1;
		} else {
			r[i].first = fz_pct(&rng, 85) ? fz_below(&rng, 4) :
				     fz_u64_edge(&rng);
			r[i].count = fz_pct(&rng, 85) ? 1 + fz_below(&rng, 4) :
				     fz_u64_edge(&rng);
		}
	}
	if (fz_pct(&rng, 2))
		nr = RW_XFER_MAX_RANGES + (uint32_t)fz_below(&rng, 2);
	return nr;
}

static uint32_t gen_timeout(void)
{
	if (fz_pct(&rng, 10))
		return 0;	/* no limit: the watchdog's signal ends it */
	return 1 + (uint32_t)fz_below(&rng, 300);
}

static void op_xfer(void)
{
	const unsigned long cmds[] = { RW_IOC_PUSH, RW_IOC_PULL,
				       RW_IOC_PUSHPULL };
	struct rw_range *r = (void *)scratch[self];
	struct rw_xfer x;
	int fd = pick_fd();

	cur_op = "xfer";
	memset(&x, 0, sizeof(x));
	gen_head(&x.size, sizeof(x), &x.flags, RW_XFER_FLAGS_ALL);
	x.nr = gen_ranges(r, &x.flags, RW_XFER_KEYS);
	x.ranges = x.nr > 4 ? 4096 : gen_ptr(r);
	x.timeout_ms = gen_timeout();
	gen_reserved(x.reserved, sizeof(x.reserved));
	judge(C_XFER, sys_ioctl(fd, cmds[fz_below(&rng, 3)], &x));
}

static void op_params_init(void)
{
	struct rw_range *r = (void *)scratch[self];
	unsigned char *data = scratch[self] + 4096;
	const uint64_t lens[] = { 16384, 16384, 16384, 0, 16383, 16385, 4096,
				  RW_CKPT_HEAD_SIZE + 16384 * 2 + 32,
				  SCRATCH - 4096 };
	struct rw_params_init p;
	int fd = pick_fd();

	cur_op = "params init";
	memset(&p, 0, sizeof(p));
	gen_head(&p.size, sizeof(p), &p.flags, RW_INIT_FLAGS_ALL);
	p.nr = gen_ranges(r, &p.flags, RW_INIT_KEYS);
	p.ranges = p.nr > 4 ? 4096 : gen_ptr(r);
	p.len = fz_pct(&rng, 90) ? lens[fz_below(&rng, ARRAY_SIZE(lens))] :
		fz_u64_edge(&rng);
	if (p.flags & RW_INIT_CHECKPOINT && fz_pct(&rng, 50)) {
		/* A head that looks right enough to be read further. */
		struct rw_ckpt_head h = { .magic = RW_CKPT_MAGIC,
			.head_len = sizeof(h), .nr_tensors = 3,
			.nr_chunks = 4, .chunk_size = 4096,
			.params_len = 16384, .image_len = 16384 + 32 };

		if (fz_pct(&rng, 50))
			fz_bytes(&rng, (unsigned char *)&h + 8, 16);
		memcpy(data, &h, sizeof(h));
	} else {
		fz_bytes(&rng, data, 64);
	}
	p.data = p.len <= SCRATCH - 4096 ? gen_ptr(data) : gen_ptr(NULL);
	if (p.flags & RW_INIT_WAIT) {
		p.timeout_ms = gen_timeout();
		if (fz_pct(&rng, 80)) {
			p.nr = 0;
			p.data = 0;
			p.len = 0;
		}
	}
	gen_reserved(p.reserved, sizeof(p.reserved));
	judge(C_INIT, sys_ioctl(fd, RW_IOC_PARAMS_INIT, &p));
}

static void op_checkpoint(void)
{
	struct rw_ckpt_head *h = (void *)scratch[self];
	unsigned char *data = scratch[self] + 4096;
	const uint64_t lens[] = { 16384 + 32, 16384 * 2 + 32, 16384 * 3 + 32,
				  0, 1, 16384 };
	struct rw_checkpoint c;
	int fd = pick_fd();

	cur_op = "checkpoint";
	memset(&c, 0, sizeof(c));
	gen_head(&c.size, sizeof(c), &c.flags, RW_CKPT_FLAGS_ALL);
	c.timeout_ms = gen_timeout();
	c.head = gen_ptr(h);
	c.data = gen_ptr(data);
	c.len = fz_pct(&rng, 90) ? lens[fz_below(&rng, ARRAY_SIZE(lens))] :
		fz_u64_edge(&rng);
	if (c.len > SCRATCH - 4096)
		c.data = 4096;
	if (fz_pct(&rng, 3))
		c.reserved0 = 1;
	gen_reserved(c.reserved, sizeof(c.reserved));
	judge(C_CKPT, sys_ioctl(fd, RW_IOC_CHECKPOINT, &c));
}

/*
 * A checkpoint taken and given back, changed: the head exact (so the
 * image is read) with versions and parameters from boundaries, or one
 * field of the head off. Restores come before a run's first push only,
 * so most are refused with EBUSY; the others write the image.
 */
static void op_ckpt_restore(void)
{
	struct rw_ckpt_head *h = (void *)scratch[self];
	unsigned char *img = scratch[self] + sizeof(*h);
	struct rw_checkpoint c = { .size = sizeof(c), .timeout_ms = 200,
				   .flags = RW_CKPT_HEAD_ONLY };
	struct rw_params_init p = { .size = sizeof(p),
				    .flags = RW_INIT_CHECKPOINT };
	uint64_t *ver, i, n;
	int fd = pick_fd(), ret;

	cur_op = "checkpoint and restore";
	c.head = (uintptr_t)h;
	ret = sys_ioctl(fd, RW_IOC_CHECKPOINT, &c);
	judge(C_CKPT, ret);
	if (ret || h->image_len > SCRATCH - 8192 - sizeof(*h) ||
	    h->nr_chunks * 8ULL > h->image_len)
		return;
	c.flags = 0;
	c.data = (uintptr_t)img;
	c.len = h->image_len;
	if (fz_pct(&rng, 50))
		judge(C_CKPT, sys_ioctl(fd, RW_IOC_CHECKPOINT, &c));
	else
		fz_bytes(&rng, img, h->image_len < 256 ? h->image_len : 256);
	n = h->nr_chunks;
	ver = (uint64_t *)(img + h->image_len - 8 * n);
	if (fz_pct(&rng, 70)) {
		for (i = 0; i < n; i++)
			if (fz_pct(&rng, 50))
				memcpy(&ver[i], &(uint64_t){ fz_u64_edge(&rng) }, 8);
		if (fz_pct(&rng, 30))
			memset(img, 0xff, 64);	/* NaNs */
	} else {
		((unsigned char *)h)[fz_below(&rng, sizeof(*h))] ^=
			(unsigned char)(1 + fz_below(&rng, 255));
	}
	p.data = (uintptr_t)h;
	p.len = fz_pct(&rng, 95) ? sizeof(*h) + h->image_len :
		fz_u64_edge(&rng);
	if (p.len > SCRATCH - 4096)
		p.data = 4096;
	judge(C_INIT, sys_ioctl(pick_fd(), RW_IOC_PARAMS_INIT, &p));
}

static void op_version(void)
{
	struct rw_version_info v;
	int fd = pick_fd();

	cur_op = "version";
	memset(&v, 0, sizeof(v));
	gen_head(&v.size, sizeof(v), &v.flags, RW_VERSION_FLAGS_ALL);
	gen_reserved(v.reserved, sizeof(v.reserved));
	judge(C_VERSION, sys_ioctl(fd, RW_IOC_VERSION,
				   (void *)(uintptr_t)gen_ptr(&v)));
}

/* Numbers the module does not define: other sizes, directions, types. */
static void op_unknown(void)
{
	unsigned long cmd;
	int fd = pick_fd(), ret;
	unsigned int nr = (unsigned int)fz_below(&rng, 16);

	cur_op = "unknown ioctl";
	switch (fz_below(&rng, 4)) {
	case 0:
		cmd = _IOC(fz_below(&rng, 4), RW_IOC_MAGIC, nr,
			   fz_below(&rng, 256));
		break;
	case 1:
		cmd = _IOWR(RW_IOC_MAGIC, nr, struct rw_xfer);
		break;
	case 2:
		cmd = _IO(RW_IOC_MAGIC, nr);
		break;
	default:
		cmd = (unsigned long)(uint32_t)fz_next(&rng);
		break;
	}
	memset(scratch[self], 0, 256);
	ret = sys_ioctl(fd, cmd, scratch[self]);
	if (ret == 0 && nr > 8 && _IOC_TYPE(cmd) == RW_IOC_MAGIC)
		fail("ioctl %#lx (not the module's) returned 0", cmd);
	judge(C_UNKNOWN, ret);
}

/* ---- mappings ---- */

static bool touch(struct map *m)
{
	volatile unsigned char *p = m->p;
	size_t off;
	int sig;

	touching = 1;
	sig = sigsetjmp(touch_jmp, 1);
	if (sig) {
		touching = 0;
		fail("%s touching a granted mapping (offset %#llx, %zu bytes, prot %d)",
		     sig == SIGBUS ? "SIGBUS" : "SIGSEGV",
		     (unsigned long long)m->base, m->len, m->prot);
	}
	for (off = 0; off < m->len; off += page) {
		if (m->prot & PROT_READ)
			(void)p[off];
		if (m->prot & PROT_WRITE)
			p[off] = (unsigned char)off;
	}
	touching = 0;
	atomic_fetch_add(&n_touches, 1);
	return true;
}

/* Records a granted mapping and touches it; unmaps it if no room. */
static void map_keep(void *p, size_t len, int prot, uint64_t base)
{
	int i;

	atomic_fetch_add(&n_maps_ok, 1);
	pthread_mutex_lock(&map_lock);
	for (i = 0; i < NR_MAPS && maps[i].p; i++)
		;
	if (i == NR_MAPS) {
		pthread_mutex_unlock(&map_lock);
		munmap(p, len);
		return;
	}
	maps[i] = (struct map){ p, len, prot, base };
	touch(&maps[i]);
	pthread_mutex_unlock(&map_lock);
}

static void op_mmap(void)
{
	const uint64_t bases[] = { RW_MMAP_GRAD, RW_MMAP_PARAMS,
				   RW_MMAP_VERSIONS };
	const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
			      PROT_NONE, PROT_READ | PROT_EXEC };
	uint64_t base = bases[fz_below(&rng, 3)], off;
	size_t len;
	int fd = pick_fd(), prot, flags;
	void *p;

	cur_op = "mmap";
	off = base + page * fz_below(&rng, 5);
	len = page * (fz_pct(&rng, 90) ? 1 + fz_below(&rng, 5) :
		      fz_below(&rng, 1U << 16));
	if (fz_pct(&rng, 5))
		off = fz_u64_edge(&rng) & ~(uint64_t)(page - 1);
	prot = base == RW_MMAP_GRAD && fz_pct(&rng, 60) ?
	       PROT_READ | PROT_WRITE : prots[fz_below(&rng, ARRAY_SIZE(prots))];
	if (base != RW_MMAP_GRAD && fz_pct(&rng, 60))
		prot = PROT_READ;
	flags = fz_pct(&rng, 90) ? MAP_SHARED : MAP_PRIVATE;
	busy_since[self] = fz_now();
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	busy_since[self] = 0;
	atomic_fetch_add(&n_maps, 1);
	if (p == MAP_FAILED) {
		judge(C_MMAP, -errno);
		return;
	}
	judge(C_MMAP, 0);
	/*
	 * The buffer is the one the offset names, not the one drawn: an edge
	 * offset (0, 4096, ...) may land in the gradients, which are writable.
	 */
	base = off & ~(RW_MMAP_PARAMS - 1);
	if (base != RW_MMAP_GRAD && (prot & PROT_WRITE) && flags == MAP_SHARED)
		fail("a shared writable mapping of read-only buffer %#llx was granted",
		     (unsigned long long)base);
	map_keep(p, len, prot, base);
}

/*
 * A sane worker of the job: open, attach a rank, declare the model, map
 * its three buffers. The other calls then meet attached, declared files.
 */
static void op_worker(void)
{
	struct rw_attach a = { .size = sizeof(a),
			       .rank = (uint32_t)fz_below(&rng, opt.workers) };
	struct rw_declare d = { .size = sizeof(d), .nr_tensors = 3,
				.tensors = (uintptr_t)model };
	struct rw_setup s = { .size = sizeof(s) };
	void *g, *p, *v;
	int fd, ret;

	cur_op = "worker";
	fd = open(RW_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	atomic_fetch_add(&n_opens, 1);
	snprintf(a.job, sizeof(a.job), "%s", opt.job);
	memcpy(a.token, token, sizeof(token));
	ret = sys_ioctl(fd, RW_IOC_ATTACH, &a);
	judge(C_ATTACH, ret);
	if (ret == -ENOENT)
		atomic_store(&job_gone, true);
	if (ret) {
		/* Rank taken: op_open keeps enough idle files already. */
		close(fd);
		return;
	}
	if (!ret) {
		ret = sys_ioctl(fd, RW_IOC_DECLARE, &d);
		judge(C_DECLARE, ret);
	}
	if (!ret) {
		ret = sys_ioctl(fd, RW_IOC_SETUP, &s);
		judge(C_SETUP, ret);
	}
	if (!ret) {
		g = mmap(NULL, s.grad_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, (off_t)s.grad_offset);
		p = mmap(NULL, s.params_len, PROT_READ, MAP_SHARED, fd,
			 (off_t)s.params_offset);
		v = mmap(NULL, s.versions_len, PROT_READ, MAP_SHARED, fd,
			 (off_t)s.versions_offset);
		atomic_fetch_add(&n_maps, 3);
		judge(C_MMAP, g == MAP_FAILED ? -errno : 0);
		if (g != MAP_FAILED)
			map_keep(g, s.grad_len, PROT_READ | PROT_WRITE,
				 RW_MMAP_GRAD);
		if (p != MAP_FAILED)
			map_keep(p, s.params_len, PROT_READ, RW_MMAP_PARAMS);
		if (v != MAP_FAILED)
			map_keep(v, s.versions_len, PROT_READ, RW_MMAP_VERSIONS);
	}
	keep_fd(fd);
}

/* Touch, unmap (all, or one page: a split), mprotect, mremap. */
static void op_map_use(void)
{
	struct map *m;
	int i = (int)fz_below(&rng, NR_MAPS), j;
	size_t at;
	void *q;

	cur_op = "mapping";
	pthread_mutex_lock(&map_lock);
	m = &maps[i];
	if (!m->p) {
		pthread_mutex_unlock(&map_lock);
		return;
	}
	switch (fz_below(&rng, 6)) {
	case 0:
	case 1:
		touch(m);
		break;
	case 2:
		munmap(m->p, m->len);
		memset(m, 0, sizeof(*m));
		atomic_fetch_add(&n_unmaps, 1);
		break;
	case 3:
		/* One page out of the middle: two mappings remain. */
		at = page * fz_below(&rng, m->len / page);
		munmap(m->p + at, page);
		atomic_fetch_add(&n_unmaps, 1);
		for (j = 0; j < NR_MAPS && maps[j].p; j++)
			;
		if (j < NR_MAPS && at + page < m->len)
			maps[j] = (struct map){ m->p + at + page,
						m->len - at - page, m->prot,
						m->base };
		else if (at + page < m->len)
			munmap(m->p + at + page, m->len - at - page);
		m->len = at;
		if (!at)
			memset(m, 0, sizeof(*m));
		break;
	case 4:
		if (!mprotect(m->p, m->len, PROT_READ | PROT_WRITE)) {
			if (m->base != RW_MMAP_GRAD)
				fail("mprotect made read-only buffer %#llx writable",
				     (unsigned long long)m->base);
			m->prot = PROT_READ | PROT_WRITE;
		}
		break;
	default:
		q = mremap(m->p, m->len, m->len + page, 0);
		if (q != MAP_FAILED)
			fail("mremap grew a mapping of buffer %#llx",
			     (unsigned long long)m->base);
		break;
	}
	pthread_mutex_unlock(&map_lock);
}

static void op_poll(void)
{
	struct pollfd p = { .fd = pick_fd(), .events = POLLIN | POLLOUT };

	cur_op = "poll";
	busy_since[self] = fz_now();
	poll(&p, 1, (int)fz_below(&rng, 50));
	busy_since[self] = 0;
	atomic_fetch_add(&n_polls, 1);
}

/*
 * A step a trainer would make: push every chunk, then pull them (both
 * bounded), on one file. With two such files attached, the job steps.
 */
static void op_step(void)
{
	struct rw_xfer x = { .size = sizeof(x), .timeout_ms = 200 };
	int fd = pick_fd();

	cur_op = "step";
	judge(C_XFER, sys_ioctl(fd, RW_IOC_PUSHPULL, &x));
	atomic_fetch_add(&n_steps, 1);
}

/* ---- fork: a child that uses what it inherited, maybe killed ---- */

static void child_run(void)
{
	struct rw_xfer x = { .size = sizeof(x), .flags = RW_XFER_NONBLOCK };
	int i, fd;

	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	self = MAX_THREADS;
	for (i = 0; i < NR_MAPS; i++)
		if (maps[i].p && fz_pct(&rng, 50))
			touch(&maps[i]);
	fd = slots[fz_below(&rng, NR_SLOTS)];
	if (fd >= 0) {
		x.flags = fz_pct(&rng, 50) ? RW_XFER_NONBLOCK : 0;
		x.timeout_ms = 100;
		ioctl(fd, fz_pct(&rng, 50) ? RW_IOC_PUSHPULL : RW_IOC_PULL, &x);
		if (fz_pct(&rng, 50))
			close(fd);
	}
	if (fz_pct(&rng, 20))
		usleep(100000);
	_exit(0);
}

static void op_fork(void)
{
	pid_t pid;
	int st;

	cur_op = "fork";
	/* The lock held over fork: the child sees a consistent table. */
	pthread_mutex_lock(&map_lock);
	pthread_mutex_lock(&slot_lock);
	pid = fork();
	if (pid == 0)
		child_run();
	pthread_mutex_unlock(&slot_lock);
	pthread_mutex_unlock(&map_lock);
	if (pid < 0)
		return;
	atomic_fetch_add(&n_forks, 1);
	if (fz_pct(&rng, 30)) {
		usleep((useconds_t)fz_below(&rng, 20000));
		kill(pid, SIGKILL);
		atomic_fetch_add(&n_kills, 1);
	}
	busy_since[self] = fz_now();
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	busy_since[self] = 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
		fail("a child died of signal %d (%s)", WTERMSIG(st),
		     strsignal(WTERMSIG(st)));
}

/* The job again, if the netlink fuzzer deleted it. */
static void op_remake(void)
{
	char workers[16];
	char *argv[] = { (char *)opt.rwctl, "job", "add", (char *)opt.job,
			 "workers", workers, "chunk-size", "4096",
			 "token-file", (char *)opt.token_file, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, ret;

	cur_op = "remake";
	if (!opt.rwctl || !atomic_exchange(&job_gone, false))
		return;
	snprintf(workers, sizeof(workers), "%u", opt.workers);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	/* "already exists": genl-fuzz made it again first. */
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ret = posix_spawn(&pid, opt.rwctl, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return;
	busy_since[self] = fz_now();
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	busy_since[self] = 0;
	atomic_fetch_add(&n_remade, 1);
}

/* ---- threads ---- */

struct op {
	void (*fn)(void);
	unsigned int weight;
	bool main_only;
};

static const struct op ops[] = {
	{ op_open, 2, false }, { op_close, 6, false },
	{ op_worker, 5, false },
	{ op_attach, 8, false }, { op_declare, 6, false },
	{ op_setup, 4, false }, { op_xfer, 14, false },
	{ op_step, 8, false }, { op_params_init, 4, false },
	{ op_checkpoint, 3, false }, { op_version, 2, false },
	{ op_ckpt_restore, 3, false },
	{ op_unknown, 2, false }, { op_mmap, 8, false },
	{ op_map_use, 10, false }, { op_poll, 5, false },
	{ op_fork, 2, true }, { op_remake, 3, true },
};

static void *thread_main(void *arg)
{
	unsigned int total = 0, i, w;
	uint64_t n;

	self = (int)(intptr_t)arg;
	rng.s = opt.o.seed * 0x100000001b3ULL + (uint64_t)self;
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;
	for (n = 0; !atomic_load(&stop); n++) {
		cur_iter = n;
		w = (unsigned int)fz_below(&rng, total);
		for (i = 0; w >= ops[i].weight; i++)
			w -= ops[i].weight;
		if (ops[i].main_only && self)
			continue;
		ops[i].fn();
		if (!self && !fz_more(&opt.o, start, atomic_load(&n_calls)))
			atomic_store(&stop, true);
	}
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/*
 * Interrupts calls that wait for long; a call stuck for 120 s is a hang.
 * It runs until the last fuzzing thread has returned, not until stop: a
 * thread inside a call without a time limit when stop is set needs its
 * signal still (without it, dev-fuzz waited for that thread forever).
 */
static void *watchdog(void *arg)
{
	unsigned int i;
	double b, now;

	(void)arg;
	while (atomic_load(&running)) {
		usleep(200000);
		now = fz_now();
		for (i = 0; i < opt.threads; i++) {
			b = busy_since[i];
			if (b && now - b > 120) {
				printf("not ok - dev-fuzz: thread %u inside one call for %.0f s: a hang (seed %llu)\n",
				       i, now - b, (unsigned long long)opt.o.seed);
				fflush(stdout);
				_exit(1);
			}
			if (b && now - b > 1.5)
				pthread_kill(tids[i], SIGUSR1);
		}
	}
	return NULL;
}

static void read_token(void)
{
	FILE *f = fopen(opt.token_file, "rb");

	if (!f || fread(token, 1, sizeof(token), f) != sizeof(token)) {
		printf("not ok - dev-fuzz: reading the token %s\n",
		       opt.token_file);
		exit(1);
	}
	fclose(f);
}

static void report(double secs)
{
	unsigned int i;

	printf("# dev-fuzz: seed %llu: %llu calls (%llu ioctls, %llu ok) in %.1f s by %u threads; mmap %llu (%llu granted), %llu unmaps, %llu touches, %llu polls, %llu steps tried, %llu opens, %llu closes, %llu forks (%llu killed), %llu interrupted, job made again %llu times\n",
	       (unsigned long long)opt.o.seed, n_calls, n_ioctls, n_ok, secs,
	       opt.threads, n_maps, n_maps_ok, n_unmaps, n_touches, n_polls,
	       n_steps, n_opens, n_closes, n_forks, n_kills, n_eintr,
	       n_remade);
	printf("# dev-fuzz: errors:");
	for (i = 1; i < ARRAY_SIZE(n_err); i++)
		if (n_err[i])
			printf(" %s %llu", strerrorname_np((int)i), n_err[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t wd;
	unsigned int i;
	int j;

	for (j = 1; j < argc; j++) {
		if (fz_common_opt(&opt.o, argc, argv, &j))
			continue;
		if (j + 1 >= argc)
			goto usage;
		if (!strcmp(argv[j], "--job"))
			opt.job = argv[++j];
		else if (!strcmp(argv[j], "--token-file"))
			opt.token_file = argv[++j];
		else if (!strcmp(argv[j], "--workers"))
			opt.workers = (uint32_t)strtoul(argv[++j], NULL, 0);
		else if (!strcmp(argv[j], "--threads"))
			opt.threads = (unsigned int)strtoul(argv[++j], NULL, 0);
		else if (!strcmp(argv[j], "--victim"))
			opt.victim = argv[++j];
		else if (!strcmp(argv[j], "--rwctl"))
			opt.rwctl = argv[++j];
		else
			goto usage;
	}
	if (!opt.job || !opt.token_file || !opt.workers || !opt.threads ||
	    opt.threads > MAX_THREADS)
		goto usage;
	fz_seed_default(&opt.o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# dev-fuzz: seed %llu\n", (unsigned long long)opt.o.seed);
	read_token();
	page = (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < NR_SLOTS; i++)
		slots[i] = -1;
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: calls see EINTR */
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	start = fz_now();
	tids[0] = pthread_self();
	atomic_store(&running, opt.threads);
	for (i = 1; i < opt.threads; i++)
		if (pthread_create(&tids[i], NULL, thread_main,
				   (void *)(intptr_t)i))
			return 1;
	if (pthread_create(&wd, NULL, watchdog, NULL))
		return 1;
	thread_main((void *)0);
	for (i = 1; i < opt.threads; i++)
		pthread_join(tids[i], NULL);
	pthread_join(wd, NULL);

	/* Everything goes: files, then mappings (they outlive the files). */
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i] >= 0)
			close(slots[i]);
	for (i = 0; i < NR_MAPS; i++) {
		if (maps[i].p) {
			touch(&maps[i]);
			munmap(maps[i].p, maps[i].len);
		}
	}
	report(fz_now() - start);
	printf("ok - dev-fuzz: %llu calls (seed %llu): every answer 0 or a documented errno, no fault in a granted mapping, no read-only buffer writable, no hang\n",
	       n_calls, (unsigned long long)opt.o.seed);
	return 0;
usage:
	fprintf(stderr, "usage: dev-fuzz --job NAME --token-file PATH --workers W [--seed N] [--seconds S] [--iterations N] [--threads T] [--victim NAME] [--rwctl PATH]\n");
	return 2;
}

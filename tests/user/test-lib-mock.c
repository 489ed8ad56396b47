// SPDX-License-Identifier: GPL-2.0
/*
 * A scripted RackWeave module for the librackweave tests, #included by each
 * tests/user/test-lib-*.c (it is not a test program of its own).
 *
 * The tests are linked with --wrap for ioctl, open, mmap, munmap, poll and
 * the libnuma calls (RW_UT_LIB_WRAP in lib/lib.mk), so the library's system
 * calls land here:
 *
 *   ioctl   each call consumes the next scripted step (rwm_expect): the
 *           request must match, the argument struct (and the tensor or
 *           range array it points to) is recorded, then the step's result
 *           is returned and its reply, if any, copied back. A step may
 *           block until the test releases it, to hold a thread inside a
 *           "sleeping" transfer, or call a function of the test's
 *           (rwm_expect_fn) that plays the module's part with the
 *           argument, for requests that write through its pointers.
 *           With rwm.auto_ioctl set, unscripted calls answer
 *           rwm.auto_ret instead (for threads racing in an order no
 *           script can foresee), and are counted per transfer.
 *   mmap    recorded; served with anonymous private memory, writable by
 *           the test whatever the library asked for, so a test can put
 *           known parameters under the library's read-only view. One call
 *           can be made to fail.
 *   munmap  recorded, then done.
 *   poll    scripted like ioctl (rwm_expect_poll), recorded; with
 *           rwm.auto_poll unscripted polls report POLLIN.
 *   open    recorded on the way to the real one.
 *   numa_*  scripted answers, recorded arguments.
 *
 * Everything is guarded by one mutex so that threads may call in; the
 * recording helpers never use cmocka (whose asserts must not run outside
 * the main thread): the tests check the records afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rackweave.h>

#define RWM_MAX_STEPS	256
#define RWM_MAX_CALLS	256
#define RWM_MAX_ARRAY	16
#define RWM_MAX_MAPS	16

/* A scripted answer of the module to one ioctl. */
struct rwm_step {
	unsigned long req;
	int ret;		/* 0 or -errno */
	const void *reply;	/* copied over the argument when ret == 0 */
	bool block;		/* wait for rwm_unblock() first */
	/* Instead of @reply, when ret == 0: its 0 or -errno is returned. */
	int (*fn)(void *arg, void *priv);
	void *priv;
};

/* What the library passed to one ioctl. */
struct rwm_call {
	int fd;
	unsigned long req;
	union {
		struct rw_version_info version;
		struct rw_attach attach;
		struct rw_declare declare;
		struct rw_setup setup;
		struct rw_xfer xfer;
		struct rw_params_init params_init;
		struct rw_checkpoint ckpt;
	} arg;
	/* The array arg.declare.tensors or arg.xfer.ranges points to. */
	struct rw_tensor_desc tensors[RWM_MAX_ARRAY];
	struct rw_range ranges[RWM_MAX_ARRAY];
	/* The array arg.attach.box_more points to. */
	struct rw_attach_addr box_more[RW_WIRE_MAX_NICS];
};

struct rwm_map {
	void *addr;
	size_t len;
	int prot, flags, fd;
	off_t off;
	bool unmapped;
};

struct rwm_poll_step {
	int ret;		/* > 0 ready, 0 timeout, < 0 -errno */
	short revents;
};

struct rwm_poll_call {
	int fd;
	short events;
	int timeout;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;

	struct rwm_step steps[RWM_MAX_STEPS];
	unsigned int nsteps, next_step;
	struct rwm_call calls[RWM_MAX_CALLS];
	unsigned int ncalls;
	unsigned int unexpected;	/* calls nobody scripted */
	unsigned int blocked, unblocks;
	/* Unscripted ioctls answer auto_ret instead of failing (threads). */
	bool auto_ioctl;
	int auto_ret;
	unsigned int nr_push, nr_pull, nr_pushpull;
	uint32_t timeouts_seen;		/* OR of every xfer timeout_ms */

	struct rwm_map maps[RWM_MAX_MAPS];
	unsigned int nmaps, nunmaps;
	int mmap_fail_at;		/* index of the mmap to fail, -1: none */
	int mmap_fail_err;

	struct rwm_poll_step psteps[RWM_MAX_STEPS];
	unsigned int npsteps, next_pstep;
	struct rwm_poll_call pcalls[RWM_MAX_CALLS];
	unsigned int npcalls;
	bool auto_poll;			/* unscripted polls: ready, POLLIN */

	char opened[256];
	int opened_flags;

	int numa_available;
	int numa_run_ret, numa_run_errno;
	int numa_run_node, numa_pref_node;
	unsigned int numa_calls;
} rwm = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_open(const char *path, int flags, ...);
int __real_open(const char *path, int flags, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __wrap_munmap(void *addr, size_t len);
int __real_munmap(void *addr, size_t len);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_numa_available(void);
int __wrap_numa_run_on_node(int node);
void __wrap_numa_set_preferred(int node);

/* Test-side helpers (external linkage: a test file need not use all). */
void rwm_reset(void);
void rwm_expect(unsigned long req, int ret, const void *reply);
void rwm_expect_block(unsigned long req, int ret, const void *reply);
void rwm_expect_fn(unsigned long req, int (*fn)(void *arg, void *priv),
		   void *priv);
void rwm_expect_poll(int ret, short revents);
bool rwm_done(void);
unsigned int rwm_ncalls(void);
const struct rwm_call *rwm_call(unsigned int i);
bool rwm_wait_blocked(unsigned int n, int ms);
void rwm_unblock(void);
void rwm_fill_setup(struct rw_setup *s, uint32_t chunk_size,
		    uint32_t nr_chunks, uint32_t nr_tensors,
		    uint64_t model_bytes);
bool rwm_zero(const void *p, size_t len);
int rwm_ctx_setup(void **state);
int rwm_ctx_teardown(void **state);

void rwm_reset(void)
{
	unsigned int i;

	pthread_mutex_lock(&rwm.lock);
	for (i = 0; i < rwm.nmaps; i++)
		if (!rwm.maps[i].unmapped)
			__real_munmap(rwm.maps[i].addr, rwm.maps[i].len);
	rwm.nsteps = rwm.next_step = rwm.ncalls = rwm.unexpected = 0;
	rwm.blocked = rwm.unblocks = 0;
	rwm.auto_ioctl = false;
	rwm.auto_ret = 0;
	rwm.nr_push = rwm.nr_pull = rwm.nr_pushpull = 0;
	rwm.timeouts_seen = 0;
	rwm.auto_poll = false;
	rwm.nmaps = rwm.nunmaps = 0;
	rwm.mmap_fail_at = -1;
	rwm.npsteps = rwm.next_pstep = rwm.npcalls = 0;
	rwm.opened[0] = 0;
	rwm.numa_available = 0;
	rwm.numa_run_ret = 0;
	rwm.numa_run_node = rwm.numa_pref_node = -2;
	rwm.numa_calls = 0;
	pthread_mutex_unlock(&rwm.lock);
}

static void rwm_push_step(unsigned long req, int ret, const void *reply,
			  bool block)
{
	pthread_mutex_lock(&rwm.lock);
	if (rwm.nsteps < RWM_MAX_STEPS)
		rwm.steps[rwm.nsteps++] = (struct rwm_step){
			.req = req, .ret = ret, .reply = reply, .block = block };
	else
		rwm.unexpected++;
	pthread_mutex_unlock(&rwm.lock);
}

void rwm_expect(unsigned long req, int ret, const void *reply)
{
	rwm_push_step(req, ret, reply, false);
}

void rwm_expect_block(unsigned long req, int ret, const void *reply)
{
	rwm_push_step(req, ret, reply, true);
}

void rwm_expect_fn(unsigned long req, int (*fn)(void *arg, void *priv),
		   void *priv)
{
	pthread_mutex_lock(&rwm.lock);
	if (rwm.nsteps < RWM_MAX_STEPS)
		rwm.steps[rwm.nsteps++] = (struct rwm_step){
			.req = req, .fn = fn, .priv = priv };
	else
		rwm.unexpected++;
	pthread_mutex_unlock(&rwm.lock);
}

void rwm_expect_poll(int ret, short revents)
{
	pthread_mutex_lock(&rwm.lock);
	rwm.psteps[rwm.npsteps++] = (struct rwm_poll_step){ ret, revents };
	pthread_mutex_unlock(&rwm.lock);
}

/* Every scripted step consumed and nothing unscripted happened. */
bool rwm_done(void)
{
	bool done;

	pthread_mutex_lock(&rwm.lock);
	done = rwm.next_step == rwm.nsteps && rwm.next_pstep == rwm.npsteps &&
	       !rwm.unexpected;
	pthread_mutex_unlock(&rwm.lock);
	return done;
}

unsigned int rwm_ncalls(void)
{
	unsigned int n;

	pthread_mutex_lock(&rwm.lock);
	n = rwm.ncalls;
	pthread_mutex_unlock(&rwm.lock);
	return n;
}

const struct rwm_call *rwm_call(unsigned int i)
{
	return i < RWM_MAX_CALLS ? &rwm.calls[i] : NULL;
}

static void rwm_deadline(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Wait up to @ms for @n ioctls to be blocked inside the mock. */
bool rwm_wait_blocked(unsigned int n, int ms)
{
	struct timespec ts;
	bool ok;

	rwm_deadline(&ts, ms);
	pthread_mutex_lock(&rwm.lock);
	while (rwm.blocked < n &&
	       pthread_cond_timedwait(&rwm.cond, &rwm.lock, &ts) == 0)
		;
	ok = rwm.blocked >= n;
	pthread_mutex_unlock(&rwm.lock);
	return ok;
}

void rwm_unblock(void)
{
	pthread_mutex_lock(&rwm.lock);
	rwm.unblocks++;
	pthread_cond_broadcast(&rwm.cond);
	pthread_mutex_unlock(&rwm.lock);
}

/* A setup reply as the module would send it for this geometry. */
void rwm_fill_setup(struct rw_setup *s, uint32_t chunk_size,
		    uint32_t nr_chunks, uint32_t nr_tensors,
		    uint64_t model_bytes)
{
	uint64_t buf = (uint64_t)chunk_size * nr_chunks;

	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->rank = 1;
	s->nr_workers = 4;
	s->chunk_size = chunk_size;
	s->nr_chunks = nr_chunks;
	s->nr_tensors = nr_tensors;
	s->sync = RW_SYNC_BSP;
	s->model_bytes = model_bytes;
	s->grad_offset = RW_MMAP_GRAD;
	s->grad_len = buf;
	s->params_offset = RW_MMAP_PARAMS;
	s->params_len = buf;
	s->versions_offset = RW_MMAP_VERSIONS;
	s->versions_len = (nr_chunks * 8 + 4095) & ~4095ULL;
	s->features = RW_FEATURES_ALL;
	s->node = -1;
}

bool rwm_zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		if (*c++)
			return false;
	return true;
}

static size_t rwm_arg_size(unsigned long req)
{
	return _IOC_SIZE(req);
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct rwm_step step = { 0 };
	struct rwm_call *call = NULL;
	const struct rw_declare *d;
	const struct rw_xfer *x;
	va_list ap;
	void *arg;
	size_t n;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	pthread_mutex_lock(&rwm.lock);
	if (rwm.ncalls < RWM_MAX_CALLS) {
		call = &rwm.calls[rwm.ncalls++];
		memset(call, 0, sizeof(*call));
		call->fd = fd;
		call->req = req;
		memcpy(&call->arg, arg, rwm_arg_size(req) < sizeof(call->arg) ?
		       rwm_arg_size(req) : sizeof(call->arg));
	}
	if (call && req == RW_IOC_DECLARE) {
		d = arg;
		n = d->nr_tensors < RWM_MAX_ARRAY ? d->nr_tensors : RWM_MAX_ARRAY;
		if (d->tensors)
			memcpy(call->tensors, (const void *)(uintptr_t)d->tensors,
			       n * sizeof(call->tensors[0]));
	}
	if (call && req == RW_IOC_ATTACH) {
		const struct rw_attach *a = arg;

		n = a->nr_box_more < RW_WIRE_MAX_NICS ? a->nr_box_more :
		    RW_WIRE_MAX_NICS;
		if (a->box_more)
			memcpy(call->box_more,
			       (const void *)(uintptr_t)a->box_more,
			       n * sizeof(call->box_more[0]));
	}
	if (call && (req == RW_IOC_PUSH || req == RW_IOC_PULL ||
		     req == RW_IOC_PUSHPULL)) {
		x = arg;
		n = x->nr < RWM_MAX_ARRAY ? x->nr : RWM_MAX_ARRAY;
		if (x->ranges)
			memcpy(call->ranges, (const void *)(uintptr_t)x->ranges,
			       n * sizeof(call->ranges[0]));
	}
	if (req == RW_IOC_PUSH || req == RW_IOC_PULL || req == RW_IOC_PUSHPULL) {
		x = arg;
		rwm.timeouts_seen |= x->timeout_ms;
		rwm.nr_push += req == RW_IOC_PUSH;
		rwm.nr_pull += req == RW_IOC_PULL;
		rwm.nr_pushpull += req == RW_IOC_PUSHPULL;
	}

	if (rwm.next_step >= rwm.nsteps && rwm.auto_ioctl) {
		step.req = req;
		step.ret = rwm.auto_ret;
	} else if (rwm.next_step >= rwm.nsteps ||
		   rwm.steps[rwm.next_step].req != req) {
		rwm.unexpected++;
		pthread_mutex_unlock(&rwm.lock);
		errno = ENOSYS;
		return -1;
	} else {
		step = rwm.steps[rwm.next_step++];
	}
	if (step.block) {
		rwm.blocked++;
		pthread_cond_broadcast(&rwm.cond);
		while (!rwm.unblocks)
			pthread_cond_wait(&rwm.cond, &rwm.lock);
		rwm.unblocks--;
		rwm.blocked--;
	}
	pthread_mutex_unlock(&rwm.lock);

	if (!step.ret && step.fn)
		step.ret = step.fn(arg, step.priv);
	if (step.ret < 0) {
		errno = -step.ret;
		return -1;
	}
	if (step.reply)
		memcpy(arg, step.reply, rwm_arg_size(req));
	return 0;
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	pthread_mutex_lock(&rwm.lock);
	snprintf(rwm.opened, sizeof(rwm.opened), "%s", path);
	rwm.opened_flags = flags;
	pthread_mutex_unlock(&rwm.lock);
	return __real_open(path, flags, mode);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	struct rwm_map *m;
	void *p;

	pthread_mutex_lock(&rwm.lock);
	if ((int)rwm.nmaps == rwm.mmap_fail_at || rwm.nmaps >= RWM_MAX_MAPS) {
		rwm.nmaps++;
		pthread_mutex_unlock(&rwm.lock);
		errno = rwm.mmap_fail_err;
		return MAP_FAILED;
	}
	p = __real_mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m = &rwm.maps[rwm.nmaps++];
	*m = (struct rwm_map){ p, len, prot, flags, fd, off, false };
	(void)addr;
	pthread_mutex_unlock(&rwm.lock);
	return p;
}

int __wrap_munmap(void *addr, size_t len)
{
	unsigned int i;
	int ret = -1;

	pthread_mutex_lock(&rwm.lock);
	rwm.nunmaps++;
	for (i = 0; i < rwm.nmaps && i < RWM_MAX_MAPS; i++) {
		if (rwm.maps[i].addr == addr && rwm.maps[i].len == len &&
		    !rwm.maps[i].unmapped) {
			rwm.maps[i].unmapped = true;
			ret = __real_munmap(addr, len);
			break;
		}
	}
	if (ret)
		rwm.unexpected++;
	pthread_mutex_unlock(&rwm.lock);
	return ret;
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct rwm_poll_step s;

	pthread_mutex_lock(&rwm.lock);
	if (n != 1 || (rwm.next_pstep >= rwm.npsteps && !rwm.auto_poll)) {
		rwm.unexpected++;
		pthread_mutex_unlock(&rwm.lock);
		errno = ENOSYS;
		return -1;
	}
	if (rwm.npcalls < RWM_MAX_CALLS)
		rwm.pcalls[rwm.npcalls++] = (struct rwm_poll_call){
			fds[0].fd, fds[0].events, timeout };
	if (rwm.next_pstep < rwm.npsteps)
		s = rwm.psteps[rwm.next_pstep++];
	else
		s = (struct rwm_poll_step){ 1, POLLIN };
	pthread_mutex_unlock(&rwm.lock);

	if (s.ret < 0) {
		errno = -s.ret;
		return -1;
	}
	fds[0].revents = s.ret ? s.revents : 0;
	return s.ret;
}

int __wrap_numa_available(void)
{
	rwm.numa_calls++;
	return rwm.numa_available;
}

int __wrap_numa_run_on_node(int node)
{
	rwm.numa_calls++;
	rwm.numa_run_node = node;
	if (rwm.numa_run_ret < 0)
		errno = rwm.numa_run_errno;
	return rwm.numa_run_ret;
}

void __wrap_numa_set_preferred(int node)
{
	rwm.numa_calls++;
	rwm.numa_pref_node = node;
}

/*
 * cmocka fixtures of a test with one context: a fresh script and a context
 * open on /dev/null in *@state; then the context closed and the script
 * reset, unmapping what the library left mapped.
 */
int rwm_ctx_setup(void **state)
{
	struct rw_ctx *ctx;

	rwm_reset();
	if (rw_ctx_open(&ctx, "/dev/null"))
		return -1;
	*state = ctx;
	return 0;
}

int rwm_ctx_teardown(void **state)
{
	rw_ctx_close(*state);
	rwm_reset();
	return 0;
}

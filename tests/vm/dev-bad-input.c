// SPDX-License-Identifier: GPL-2.0
/*
 * dev-check bad-input: every refusal the uapi header documents, asserted by
 * errno, then two workers training the model under BSP to show that the bad
 * input left the job working and that SGD does what it says.
 *
 * Readings of the uapi text asserted here where it leaves room:
 *  - a command number carrying another struct size than the uapi's is
 *    another command to the module: ENOTTY, like an unknown command;
 *  - an observer attach with a rank other than 0: EINVAL;
 *  - RW_XFER_KEYS with a non-zero count: EINVAL;
 *  - overlapping ranges in one call select their union (tensors sharing a
 *    chunk by key): not EALREADY, which is for a chunk already pushed in
 *    this iteration by an earlier call;
 *  - setup before attach: ENOTCONN, as for the other calls.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dev-check.h"

/* ---- bad-input: attach ---- */

static void before_attach(int fd)
{
	struct rw_setup s;

	expect(declare(fd, model, ARRAY_SIZE(model), 0), -ENOTCONN,
	       "declare before attach");
	expect(xfer(fd, RW_IOC_PUSH, NULL, 0, 0, 0), -ENOTCONN,
	       "push before attach");
	expect(xfer(fd, RW_IOC_PULL, NULL, 0, RW_XFER_NONBLOCK, 0), -ENOTCONN,
	       "pull before attach");
	expect(setup(fd, &s), -ENOTCONN, "setup before attach");
	expect(try_map(fd, RW_MMAP_PARAMS, page, PROT_READ, MAP_SHARED),
	       -ENOTCONN, "mmap before attach");
}

static void bad_attach(int fd, struct rw_attach *a, int want, const char *what)
{
	int ret = attach_raw(fd, a);

	expect(ret, want, "attach: %s", what);
	check(version_works(fd), "attach: after %s the file still answers",
	      what);
}

static void attach_cases(int fa, int fb, int fo)
{
	struct rw_attach a;

	attach_init(&a, job, 0, 0);
	a.token[7] ^= 0x20;
	bad_attach(fa, &a, -EACCES, "wrong token");
	attach_init(&a, job, 0, RW_ATTACH_OBSERVER);
	a.token[31] ^= 1;
	bad_attach(fa, &a, -EACCES, "observer with a wrong token");
	attach_init(&a, "no-such-job", 0, 0);
	bad_attach(fa, &a, -ENOENT, "unknown job");
	attach_init(&a, job, NR_WORKERS, 0);
	bad_attach(fa, &a, -ERANGE, "rank == workers");
	attach_init(&a, job, UINT32_MAX, 0);
	bad_attach(fa, &a, -ERANGE, "rank 0xffffffff");
	attach_init(&a, job, 0, 0);
	memset(a.job, 'a', sizeof(a.job));
	bad_attach(fa, &a, -EINVAL, "job name without a NUL");
	attach_init(&a, job, 0, 0);
	a.box_family = AF_INET;
	bad_attach(fa, &a, -EINVAL, "a box family without RW_ATTACH_REMOTE");
	attach_init(&a, job, 0, 0);
	a.box_port = 18515;
	bad_attach(fa, &a, -EINVAL, "a box port without RW_ATTACH_REMOTE");
	attach_init(&a, job, 0, 0);
	a.box_addr[15] = 1;
	bad_attach(fa, &a, -EINVAL, "a box address without RW_ATTACH_REMOTE");
	attach_init(&a, job, 0, RW_ATTACH_REMOTE);
	bad_attach(fa, &a, -EAFNOSUPPORT, "RW_ATTACH_REMOTE without a family");
	attach_init(&a, job, 0, RW_ATTACH_REMOTE);
	a.box_family = AF_UNIX;
	bad_attach(fa, &a, -EAFNOSUPPORT, "RW_ATTACH_REMOTE with AF_UNIX");
	attach_init(&a, job, 0, RW_ATTACH_REMOTE);
	a.box_family = AF_INET;
	a.box_addr[0] = 127;
	a.box_addr[4] = 1;
	bad_attach(fa, &a, -EINVAL, "an IPv4 box address with bytes past 4");
	attach_init(&a, job, 1, RW_ATTACH_REMOTE | RW_ATTACH_OBSERVER);
	a.box_family = AF_INET;
	bad_attach(fa, &a, -EINVAL, "a remote observer with a rank");
	attach_init(&a, job, 0, 0);
	a.reserved = 1U << 3;
	bad_attach(fa, &a, -EINVAL, "non-zero reserved");
	attach_init(&a, job, 0, 0);
	a.box_more = 1ULL << 19;
	bad_attach(fa, &a, -EINVAL, "more box addresses without RW_ATTACH_REMOTE");
	attach_init(&a, job, 0, 0);
	a.nr_box_more = 1;
	bad_attach(fa, &a, -EINVAL, "a count of box addresses without RW_ATTACH_REMOTE");
	attach_init(&a, job, 0, RW_ATTACH_REMOTE);
	a.box_family = AF_INET;
	a.box_more = 1ULL << 19;
	bad_attach(fa, &a, -EINVAL, "more box addresses without a count");
	attach_init(&a, job, 0, RW_ATTACH_REMOTE);
	a.box_family = AF_INET;
	a.nr_box_more = RW_WIRE_MAX_NICS;
	a.box_more = 1ULL << 19;
	bad_attach(fa, &a, -EINVAL, "more box addresses than RW_WIRE_MAX_NICS");
	attach_init(&a, job, 0, RW_ATTACH_REMOTE);
	a.box_family = AF_INET;
	a.nr_box_more = 1;
	a.box_more = 8;
	bad_attach(fa, &a, -EFAULT, "more box addresses at a bad pointer");
	attach_init(&a, job, 0, 1U << 2);
	bad_attach(fa, &a, -EINVAL, "unknown flag bit 2");
	attach_init(&a, job, 0, 1U << 31);
	bad_attach(fa, &a, -EINVAL, "unknown flag bit 31");
	attach_init(&a, job, 0, 0);
	a.size = sizeof(a) + 8;
	bad_attach(fa, &a, -EINVAL, "size too large");
	attach_init(&a, job, 0, 0);
	a.size = sizeof(a) - 8;
	bad_attach(fa, &a, -EINVAL, "size too small");
	attach_init(&a, job, 0, 0);
	a.size = 0;
	bad_attach(fa, &a, -EINVAL, "size 0");

	/* The same request under command numbers of other sizes. */
	attach_init(&a, job, 0, 0);
	expect(sys(ioctl(fa, _IOC(_IOC_WRITE, RW_IOC_MAGIC, 0x01,
				  sizeof(a) - 8), &a)), -ENOTTY,
	       "attach: command number with _IOC_SIZE - 8");
	expect(sys(ioctl(fa, _IOC(_IOC_WRITE, RW_IOC_MAGIC, 0x01,
				  sizeof(a) + 8), &a)), -ENOTTY,
	       "attach: command number with _IOC_SIZE + 8");
	expect(sys(ioctl(fa, _IOWR(RW_IOC_MAGIC, 0x01, struct rw_attach), &a)),
	       -ENOTTY, "attach: command number with _IOC_READ added");
	expect(sys(ioctl(fa, RW_IOC_ATTACH, (void *)8)), -EFAULT,
	       "attach: bad pointer");

	expect(attach(fa, 0, 0), 0, "attach rank 0 after all that");
	expect(attach(fa, 1, 0), -EISCONN,
	       "second attach on the same file, free rank 1");
	expect(attach(fa, 0, 0), -EISCONN,
	       "second attach on the same file, its own rank 0");
	expect(attach(fb, 0, 0), -EADDRINUSE,
	       "rank 0 from another file while attached");
	expect(attach(fb, 1, 0), 0, "rank 1 from that file");
	expect(attach(fo, 1, RW_ATTACH_OBSERVER), -EINVAL,
	       "observer with rank 1");
	expect(attach(fo, 0, RW_ATTACH_OBSERVER), 0, "observer attach");
}

/* ---- bad-input: declare ---- */

static void declare_still_empty(int fa, const char *what)
{
	expect(declare(fa, model, ARRAY_SIZE(model), RW_DECLARE_VERIFY),
	       -ENOENT, "declare: after %s nothing is declared (VERIFY)",
	       what);
}

static void bad_declare_layout(int fa, const struct rw_tensor_desc *t,
			       uint32_t nr, int want, const char *what)
{
	expect(declare(fa, t, nr, 0), want, "declare: %s", what);
	declare_still_empty(fa, what);
}

static void bad_declare(int fa, struct rw_declare *d, int want,
			const char *what)
{
	expect(declare_raw(fa, d), want, "declare: %s", what);
	declare_still_empty(fa, what);
}

static void declare_cases(int fa, int fb, int fo)
{
	struct rw_tensor_desc t[ARRAY_SIZE(model)];
	struct rw_declare d;
	struct rw_setup s;
	int ret;

	expect(xfer(fa, RW_IOC_PUSH, NULL, 0, 0, 0), -ENOTCONN,
	       "push before any layout");
	expect(xfer(fa, RW_IOC_PULL, NULL, 0, RW_XFER_NONBLOCK, 0), -ENOTCONN,
	       "pull before any layout");
	expect(try_map(fa, RW_MMAP_PARAMS, page, PROT_READ, MAP_SHARED),
	       -ENOTCONN, "mmap before any layout");
	declare_still_empty(fa, "attach");
	expect(declare(fo, model, ARRAY_SIZE(model), 0), -EPERM,
	       "declare from the observer");
	declare_still_empty(fa, "the observer's declare");

	bad_declare_layout(fa, model, 0, -EINVAL, "zero tensors");
	memcpy(t, model, sizeof(t));
	t[1].nelems = 0;
	bad_declare_layout(fa, t, 3, -EINVAL, "a tensor of zero elements");
	memcpy(t, model, sizeof(t));
	t[2].key = t[0].key;
	bad_declare_layout(fa, t, 3, -EINVAL, "duplicate keys");
	memcpy(t, model, sizeof(t));
	t[1].dtype = 9;
	bad_declare_layout(fa, t, 3, -EINVAL, "unknown dtype 9");
	memcpy(t, model, sizeof(t));
	t[1].dtype = RW_DTYPE_BF16;
	t[1].priority = RW_PRIORITY_MAX + 1;
	bad_declare_layout(fa, t, 3, -EINVAL, "BF16 tensor, priority out of range");
	memcpy(t, model, sizeof(t));
	t[2].priority = ~0U;
	bad_declare_layout(fa, t, 3, -EINVAL, "priority 2^32 - 1");
	/* 4 TiB of f32: a billion chunks of 4 KiB. */
	memcpy(t, model, sizeof(t));
	t[1].nelems = 1ULL << 40;
	bad_declare_layout(fa, t, 3, -E2BIG, "more chunks than the engine takes");
	/*
	 * Byte counts that wrap a u64: the uapi lists EOVERFLOW without saying
	 * when, and a size check before the multiplication gives E2BIG; what
	 * must not happen is a wrapped, small, accepted layout.
	 */
	memcpy(t, model, sizeof(t));
	t[1].nelems = UINT64_MAX / 2;
	ret = declare(fa, t, 3, 0);
	check(ret == -EOVERFLOW || ret == -E2BIG,
	      "declare: elements times 4 bytes wrap a u64 -> EOVERFLOW or E2BIG "
	      "(got %s)", errname(ret));
	declare_still_empty(fa, "a wrapping element count");
	/* Tensor 0 ends at 2^64 - 4; aligning tensor 1's start wraps to 0. */
	memcpy(t, model, sizeof(t));
	t[0].nelems = (1ULL << 62) - 1;
	ret = declare(fa, t, 3, 0);
	check(ret == -EOVERFLOW || ret == -E2BIG,
	      "declare: an aligned tensor start wraps a u64 -> EOVERFLOW or E2BIG "
	      "(got %s)", errname(ret));
	declare_still_empty(fa, "a wrapping tensor start");
	/* Checked before the array is read: the pointer covers 3 entries. */
	bad_declare_layout(fa, model, RW_MAX_TENSORS + 1, -E2BIG,
			   "RW_MAX_TENSORS + 1 tensors");

	declare_init(&d, model, 3, 1U << 1);
	bad_declare(fa, &d, -EINVAL, "unknown flag bit 1");
	declare_init(&d, model, 3, 1U << 31);
	bad_declare(fa, &d, -EINVAL, "unknown flag bit 31");
	declare_init(&d, model, 3, 0);
	d.size += 8;
	bad_declare(fa, &d, -EINVAL, "size too large");
	declare_init(&d, model, 3, 0);
	d.size -= 8;
	bad_declare(fa, &d, -EINVAL, "size too small");
	declare_init(&d, model, 3, 0);
	d.reserved0 = 1;
	bad_declare(fa, &d, -EINVAL, "non-zero reserved0");
	declare_init(&d, model, 3, 0);
	d.reserved[1] = 1;
	bad_declare(fa, &d, -EINVAL, "non-zero reserved[1]");
	declare_init(&d, NULL, 3, 0);
	d.tensors = 8;
	bad_declare(fa, &d, -EFAULT, "bad tensors pointer");
	declare_init(&d, model, 3, 0);
	expect(sys(ioctl(fa, _IOC(_IOC_WRITE, RW_IOC_MAGIC, 0x02,
				  sizeof(d) + 8), &d)), -ENOTTY,
	       "declare: command number with _IOC_SIZE + 8");
	declare_still_empty(fa, "a declare under another command size");

	expect(declare(fa, model, ARRAY_SIZE(model), 0), 0,
	       "declare the model from rank 0");
	expect(declare(fa, model, ARRAY_SIZE(model), RW_DECLARE_VERIFY), 0,
	       "VERIFY of the same layout from rank 0");

	/* Rank 1 disagrees: another size, order, key or type. */
	memcpy(t, model, sizeof(t));
	t[2].nelems++;
	expect(declare(fb, t, 3, 0), -EEXIST, "rank 1: another tensor size");
	expect(declare(fb, t, 3, RW_DECLARE_VERIFY), -EEXIST,
	       "rank 1: VERIFY of another tensor size");
	t[0] = model[1];
	t[1] = model[0];
	t[2] = model[2];
	expect(declare(fb, t, 3, 0), -EEXIST, "rank 1: another tensor order");
	memcpy(t, model, sizeof(t));
	t[0].key = 12;
	expect(declare(fb, t, 3, 0), -EEXIST, "rank 1: another key");
	expect(declare(fb, model, 2, 0), -EEXIST, "rank 1: fewer tensors");
	memcpy(t, model, sizeof(t));
	t[2].dtype = RW_DTYPE_F16;
	expect(declare(fb, t, 3, 0), -EEXIST, "rank 1: another dtype");
	memcpy(t, model, sizeof(t));
	t[0].priority = 3;
	expect(declare(fb, t, 3, 0), -EEXIST, "rank 1: another priority");

	expect(setup(fa, &s), 0, "setup after rank 1's refused layouts");
	check(s.nr_tensors == 3 && s.model_bytes == MODEL_BYTES &&
	      s.nr_chunks == MODEL_CHUNKS,
	      "the first layout stays: 3 tensors, %llu bytes, %u chunks "
	      "(got %u, %llu, %u)", MODEL_BYTES, MODEL_CHUNKS, s.nr_tensors,
	      (unsigned long long)s.model_bytes, s.nr_chunks);
	expect(declare(fb, model, ARRAY_SIZE(model), RW_DECLARE_VERIFY), 0,
	       "rank 1: VERIFY of the right layout");
	expect(declare(fb, model, ARRAY_SIZE(model), 0), 0,
	       "rank 1: declare of the right layout");
}

/* ---- bad-input: setup ---- */

static void setup_cases(int fa, int fo)
{
	struct rw_setup s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s) + 8;
	expect(sys(ioctl(fa, RW_IOC_SETUP, &s)), -EINVAL, "setup: size too large");
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s) - 8;
	expect(sys(ioctl(fa, RW_IOC_SETUP, &s)), -EINVAL, "setup: size too small");
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = 1;
	expect(sys(ioctl(fa, RW_IOC_SETUP, &s)), -EINVAL, "setup: flag bit 0");
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.reserved[3] = 1;
	expect(sys(ioctl(fa, RW_IOC_SETUP, &s)), -EINVAL,
	       "setup: non-zero reserved[3]");

	expect(setup(fa, &s), 0, "setup of rank 0");
	check(s.rank == 0 && s.nr_workers == NR_WORKERS &&
	      s.chunk_size == CHUNK_SIZE && s.nr_chunks == MODEL_CHUNKS &&
	      s.nr_tensors == 3 && s.sync == RW_SYNC_BSP &&
	      s.model_bytes == MODEL_BYTES,
	      "setup: rank 0, 2 workers, 4096-byte chunks, 4 chunks, 3 tensors, "
	      "BSP, 16128 bytes (got %u %u %u %u %u %u %llu)", s.rank,
	      s.nr_workers, s.chunk_size, s.nr_chunks, s.nr_tensors, s.sync,
	      (unsigned long long)s.model_bytes);
	check(s.grad_offset == RW_MMAP_GRAD && s.params_offset == RW_MMAP_PARAMS &&
	      s.versions_offset == RW_MMAP_VERSIONS,
	      "setup: offsets are RW_MMAP_GRAD, _PARAMS, _VERSIONS");
	check(s.grad_len == MODEL_CHUNKS * CHUNK_SIZE &&
	      s.params_len == MODEL_CHUNKS * CHUNK_SIZE &&
	      s.versions_len == page,
	      "setup: lengths 16384, 16384, one page (got %llu %llu %llu)",
	      (unsigned long long)s.grad_len, (unsigned long long)s.params_len,
	      (unsigned long long)s.versions_len);
	check((s.features & RW_FEAT_LOCAL_PATH) && !(s.features & ~RW_FEATURES_ALL),
	      "setup: features include RW_FEAT_LOCAL_PATH, no unknown bits");
	check(!s.reserved[0] && !s.reserved[1] && !s.reserved[2] &&
	      !s.reserved[3] && s.size == sizeof(s) && !s.flags,
	      "setup: size kept, flags and reserved returned zero");
	expect(setup(fo, &s), 0, "setup of the observer");
}

/* ---- bad-input: mmap ---- */

static void mmap_cases(struct worker *wa, int fo)
{
	const struct rw_setup *s = &wa->s;
	uint8_t *p, *q;
	void *r;
	int ret;

	expect(try_map(wa->fd, 0x30000000000ULL, page, PROT_READ, MAP_SHARED),
	       -EINVAL, "mmap: unknown offset 3 TiB");
	expect(try_map(wa->fd, s->grad_offset + s->grad_len, page,
		       PROT_READ | PROT_WRITE, MAP_SHARED),
	       -EINVAL, "mmap: gradient, starting at its end");
	expect(try_map(wa->fd, s->grad_offset, s->grad_len + page,
		       PROT_READ | PROT_WRITE, MAP_SHARED),
	       -EINVAL, "mmap: gradient, one page too long");
	expect(try_map(wa->fd, s->params_offset + s->params_len - page,
		       2 * page, PROT_READ, MAP_SHARED),
	       -EINVAL, "mmap: params, last page plus one");
	expect(try_map(wa->fd, s->versions_offset, s->versions_len + page,
		       PROT_READ, MAP_SHARED),
	       -EINVAL, "mmap: versions, one page too long");
	expect(try_map(wa->fd, s->grad_offset, s->grad_len,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE),
	       -EINVAL, "mmap: MAP_PRIVATE gradient");
	expect(try_map(wa->fd, s->params_offset, s->params_len,
		       PROT_READ | PROT_WRITE, MAP_SHARED),
	       -EACCES, "mmap: writable params");
	expect(try_map(wa->fd, s->versions_offset, s->versions_len,
		       PROT_READ | PROT_WRITE, MAP_SHARED),
	       -EACCES, "mmap: writable versions");

	p = mmap(NULL, page, PROT_READ, MAP_SHARED, wa->fd,
		 (off_t)(s->params_offset + page));
	check(p != MAP_FAILED, "mmap: params read-only from its second page");
	if (p != MAP_FAILED) {
		expect(sys(mprotect(p, page, PROT_READ | PROT_WRITE)), -EACCES,
		       "mprotect of read-only params to PROT_WRITE");
		munmap(p, page);
	}
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, wa->fd,
		 (off_t)s->versions_offset);
	check(p != MAP_FAILED, "mmap: versions read-only");
	if (p != MAP_FAILED) {
		expect(sys(mprotect(p, page, PROT_READ | PROT_WRITE)), -EACCES,
		       "mprotect of read-only versions to PROT_WRITE");
		munmap(p, page);
	}

	/* A second gradient view of chunk 2 sees the first view's writes. */
	q = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, wa->fd,
		 (off_t)(s->grad_offset + 2 * CHUNK_SIZE));
	check(q != MAP_FAILED, "mmap: gradient from chunk 2");
	if (q != MAP_FAILED) {
		q[100] = 0x5a;
		check(((uint8_t *)wa->grad)[2 * CHUNK_SIZE + 100] == 0x5a,
		      "mmap: both gradient maps are the same pages");
		q[100] = 0;
		munmap(q, page);
	}

	/* Room after the mapping, so growing in place could succeed. */
	r = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p = r == MAP_FAILED ? MAP_FAILED :
	    mmap(r, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 wa->fd, (off_t)s->grad_offset);
	check(p != MAP_FAILED, "mmap: one gradient page for mremap");
	if (p != MAP_FAILED) {
		munmap(p + page, page);
		q = mremap(p, page, 2 * page, 0);
		ret = q == MAP_FAILED ? -errno : 0;
		check(q == MAP_FAILED, "mremap grows the mapping in place: "
		      "refused (got %s)", errname(ret));
		if (q != MAP_FAILED)
			p = q;
		q = mremap(p, page, 2 * page, MREMAP_MAYMOVE);
		ret = q == MAP_FAILED ? -errno : 0;
		check(q == MAP_FAILED, "mremap with MREMAP_MAYMOVE grows it: "
		      "refused (got %s)", errname(ret));
		if (q != MAP_FAILED)
			p = q;
		check(p[0] == ((uint8_t *)wa->grad)[0],
		      "the mapping still reads after the refused mremaps");
		munmap(p, 2 * page);
	}

	/* The observer: parameters and versions, never the gradient. */
	expect(try_map(fo, s->grad_offset, s->grad_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED), -EACCES, "observer: mmap of a gradient");
	expect(try_map(fo, s->grad_offset, s->grad_len, PROT_READ, MAP_SHARED),
	       -EACCES, "observer: read-only mmap of a gradient");
	expect(try_map(fo, s->params_offset, s->params_len,
		       PROT_READ | PROT_WRITE, MAP_SHARED),
	       -EACCES, "observer: writable params");
	expect(try_map(fo, s->params_offset, s->params_len, PROT_READ,
		       MAP_SHARED), 0, "observer: read-only params");
	expect(try_map(fo, s->versions_offset, s->versions_len, PROT_READ,
		       MAP_SHARED), 0, "observer: read-only versions");
	expect(xfer(fo, RW_IOC_PUSH, NULL, 0, 0, 0), -EPERM, "observer: push");
	expect(xfer(fo, RW_IOC_PULL, NULL, 0, RW_XFER_NONBLOCK, 0), -EPERM,
	       "observer: pull");
	expect(xfer(fo, RW_IOC_PUSHPULL, NULL, 0, 0, 0), -EPERM,
	       "observer: pushpull");
}

/* ---- bad-input: push and pull ---- */

static void bad_xfer(int fd, unsigned long cmd, struct rw_xfer *x, int want,
		     const char *what)
{
	const char *c = cmd == RW_IOC_PUSH ? "push" : "pull";

	expect(xfer_raw(fd, cmd, x), want, "%s: %s", c, what);
}

static void xfer_cases(int fa)
{
	static const unsigned long cmds[] = { RW_IOC_PUSH, RW_IOC_PULL };
	struct rw_range r[2];
	struct rw_xfer x;

	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		unsigned long c = cmds[i];
		/* A pull that got past the checks must not block the test. */
		uint32_t nb = c == RW_IOC_PULL ? RW_XFER_NONBLOCK : 0;

		xfer_init(&x, NULL, 0, nb);
		x.size += 8;
		bad_xfer(fa, c, &x, -EINVAL, "size too large");
		xfer_init(&x, NULL, 0, nb);
		x.size -= 8;
		bad_xfer(fa, c, &x, -EINVAL, "size too small");
		xfer_init(&x, NULL, 0, nb | 1U << 2);
		bad_xfer(fa, c, &x, -EINVAL, "unknown flag bit 2");
		xfer_init(&x, NULL, 0, nb);
		x.reserved[0] = 1;
		bad_xfer(fa, c, &x, -EINVAL, "non-zero reserved[0]");

		r[0] = (struct rw_range){ .first = MODEL_CHUNKS, .count = 1 };
		xfer_init(&x, r, 1, nb);
		bad_xfer(fa, c, &x, -EINVAL, "range starting past the last chunk");
		r[0] = (struct rw_range){ .first = MODEL_CHUNKS - 1, .count = 2 };
		xfer_init(&x, r, 1, nb);
		bad_xfer(fa, c, &x, -EINVAL, "range ending past the last chunk");
		r[0] = (struct rw_range){ .first = 0, .count = 1 };
		r[1] = (struct rw_range){ .first = 1, .count = 0 };
		xfer_init(&x, r, 2, nb);
		bad_xfer(fa, c, &x, -EINVAL, "empty second range");
		r[0] = (struct rw_range){ .first = UINT64_MAX, .count = 2 };
		xfer_init(&x, r, 1, nb);
		bad_xfer(fa, c, &x, -EINVAL, "range whose end wraps");
		r[0] = (struct rw_range){ .first = 11, .count = 0 };
		r[1] = (struct rw_range){ .first = 99, .count = 0 };
		xfer_init(&x, r, 2, nb | RW_XFER_KEYS);
		bad_xfer(fa, c, &x, -ENOENT, "RW_XFER_KEYS with unknown key 99");
		r[0] = (struct rw_range){ .first = 11, .count = 1 };
		xfer_init(&x, r, 1, nb | RW_XFER_KEYS);
		bad_xfer(fa, c, &x, -EINVAL, "RW_XFER_KEYS with count 1");
		xfer_init(&x, r, RW_XFER_MAX_RANGES + 1, nb);
		bad_xfer(fa, c, &x, -E2BIG, "RW_XFER_MAX_RANGES + 1 ranges");
		xfer_init(&x, NULL, 1, nb);
		x.ranges = 8;
		bad_xfer(fa, c, &x, -EFAULT, "bad ranges pointer");
		xfer_init(&x, NULL, 0, nb);
		expect(sys(ioctl(fa, _IOC(_IOC_WRITE, RW_IOC_MAGIC, _IOC_NR(c),
					  sizeof(x) + 8), &x)), -ENOTTY,
		       "%s: command number with _IOC_SIZE + 8",
		       c == RW_IOC_PUSH ? "push" : "pull");
	}
}

/* ---- bad-input: two workers under BSP ---- */

static float expect_p[MODEL_CHUNKS * CHUNK_SIZE / sizeof(float)];

/* p - lr * (g0 + g1) / 2, in float32, on every element of every tensor. */
static void sgd_step(int iter)
{
	for (size_t t = 0; t < ARRAY_SIZE(model); t++) {
		float *p = expect_p + model_off[t] / sizeof(float);

		for (uint64_t i = 0; i < model[t].nelems; i++) {
			float g = (grad_of(0, i, iter) + grad_of(1, i, iter)) / 2;

			p[i] = p[i] - LR * g;
		}
	}
}

/* Allow for fused multiply-add and any summation order. */
static int close_enough(float got, float want)
{
	return fabsf(got - want) <= 1e-6f + 1e-5f * fabsf(want);
}

static void check_step(const struct worker *w, int iter, const char *who)
{
	size_t n = w->s.params_len / sizeof(float), bad = n;
	uint32_t c, vbad = MODEL_CHUNKS;

	for (c = 0; c < MODEL_CHUNKS; c++)
		if (w->versions[c] != (uint64_t)iter) {
			vbad = c;
			break;
		}
	check(vbad == MODEL_CHUNKS,
	      "iteration %d: %s sees every chunk's version at %d", iter, who,
	      iter);
	if (vbad < MODEL_CHUNKS)
		printf("#   chunk %u is at version %llu\n", vbad,
		       (unsigned long long)w->versions[vbad]);
	for (size_t i = 0; i < n; i++)
		if (!close_enough(w->params[i], expect_p[i])) {
			bad = i;
			break;
		}
	check(bad == n, "iteration %d: %s sees params = p - lr * (g0 + g1) / 2",
	      iter, who);
	if (bad < n)
		printf("#   float %zu (byte %zu) is %.9g, want %.9g\n", bad,
		       bad * sizeof(float), (double)w->params[bad],
		       (double)expect_p[bad]);
}

static int poll_in(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = poll(&p, 1, timeout_ms);

	return n < 0 ? -errno : p.revents;
}

/* Iteration 1, one thread: duplicates, a timed-out pull, EAGAIN and poll. */
static void iteration_nonblock(struct worker *wa, struct worker *wb)
{
	struct rw_range r[2] = {
		{ .first = 0, .count = 1 }, { .first = 0, .count = 1 },
	};
	int rev;

	write_grads(wa, 1);
	write_grads(wb, 1);
	/*
	 * Ranges of one call that overlap select their union (as tensors
	 * sharing a chunk do with RW_XFER_KEYS): chunk 0 is pushed once.
	 */
	expect(xfer(wa->fd, RW_IOC_PUSH, r, 2, 0, 0), 0,
	       "iteration 1: one push listing chunk 0 twice pushes it once");
	expect(xfer(wa->fd, RW_IOC_PUSH, r, 1, 0, 0), -EALREADY,
	       "iteration 1: chunk 0 again in the same iteration");
	rev = poll_in(wa->fd, POLLOUT, 0);
	check(rev >= 0 && !(rev & POLLOUT),
	      "iteration 1: poll: no POLLOUT while chunk 0 waits for rank 1 "
	      "(revents %#x)", rev);
	r[0] = (struct rw_range){ .first = 1, .count = 2 };
	r[1] = (struct rw_range){ .first = 0, .count = 1 };
	expect(xfer(wa->fd, RW_IOC_PUSH, r, 2, 0, 0), -EALREADY,
	       "iteration 1: chunks 1-2 with chunk 0 again");
	r[1] = (struct rw_range){ .first = 3, .count = 1 };
	expect(xfer(wa->fd, RW_IOC_PUSH, r, 2, 0, 0), 0,
	       "iteration 1: push chunks 1-2 and 3 (nothing of the refused one)");

	expect(xfer(wa->fd, RW_IOC_PULL, NULL, 0, 0, 200), -ETIMEDOUT,
	       "iteration 1: pull with a 200 ms timeout before rank 1 pushed");
	expect(xfer(wa->fd, RW_IOC_PULL, NULL, 0, RW_XFER_NONBLOCK, 0), -EAGAIN,
	       "iteration 1: non-blocking pull before rank 1 pushed");
	rev = poll_in(wa->fd, POLLIN | POLLOUT, 0);
	check(rev >= 0 && !(rev & POLLIN),
	      "iteration 1: poll: no POLLIN before rank 1 pushed (revents %#x)",
	      rev);
	check(rev >= 0 && !(rev & POLLOUT),
	      "iteration 1: poll: no POLLOUT while all 4 chunks wait for rank 1 "
	      "(revents %#x)", rev);
	check(!wa->versions[0] && !wa->versions[1] && !wa->versions[2] &&
	      !wa->versions[3],
	      "iteration 1: every chunk still at version 0 with one worker pushed");

	expect(xfer(wb->fd, RW_IOC_PUSH, NULL, 0, 0, 0), 0,
	       "iteration 1: rank 1 pushes every chunk");
	rev = poll_in(wa->fd, POLLIN, 10000);
	check(rev > 0 && (rev & POLLIN),
	      "iteration 1: poll wakes with POLLIN after rank 1 pushed (revents %#x)",
	      rev);
	expect(xfer(wa->fd, RW_IOC_PULL, NULL, 0, RW_XFER_NONBLOCK, 0), 0,
	       "iteration 1: the non-blocking pull now succeeds");
	expect(xfer(wb->fd, RW_IOC_PULL, NULL, 0, 0, 0), 0,
	       "iteration 1: rank 1 pulls every chunk");
	rev = poll_in(wa->fd, POLLOUT, 0);
	check(rev > 0 && (rev & POLLOUT),
	      "iteration 1: poll: POLLOUT with nothing in flight (revents %#x)", rev);
	sgd_step(1);
	check_step(wa, 1, "rank 0");
	check_step(wb, 1, "rank 1");
}

struct pushpull_arg {
	struct worker *w;
	volatile int done;
	int ret;
};

static void *pushpull_thread(void *p)
{
	struct pushpull_arg *a = p;

	a->ret = xfer(a->w->fd, RW_IOC_PUSHPULL, NULL, 0, 0, 0);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Iteration 2: rank 1 blocks in PUSHPULL until rank 0 pushes by keys. */
static void iteration_blocking(struct worker *wa, struct worker *wb)
{
	struct pushpull_arg arg = { .w = wb };
	struct rw_range keys[3] = {
		{ .first = 11, .count = 0 }, { .first = 22, .count = 0 },
		{ .first = 33, .count = 0 },
	};
	pthread_t th;

	write_grads(wa, 2);
	write_grads(wb, 2);
	if (pthread_create(&th, NULL, pushpull_thread, &arg)) {
		check(0, "iteration 2: start rank 1's thread");
		return;
	}
	sleep_ms(500);
	check(!__atomic_load_n(&arg.done, __ATOMIC_ACQUIRE),
	      "iteration 2: rank 1's PUSHPULL waits for rank 0");
	/* Tensors 11 and 22 share chunk 0, 22 and 33 chunk 3. */
	expect(xfer(wa->fd, RW_IOC_PUSHPULL, keys, 3, RW_XFER_KEYS, 0), 0,
	       "iteration 2: rank 0 PUSHPULL of tensors 11, 22, 33 by key");
	pthread_join(th, NULL);
	expect(arg.ret, 0, "iteration 2: rank 1's PUSHPULL returns");
	sgd_step(2);
	check_step(wa, 2, "rank 0");
	check_step(wb, 2, "rank 1");
}

/* Iteration 3: ranges out of order, keys of one-chunk tensors. */
static void iteration_ranges(struct worker *wa, struct worker *wb)
{
	struct rw_range ra[2] = {
		{ .first = 3, .count = 1 }, { .first = 0, .count = 3 },
	};
	struct rw_range kb[2] = {
		{ .first = 33, .count = 0 }, { .first = 11, .count = 0 },
	};
	struct rw_range mid = { .first = 1, .count = 2 };
	struct rw_range all = { .first = 0, .count = MODEL_CHUNKS };

	write_grads(wa, 3);
	write_grads(wb, 3);
	expect(xfer(wa->fd, RW_IOC_PUSH, ra, 2, 0, 0), 0,
	       "iteration 3: rank 0 pushes chunk 3, then chunks 0-2");
	expect(xfer(wb->fd, RW_IOC_PUSH, kb, 2, RW_XFER_KEYS, 0), 0,
	       "iteration 3: rank 1 pushes tensors 33 and 11 by key");
	expect(xfer(wb->fd, RW_IOC_PUSH, &mid, 1, 0, 0), 0,
	       "iteration 3: rank 1 pushes chunks 1-2");
	expect(xfer(wa->fd, RW_IOC_PULL, &all, 1, 0, 5000), 0,
	       "iteration 3: rank 0 pulls chunks 0-3");
	expect(xfer(wb->fd, RW_IOC_PULL, NULL, 0, 0, 5000), 0,
	       "iteration 3: rank 1 pulls every chunk");
	sgd_step(3);
	check_step(wa, 3, "rank 0");
	check_step(wb, 3, "rank 1");
}

int bad_input(void)
{
	struct worker wa = { .rank = 0 }, wb = { .rank = 1 }, wo = { 0 };
	void *p;
	int ret;

	mode = "dev: bad-input";
	wa.fd = dev_open();
	wb.fd = dev_open();
	wo.fd = dev_open();

	before_attach(wa.fd);
	attach_cases(wa.fd, wb.fd, wo.fd);
	declare_cases(wa.fd, wb.fd, wo.fd);
	setup_cases(wa.fd, wo.fd);

	ret = worker_map(&wa, 0);
	expect(ret, 0, "rank 0 maps gradient, params and versions");
	if (!ret) {
		ret = worker_map(&wb, 0);
		expect(ret, 0, "rank 1 maps gradient, params and versions");
	}
	if (!ret) {
		ret = worker_map(&wo, 1);
		expect(ret, 0, "observer maps params and versions");
	}
	if (ret)
		return 1;
	check(wa.grad != wb.grad && wa.params != wb.params,
	      "two workers, two sets of mappings");
	for (size_t i = 0; i < wa.s.params_len / sizeof(float); i++)
		if (wa.params[i] != 0.0f) {
			check(0, "params start at 0 (float %zu is %g)", i,
			      (double)wa.params[i]);
			break;
		}

	mmap_cases(&wa, wo.fd);
	xfer_cases(wa.fd);

	iteration_nonblock(&wa, &wb);
	iteration_blocking(&wa, &wb);
	iteration_ranges(&wa, &wb);
	check(!memcmp(wo.params, wa.params, wa.s.params_len) &&
	      wo.versions[0] == ITERATIONS,
	      "observer's read-only view shows the same params and versions");
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, wo.fd,
		 (off_t)(wo.s.params_offset + page));
	check(p != MAP_FAILED && !memcmp(p, (const uint8_t *)wa.params + page,
					 page),
	      "a params mapping from its second page shows the trained bytes");
	if (p != MAP_FAILED)
		munmap(p, page);
	check(version_works(wa.fd) && version_works(wb.fd),
	      "both files still answer RW_IOC_VERSION");

	printf("# params checksum %016llx\n",
	       (unsigned long long)fnv1a(wa.params, wa.s.params_len));
	worker_unmap(&wa);
	worker_unmap(&wb);
	worker_unmap(&wo);
	close(wa.fd);
	close(wb.fd);
	close(wo.fd);
	return failed;
}

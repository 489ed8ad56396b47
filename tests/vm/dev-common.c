// SPDX-License-Identifier: GPL-2.0
/*
 * dev-check's shared ground: the TAP reporting, the raw calls on
 * /dev/rackweave (each returning 0 or -errno), a worker's three mappings,
 * and the model and gradients every subcommand uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev-check.h"

const char *mode = "dev";
int failed;
const char *job;
uint8_t token[RW_JOB_TOKEN_LEN];
size_t page;

/*
 * The model: tensor 11 in chunk 0, tensor 22 from chunk 0 to chunk 3,
 * tensor 33 in the short last chunk. 64-byte alignment puts them at 0,
 * 4032 and 16064; the model ends at 16128 bytes, 4 chunks of 4096.
 */
const struct rw_tensor_desc model[MODEL_TENSORS] = {
	{ .key = 11, .nelems = 1000, .dtype = RW_DTYPE_F32 },
	{ .key = 22, .nelems = 3000, .dtype = RW_DTYPE_F32 },
	{ .key = 33, .nelems = 16, .dtype = RW_DTYPE_F32 },
};
const uint64_t model_off[MODEL_TENSORS] = { 0, 4032, 16064 };

__attribute__((format(printf, 2, 3)))
void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - %s: ", cond ? "" : "not ", mode);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		failed = 1;
}

const char *errname(int ret)
{
	static char buf[32];
	const char *n;

	if (ret >= 0)
		return "0";
	n = strerrorname_np(-ret);
	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", -ret);
	return buf;
}

/* check that a call returning 0 or -errno returned @want. */
__attribute__((format(printf, 3, 4)))
void expect(int got, int want, const char *fmt, ...)
{
	char what[200], got_name[32];
	va_list ap;

	/* errname() may reuse its buffer: keep the first answer. */
	snprintf(got_name, sizeof(got_name), "%s", errname(got));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	check(got == want, "%s -> %s (got %s)", what, errname(want), got_name);
}

int sys(int ret)
{
	return ret < 0 ? -errno : ret;
}

/* ---- raw calls: each returns 0 or -errno ---- */

int dev_open(void)
{
	int fd = open(RW_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("#   open %s: %s\n", RW_DEV_PATH, strerror(errno));
		exit(1);
	}
	return fd;
}

void attach_init(struct rw_attach *a, const char *name, uint32_t rank,
		 uint32_t flags)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->flags = flags;
	snprintf(a->job, sizeof(a->job), "%s", name);
	memcpy(a->token, token, sizeof(a->token));
	a->rank = rank;
}

int attach_raw(int fd, struct rw_attach *a)
{
	return sys(ioctl(fd, RW_IOC_ATTACH, a));
}

int attach(int fd, uint32_t rank, uint32_t flags)
{
	struct rw_attach a;

	attach_init(&a, job, rank, flags);
	return attach_raw(fd, &a);
}

void declare_init(struct rw_declare *d, const struct rw_tensor_desc *t,
		  uint32_t nr, uint32_t flags)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->flags = flags;
	d->nr_tensors = nr;
	d->tensors = (uintptr_t)t;
}

int declare_raw(int fd, struct rw_declare *d)
{
	return sys(ioctl(fd, RW_IOC_DECLARE, d));
}

int declare(int fd, const struct rw_tensor_desc *t, uint32_t nr,
	    uint32_t flags)
{
	struct rw_declare d;

	declare_init(&d, t, nr, flags);
	return declare_raw(fd, &d);
}

int setup(int fd, struct rw_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	return sys(ioctl(fd, RW_IOC_SETUP, s));
}

void xfer_init(struct rw_xfer *x, const struct rw_range *r, uint32_t nr,
	       uint32_t flags)
{
	memset(x, 0, sizeof(*x));
	x->size = sizeof(*x);
	x->flags = flags;
	x->nr = nr;
	x->ranges = (uintptr_t)r;
}

int xfer_raw(int fd, unsigned long cmd, struct rw_xfer *x)
{
	return sys(ioctl(fd, cmd, x));
}

int xfer(int fd, unsigned long cmd, const struct rw_range *r,
	 uint32_t nr, uint32_t flags, uint32_t timeout_ms)
{
	struct rw_xfer x;

	xfer_init(&x, r, nr, flags);
	x.timeout_ms = timeout_ms;
	return xfer_raw(fd, cmd, &x);
}

/* mmap that must fail: 0 or -errno, and a mapping it got is undone. */
int try_map(int fd, uint64_t off, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

int version_works(int fd)
{
	struct rw_version_info v;

	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	return !ioctl(fd, RW_IOC_VERSION, &v) && v.version == RW_VERSION_CODE;
}

uint64_t fnv1a(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---- a worker's three mappings ---- */

int worker_map(struct worker *w, int observer)
{
	void *p;
	int ret = setup(w->fd, &w->s);

	if (ret)
		return ret;
	if (!observer) {
		p = mmap(NULL, w->s.grad_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED, w->fd, (off_t)w->s.grad_offset);
		if (p == MAP_FAILED)
			return -errno;
		w->grad = p;
	}
	p = mmap(NULL, w->s.params_len, PROT_READ, MAP_SHARED, w->fd,
		 (off_t)w->s.params_offset);
	if (p == MAP_FAILED)
		return -errno;
	w->params = p;
	p = mmap(NULL, w->s.versions_len, PROT_READ, MAP_SHARED, w->fd,
		 (off_t)w->s.versions_offset);
	if (p == MAP_FAILED)
		return -errno;
	w->versions = p;
	return 0;
}

void worker_unmap(struct worker *w)
{
	if (w->grad)
		munmap(w->grad, w->s.grad_len);
	if (w->params)
		munmap((void *)w->params, w->s.params_len);
	if (w->versions)
		munmap((void *)w->versions, w->s.versions_len);
	w->grad = NULL;
	w->params = NULL;
	w->versions = NULL;
}

void read_token(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, token, sizeof(token));

	if (n != (ssize_t)sizeof(token)) {
		fprintf(stderr, "dev-check: %s: need %zu raw bytes of token\n",
			path, sizeof(token));
		exit(2);
	}
	close(fd);
}

/* ---- the gradient each rank writes ---- */

/* Exact binary fractions, different per worker, element and iteration. */
float grad_of(uint32_t rank, uint64_t i, int iter)
{
	if (rank == 0)
		return 0.125f * (float)(i % 13 + 1) * (float)iter;
	return 0.5f * (float)iter - 0.0625f * (float)(i % 7);
}

void write_grads(struct worker *w, int iter)
{
	memset(w->grad, 0, w->s.grad_len);
	for (size_t t = 0; t < ARRAY_SIZE(model); t++) {
		float *g = w->grad + model_off[t] / sizeof(float);

		for (uint64_t i = 0; i < model[t].nelems; i++)
			g[i] = grad_of(w->rank, i, iter);
	}
}


// SPDX-License-Identifier: GPL-2.0
/*
 * dev-check hold and observer: a worker that maps everything and waits for
 * its job to be deleted under it, and an observer's read-only view of the
 * parameters of a live run.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev-check.h"

/* ---- hold ---- */

static volatile sig_atomic_t job_gone;

static void on_usr1(int sig)
{
	(void)sig;
	job_gone = 1;
}

static uint64_t touch_all(struct worker *w)
{
	uint64_t sum = 0;

	for (size_t off = 0; off < w->s.grad_len; off += page)
		((volatile uint8_t *)w->grad)[off] = 0;
	for (size_t off = 0; off < w->s.params_len; off += page)
		sum += ((const volatile uint8_t *)w->params)[off];
	for (size_t off = 0; off < w->s.versions_len; off += page)
		sum += ((const volatile uint8_t *)w->versions)[off];
	return sum;
}

static volatile sig_atomic_t interrupted;

static void on_usr2(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * Push iteration 1 and block in a pull that rank 1 never completes. SIGUSR2
 * (no SA_RESTART) must interrupt it with EINTR; then the forced delete
 * must wake it with ENODEV. Returns the pull's last result.
 */
static int hold_pull(struct worker *w)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	int ret, said = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	write_grads(w, 1);
	expect(xfer(w->fd, RW_IOC_PUSH, NULL, 0, 0, 0), 0,
	       "push every chunk of iteration 1");
	printf("ready\n");
	for (;;) {
		ret = xfer(w->fd, RW_IOC_PULL, NULL, 0, 0, 0);
		if (ret != -EINTR)
			break;
		if (!said)
			check(1, "a signal interrupts the blocked pull -> EINTR");
		if (!said++)
			printf("interrupted\n");
	}
	return ret;
}

int hold(uint32_t rank, int pull)
{
	struct worker w = { .rank = rank };
	struct sigaction sa = { .sa_handler = on_usr1 };
	uint64_t params_sum, versions_sum;
	sigset_t usr1, old;
	void *late;
	int ret;

	mode = "dev: hold";
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* Blocked until sigsuspend(), so the signal cannot slip past. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	w.fd = dev_open();
	expect(attach(w.fd, rank, 0), 0, "attach rank %u", rank);
	ret = declare(w.fd, model, ARRAY_SIZE(model), 0);
	expect(ret, 0, "declare the model");
	ret = ret ? ret : worker_map(&w, 0);
	expect(ret, 0, "map gradient, params and versions");
	if (failed)
		return 1;
	/* A second params view whose pages are first touched after a delete. */
	late = mmap(NULL, w.s.params_len, PROT_READ, MAP_SHARED, w.fd,
		    (off_t)w.s.params_offset);
	check(late != MAP_FAILED, "a second, untouched params mapping");
	if (late == MAP_FAILED)
		return 1;
	touch_all(&w);
	params_sum = fnv1a(w.params, w.s.params_len);
	versions_sum = fnv1a((const void *)w.versions, w.s.versions_len);
	printf("# params checksum %016llx\n", (unsigned long long)params_sum);
	if (pull) {
		expect(hold_pull(&w), -ENODEV,
		       "the forced delete wakes the blocked pull");
	} else {
		printf("ready\n");
		while (!job_gone)
			sigsuspend(&old);
	}

	/* The job was deleted with force: the file is dead, the pages not. */
	expect(xfer(w.fd, RW_IOC_PUSH, NULL, 0, 0, 0), -ENODEV,
	       "push after the job was deleted");
	expect(xfer(w.fd, RW_IOC_PULL, NULL, 0, 0, 2000), -ENODEV,
	       "pull after the job was deleted");
	expect(xfer(w.fd, RW_IOC_PUSHPULL, NULL, 0, RW_XFER_NONBLOCK, 0),
	       -ENODEV, "non-blocking pushpull after the job was deleted");
	touch_all(&w);
	check(fnv1a(w.params, w.s.params_len) == params_sum &&
	      fnv1a((const void *)w.versions, w.s.versions_len) == versions_sum,
	      "params and versions still read the same after the delete");
	check(fnv1a(late, w.s.params_len) == fnv1a(w.params, w.s.params_len),
	      "pages first touched after the delete fault in and read the same");
	munmap(late, w.s.params_len);
	w.grad[0] = 1.5f;
	check(w.grad[0] == 1.5f, "the gradient map still takes writes");
	worker_unmap(&w);
	close(w.fd);
	return failed;
}

/* ---- observer ---- */

int observer(void)
{
	int fd = dev_open(), ret;
	struct rw_setup s;
	void *p;

	ret = attach(fd, 0, RW_ATTACH_OBSERVER);
	ret = ret ? ret : setup(fd, &s);
	if (ret) {
		fprintf(stderr, "dev-check observer: attach/setup: %s\n",
			errname(ret));
		return 1;
	}
	p = mmap(NULL, s.params_len, PROT_READ, MAP_SHARED, fd,
		 (off_t)s.params_offset);
	if (p == MAP_FAILED) {
		fprintf(stderr, "dev-check observer: mmap params: %s\n",
			strerror(errno));
		return 1;
	}
	printf("%016llx\n", (unsigned long long)fnv1a(p, s.params_len));
	munmap(p, s.params_len);
	close(fd);
	return 0;
}

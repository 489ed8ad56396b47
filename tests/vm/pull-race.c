// SPDX-License-Identifier: GPL-2.0
/*
 * pull-race: W threads, one worker each, push and pull a one-chunk model
 * as fast as they can under a step-per-gradient rule (the job's: SSP,
 * adaptive or ASP), each pull bounded by a timeout.
 *
 *   pull-race --job NAME --token-file PATH --workers W [--steps N]
 *             [--seconds S] [--timeout-ms MS]
 *
 * The race it runs into: a pull waits until its chunk has seen every
 * gradient pushed before it; the engine's core thread settled the
 * gradient, woke the waiters, and only then counted it as seen, so a
 * puller that looked in between slept again and, with the other ranks
 * parked in the gate behind it, nothing woke it (docs/fuzzing.md). On a
 * loaded 2-CPU VM, 4 workers under adaptive 1..3 hit it after some 18000
 * steps (160 s) without the fix; a pull that times out fails the run.
 * Each worker stops after N steps or S seconds, whichever comes first.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rackweave/uapi.h>

static const char *job;
static uint8_t token[RW_JOB_TOKEN_LEN];
static unsigned int steps = 5000, timeout_ms = 20000;
static double seconds;
static volatile int failed;
static unsigned long long done_steps[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct rw_tensor_desc model[] = {
	{ .key = 1, .nelems = 256, .dtype = RW_DTYPE_F32 },
};

static void *worker(void *arg)
{
	unsigned int rank = (unsigned int)(uintptr_t)arg, i;
	struct rw_attach a = { .size = sizeof(a), .rank = rank };
	struct rw_declare d = { .size = sizeof(d), .nr_tensors = 1,
				.tensors = (uintptr_t)model };
	struct rw_setup s = { .size = sizeof(s) };
	struct rw_xfer x = { .size = sizeof(x), .timeout_ms = timeout_ms };
	float *grad;
	int fd;

	fd = open(RW_DEV_PATH, O_RDWR | O_CLOEXEC);
	snprintf(a.job, sizeof(a.job), "%s", job);
	memcpy(a.token, token, sizeof(token));
	if (fd < 0 || ioctl(fd, RW_IOC_ATTACH, &a) ||
	    ioctl(fd, RW_IOC_DECLARE, &d) || ioctl(fd, RW_IOC_SETUP, &s)) {
		printf("# rank %u: setting up: %s\n", rank, strerror(errno));
		failed = 1;
		return NULL;
	}
	grad = mmap(NULL, s.grad_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)s.grad_offset);
	if (grad == MAP_FAILED) {
		printf("# rank %u: mmap: %s\n", rank, strerror(errno));
		failed = 1;
		return NULL;
	}
	for (i = 0; i < steps && !failed; i++) {
		if (seconds > 0 && now() >= seconds)
			break;
		grad[0] = 1e-3f * (float)rank;
		if (ioctl(fd, RW_IOC_PUSHPULL, &x)) {
			printf("# rank %u: step %u: %s%s\n", rank, i,
			       strerror(errno), errno == ETIMEDOUT ?
			       " (a pull that missed its wake-up)" : "");
			failed = 1;
			break;
		}
	}
	done_steps[rank] = i;
	munmap(grad, s.grad_len);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	unsigned int w = 2, i;
	const char *tf = NULL;
	FILE *f;
	int j;

	for (j = 1; j + 1 < argc; j += 2) {
		if (!strcmp(argv[j], "--job"))
			job = argv[j + 1];
		else if (!strcmp(argv[j], "--token-file"))
			tf = argv[j + 1];
		else if (!strcmp(argv[j], "--workers"))
			w = (unsigned int)strtoul(argv[j + 1], NULL, 0);
		else if (!strcmp(argv[j], "--steps"))
			steps = (unsigned int)strtoul(argv[j + 1], NULL, 0);
		else if (!strcmp(argv[j], "--seconds"))
			seconds = strtod(argv[j + 1], NULL);
		else if (!strcmp(argv[j], "--timeout-ms"))
			timeout_ms = (unsigned int)strtoul(argv[j + 1], NULL, 0);
		else
			break;
	}
	if (j < argc || !job || !tf || !w || w > 64) {
		fprintf(stderr, "usage: pull-race --job NAME --token-file PATH --workers W [--steps N] [--seconds S] [--timeout-ms MS]\n");
		return 2;
	}
	f = fopen(tf, "rb");
	if (!f || fread(token, 1, sizeof(token), f) != sizeof(token)) {
		fprintf(stderr, "pull-race: reading %s\n", tf);
		return 1;
	}
	fclose(f);
	if (seconds > 0)
		seconds += now();	/* the deadline */
	for (i = 0; i < w; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
	for (i = 0; i < w; i++)
		pthread_join(t[i], NULL);
	printf("# pull-race: %u workers, steps:", w);
	for (i = 0; i < w; i++)
		printf(" %llu", done_steps[i]);
	printf("%s\n", failed ? " (failed)" : "");
	return failed;
}

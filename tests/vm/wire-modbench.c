// SPDX-License-Identifier: GPL-2.0
/*
 * wire-modbench: scripts/bench-wire's module worker. A trainer of a job on
 * the box at BOX through this host's own module (librackweave's
 * rw_attach_remote: the module here connects to the box over RDMA and
 * pushes from its kernel), timed as wire-peer's bench mode times a raw
 * verbs worker.
 *
 *   wire-modbench JOB TOKEN_FILE RANK NELEMS ITERS BOX [hold]
 *
 * Attaches at RANK, declares one tensor of NELEMS floats and times the
 * declaration, which returns once every chunk's initial parameters are in
 * (the box writes them after its reply: a pull of the model, with the
 * setup's exchange and both sides' allocations for the run before it);
 * maps the buffers and writes a gradient (not timed); then times ITERS
 * iterations of rw_push() and rw_pull() of every chunk, and ITERS more of
 * rw_pushpull() of every chunk, and prints
 *
 *   mbench bytes B chunks N iters I pull_s P push_s S pushpull_s T
 *          push_call_s C csw V icsw W
 *
 * S: the first iterations' time, each from rw_push() until rw_pull()
 * returned. The module's rw_push() returns once its chunks are posted,
 * so this host cannot tell when they reached the box; only the box's
 * answers say it has them all, and S counts until the last of them (the
 * part spent in rw_push() itself is C). T: the later iterations', each
 * rw_pushpull() until it returned. V and W: the trainer's voluntary and
 * involuntary context switches over both sets of iterations (each
 * voluntary one a sleep in the module, woken by a completion). "hold" keeps the attachment until
 * stdin ends. "error: ..." and exit status 1 on a failure. A transfer
 * waits 120 s at most.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <rackweave.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what, int err)
{
	printf("error: %s: %s\n", what, rw_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct rw_tensor_desc one = { .key = 1, .dtype = RW_DTYPE_F32 };
	double t0, t1, pull_s, push_s = 0, all_s = 0, call_s = 0;
	uint8_t token[RW_JOB_TOKEN_LEN];
	struct rusage ru0, ru1;
	struct rw_tensor_view v;
	uint32_t rank, iters, i;
	struct rw_setup s;
	struct rw_ctx *ctx;
	char buf[64];
	uint64_t k;
	int ret;

	if ((argc != 7 && argc != 8) || (argc == 8 && strcmp(argv[7], "hold"))) {
		fprintf(stderr, "usage: wire-modbench JOB TOKEN_FILE RANK NELEMS ITERS BOX [hold]\n");
		return 2;
	}
	rank = (uint32_t)atoi(argv[3]);
	one.nelems = strtoull(argv[4], NULL, 0);
	iters = (uint32_t)atoi(argv[5]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rw_token_read(argv[2], token);
	if (ret)
		return fail("token", ret);
	ret = rw_ctx_open(&ctx, NULL);
	if (ret)
		return fail("open", ret);
	ret = rw_attach_remote(ctx, argv[1], token, rank, argv[6]);
	if (ret)
		return fail("attach", ret);
	rw_set_timeout(ctx, 120000);
	t0 = now_s();
	ret = rw_declare(ctx, &one, 1, 0);
	pull_s = now_s() - t0;
	if (ret)
		return fail("declare", ret);
	ret = rw_map(ctx);
	if (!ret)
		ret = rw_setup_get(ctx, &s);
	if (!ret)
		ret = rw_tensor(ctx, one.key, &v);
	if (ret)
		return fail("map", ret);
	for (k = 0; k < v.nelems; k++)
		((float *)v.grad)[k] = (float)(k % 251) / 256.0f + (float)rank;
	getrusage(RUSAGE_SELF, &ru0);
	for (i = 0; i < iters; i++) {
		t0 = now_s();
		ret = rw_push(ctx, NULL, 0, 0);
		t1 = now_s();
		if (ret)
			return fail("push", ret);
		ret = rw_pull(ctx, NULL, 0, 0);
		if (ret)
			return fail("pull", ret);
		call_s += t1 - t0;
		push_s += now_s() - t0;
	}
	for (i = 0; i < iters; i++) {
		t0 = now_s();
		ret = rw_pushpull(ctx, NULL, 0, 0);
		if (ret)
			return fail("pushpull", ret);
		all_s += now_s() - t0;
	}
	getrusage(RUSAGE_SELF, &ru1);
	printf("mbench bytes %llu chunks %u iters %u pull_s %.6f push_s %.6f pushpull_s %.6f push_call_s %.6f csw %ld icsw %ld\n",
	       (unsigned long long)s.model_bytes, s.nr_chunks, iters, pull_s,
	       push_s, all_s, call_s, ru1.ru_nvcsw - ru0.ru_nvcsw,
	       ru1.ru_nivcsw - ru0.ru_nivcsw);
	if (argc == 8)
		while (fread(buf, 1, sizeof(buf), stdin) > 0)
			;
	rw_ctx_close(ctx);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * prio-trainer: a trainer of L layers whose backward and forward passes
 * take time, for the priority test and bench (tests/vm/priority.sh,
 * scripts/bench-priority). Attached through this host's module to the box
 * at BOX (rw_attach_remote), it declares L tensors of N floats, key l for
 * layer l, and per iteration:
 *
 *   backward  for l = L-1 .. 0: compute (US microseconds, asleep), write
 *             layer l's gradient, push it alone (rw_push of key l: queued
 *             in the host's module, posted as its window allows);
 *   forward   for l = 0 .. L-1: wait for layer l's fresh parameters
 *             (rw_pull of key l), compute.
 *
 *   prio-trainer JOB TOKEN_FILE RANK BOX L N ITERS US [fifo] [back=US] [OUT]
 *
 * back=US gives the backward pass its own compute a layer (default: US);
 * back=0 pushes the layers back to back, so they always queue together.
 *
 * "fifo" declares the priorities the other way (layer l gets L-1-l), so
 * the layers go out and come back in the order the backward pass pushes
 * them: what a first-in first-out queue does. Declared in layer order
 * (the default, all 0), layer 0, pushed last, goes first. The gradients
 * are the same bits either way (a function of iteration, rank, layer and
 * element), so under BSP the parameters end the same.
 *
 * Prints, per run: "iter_us MEDIAN first_us MEDIAN hash HASH", where
 * iter_us is an iteration's time and first_us the time from the last push
 * of the backward pass to layer 0's parameters being fresh, medians over
 * the iterations after the first; and writes the parameters to OUT.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rackweave.h>

#define PT_MAX_LAYERS	64
#define PT_MAX_ITERS	10000

static uint64_t pt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * A layer's compute, @us microseconds, as an accelerator's: asleep, the
 * CPU left to the transport (soft-RoCE moves the bytes on these CPUs, as
 * a NIC would beside a GPU that computes).
 */
static void pt_compute(uint32_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int pt_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t pt_median(uint64_t *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), pt_cmp);
	return n ? v[n / 2] : 0;
}

static int pt_xfer_key(struct rw_ctx *ctx, uint32_t key, bool push)
{
	struct rw_range r = { .first = key, .count = 0 };

	return push ? rw_push(ctx, &r, 1, RW_XFER_KEYS) :
		      rw_pull(ctx, &r, 1, RW_XFER_KEYS);
}

static int pt_run(struct rw_ctx *ctx, uint32_t rank, uint32_t L, uint32_t N,
		  uint32_t iters, uint32_t us, uint32_t back_us, uint64_t *iter_us,
		  uint64_t *first_us)
{
	struct rw_tensor_view v[PT_MAX_LAYERS];
	uint64_t t0, tpush;
	uint32_t it, l, i;
	int err;

	for (l = 0; l < L; l++) {
		err = rw_tensor(ctx, l, &v[l]);
		if (err)
			return err;
	}
	for (it = 0; it < iters; it++) {
		t0 = pt_now_us();
		for (l = L; l-- > 0;) {
			float *g = v[l].grad;

			pt_compute(back_us);
			for (i = 0; i < N; i++)
				g[i] = (float)((int)((it * 31 + rank * 7 +
						      l * 3 + i) % 17) - 8) *
				       0.001f;
			err = pt_xfer_key(ctx, l, true);
			if (err)
				return err;
		}
		tpush = pt_now_us();
		for (l = 0; l < L; l++) {
			err = pt_xfer_key(ctx, l, false);
			if (err)
				return err;
			if (!l)
				first_us[it] = pt_now_us() - tpush;
			pt_compute(us);
		}
		iter_us[it] = pt_now_us() - t0;
	}
	return 0;
}

/* FNV-1a 64 of the parameters, layer by layer. */
static uint64_t pt_hash(struct rw_ctx *ctx, uint32_t L, uint32_t N)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct rw_tensor_view v;
	const unsigned char *p;
	uint32_t l, i;

	for (l = 0; l < L; l++) {
		if (rw_tensor(ctx, l, &v))
			return 0;
		p = v.params;
		for (i = 0; i < N * sizeof(float); i++) {
			h ^= p[i];
			h *= 0x100000001b3ULL;
		}
	}
	return h;
}

static int pt_write(struct rw_ctx *ctx, uint32_t L, uint32_t N,
		    const char *path)
{
	struct rw_tensor_view v;
	FILE *f = fopen(path, "w");
	uint32_t l;
	int err = 0;

	if (!f)
		return -errno;
	for (l = 0; l < L && !err; l++) {
		err = rw_tensor(ctx, l, &v);
		if (!err && fwrite(v.params, sizeof(float), N, f) != N)
			err = -EIO;
	}
	if (fclose(f) && !err)
		err = -EIO;
	return err;
}

static unsigned long pt_num(const char *s, const char *what, unsigned long lo,
			    unsigned long hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "prio-trainer: %s: a number from %lu to %lu, not '%s'\n",
			what, lo, hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct rw_tensor_desc t[PT_MAX_LAYERS];
	uint64_t *iter_us, *first_us;
	uint8_t token[RW_JOB_TOKEN_LEN];
	uint32_t rank, L, N, iters, us, back_us, l;
	struct rw_ctx *ctx = NULL;
	const char *out = NULL;
	bool fifo = false;
	int err, a;

	if (argc < 9) {
		fprintf(stderr, "usage: prio-trainer JOB TOKEN_FILE RANK BOX L N ITERS US [fifo] [OUT]\n");
		return 2;
	}
	rank = pt_num(argv[3], "RANK", 0, 255);
	L = pt_num(argv[5], "L", 1, PT_MAX_LAYERS);
	N = pt_num(argv[6], "N", 1, 1U << 24);
	iters = pt_num(argv[7], "ITERS", 2, PT_MAX_ITERS);
	us = pt_num(argv[8], "US", 0, 1000000);
	back_us = us;
	for (a = 9; a < argc; a++) {
		if (!strcmp(argv[a], "fifo"))
			fifo = true;
		else if (!strncmp(argv[a], "back=", 5))
			back_us = pt_num(argv[a] + 5, "back", 0, 1000000);
		else
			out = argv[a];
	}
	iter_us = calloc(iters, sizeof(*iter_us));
	first_us = calloc(iters, sizeof(*first_us));
	if (!iter_us || !first_us)
		return 1;
	memset(t, 0, sizeof(t));
	for (l = 0; l < L; l++) {
		t[l].key = l;
		t[l].nelems = N;
		t[l].dtype = RW_DTYPE_F32;
		t[l].priority = fifo ? L - 1 - l : 0;
	}
	err = rw_token_read(argv[2], token);
	if (!err)
		err = rw_ctx_open(&ctx, NULL);
	if (!err) {
		rw_set_timeout(ctx, 120000);
		err = rw_attach_remote(ctx, argv[1], token, rank, argv[4]);
	}
	if (!err)
		err = rw_declare(ctx, t, L, 0);
	if (!err)
		err = rw_map(ctx);
	if (!err)
		err = pt_run(ctx, rank, L, N, iters, us, back_us, iter_us,
			     first_us);
	if (!err && out)
		err = pt_write(ctx, L, N, out);
	if (err) {
		fprintf(stderr, "prio-trainer: rank %u: %s\n", rank,
			rw_strerror(err));
		rw_ctx_close(ctx);
		return 1;
	}
	printf("iter_us %llu first_us %llu hash %016llx\n",
	       (unsigned long long)pt_median(iter_us + 1, iters - 1),
	       (unsigned long long)pt_median(first_us + 1, iters - 1),
	       (unsigned long long)pt_hash(ctx, L, N));
	rw_ctx_close(ctx);
	free(iter_us);
	free(first_us);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * wire-local: a trainer of the wire tests' model (wire-model.h) through
 * librackweave: on the box itself, or with BOX through this host's module
 * attached to the box listening there (rw_attach_remote).
 *
 *   wire-local JOB TOKEN_FILE RANK WORKERS ITERS [BOX]
 *
 * Attaches at RANK, declares the model, and per iteration writes its
 * gradients and pushpulls every chunk. Then it checks every parameter
 * against the exact result for WORKERS workers and prints
 *
 *   trained ITERS exact HASH     (HASH: FNV-1a of the parameter buffer)
 *   trained ITERS mismatch N HASH
 *   error: ...
 *
 * Exit status 0 only when exact. A transfer waits 60 s at most, or
 * WIRE_LOCAL_TIMEOUT_MS (0: as long as it takes). Also from the
 * environment:
 *   WIRE_LOCAL_BOXES=1   BOX names every box of a job spread over several
 *                        (RW_ATTACH_BOXES)
 *   WIRE_LOCAL_ANY=1     no exact result to check (another optimizer):
 *                        "trained ITERS any HASH", exit 0
 *   WIRE_LOCAL_SLEEP_MS  sleep this long before each iteration's push
 *   WIRE_LOCAL_HOLD=FILE once trained, stay attached until FILE exists
 *   WIRE_LOCAL_SAVE=N:FILE  rank 0 saves a checkpoint to FILE between its
 *                        push and its pull of iteration N (from 0):
 *                        "saved step S"
 *   WIRE_LOCAL_RESTORE=FILE the run continues from FILE: rank 0 restores
 *                        it, the others wait for it (rw_params_wait), and
 *                        everyone goes on from its step: "restored step S"
 *   WIRE_LOCAL_CONTINUE=1 the run goes on from the boxes' own state (a
 *                        run after a move): everyone waits for the run's
 *                        parameters and goes on from its step: "continued
 *                        step S"
 *   WIRE_LOCAL_SCALE=K   the model's largest tensor (key 13) K times as
 *                        long (1 to 4096; 1, the default, is the wire
 *                        tests' model); the exact result still holds
 *   WIRE_LOCAL_PAUSE=N:PREFIX[,N:PREFIX...]  before iteration N (from 0)
 *                        print "paused N" and wait until PREFIX-RANK
 *                        exists (a move of the job's set ordered while
 *                        the trainers wait, each going on when told)
 *   WIRE_LOCAL_TIMED=1   before the result, "timed START END": the
 *                        CLOCK_MONOTONIC nanoseconds at the first
 *                        iteration's start and after the last one's pull
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rackweave.h>

#include "wire-model.h"

/* WIRE_LOCAL_PAUSE: wait before iteration @i if it says so. */
static void pause_at(const char *spec, uint32_t i, uint32_t rank)
{
	char path[512];
	const char *p;
	size_t n;

	for (p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if ((uint32_t)atoi(p) != i || !strchr(p, ':'))
			continue;
		p = strchr(p, ':') + 1;
		n = strcspn(p, ",");
		snprintf(path, sizeof(path), "%.*s-%u", (int)n, p, rank);
		printf("paused %u\n", i);
		fflush(stdout);
		while (access(path, F_OK))
			usleep(100000);
		return;
	}
}

static int fail(const char *what, int err)
{
	printf("error: %s: %s\n", what, rw_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct rw_tensor_desc desc[WM_NR_TENSORS];
	struct rw_tensor_view v[WM_NR_TENSORS];
	struct timespec t0, t1;
	uint8_t token[RW_JOB_TOKEN_LEN];
	uint32_t rank, workers, iters, i, t;
	uint64_t k, bad = 0;
	struct rw_setup s;
	struct rw_ctx *ctx;
	const char *hold, *save = NULL, *restore;
	uint32_t save_at = UINT32_MAX, start = 0;
	struct rw_ckpt_head h;
	char why[256];
	uint32_t sleep_ms, scale = 1;
	bool any, timed, cont;
	int ret;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: wire-local JOB TOKEN_FILE RANK WORKERS ITERS [BOX]\n");
		return 2;
	}
	any = getenv("WIRE_LOCAL_ANY") != NULL;
	restore = getenv("WIRE_LOCAL_RESTORE");
	cont = getenv("WIRE_LOCAL_CONTINUE") != NULL;
	if (getenv("WIRE_LOCAL_SAVE")) {
		save_at = (uint32_t)atoi(getenv("WIRE_LOCAL_SAVE"));
		save = strchr(getenv("WIRE_LOCAL_SAVE"), ':');
		if (!save++) {
			fprintf(stderr, "WIRE_LOCAL_SAVE is N:FILE\n");
			return 2;
		}
	}
	hold = getenv("WIRE_LOCAL_HOLD");
	sleep_ms = getenv("WIRE_LOCAL_SLEEP_MS") ?
		   (uint32_t)atoi(getenv("WIRE_LOCAL_SLEEP_MS")) : 0;
	timed = getenv("WIRE_LOCAL_TIMED") != NULL;
	if (getenv("WIRE_LOCAL_SCALE"))
		scale = (uint32_t)atoi(getenv("WIRE_LOCAL_SCALE"));
	if (scale < 1 || scale > 4096) {
		fprintf(stderr, "wire-local: WIRE_LOCAL_SCALE is 1 to 4096\n");
		return 2;
	}
	for (t = 0; t < WM_NR_TENSORS; t++) {
		desc[t] = wm_tensors[t];
		if (desc[t].key == 13)
			desc[t].nelems *= scale;
	}
	rank = (uint32_t)atoi(argv[3]);
	workers = (uint32_t)atoi(argv[4]);
	iters = (uint32_t)atoi(argv[5]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rw_token_read(argv[2], token);
	if (ret)
		return fail("token", ret);
	ret = rw_ctx_open(&ctx, NULL);
	if (ret)
		return fail("open", ret);
	if (argc == 7)
		ret = rw_attach_remote_flags(ctx, argv[1], token, rank, argv[6],
					     getenv("WIRE_LOCAL_BOXES") ?
					     RW_ATTACH_BOXES : 0);
	else
		ret = rw_attach(ctx, argv[1], token, rank, 0);
	if (ret)
		return fail("attach", ret);
	ret = rw_declare(ctx, desc, WM_NR_TENSORS, 0);
	if (ret)
		return fail("declare", ret);
	ret = rw_map(ctx);
	if (!ret)
		ret = rw_setup_get(ctx, &s);
	if (ret)
		return fail("map", ret);
	for (t = 0; t < WM_NR_TENSORS; t++) {
		ret = rw_tensor(ctx, desc[t].key, &v[t]);
		if (ret)
			return fail("tensor", ret);
	}
	/* WIRE_LOCAL_TIMEOUT_MS=0: wait as long as the box lets us. */
	rw_set_timeout(ctx, getenv("WIRE_LOCAL_TIMEOUT_MS") ?
		       (uint32_t)atoi(getenv("WIRE_LOCAL_TIMEOUT_MS")) : 60000);
	if (restore || cont) {
		ret = rank || cont ? rw_params_wait(ctx, 120000) :
		      rw_checkpoint_restore(ctx, restore, why, sizeof(why));
		if (ret)
			return fail(rank || cont ? "params wait" : why, ret);
		ret = rw_job_head(ctx, &h);
		if (ret)
			return fail("head", ret);
		start = (uint32_t)h.step;
		printf("%s step %u\n", cont ? "continued" : "restored", start);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = start; i < iters; i++) {
		if (sleep_ms) {
			struct timespec ts = {
				.tv_sec = sleep_ms / 1000,
				.tv_nsec = (long)(sleep_ms % 1000) * 1000000,
			};

			nanosleep(&ts, NULL);
		}
		pause_at(getenv("WIRE_LOCAL_PAUSE"), i, rank);
		for (t = 0; t < WM_NR_TENSORS; t++)
			for (k = 0; k < v[t].nelems; k++)
				((float *)v[t].grad)[k] = wm_grad(rank, i, t, k);
		if (rank == 0 && i == save_at) {
			/* Between its push and its pull, as a trainer saves. */
			ret = rw_push(ctx, NULL, 0, 0);
			if (ret)
				return fail("push", ret);
			ret = rw_checkpoint_save(ctx, save, 60000, why,
						 sizeof(why));
			if (ret)
				return fail(why, ret);
			ret = rw_checkpoint_head(save, &h, NULL, why,
						 sizeof(why));
			if (ret)
				return fail(why, ret);
			printf("saved step %llu\n", (unsigned long long)h.step);
			ret = rw_pull(ctx, NULL, 0, 0);
		} else {
			ret = rw_pushpull(ctx, NULL, 0, 0);
		}
		if (ret)
			return fail("pushpull", ret);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (timed)
		printf("timed %llu %llu\n",
		       (unsigned long long)t0.tv_sec * 1000000000ULL +
		       (unsigned long long)t0.tv_nsec,
		       (unsigned long long)t1.tv_sec * 1000000000ULL +
		       (unsigned long long)t1.tv_nsec);
	for (t = 0; t < WM_NR_TENSORS; t++)
		for (k = 0; k < v[t].nelems; k++)
			bad += ((const float *)v[t].params)[k] !=
			       wm_expect(workers, iters, t, k);
	if (any)
		printf("trained %u any ", iters);
	else if (bad)
		printf("trained %u mismatch %llu ", iters, (unsigned long long)bad);
	else
		printf("trained %u exact ", iters);
	printf("%016llx\n", (unsigned long long)
	       wm_hash(v[0].params, s.model_bytes));
	/* Held: the box sees the run while this worker stays attached. */
	while (hold && access(hold, F_OK))
		usleep(100000);
	rw_ctx_close(ctx);
	return bad && !any ? 1 : 0;
}

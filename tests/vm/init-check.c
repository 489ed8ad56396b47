// SPDX-License-Identifier: GPL-2.0
/*
 * init-check: initial parameters (RW_IOC_PARAMS_INIT, rw_params_init(3))
 * and their refusals, through librackweave.
 *
 *   init-check JOB_A JOB_B TOKEN_FILE [BOX]
 *
 * With BOX the jobs are on another host's box, and every context attaches
 * through this host's module (rw_attach_remote): the same calls and the
 * same answers, but for the observer (a remote observer is not there yet:
 * its checks are left out).
 * Both jobs must exist with 2 workers, 4 KiB chunks and the token, BSP
 * with SGD (rwctl job add NAME workers 2 chunk-size 4096 ...). Job A: a
 * model of two tensors in separate chunks; a wrong length, an unknown key
 * and an observer are refused and change nothing; waiting with a timeout
 * times out; rank 1 sets tensor B alone (tensor A stays zero), rank 0's
 * wait returns, a second init is EBUSY and changes nothing, both ranks'
 * first pulls return exactly the values; the run's head (rw_job_head)
 * says what the job is. Job B: after rank 0's first push
 * an init is EBUSY and the parameters stay zero. Prints TAP lines
 * ("ok - init: ...") and exits 1 if any failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rackweave.h>

#define NA	1024	/* tensor A: one 4 KiB chunk */
#define NB	300	/* tensor B: the next chunk */

static int failures;
static const char *box;	/* NULL: the jobs are on this host */

static void check(int ok, const char *what)
{
	printf("%s - init: %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		failures++;
}

static void check_err(int got, int want, const char *what)
{
	char line[256];

	snprintf(line, sizeof(line), "%s -> %s (got %s)", what,
		 want ? strerror(-want) : "0", got ? strerror(-got) : "0");
	check(got == want, line);
}

static struct rw_ctx *join(const char *job, const uint8_t *token,
			   uint32_t rank, uint32_t flags)
{
	const struct rw_tensor_desc t[] = {
		{ .key = 1, .nelems = NA, .dtype = RW_DTYPE_F32 },
		{ .key = 2, .nelems = NB, .dtype = RW_DTYPE_F32 },
	};
	struct rw_ctx *ctx;

	if (rw_ctx_open(&ctx, NULL))
		return NULL;
	if (box ? rw_attach_remote(ctx, job, token, rank, box) :
	    rw_attach(ctx, job, token, rank, flags))
		return NULL;
	if (!(flags & RW_ATTACH_OBSERVER) && rw_declare(ctx, t, 2, 0))
		return NULL;
	if (rw_map(ctx))
		return NULL;
	return ctx;
}

/* Whether @n floats of tensor @key in @ctx's mapping equal @want (NULL: 0). */
static int tensor_is(struct rw_ctx *ctx, uint64_t key, const float *want,
		     uint32_t n)
{
	struct rw_tensor_view v;
	const float *p;
	uint32_t i;

	if (rw_tensor(ctx, key, &v))
		return 0;
	p = v.params;
	for (i = 0; i < n; i++)
		if (p[i] != (want ? want[i] : 0.0f))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct rw_ctx *r0, *r1, *obs, *b0, *b1;
	struct rw_range unknown = { .first = 77, .count = 0 };
	struct rw_range key_b = { .first = 2, .count = 0 };
	uint8_t token[RW_JOB_TOKEN_LEN];
	struct rw_tensor_view vb;
	struct rw_ckpt_head h;
	float vals[NB];
	struct rw_setup s;
	char *buf;
	uint32_t i;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: init-check JOB_A JOB_B TOKEN_FILE [BOX]\n");
		return 2;
	}
	box = argc == 5 ? argv[4] : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rw_token_read(argv[3], token))
		return 2;
	r0 = join(argv[1], token, 0, 0);
	r1 = join(argv[1], token, 1, 0);
	obs = box ? NULL : join(argv[1], token, 0, RW_ATTACH_OBSERVER);
	check(r0 && r1 && (obs || box),
	      box ? "job A: ranks 0 and 1 attached from this host" :
	      "job A: ranks 0 and 1 and an observer attached");
	if (!r0 || !r1 || (!obs && !box))
		return 1;
	check(!rw_setup_get(r0, &s) && s.nr_chunks == 2,
	      "job A: two tensors in two chunks");
	check(!rw_job_head(r1, &h) && h.magic == RW_CKPT_MAGIC &&
	      h.optim == RW_OPTIM_SGD && h.nr_chunks == 2 &&
	      h.chunk_size == 4096 && h.nr_tensors == 2 && !h.step,
	      "job A: the run's head: sgd, 2 tensors in 2 chunks of 4 KiB, step 0");
	buf = calloc(1, s.params_len);
	if (!buf || rw_tensor(r1, 2, &vb))
		return 1;
	for (i = 0; i < NB; i++)
		vals[i] = (float)(i + 1) / 64.0f - 2.0f;
	memcpy(buf + vb.offset, vals, sizeof(vals));

	check_err(rw_params_init(r1, buf, s.params_len - 4, NULL, 0, 0),
		  -EINVAL, "init with a short length");
	check_err(rw_params_init(r1, buf, s.params_len, &unknown, 1,
				 RW_INIT_KEYS), -ENOENT, "init of an unknown key");
	if (obs)
		check_err(rw_params_init(obs, buf, s.params_len, NULL, 0, 0),
			  -EPERM, "init by an observer");
	check(tensor_is(r0, 1, NULL, NA) && tensor_is(r0, 2, NULL, NB),
	      "refused inits changed nothing: all zero");
	check_err(rw_params_wait(r0, 200), -ETIMEDOUT,
		  "waiting 200 ms while nobody sets them");

	check_err(rw_params_init(r1, buf, s.params_len, &key_b, 1,
				 RW_INIT_KEYS), 0, "rank 1 sets tensor B alone");
	check_err(rw_params_wait(r0, 200), 0, "rank 0's wait returns");
	memset(buf, 0x41, s.params_len);
	check_err(rw_params_init(r0, buf, s.params_len, NULL, 0, 0), -EBUSY,
		  "a second init");
	check_err(rw_pull(r0, NULL, 0, 0), 0, "rank 0's first pull");
	check_err(rw_pull(r1, NULL, 0, 0), 0, "rank 1's first pull");
	check(tensor_is(r0, 2, vals, NB) && tensor_is(r1, 2, vals, NB),
	      "both ranks see exactly rank 1's values");
	check(tensor_is(r0, 1, NULL, NA),
	      "tensor A was not selected: still zero");

	b0 = join(argv[2], token, 0, 0);
	b1 = join(argv[2], token, 1, 0);
	check(b0 && b1, "job B: ranks 0 and 1 attached");
	if (!b0 || !b1)
		return 1;
	check_err(rw_push(b0, NULL, 0, 0), 0, "job B: rank 0 pushes");
	/*
	 * Once the box has taken the push: a remote push is on its way when
	 * rw_push() returns, and an init that reached the box first would
	 * win. The wait returns once the run has begun.
	 */
	check_err(rw_params_wait(b1, 5000), 0,
		  "job B: a wait once the run has begun returns");
	memset(buf, 0, s.params_len);
	memcpy(buf + vb.offset, vals, sizeof(vals));
	check_err(rw_params_init(b1, buf, s.params_len, NULL, 0, 0), -EBUSY,
		  "job B: an init after the run's first push");
	check(tensor_is(b1, 1, NULL, NA) && tensor_is(b1, 2, NULL, NB),
	      "job B: parameters still zero");
	free(buf);
	rw_ctx_close(b1);
	rw_ctx_close(b0);
	if (obs)
		rw_ctx_close(obs);
	rw_ctx_close(r1);
	rw_ctx_close(r0);
	return failures ? 1 : 0;
}

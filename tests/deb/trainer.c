// SPDX-License-Identifier: GPL-2.0
/*
 * A trainer built only from what the packages install: <rackweave.h> from
 * librackweave-dev, linked through `pkg-config rackweave`, run against the
 * module DKMS built. One worker of job @job trains one tensor of 4096
 * floats for @iters iterations of plain SGD with a gradient of 1: the
 * parameters must then be exactly -lr * iters everywhere.
 *
 *   trainer JOB TOKEN_FILE ITERS LR
 */
#include <stdio.h>
#include <stdlib.h>
#include <rackweave.h>

#define RW_T_NELEMS 4096

static int rw_t_fail(const char *what, int err)
{
	fprintf(stderr, "trainer: %s: %s\n", what, rw_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct rw_tensor_desc t = { .key = 7, .nelems = RW_T_NELEMS,
				    .dtype = RW_DTYPE_F32 };
	uint8_t token[RW_JOB_TOKEN_LEN];
	struct rw_version_info vi = { 0 };
	struct rw_tensor_view v;
	struct rw_ctx *ctx = NULL;
	float want, *g;
	const float *p;
	int err, i, it, iters;

	if (argc != 5) {
		fprintf(stderr, "usage: trainer JOB TOKEN_FILE ITERS LR\n");
		return 2;
	}
	iters = atoi(argv[3]);
	want = -strtof(argv[4], NULL) * (float)iters;
	err = rw_ctx_open(&ctx, NULL);
	if (err)
		return rw_t_fail("open", err);
	if ((err = rw_ctx_version(ctx, &vi)) ||
	    (err = rw_token_read(argv[2], token)) ||
	    (err = rw_attach(ctx, argv[1], token, 0, 0)) ||
	    (err = rw_declare(ctx, &t, 1, 0)) || (err = rw_map(ctx)) ||
	    (err = rw_tensor(ctx, t.key, &v))) {
		rw_ctx_close(ctx);
		return rw_t_fail("set-up", err);
	}
	g = v.grad;
	p = v.params;
	for (it = 0; it < iters; it++) {
		for (i = 0; i < RW_T_NELEMS; i++)
			g[i] = 1.0f;
		err = rw_pushpull(ctx, NULL, 0, 0);
		if (err) {
			rw_ctx_close(ctx);
			return rw_t_fail("pushpull", err);
		}
	}
	for (i = 0; i < RW_T_NELEMS; i++)
		if (p[i] != want)
			break;
	printf("trainer: module %u.%u.%u, %d iterations, p[0] %g, want %g%s\n",
	       vi.version >> 16, (vi.version >> 8) & 0xff, vi.version & 0xff,
	       iters, (double)p[0], (double)want,
	       i == RW_T_NELEMS ? "" : " (MISMATCH)");
	rw_ctx_close(ctx);
	return i == RW_T_NELEMS ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * softmax-ref: what W softmax-trainer workers and a RackWeave box must
 * produce, computed in one process without the box.
 *
 *   softmax-ref --workers W --data FILE [--epochs N] [--batch B] [--lr F]
 *               [--chunk-size CS] [--impl NAME] [--optim NAME]
 *               [--momentum F] [--weight-decay F] [--leave RANK:STEP]
 *               [--init-seed N] [--dtype TYPE] [--out FILE] [--quiet]
 *
 * Per step, each of the W shard gradients is computed by the trainer's own
 * code (examples/softmax.c) from the same parameters, into its own flat
 * gradient buffer laid out as the module lays out the job (weights at 0,
 * bias at the next 64-byte boundary, the gap zero). Then, chunk by chunk,
 * the module's aggregation code, built natively from kmod/agg, sums the W
 * slots in rank order and applies the optimizer, exactly as the chunk
 * engine does (kmod/engine/path.c, rw_engine_step): step t = the chunk's
 * version + 1, the whole chunk including padding, FPU slices as
 * kmod/agg/agg.c cuts them. Under BSP with the same optimizer, learning
 * rate, chunk size and implementation (rwctl status names the box's), the
 * final parameters are bit-identical to the trainers' --out file.
 *
 * --leave RANK:STEP replays elastic BSP: rank RANK contributes to steps
 * 0..STEP-1 only (a trainer run with --leave-after STEP), and from STEP on
 * each chunk sums the other ranks' gradients in rank order, scaled by
 * 1/(W - 1), as the engine does once a member has left.
 *
 * --dtype bf16, f16 or mixed (W bf16, b f32) replays a trainer run with
 * --dtype (examples/softmax-buf.h): the trainers compute on the published
 * 16-bit parameters widened and push their gradients rounded to nearest
 * even; the box keeps an f32 master and state per chunk (kmod/engine/
 * half.c), steps it in the layout's runs (rw_layout_run(), linked from
 * kmod/chunk/layout.c) with the 16-bit kernels and publishes it rounded.
 *
 * --init-seed N starts from softmax_params_init(N) instead of zeros, as
 * trainers run with --init-seed N do (rank 0 sets them with
 * rw_params_init); it prints "initial loss X" first.
 *
 * Output: "epoch N loss X" after each epoch (as the trainer's rank 0) and,
 * with --out, the raw float32 parameters: W[10][64] then b[10].
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg_impl.h"
#include "agg_half.h"
#include "chunk/layout.h"
#include "softmax.h"

/* The module's chunk size limits (kmod/chunk/layout.h). */
#define REF_CHUNK_MIN		4096U
#define REF_CHUNK_MAX		(1U << 20)
#define REF_CHUNK_DEFAULT	32768U

/* kmod/agg/agg.c: FPU sections of about this much traffic, aligned. */
#define REF_FPU_BUDGET		(1U << 20)
#define REF_SLICE_ALIGN		1024U

struct ref_opts {
	const char *data;
	const char *out;
	const char *impl;
	uint32_t workers;
	uint32_t epochs;
	uint32_t batch;
	uint32_t chunk_size;
	uint32_t leave_rank;		/* UINT32_MAX: nobody leaves */
	uint64_t leave_step;
	uint32_t init_seed;
	bool init;
	uint32_t dtype[2];		/* W's and b's RW_DTYPE_* */
	struct rw_agg_hparams hp;
	bool quiet;
};

/*
 * The flat buffers of one job: published parameters, the f32 master
 * (the parameters themselves for an f32 model; else twice the chunk per
 * chunk, kmod/chunk/layout.h), W gradient slots, state (as the master),
 * and the model as the trainers see it in floats.
 */
struct ref_job {
	struct rw_layout_tensor t[2];
	u64 off[2];
	u32 by_key[2];
	struct rw_layout l;
	bool half;
	uint64_t total;			/* model bytes */
	uint32_t chunk_size;
	uint32_t nr_chunks;
	uint8_t *params;
	float *master;
	uint8_t **grad;			/* [workers] */
	float *state[2];
	float *w, *b;			/* the published W and b as floats */
	float *gw, *gb;			/* a trainer's gradient in floats */
	uint64_t *version;		/* [nr_chunks] */
};

static const char ref_usage[] =
"usage: softmax-ref --workers W --data FILE [--epochs N] [--batch B] [--lr F]\n"
"                   [--chunk-size CS] [--impl NAME] [--optim NAME]\n"
"                   [--momentum F] [--weight-decay F] [--leave RANK:STEP]\n"
"                   [--init-seed N] [--dtype TYPE] [--out FILE] [--quiet]\n"
"\n"
"  defaults: --epochs 10 --batch 64 --lr 0.01 --chunk-size 32768\n"
"            --impl scalar --optim sgd --momentum 0.9 --weight-decay 0\n"
"  --impl    scalar, avx2 or avx512: what `rwctl status` reports for the box\n"
"  --leave   rank RANK's gradients are summed in steps below STEP only\n"
"  --dtype   f32 (default), bf16, f16 or mixed (W bf16, b f32), as the trainers'\n";

/* softmax-trainer --dtype's names (examples/softmax-buf.c). */
static int ref_dtype(const char *s, uint32_t dt[2])
{
	static const char *const names[] = { "f32", "bf16", "f16", "mixed" };
	static const uint32_t w[] = { RW_DTYPE_F32, RW_DTYPE_BF16,
				      RW_DTYPE_F16, RW_DTYPE_BF16 };
	static const uint32_t b[] = { RW_DTYPE_F32, RW_DTYPE_BF16,
				      RW_DTYPE_F16, RW_DTYPE_F32 };
	uint32_t i;

	for (i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			dt[0] = w[i];
			dt[1] = b[i];
			return 0;
		}
	}
	fprintf(stderr, "softmax-ref: --dtype: f32, bf16, f16 or mixed\n");
	return -EINVAL;
}

static int ref_u32(const char *s, const char *what, uint32_t min, uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > UINT32_MAX || v < min) {
		fprintf(stderr, "softmax-ref: %s: bad number '%s'\n", what, s);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* strtof, as rwctl parses the job's hyper-parameters. */
static int ref_f32(const char *s, const char *what, float *out)
{
	char *end;

	errno = 0;
	*out = strtof(s, &end);
	if (errno || end == s || *end) {
		fprintf(stderr, "softmax-ref: %s: bad number '%s'\n", what, s);
		return -EINVAL;
	}
	return 0;
}

static int ref_optim(const char *s, uint32_t *optim)
{
	static const char *const names[] = {
		[RW_AGG_SGD] = "sgd",
		[RW_AGG_MOMENTUM] = "momentum",
		[RW_AGG_NESTEROV] = "nesterov",
		[RW_AGG_ADAM] = "adam",
		[RW_AGG_AVERAGE] = "average",
	};
	uint32_t i;

	for (i = 0; i < RW_AGG_OPTIM_COUNT; i++) {
		if (!strcmp(s, names[i])) {
			*optim = i;
			return 0;
		}
	}
	fprintf(stderr, "softmax-ref: --optim: sgd, momentum, nesterov, adam or average\n");
	return -EINVAL;
}

/* RANK:STEP */
static int ref_leave(const char *s, struct ref_opts *o)
{
	unsigned long long r, t;
	char *end;

	errno = 0;
	r = strtoull(s, &end, 10);
	if (errno || end == s || *end != ':' || *s == '-' || r > UINT32_MAX)
		goto bad;
	s = end + 1;
	t = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		goto bad;
	o->leave_rank = (uint32_t)r;
	o->leave_step = t;
	return 0;
bad:
	fprintf(stderr, "softmax-ref: --leave: RANK:STEP, two numbers\n");
	return -EINVAL;
}

static int ref_parse(int argc, char **argv, struct ref_opts *o)
{
	static const struct option longopts[] = {
		{ "workers", required_argument, NULL, 'w' },
		{ "data", required_argument, NULL, 'd' },
		{ "epochs", required_argument, NULL, 'e' },
		{ "batch", required_argument, NULL, 'b' },
		{ "lr", required_argument, NULL, 'l' },
		{ "chunk-size", required_argument, NULL, 'c' },
		{ "impl", required_argument, NULL, 'i' },
		{ "optim", required_argument, NULL, 'O' },
		{ "momentum", required_argument, NULL, 'm' },
		{ "weight-decay", required_argument, NULL, 'W' },
		{ "out", required_argument, NULL, 'o' },
		{ "leave", required_argument, NULL, 'L' },
		{ "init-seed", required_argument, NULL, 'I' },
		{ "dtype", required_argument, NULL, 'Y' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err = 0;

	/* The module's defaults (uapi RW_CMD_JOB_NEW). */
	*o = (struct ref_opts){
		.epochs = 10, .batch = 64, .chunk_size = REF_CHUNK_DEFAULT,
		.impl = "scalar", .leave_rank = UINT32_MAX,
		.hp = { .optim = RW_AGG_SGD, .lr = 0.01f, .momentum = 0.9f,
			.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f },
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'w': err = ref_u32(optarg, "--workers", 1, &o->workers); break;
		case 'd': o->data = optarg; break;
		case 'e': err = ref_u32(optarg, "--epochs", 1, &o->epochs); break;
		case 'b': err = ref_u32(optarg, "--batch", 1, &o->batch); break;
		case 'l': err = ref_f32(optarg, "--lr", &o->hp.lr); break;
		case 'c': err = ref_u32(optarg, "--chunk-size", 1, &o->chunk_size); break;
		case 'i': o->impl = optarg; break;
		case 'O': err = ref_optim(optarg, &o->hp.optim); break;
		case 'm': err = ref_f32(optarg, "--momentum", &o->hp.momentum); break;
		case 'W': err = ref_f32(optarg, "--weight-decay", &o->hp.weight_decay); break;
		case 'o': o->out = optarg; break;
		case 'L': err = ref_leave(optarg, o); break;
		case 'I':
			err = ref_u32(optarg, "--init-seed", 0, &o->init_seed);
			o->init = true;
			break;
		case 'Y': err = ref_dtype(optarg, o->dtype); break;
		case 'q': o->quiet = true; break;
		case 'h':
			fputs(ref_usage, stdout);
			exit(0);
		default:
			err = -EINVAL;
		}
		if (err)
			return err;
	}
	if (optind != argc || !o->workers || !o->data) {
		fputs(ref_usage, stderr);
		return -EINVAL;
	}
	if (o->leave_rank != UINT32_MAX &&
	    (o->leave_rank >= o->workers || o->workers < 2)) {
		fprintf(stderr, "softmax-ref: --leave: a rank below --workers, "
			"and one must stay\n");
		return -EINVAL;
	}
	if (o->workers > RW_AGG_MAX_SRCS) {
		fprintf(stderr, "softmax-ref: at most %u workers\n", RW_AGG_MAX_SRCS);
		return -EINVAL;
	}
	if (o->chunk_size < REF_CHUNK_MIN || o->chunk_size > REF_CHUNK_MAX ||
	    (o->chunk_size & (o->chunk_size - 1))) {
		fprintf(stderr, "softmax-ref: --chunk-size: a power of two, "
			"%u..%u\n", REF_CHUNK_MIN, REF_CHUNK_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Zeroed, page-aligned as the module's arenas are. */
static float *ref_alloc(size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, bytes))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

static void ref_job_free(struct ref_job *j, uint32_t workers)
{
	uint32_t k;

	if (j->grad)
		for (k = 0; k < workers; k++)
			free(j->grad[k]);
	free(j->grad);
	free(j->params);
	if (j->half)
		free(j->master);
	free(j->state[0]);
	free(j->state[1]);
	free(j->version);
	free(j->w);
	free(j->b);
	free(j->gw);
	free(j->gb);
}

static int ref_job_init(struct ref_job *j, const struct ref_opts *o)
{
	size_t bytes, mbytes;
	uint32_t k;
	int err;

	memset(j, 0, sizeof(*j));
	j->t[0] = (struct rw_layout_tensor){ SOFTMAX_KEY_W, SOFTMAX_NW,
					     o->dtype[0], 0 };
	j->t[1] = (struct rw_layout_tensor){ SOFTMAX_KEY_B, SOFTMAX_NB,
					     o->dtype[1], 0 };
	/* The module's layout rule, from its own source. */
	err = rw_layout_init(&j->l, j->t, 2, o->chunk_size, j->off, j->by_key);
	if (err)
		return err;
	j->half = rw_layout_half(&j->l);
	j->total = j->l.geom.total_bytes;
	j->chunk_size = o->chunk_size;
	j->nr_chunks = j->l.geom.nr_chunks;
	bytes = (size_t)j->nr_chunks * o->chunk_size;
	mbytes = (size_t)j->nr_chunks * rw_layout_image_chunk(&j->l);

	j->params = (uint8_t *)ref_alloc(bytes);
	j->master = j->half ? ref_alloc(mbytes) : (float *)j->params;
	j->state[0] = ref_alloc(mbytes);
	j->state[1] = ref_alloc(mbytes);
	j->grad = calloc(o->workers, sizeof(*j->grad));
	j->version = calloc(j->nr_chunks, sizeof(*j->version));
	j->w = ref_alloc(SOFTMAX_NW * sizeof(float));
	j->b = ref_alloc(SOFTMAX_NB * sizeof(float));
	j->gw = ref_alloc(SOFTMAX_NW * sizeof(float));
	j->gb = ref_alloc(SOFTMAX_NB * sizeof(float));
	if (!j->params || !j->master || !j->state[0] || !j->state[1] ||
	    !j->grad || !j->version || !j->w || !j->b || !j->gw || !j->gb)
		return -ENOMEM;
	for (k = 0; k < o->workers; k++) {
		j->grad[k] = (uint8_t *)ref_alloc(bytes);
		if (!j->grad[k])
			return -ENOMEM;
	}
	return 0;
}

/* @n floats to a tensor of @dtype at @to, and back (agg_half.h). */
static void ref_narrow(void *to, const float *from, size_t n, uint32_t dtype)
{
	if (dtype == RW_DTYPE_F32)
		memcpy(to, from, n * sizeof(float));
	else
		rw_half_narrow(to, from, n, dtype == RW_DTYPE_BF16);
}

static void ref_widen(float *to, const void *from, size_t n, uint32_t dtype)
{
	if (dtype == RW_DTYPE_F32)
		memcpy(to, from, n * sizeof(float));
	else
		rw_half_widen(to, from, n, dtype == RW_DTYPE_BF16);
}

/* The published W and b as the trainers read them (softmax_buf_params). */
static void ref_view(struct ref_job *j)
{
	ref_widen(j->w, j->params + j->off[0], SOFTMAX_NW, j->t[0].dtype);
	ref_widen(j->b, j->params + j->off[1], SOFTMAX_NB, j->t[1].dtype);
}

/* Rank @k's gradient into its slots, as softmax_buf_grad writes it. */
static void ref_grad(struct ref_job *j, const struct softmax_data *d,
		     uint32_t first, uint32_t n, uint32_t k)
{
	softmax_grad(j->w, j->b, d, first, n, j->gw, j->gb);
	ref_narrow(j->grad[k] + j->off[0], j->gw, SOFTMAX_NW, j->t[0].dtype);
	ref_narrow(j->grad[k] + j->off[1], j->gb, SOFTMAX_NB, j->t[1].dtype);
}

/* Initial parameters: published in the tensors' types, the master widened. */
static void ref_params_set(struct ref_job *j, const float *w, const float *b)
{
	uint32_t c, t, first, count;
	struct rw_layout_run run;

	ref_narrow(j->params + j->off[0], w, SOFTMAX_NW, j->t[0].dtype);
	ref_narrow(j->params + j->off[1], b, SOFTMAX_NB, j->t[1].dtype);
	for (c = 0; j->half && c < j->nr_chunks; c++) {
		uint8_t *pc = j->params + (size_t)c * j->chunk_size;
		float *mc = j->master + (size_t)c * 2 * j->chunk_size / 4;

		if (rw_layout_chunk_tensors(&j->l, c, &first, &count))
			continue;
		for (t = first; t < first + count &&
		     !rw_layout_run(&j->l, c, &t, first + count, &run);)
			ref_widen(mc + run.off / 2, pc + run.off,
				  (run.end - run.off) /
				  rw_dtype_size(run.dtype), run.dtype);
	}
}

/* kmod/agg/agg.c's rw_agg_slice for an update (6 non-slot arrays). */
static unsigned int ref_slice(unsigned int nsrc)
{
	unsigned int slice = REF_FPU_BUDGET / ((nsrc + 6) * sizeof(float));

	slice &= ~(REF_SLICE_ALIGN - 1);
	return slice > REF_SLICE_ALIGN ? slice : REF_SLICE_ALIGN;
}

/* kmod/agg/agg.c's rw_agg_update_chunk: in FPU slices. */
static int ref_update(const struct rw_agg_impl *impl,
		      const struct rw_agg_chunk *chunk,
		      const struct rw_agg_step *st)
{
	unsigned int done, slice = ref_slice(chunk->nsrc);
	struct rw_agg_chunk part = *chunk;
	int err;

	for (done = 0; done < chunk->n; done += part.n) {
		part.off = chunk->off + done;
		part.n = chunk->n - done < slice ? chunk->n - done : slice;
		err = rw_agg_update(impl, &part, st);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A model with a 16-bit tensor, as kmod/engine/half.c steps it: run by
 * run of the chunk, the master and state at twice the run's offsets, each
 * run published once stepped.
 */
static int ref_step_half(struct ref_job *j, const struct rw_agg_impl *impl,
			 uint32_t c, const void **src, uint32_t n,
			 const struct rw_agg_step *st)
{
	uint8_t *pc = j->params + (size_t)c * j->chunk_size;
	size_t mbase = (size_t)c * 2 * j->chunk_size / 4;
	const void *seg[RW_AGG_MAX_SRCS];
	uint32_t first, count, t, k;
	struct rw_layout_run run;
	int err;

	err = rw_layout_chunk_tensors(&j->l, c, &first, &count);
	for (t = first; !err && t < first + count;) {
		struct rw_agg_chunk chunk = { .src = seg, .nsrc = n };

		err = rw_layout_run(&j->l, c, &t, first + count, &run);
		if (err)
			break;
		for (k = 0; k < n; k++)
			seg[k] = (const uint8_t *)src[k] + run.off;
		chunk.dtype = run.dtype;
		chunk.n = (run.end - run.off) / rw_dtype_size(run.dtype);
		chunk.out = j->master + mbase + run.off / 2;
		chunk.state[0] = j->state[0] + mbase + run.off / 2;
		chunk.state[1] = j->state[1] + mbase + run.off / 2;
		err = ref_update(impl, &chunk, st);
		if (!err)
			ref_narrow(pc + run.off, chunk.out, chunk.n, run.dtype);
	}
	return err;
}

/* One optimizer step on chunk @c, as the engine's rw_engine_step. */
static int ref_step_chunk(struct ref_job *j, const struct ref_opts *o,
			  const struct rw_agg_impl *impl, uint32_t c,
			  const void **src, uint32_t skip)
{
	uint64_t off = (uint64_t)c * j->chunk_size;
	uint64_t end = off + j->chunk_size < j->total ? off + j->chunk_size : j->total;
	size_t base = off / sizeof(float);
	struct rw_agg_chunk chunk;
	struct rw_agg_step st;
	uint32_t k, n = 0;
	int err;

	/* The members of the step, in rank order: all but @skip. */
	for (k = 0; k < o->workers; k++)
		if (k != skip)
			src[n++] = j->grad[k] + off;
	err = rw_agg_prepare(&st, &o->hp, n, j->version[c] + 1);
	if (err)
		return err;
	if (j->half) {
		err = ref_step_half(j, impl, c, src, n, &st);
	} else {
		memset(&chunk, 0, sizeof(chunk));
		chunk.src = src;
		chunk.nsrc = n;
		chunk.n = (unsigned int)((end - off) / sizeof(float));
		chunk.dtype = RW_AGG_F32;
		chunk.out = j->master + base;
		chunk.state[0] = j->state[0] + base;
		chunk.state[1] = j->state[1] + base;
		err = ref_update(impl, &chunk, &st);
	}
	if (err)
		return err;
	j->version[c]++;
	return 0;
}

static int ref_run(const struct ref_opts *o, const struct softmax_data *data,
		   const struct rw_agg_impl *impl)
{
	const void *src[RW_AGG_MAX_SRCS];
	struct softmax_plan plan;
	struct ref_job j;
	uint64_t step, total;
	float *w, *b;
	uint32_t k, c;
	int err;

	err = softmax_plan_init(&plan, data->n, o->batch, o->workers);
	if (err) {
		fprintf(stderr, "softmax-ref: --batch %" PRIu32 " must be a "
			"multiple of --workers and at most %" PRIu32 "\n",
			o->batch, data->n);
		return err;
	}
	err = ref_job_init(&j, o);
	if (err) {
		fprintf(stderr, "softmax-ref: out of memory\n");
		goto out;
	}
	w = j.w;
	b = j.b;
	total = (uint64_t)o->epochs * plan.steps_per_epoch;
	if (o->init) {
		softmax_params_init(w, b, o->init_seed);
		if (!o->quiet)
			printf("initial loss %.6f\n",
			       softmax_loss(w, b, data, 0, data->n));
		ref_params_set(&j, w, b);
	}

	for (step = 0;; step++) {
		ref_view(&j);
		if (step && step % plan.steps_per_epoch == 0 && !o->quiet)
			printf("epoch %" PRIu64 " loss %.6f\n",
			       step / plan.steps_per_epoch,
			       softmax_loss(w, b, data, 0, data->n));
		if (step == total)
			break;
		for (k = 0; k < o->workers; k++)
			ref_grad(&j, data, softmax_shard_first(&plan, step, k),
				 plan.shard, k);
		for (c = 0; c < j.nr_chunks; c++) {
			err = ref_step_chunk(&j, o, impl, c, src,
					     step >= o->leave_step ?
					     o->leave_rank : UINT32_MAX);
			if (err) {
				fprintf(stderr, "softmax-ref: optimizer step: %s\n",
					strerror(-err));
				goto out;
			}
		}
	}
	if (o->out) {
		err = softmax_params_write(o->out, w, b);
		if (err)
			fprintf(stderr, "softmax-ref: %s: %s\n", o->out,
				strerror(-err));
	}
out:
	ref_job_free(&j, o->workers);
	return err;
}

int main(int argc, char **argv)
{
	const struct rw_agg_impl *impl;
	struct softmax_data data;
	struct rw_agg_step st;
	struct ref_opts o;
	const char *why;
	int err;

	if (ref_parse(argc, argv, &o))
		return 2;
	impl = rw_agg_impl_find(o.impl);
	if (!impl) {
		fprintf(stderr, "softmax-ref: --impl: no implementation '%s'\n",
			o.impl);
		return 2;
	}
	if (!impl->usable()) {
		fprintf(stderr, "softmax-ref: this CPU cannot run '%s'\n", o.impl);
		return 1;
	}
	if (rw_agg_prepare(&st, &o.hp, o.workers, 1)) {
		fprintf(stderr, "softmax-ref: optimizer settings out of range\n");
		return 2;
	}
	err = softmax_data_load(o.data, &data, &why);
	if (err) {
		fprintf(stderr, "softmax-ref: %s: %s\n", o.data,
			why ? why : strerror(-err));
		return 1;
	}
	err = ref_run(&o, &data, impl);
	softmax_data_free(&data);
	return err ? 1 : 0;
}

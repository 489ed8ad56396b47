// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * softmax-trainer: one data-parallel worker of a RackWeave job that trains
 * softmax regression on the 8x8 digits (examples/softmax.h).
 *
 *   softmax-trainer --job NAME --token-file PATH --rank R --workers W
 *                   --data FILE [--epochs N] [--batch B] [--out FILE]
 *                   [--timeout MS] [--device PATH] [--box ADDR[:PORT]]
 *                   [--slow FACTOR] [--stall P:MS] [--leave-after N]
 *                   [--follow] [--join] [--init-seed N]
 *                   [--restore FILE] [--checkpoint-at N:FILE] [--wait-params]
 *                   [--save-at N:FILE] [--dtype TYPE] [--async] [--quiet]
 *                   [--verbose]
 *
 * Start W of them (ranks 0..W-1) against a job created with as many
 * workers; see examples/README.md. Each step a worker pulls every chunk,
 * reads the parameters straight from the mapped parameter buffer, computes
 * the mean gradient of its shard of the global batch straight into the
 * mapped gradient buffer, and pushes every chunk. The box sums the W
 * gradients in rank order, scales by 1/W and applies the job's optimizer
 * (under a BSP quorum K, the first K gradients to arrive, scaled by 1/K).
 * With --async the push and the next pull go through rw_pushpull_start()
 * and rw_wait(), the way an event-driven trainer would; the result is the
 * same. With --box the job runs on another host's box: this host's module
 * connects to it over RDMA (rw_attach_remote) and the rest is unchanged.
 * With --dtype bf16, f16 or mixed the model's tensors are 16-bit ones
 * (examples/softmax-buf.h): the model computes in float, its gradients
 * rounded into the buffer and its parameters widened out of it.
 *
 * A straggler on purpose, for tests and demonstrations of what the job's
 * policy does with one (a BSP quorum below W drops its late gradients,
 * SSP bounds park the others, evict-ms evicts it):
 *   --slow FACTOR  each step takes FACTOR times its compute time: after
 *                  computing the gradient the worker sleeps FACTOR - 1
 *                  times what that computation took, then pushes. FACTOR
 *                  is a number from 1 (full speed) to 1000.
 *   --stall-at N:MS  once, before the push of step N, sleep MS ms.
 *   --stall P:MS   before the push of each step, with probability P (0 to
 *                  1), sleep MS milliseconds (up to 3600000). The draws
 *                  come from a generator seeded with the rank alone, so a
 *                  rank stalls at the same steps in every run.
 * Both only add sleeps: the gradients, and under a BSP job that waits for
 * every worker the parameters, are the same bits as without them.
 *
 * --init-seed N: the run starts from parameters drawn from seed N
 * (softmax_params_init) instead of zeros: rank 0 sets them with
 * rw_params_init(), the other ranks wait for them with rw_params_wait(),
 * and every rank checks that its first pull returned exactly them.
 *
 * Checkpoints (rw_checkpoint_save(3), rw_checkpoint_restore(3)):
 *   --checkpoint-at N:FILE  at step N rank 0 starts saving the job's state
 *                    to FILE from a thread of its own, attached as an
 *                    observer (with --box, a remote one: rw_attach_remote_
 *                    flags(3)), while every worker, itself included, goes
 *                    on training: the module holds them at the next
 *                    iteration boundary for the copy. It says "rank 0:
 *                    checkpoint of step S to FILE", S being that boundary
 *                    (N or later: the first the save reaches). N >= 1.
 *   --save-at N:FILE the same from rank 0 itself, between its push of
 *                    step N and its pull (rw_checkpoint_save(3) from a
 *                    trainer): under BSP the state at that boundary, here
 *                    or on another box (whose box takes back the
 *                    iterations it admitted ahead).
 *   --wait-params    every rank waits (rw_params_wait()) until another
 *                    tool, such as `rwctl job restore`, has loaded the
 *                    run's state, then numbers its steps from the job's
 *                    (--follow).
 *   --restore FILE   a new run of the job (same layout, optimizer and
 *                    hyper-parameters) continues from FILE: rank 0 restores
 *                    it before its first pull ("rank 0: restored step S
 *                    from FILE"), the others wait for it with
 *                    rw_params_wait(), and everyone numbers its steps from
 *                    the versions buffer (--follow; each says "rank R:
 *                    continuing at step S"), so the run goes on
 *                    with the batches it would have had. Under BSP the
 *                    final parameters equal those of a run never stopped,
 *                    bit for bit.
 *
 * Elastic BSP (a job's members come and go):
 *   --leave-after N  detach cleanly after N steps (the others go on).
 *   --follow         take each step's number from the job: the steps
 *                    the box has applied (the versions buffer). A worker
 *                    whose late gradient was dropped under a quorum, or
 *                    one that joined mid-run, goes on from the job's step
 *                    and stops when the job reaches the last one.
 *   --join           a worker replacing one that left mid-run: --follow,
 *                    and it says at which step it joined.
 *
 * Exit status: 0 done, 1 error, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#include <rackweave.h>

#include "softmax.h"
#include "softmax-buf.h"

struct trainer_opts {
	const char *job;
	const char *token_file;
	const char *data;
	const char *out;
	const char *device;
	const char *box;
	bool boxes;			/* --boxes: one address per box */
	uint32_t rank;
	uint32_t workers;
	uint32_t epochs;
	uint32_t batch;
	uint32_t timeout_ms;
	double slow;			/* >= 1; 1: no slow-down */
	bool stall;			/* --stall given */
	double stall_p;			/* 0..1 */
	uint32_t stall_ms;
	uint64_t stall_at;		/* --stall-at N:MS: once, before step N */
	uint32_t stall_at_ms;		/*   (0: none) */
	uint32_t leave_after;		/* 0: never */
	uint32_t init_seed;
	bool init;			/* --init-seed given */
	const char *restore;		/* --restore FILE */
	bool wait_params;		/* --wait-params */
	uint64_t ckpt_at;		/* --checkpoint-at N:FILE; 0: none */
	const char *ckpt_file;
	bool ckpt_self;			/* ... given as --save-at N:FILE */
	bool follow;
	bool join;
	bool async;
	bool quiet;
	bool verbose;
	uint32_t dtype[2];		/* --dtype: W's and b's RW_DTYPE_* */
};

static const char trainer_usage[] =
"usage: softmax-trainer --job NAME --token-file PATH --rank R --workers W\n"
"                       --data FILE [--epochs N] [--batch B] [--out FILE]\n"
"                       [--timeout MS] [--device PATH] [--box ADDR[:PORT]]\n"
"                       [--slow FACTOR] [--stall P:MS] [--leave-after N]\n"
"                       [--stall-at N:MS]\n"
"                       [--follow] [--join] [--init-seed N]\n"
"                       [--restore FILE] [--checkpoint-at N:FILE] [--wait-params]\n"
"                       [--save-at N:FILE] [--dtype TYPE]\n"
"                       [--async] [--quiet] [--verbose]\n"
"\n"
"  --job NAME          the RackWeave job (rwctl job add NAME workers W ...)\n"
"  --token-file PATH   its token: 32 raw bytes or 64 hex digits\n"
"  --rank R            this worker, 0..W-1\n"
"  --workers W         the job's worker count (checked against the job)\n"
"  --data FILE         samples written by examples/digits-export.py\n"
"  --epochs N          passes over the data (default 10)\n"
"  --batch B           global batch, a multiple of W (default 64)\n"
"  --out FILE          write the final parameters: float32 W[10][64], b[10]\n"
"  --timeout MS        give up on a push or pull after MS ms (default: never)\n"
"  --device PATH       the RackWeave device (default " RW_DEV_PATH ")\n"
"  --box ADDR[:PORT]   the job runs on the box listening there (another\n"
"                      host): attach over RDMA through this host's module;\n"
"                      ADDR[:PORT],ADDR[:PORT]...: one per NIC of the box\n"
"  --boxes ADDR[:PORT],...  the job is spread over several boxes: one address\n"
"                      per box, every box of the job's set (RW_ATTACH_BOXES)\n"
"  --slow FACTOR       straggle: each step takes FACTOR (1 to 1000) times its\n"
"                      compute time, sleeping FACTOR - 1 times it before the push\n"
"  --stall P:MS        straggle: before a step's push, with probability P (0 to\n"
"                      1), sleep MS ms (up to 3600000); the draws are seeded\n"
"                      with the rank, so a run repeats the same stalls\n"
"  --stall-at N:MS     once: sleep MS ms before the push of step N\n"
"  --leave-after N     detach after N steps; the job goes on without this rank\n"
"  --follow            number each step by the steps the box has applied (BSP:\n"
"                      for backup workers and mid-run joins); stop at the last\n"
"  --join              --follow, for a worker taking over a rank mid-run\n"
"  --init-seed N       start from parameters drawn from seed N: rank 0 sets\n"
"                      them (rw_params_init), the others wait for them\n"
"  --wait-params       every rank waits until another tool (rwctl job restore)\n"
"                      has loaded the run's state (implies --follow)\n"
"  --restore FILE      continue a checkpoint in a new run of the job: rank 0\n"
"                      restores it before the first pull, the others wait;\n"
"                      steps are numbered by the job's (implies --follow)\n"
"  --checkpoint-at N:FILE\n"
"                      at step N (>= 1) rank 0 saves the job's state to FILE\n"
"                      from an observer thread while everyone trains on\n"
"                      (the state at the next iteration boundary)\n"
"  --save-at N:FILE    rank 0 itself saves the job's state to FILE between\n"
"                      its push of step N (>= 1) and its pull (BSP: at that\n"
"                      boundary; under other rules EBUSY if an iteration in\n"
"                      flight needs rank 0: use --checkpoint-at there)\n"
"  --dtype TYPE        the model's tensors: f32 (default), bf16, f16, or mixed\n"
"                      (weights bf16, bias f32); every rank the same\n"
"  --async             push and pull with rw_pushpull_start and rw_wait\n"
"  --quiet             print nothing but errors\n"
"  --verbose           other ranks print their losses too (\"rank R: epoch ...\")\n";

static uint32_t trainer_rank_for_msgs;

static void __attribute__((format(printf, 2, 3)))
trainer_err(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "softmax-trainer: rank %" PRIu32 ": ",
		trainer_rank_for_msgs);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", rw_strerror(err));
	fputc('\n', stderr);
}

static int trainer_u32(const char *s, const char *what, uint32_t min,
		       uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > UINT32_MAX || v < min) {
		fprintf(stderr, "softmax-trainer: %s: '%s' is not a number >= %"
			PRIu32 "\n", what, s, min);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

#define TRAINER_SLOW_MAX	1000.0
#define TRAINER_STALL_MS_MAX	3600000U

/* --slow FACTOR: a finite number from 1 to TRAINER_SLOW_MAX. */
static int trainer_slow(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 1.0 && v <= TRAINER_SLOW_MAX)) {
		fprintf(stderr, "softmax-trainer: --slow: '%s' is not a factor "
			"from 1 to %g (1: full speed, 2: each step takes twice "
			"its compute time)\n", s, TRAINER_SLOW_MAX);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* --stall P:MS: a probability 0..1, a colon, whole milliseconds. */
static int trainer_stall(const char *s, struct trainer_opts *o)
{
	unsigned long long ms;
	char *end, *ms_end;
	double p;

	errno = 0;
	p = strtod(s, &end);
	if (errno || end == s || *end != ':' || !(p >= 0.0 && p <= 1.0))
		goto bad;
	if (end[1] < '0' || end[1] > '9')
		goto bad;
	ms = strtoull(end + 1, &ms_end, 10);
	if (errno || *ms_end || ms > TRAINER_STALL_MS_MAX)
		goto bad;
	o->stall = true;
	o->stall_p = p;
	o->stall_ms = (uint32_t)ms;
	return 0;
bad:
	fprintf(stderr, "softmax-trainer: --stall: '%s' is not P:MS (P a "
		"probability from 0 to 1, MS milliseconds from 0 to %u; e.g. "
		"0.1:500)\n", s, TRAINER_STALL_MS_MAX);
	return -EINVAL;
}

/* --stall-at N:MS: a step, a colon, whole milliseconds (1 or more). */
static int trainer_stall_at(const char *s, struct trainer_opts *o)
{
	unsigned long long n, ms;
	char *end, *ms_end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || *end != ':' || end[1] < '0' ||
	    end[1] > '9')
		goto bad;
	ms = strtoull(end + 1, &ms_end, 10);
	if (errno || *ms_end || !ms || ms > TRAINER_STALL_MS_MAX)
		goto bad;
	o->stall_at = n;
	o->stall_at_ms = (uint32_t)ms;
	return 0;
bad:
	fprintf(stderr, "softmax-trainer: --stall-at: '%s' is not N:MS (a step, "
		"then 1 to %u ms; e.g. 3:20000)\n", s, TRAINER_STALL_MS_MAX);
	return -EINVAL;
}

/* --checkpoint-at, --save-at N:FILE: N >= 1 steps, a colon, a path. */
static int trainer_ckpt_at(const char *s, struct trainer_opts *o, bool self)
{
	const char *opt = self ? "--save-at" : "--checkpoint-at";
	unsigned long long n;
	char *end;

	if (o->ckpt_at) {
		fprintf(stderr, "softmax-trainer: %s: one checkpoint per run "
			"(--checkpoint-at or --save-at, once)\n", opt);
		return -EINVAL;
	}
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || *end != ':' || !end[1] || !n) {
		fprintf(stderr, "softmax-trainer: %s: '%s' is not "
			"N:FILE (N >= 1 steps, then the file; e.g. 100:run.ckpt)\n",
			opt, s);
		return -EINVAL;
	}
	o->ckpt_at = n;
	o->ckpt_file = end + 1;
	o->ckpt_self = self;
	return 0;
}

static int trainer_parse(int argc, char **argv, struct trainer_opts *o)
{
	static const struct option longopts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "token-file", required_argument, NULL, 't' },
		{ "rank", required_argument, NULL, 'r' },
		{ "workers", required_argument, NULL, 'w' },
		{ "data", required_argument, NULL, 'd' },
		{ "epochs", required_argument, NULL, 'e' },
		{ "batch", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "device", required_argument, NULL, 'D' },
		{ "box", required_argument, NULL, 'B' },
		{ "boxes", required_argument, NULL, 'X' },
		{ "slow", required_argument, NULL, 'S' },
		{ "stall", required_argument, NULL, 's' },
		{ "leave-after", required_argument, NULL, 'L' },
		{ "follow", no_argument, NULL, 'F' },
		{ "join", no_argument, NULL, 'J' },
		{ "init-seed", required_argument, NULL, 'I' },
		{ "restore", required_argument, NULL, 'R' },
		{ "wait-params", no_argument, NULL, 'P' },
		{ "checkpoint-at", required_argument, NULL, 'C' },
		{ "save-at", required_argument, NULL, 'A' },
		{ "stall-at", required_argument, NULL, 'K' },
		{ "async", no_argument, NULL, 'a' },
		{ "dtype", required_argument, NULL, 'Y' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_rank = false;
	int c, err = 0;

	*o = (struct trainer_opts){ .epochs = 10, .batch = 64, .slow = 1.0 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->job = optarg; break;
		case 't': o->token_file = optarg; break;
		case 'd': o->data = optarg; break;
		case 'o': o->out = optarg; break;
		case 'D': o->device = optarg; break;
		case 'B': o->box = optarg; break;
		case 'X': o->box = optarg; o->boxes = true; break;
		case 'a': o->async = true; break;
		case 'Y':
			err = softmax_buf_dtype(optarg, o->dtype);
			if (err)
				fprintf(stderr, "softmax-trainer: --dtype: f32, bf16, f16 or mixed, not '%s'\n",
					optarg);
			break;
		case 'F': o->follow = true; break;
		case 'J': o->join = o->follow = true; break;
		case 'I':
			err = trainer_u32(optarg, "--init-seed", 0, &o->init_seed);
			o->init = true;
			break;
		case 'R': o->restore = optarg; o->follow = true; break;
		case 'P': o->wait_params = o->follow = true; break;
		case 'C': err = trainer_ckpt_at(optarg, o, false); break;
		case 'A': err = trainer_ckpt_at(optarg, o, true); break;
		case 'K': err = trainer_stall_at(optarg, o); break;
		case 'L': err = trainer_u32(optarg, "--leave-after", 1, &o->leave_after); break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'r':
			err = trainer_u32(optarg, "--rank", 0, &o->rank);
			have_rank = true;
			break;
		case 'w': err = trainer_u32(optarg, "--workers", 1, &o->workers); break;
		case 'e': err = trainer_u32(optarg, "--epochs", 1, &o->epochs); break;
		case 'b': err = trainer_u32(optarg, "--batch", 1, &o->batch); break;
		case 'T': err = trainer_u32(optarg, "--timeout", 0, &o->timeout_ms); break;
		case 'S': err = trainer_slow(optarg, &o->slow); break;
		case 's': err = trainer_stall(optarg, o); break;
		case 'h':
			fputs(trainer_usage, stdout);
			exit(0);
		default:
			err = -EINVAL;
		}
		if (err)
			return err;
	}
	if (optind != argc || !o->job || !o->token_file || !have_rank ||
	    !o->workers || !o->data) {
		fputs(trainer_usage, stderr);
		return -EINVAL;
	}
	if (o->rank >= o->workers) {
		fprintf(stderr, "softmax-trainer: --rank %" PRIu32
			" must be below --workers %" PRIu32 "\n", o->rank,
			o->workers);
		return -EINVAL;
	}
	if (o->restore && o->init) {
		fprintf(stderr, "softmax-trainer: --restore and --init-seed "
			"exclude each other: a checkpoint sets the parameters\n");
		return -EINVAL;
	}
	if (o->ckpt_self && o->async) {
		fprintf(stderr, "softmax-trainer: --save-at saves between a push "
			"and a pull: not with --async, which does both at once\n");
		return -EINVAL;
	}
	if (o->batch % o->workers) {
		fprintf(stderr, "softmax-trainer: --batch %" PRIu32
			" must be a multiple of --workers %" PRIu32 "\n",
			o->batch, o->workers);
		return -EINVAL;
	}
	return 0;
}

/* Declare the model's tensors in --dtype's types. */
static int trainer_declare(struct rw_ctx *ctx, const struct trainer_opts *o)
{
	struct rw_tensor_desc t[2];

	softmax_buf_tensors(t, o->dtype);
	return rw_declare(ctx, t, 2, 0);
}

/* Attach, declare, map and place this thread: everything before step 0. */
static int trainer_join(struct rw_ctx *ctx, const struct trainer_opts *o,
			struct softmax_buf *m)
{
	uint8_t token[RW_JOB_TOKEN_LEN];
	struct rw_version_info info;
	struct rw_setup s;
	int err;

	err = rw_ctx_version(ctx, &info);
	if (err) {
		trainer_err(err, "cannot talk to the module");
		return err;
	}
	if (!(info.features & RW_FEAT_LOCAL_PATH)) {
		trainer_err(0, "the loaded rackweave module has no push/pull "
			    "(features 0x%llx): load a newer one",
			    (unsigned long long)info.features);
		return -EOPNOTSUPP;
	}

	err = rw_token_read(o->token_file, token);
	if (err) {
		trainer_err(err, "token file %s", o->token_file);
		return err;
	}
	if (o->box)
		err = rw_attach_remote_flags(ctx, o->job, token, o->rank, o->box,
					     o->boxes ? RW_ATTACH_BOXES : 0);
	else
		err = rw_attach(ctx, o->job, token, o->rank, 0);
	explicit_bzero(token, sizeof(token));
	if (err == -ENOENT) {
		trainer_err(0, "no job named '%s' (rwctl job add %s workers %"
			    PRIu32 " ...)", o->job, o->job, o->workers);
		return err;
	}
	if (err) {
		trainer_err(err, "cannot attach to job '%s'%s%s", o->job,
			    o->box ? " at " : "", o->box ? o->box : "");
		return err;
	}
	err = trainer_declare(ctx, o);
	if (err) {
		trainer_err(err, "cannot declare the softmax model");
		return err;
	}
	err = rw_map(ctx);
	if (err) {
		trainer_err(err, "cannot map the job's buffers");
		return err;
	}
	err = rw_setup_get(ctx, &s);
	if (err) {
		trainer_err(err, "cannot read the job's setup");
		return err;
	}
	if (s.nr_workers != o->workers) {
		trainer_err(0, "job '%s' has %" PRIu32 " workers but --workers "
			    "says %" PRIu32, o->job, s.nr_workers, o->workers);
		return -EINVAL;
	}
	err = rw_bind_numa(ctx);
	if (err && err != -ENOSYS)
		trainer_err(err, "warning: staying off the job's NUMA node");
	if (o->verbose)
		fprintf(stderr, "rank %" PRIu32 ": %" PRIu32 " chunks of %" PRIu32
			" bytes, model %llu bytes, node %d\n", o->rank,
			s.nr_chunks, s.chunk_size,
			(unsigned long long)s.model_bytes, s.node);

	err = softmax_buf_find(ctx, m);
	if (err)
		trainer_err(err, "cannot find the model's tensors");
	return err;
}

/*
 * --init-seed: rank 0 sets the run's initial parameters, the others wait
 * for them. @w and @b receive the values either way.
 */
static int trainer_params_init(struct rw_ctx *ctx, const struct trainer_opts *o,
			       const struct softmax_buf *m, float *w, float *b)
{
	struct rw_setup s;
	char *buf;
	int err;

	softmax_params_init(w, b, o->init_seed);
	if (o->rank) {
		err = rw_params_wait(ctx, o->timeout_ms);
		if (err)
			trainer_err(err, "waiting for rank 0's initial parameters");
		return err;
	}
	err = rw_setup_get(ctx, &s);
	if (err) {
		trainer_err(err, "cannot read the job's setup");
		return err;
	}
	buf = calloc(1, s.params_len);
	if (!buf) {
		trainer_err(-ENOMEM, "initial parameters");
		return -ENOMEM;
	}
	softmax_buf_put(m, buf, w, b);
	err = rw_params_init(ctx, buf, s.params_len, NULL, 0, 0);
	free(buf);
	if (err)
		trainer_err(err, "cannot set the initial parameters");
	else if (!o->quiet)
		fprintf(stderr, "rank 0: initial parameters set (seed %" PRIu32
			")\n", o->init_seed);
	return err;
}

/*
 * --restore: rank 0 loads the checkpoint into this new run before anyone
 * pushes; the others wait until it has. If rank 0 fails, its error says
 * why and the others wait out --timeout (without one, until stopped).
 */
static int trainer_restore(struct rw_ctx *ctx, const struct trainer_opts *o)
{
	struct rw_ckpt_head h;
	char why[512];
	int err;

	if (o->rank) {
		err = rw_params_wait(ctx, o->timeout_ms);
		if (err)
			trainer_err(err, "waiting for rank 0 to restore %s",
				    o->restore);
		return err;
	}
	err = rw_checkpoint_restore(ctx, o->restore, why, sizeof(why));
	if (!err)
		err = rw_checkpoint_head(o->restore, &h, NULL, why, sizeof(why));
	if (err) {
		trainer_err(0, "%s", why);
		return err;
	}
	if (!o->quiet)
		fprintf(stderr, "rank 0: restored step %" PRIu64 " from %s\n",
			(uint64_t)h.step, o->restore);
	return 0;
}

/* --checkpoint-at: the job's state to o->ckpt_file, this worker idle. */
static int trainer_checkpoint(struct rw_ctx *ctx, const struct trainer_opts *o)
{
	struct rw_ckpt_head h;
	char why[512];
	int err;

	err = rw_checkpoint_save(ctx, o->ckpt_file, o->timeout_ms, why,
				 sizeof(why));
	if (!err)
		err = rw_checkpoint_head(o->ckpt_file, &h, NULL, why,
					 sizeof(why));
	if (err) {
		trainer_err(0, "%s", why);
		return err;
	}
	if (!o->quiet)
		fprintf(stderr, "rank 0: checkpoint of step %" PRIu64 " to %s\n",
			(uint64_t)h.step, o->ckpt_file);
	return 0;
}

/*
 * The end of one step and the start of the next: push every chunk, then
 * pull every chunk, blocking or through the async calls.
 */
static int trainer_xfer(struct rw_ctx *ctx, const struct trainer_opts *o,
			bool push, uint64_t step)
{
	int err;

	if (!o->async) {
		err = push ? rw_push(ctx, NULL, 0, 0) : 0;
		if (err) {
			trainer_err(err, "push at step %" PRIu64, step);
			return err;
		}
		err = rw_pull(ctx, NULL, 0, 0);
	} else {
		err = push ? rw_pushpull_start(ctx, NULL, 0, 0) :
			     rw_pull_start(ctx, NULL, 0, 0);
		if (err == -EINPROGRESS)
			err = rw_wait(ctx, o->timeout_ms ? (int)o->timeout_ms : -1);
	}
	if (err)
		trainer_err(err, "%s at step %" PRIu64,
			    push ? "push and pull" : "pull", step);
	return err;
}

/* --save-at: push, save from this worker, then pull. */
static int trainer_save_between(struct rw_ctx *ctx,
				const struct trainer_opts *o, uint64_t step)
{
	int err = rw_push(ctx, NULL, 0, 0);

	if (err) {
		trainer_err(err, "push at step %" PRIu64, step);
		return err;
	}
	err = trainer_checkpoint(ctx, o);
	return err ? err : trainer_xfer(ctx, o, false, step);
}

/*
 * --checkpoint-at runs beside the training: an observer of the job (its
 * own file) asks for the checkpoint while this worker goes on, since the
 * module holds the workers at an iteration boundary that this worker must
 * reach too (under BSP the others' steps need its gradients).
 */
struct trainer_saver {
	const struct trainer_opts *o;
	pthread_t thread;
	bool started;
	int err;
};

static void *trainer_saver_run(void *arg)
{
	struct trainer_saver *sv = arg;
	const struct trainer_opts *o = sv->o;
	uint8_t token[RW_JOB_TOKEN_LEN];
	struct rw_ctx *ctx = NULL;
	int err;

	err = rw_token_read(o->token_file, token);
	if (!err)
		err = rw_ctx_open(&ctx, o->device);
	if (!err && o->box)
		err = rw_attach_remote_flags(ctx, o->job, token, 0, o->box,
					     RW_ATTACH_OBSERVER);
	else if (!err)
		err = rw_attach(ctx, o->job, token, 0, RW_ATTACH_OBSERVER);
	explicit_bzero(token, sizeof(token));
	/* A remote observer declares: its host's module then knows the run. */
	if (!err && o->box)
		err = trainer_declare(ctx, o);
	if (err)
		trainer_err(err, "checkpoint: cannot attach as an observer");
	else
		err = trainer_checkpoint(ctx, o);
	rw_ctx_close(ctx);
	sv->err = err;
	return NULL;
}

static int trainer_saver_start(struct trainer_saver *sv)
{
	int err = pthread_create(&sv->thread, NULL, trainer_saver_run, sv);

	if (err) {
		trainer_err(-err, "checkpoint: cannot start its thread");
		return -err;
	}
	sv->started = true;
	return 0;
}

static int trainer_saver_join(struct trainer_saver *sv)
{
	if (!sv->started)
		return 0;
	pthread_join(sv->thread, NULL);
	sv->started = false;
	return sv->err;
}

/* The straggler's state: the generator of --stall's draws. */
struct trainer_pace {
	uint64_t rng;
};

static void trainer_pace_init(struct trainer_pace *pc, uint32_t rank)
{
	/* Any fixed function of the rank: runs repeat, ranks differ. */
	pc->rng = 0x5257534c4f57ULL ^ ((uint64_t)rank * 0x9e3779b97f4a7c15ULL);
}

/* splitmix64, as a uniform double in [0, 1). */
static double trainer_pace_draw(struct trainer_pace *pc)
{
	uint64_t z = (pc->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1.0p-53;
}

static uint64_t trainer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Sleep @ns in full: signals that interrupt the sleep do not shorten it. */
static void trainer_sleep_ns(uint64_t ns)
{
	uint64_t until = trainer_now_ns() + ns;
	struct timespec ts = {
		.tv_sec = (time_t)(until / 1000000000ULL),
		.tv_nsec = (long)(until % 1000000000ULL),
	};

	if (!ns)
		return;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/*
 * --slow and --stall between computing step @step's gradient, which took
 * @compute_ns, and pushing it. One draw per step whatever P is, so the
 * stalls of a rank depend on its rank and the step only.
 */
static void trainer_pace(struct trainer_pace *pc, const struct trainer_opts *o,
			 uint64_t step, uint64_t compute_ns)
{
	uint64_t ns = 0;

	if (o->slow > 1.0)
		ns = (uint64_t)((o->slow - 1.0) * (double)compute_ns);
	if (o->stall_at_ms && step == o->stall_at) {
		ns += (uint64_t)o->stall_at_ms * 1000000ULL;
		if (o->verbose)
			fprintf(stderr, "rank %" PRIu32 ": stall %" PRIu32
				" ms before the push of step %" PRIu64 "\n",
				o->rank, o->stall_at_ms, step);
	}
	if (o->stall && trainer_pace_draw(pc) < o->stall_p) {
		ns += (uint64_t)o->stall_ms * 1000000ULL;
		if (o->verbose)
			fprintf(stderr, "rank %" PRIu32 ": stall %" PRIu32
				" ms before the push of step %" PRIu64 "\n",
				o->rank, o->stall_ms, step);
	}
	trainer_sleep_ns(ns);
}

/*
 * Pull; then steps 0 .. total-1 each compute, push and pull; the last
 * pull gives the final parameters. The loss of epoch e is reported on the
 * parameters pulled after step e * steps_per_epoch - 1, i.e. the ones the
 * epoch produced.
 */
static int trainer_run(struct rw_ctx *ctx, const struct trainer_opts *o,
		       const struct softmax_buf *m,
		       const struct softmax_data *data)
{
	static float w[SOFTMAX_NW], b[SOFTMAX_NB];
	struct softmax_plan plan;
	struct trainer_pace pace;
	struct trainer_saver saver = { .o = o };
	const volatile uint64_t *versions;
	uint64_t step = 0, total, t0;
	bool report;
	int err, ret;

	err = softmax_plan_init(&plan, data->n, o->batch, o->workers);
	if (err) {
		trainer_err(0, "--batch %" PRIu32 " does not fit %" PRIu32
			    " samples", o->batch, data->n);
		return err;
	}
	total = (uint64_t)o->epochs * plan.steps_per_epoch;
	report = !o->quiet && (o->rank == 0 || o->verbose);
	trainer_pace_init(&pace, o->rank);

	if (o->init) {
		err = trainer_params_init(ctx, o, m, w, b);
		if (err)
			return err;
	}
	if (o->restore) {
		err = trainer_restore(ctx, o);
		if (err)
			return err;
	}
	if (o->wait_params) {
		err = rw_params_wait(ctx, o->timeout_ms);
		if (err) {
			trainer_err(err, "waiting for the run's state");
			return err;
		}
	}
	err = trainer_xfer(ctx, o, false, 0);
	if (!err && o->init) {
		/* Everyone's first pull returns exactly rank 0's values. */
		if (!softmax_buf_holds(m, w, b)) {
			trainer_err(0, "the first pull did not return the "
				    "initial parameters");
			return -EIO;
		}
		if (!o->quiet)
			fprintf(stderr, "rank %" PRIu32 ": first pull returned "
				"the initial parameters, loss %.6f\n", o->rank,
				softmax_loss(w, b, data, 0, data->n));
	}
	versions = rw_versions(ctx);
	if (!err && o->follow && versions) {
		step = versions[0];
		if (o->join && !o->quiet)
			fprintf(stderr, "rank %" PRIu32 ": joining at step %"
				PRIu64 "\n", o->rank, step);
		if (o->restore && !o->quiet)
			fprintf(stderr, "rank %" PRIu32 ": continuing at step %"
				PRIu64 "\n", o->rank, step);
	}
	for (; !err; step++) {
		/*
		 * The job's step: where a worker whose gradient was dropped
		 * (late, or pushed before it joined the round) goes on.
		 */
		if (o->follow && versions)
			step = versions[0];
		if (o->leave_after && step == o->leave_after) {
			if (!o->quiet)
				fprintf(stderr, "rank %" PRIu32 ": leaving after %"
					PRIu32 " iterations\n", o->rank,
					o->leave_after);
			trainer_saver_join(&saver);
			return 0;
		}
		/*
		 * A private copy: the parameters stay put until this worker
		 * pushes under BSP, but not under the other sync modes.
		 */
		softmax_buf_params(m, w, b);

		if (step && step % plan.steps_per_epoch == 0 && report) {
			if (o->rank)
				printf("rank %" PRIu32 ": ", o->rank);
			printf("epoch %" PRIu64 " loss %.6f\n",
			       step / plan.steps_per_epoch,
			       softmax_loss(w, b, data, 0, data->n));
			fflush(stdout);
		}
		if (step >= total)
			break;

		t0 = trainer_now_ns();
		softmax_buf_grad(m, w, b, data,
				 softmax_shard_first(&plan, step, o->rank),
				 plan.shard);
		trainer_pace(&pace, o, step, trainer_now_ns() - t0);
		if (o->ckpt_at && o->rank == 0 && step == o->ckpt_at &&
		    o->ckpt_self) {
			err = trainer_save_between(ctx, o, step);
			continue;
		}
		if (o->ckpt_at && o->rank == 0 && step == o->ckpt_at &&
		    !saver.started)
			err = trainer_saver_start(&saver);
		if (!err)
			err = trainer_xfer(ctx, o, true, step);
	}
	ret = trainer_saver_join(&saver);
	if (err || ret)
		return err ? err : ret;

	if (o->verbose)
		fprintf(stderr, "rank %" PRIu32 ": accuracy %.4f on the data\n",
			o->rank, softmax_accuracy(w, b, data, 0, data->n));
	if (o->out) {
		err = softmax_params_write(o->out, w, b);
		if (err)
			trainer_err(err, "cannot write %s", o->out);
	}
	return err;
}

int main(int argc, char **argv)
{
	struct softmax_data data = { 0 };
	struct softmax_buf model;
	struct trainer_opts o;
	struct rw_ctx *ctx = NULL;
	const char *why;
	int err;

	if (trainer_parse(argc, argv, &o))
		return 2;
	trainer_rank_for_msgs = o.rank;

	err = softmax_data_load(o.data, &data, &why);
	if (err) {
		if (why)
			trainer_err(0, "%s: %s", o.data, why);
		else
			trainer_err(err, "%s", o.data);
		return 1;
	}
	err = rw_ctx_open(&ctx, o.device);
	if (err) {
		trainer_err(err, "cannot open %s", o.device ? o.device : RW_DEV_PATH);
		goto out;
	}
	if (o.timeout_ms)
		rw_set_timeout(ctx, o.timeout_ms);
	err = trainer_join(ctx, &o, &model);
	if (!err)
		err = trainer_run(ctx, &o, &model, &data);
out:
	rw_ctx_close(ctx);
	softmax_data_free(&data);
	return err ? 1 : 0;
}

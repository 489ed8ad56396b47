// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk engine run for real: aggregation threads bound to their CPUs,
 * lockless queues fed by local pushes, the optimizer applied per chunk.
 * Gradients are made from integer bit patterns (this file has no FPU
 * flags); results are compared bit for bit against the aggregation kernels
 * called directly, or against another engine fed in a different order.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "rw.h"
#include "engine/engine.h"
#include "engine/query.h"
#include "agg/agg.h"
#include "chunk/migrate.h"
#include "engine_kunit.h"

#define RW_T_WORKERS	4
#define RW_T_STEPS	4
#define RW_T_TIMEOUT	(10 * HZ)

/* Three tensors, ~90 KB: 23 chunks of 4 KiB, the last one short. */
static const struct rw_layout_tensor rw_t_tensors[] = {
	{ .key = 1, .nelems = 10000, .dtype = RW_DTYPE_F32 },
	{ .key = 2, .nelems = 3, .dtype = RW_DTYPE_F32 },
	{ .key = 7, .nelems = 12345, .dtype = RW_DTYPE_F32 },
};

static void rw_t_f32(float *f, u32 bits)
{
	memcpy(f, &bits, sizeof(bits));
}

static void rw_t_config(struct rw_engine_config *cfg, u32 optim)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = "kunit";
	cfg->tensors = rw_t_tensors;
	cfg->nr_tensors = ARRAY_SIZE(rw_t_tensors);
	cfg->chunk_size = 4096;
	cfg->nr_workers = RW_T_WORKERS;
	cfg->hp.optim = optim;
	rw_t_f32(&cfg->hp.lr, 0x3c23d70a);		/* 0.01 */
	rw_t_f32(&cfg->hp.momentum, 0x3f666666);	/* 0.9 */
	rw_t_f32(&cfg->hp.beta1, 0x3f666666);		/* 0.9 */
	rw_t_f32(&cfg->hp.beta2, 0x3f7fbe77);		/* 0.999 */
	rw_t_f32(&cfg->hp.eps, 0x322bcc77);		/* 1e-8 */
}

static struct rw_engine *rw_t_create(struct kunit *test, u32 optim)
{
	struct rw_engine_config cfg;

	rw_t_config(&cfg, optim);
	return rw_kt_engine(test, &cfg);
}

/* Push one step for every chunk, workers in @order, chunks forwards or not. */
static void rw_t_push_step(struct kunit *test, struct rw_engine *e, u32 step,
			   const u32 *order, bool chunks_backwards, u32 *buf)
{
	u32 n = rw_engine_nr_chunks(e), i, k, c, len;

	for (i = 0; i < n; i++) {
		c = chunks_backwards ? n - 1 - i : i;
		len = rw_engine_chunk_len(e, c);
		for (k = 0; k < RW_T_WORKERS; k++) {
			rw_kt_grad(buf, len, step, order[k], c);
			KUNIT_ASSERT_EQ(test, rw_engine_push(e, order[k], c, buf,
							     len), 0);
		}
	}
	for (c = 0; c < n; c++)
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, step + 1,
						     RW_T_TIMEOUT), 0);
}

/* How many chunks hold different parameters in @a and @b. */
static u32 rw_t_differ(struct kunit *test, struct rw_engine *a,
		       struct rw_engine *b)
{
	u32 *pa = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 *pb = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 c, differ = 0;

	KUNIT_ASSERT_TRUE(test, pa && pb);
	for (c = 0; c < rw_engine_nr_chunks(a); c++) {
		u32 len = rw_engine_chunk_len(a, c);

		KUNIT_ASSERT_EQ(test, rw_engine_read(a, c, pa, len, NULL), 0);
		KUNIT_ASSERT_EQ(test, rw_engine_read(b, c, pb, len, NULL), 0);
		differ += !!memcmp(pa, pb, len);
	}
	return differ;
}

static void rw_engine_threads_bound_test(struct kunit *test)
{
	int round;

	for (round = 0; round < 3; round++) {
		struct rw_engine *e = rw_t_create(test, RW_AGG_SGD);
		u32 i, n = rw_engine_nr_cores(e);
		int *nodes;

		KUNIT_EXPECT_EQ(test, n, num_online_cpus());
		for (i = 0; i < n; i++) {
			struct task_struct *t = rw_engine_core_thread(e, i);
			int cpu = rw_engine_core_cpu(e, i);

			KUNIT_ASSERT_NOT_NULL(test, t);
			KUNIT_EXPECT_TRUE(test, cpumask_equal(t->cpus_ptr,
							      cpumask_of(cpu)));
			KUNIT_EXPECT_TRUE(test, t->flags & PF_NO_SETAFFINITY);
		}
		/*
		 * Every chunk is owned by one of the job's CPUs, and its
		 * memory lives on that CPU's node, the node the wire's NIC
		 * choice reads (rw_engine_chunk_nodes).
		 */
		nodes = kunit_kcalloc(test, rw_engine_nr_chunks(e),
				      sizeof(*nodes), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, nodes);
		n = rw_engine_nr_chunks(e);
		KUNIT_EXPECT_EQ(test, rw_engine_chunk_nodes(e, nodes, n + 1),
				-EINVAL);
		KUNIT_ASSERT_EQ(test, rw_engine_chunk_nodes(e, nodes, n), 0);
		for (i = 0; i < rw_engine_nr_chunks(e); i++) {
			int cpu = rw_engine_chunk_cpu(e, i);

			KUNIT_EXPECT_TRUE(test, cpu_online(cpu));
			KUNIT_EXPECT_EQ_MSG(test, rw_engine_chunk_mem_node(e, i),
					    cpu_to_node(cpu), "chunk %u", i);
			KUNIT_EXPECT_EQ_MSG(test, nodes[i], cpu_to_node(cpu),
					    "chunk %u", i);
		}
	}
}

static void rw_engine_bad_config_test(struct kunit *test)
{
	struct rw_engine_config cfg;

	rw_t_config(&cfg, RW_AGG_SGD);
	cfg.nr_workers = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
	cfg.nr_workers = RW_AGG_MAX_SRCS + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
	rw_t_config(&cfg, RW_AGG_SGD);
	cfg.chunk_size = 3000;
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
	rw_t_config(&cfg, RW_AGG_SGD);
	cfg.nr_tensors = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
	rw_t_config(&cfg, RW_AGG_OPTIM_COUNT);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
	rw_t_config(&cfg, RW_AGG_NESTEROV);
	rw_t_f32(&cfg.hp.momentum, 0x3f800000);	/* 1.0: out of range */
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
}

static void rw_engine_push_bad_input_test(struct kunit *test)
{
	struct rw_engine *e = rw_t_create(test, RW_AGG_SGD);
	u32 len = rw_engine_chunk_len(e, 0), n = rw_engine_nr_chunks(e);
	struct rw_engine_stats st;
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, RW_T_WORKERS, 0, buf, len), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, 0, n, buf, len), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, 0, 0, buf, len - 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, 0, n - 1, buf, 4096),
			rw_engine_chunk_len(e, n - 1) == 4096 ? 0 : -EINVAL);
	/* A second push of the same slot before aggregation is refused. */
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, 1, 0, buf, len), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, 1, 0, buf, len), -EBUSY);
	KUNIT_EXPECT_EQ(test, rw_engine_version(e, 0), 0);
	rw_engine_get_stats(e, &st);
	KUNIT_EXPECT_EQ(test, st.busy, 1);
	KUNIT_EXPECT_EQ(test, st.steps, 0);
}

/* Engine results equal the kernels applied directly, step after step. */
static void rw_engine_matches_direct_test(struct kunit *test)
{
	static const u32 fwd[RW_T_WORKERS] = { 0, 1, 2, 3 };
	struct rw_engine *e = rw_t_create(test, RW_AGG_ADAM);
	u32 n = rw_engine_nr_chunks(e), c, w, s;
	struct rw_engine_config cfg;
	float *ref, *state0, *state1, *got;
	const void *src[RW_T_WORKERS];
	u32 *buf, *grads;
	u64 v;

	rw_t_config(&cfg, RW_AGG_ADAM);
	ref = kunit_kzalloc(test, n * 4096, GFP_KERNEL);
	state0 = kunit_kzalloc(test, n * 4096, GFP_KERNEL);
	state1 = kunit_kzalloc(test, n * 4096, GFP_KERNEL);
	got = kunit_kzalloc(test, 4096, GFP_KERNEL);
	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	grads = kunit_kzalloc(test, RW_T_WORKERS * 4096, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, ref && state0 && state1 && got && buf && grads);

	for (s = 0; s < RW_T_STEPS; s++) {
		struct rw_agg_step st;

		rw_t_push_step(test, e, s, fwd, false, buf);
		KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &cfg.hp,
							  RW_T_WORKERS, s + 1), 0);
		for (c = 0; c < n; c++) {
			u32 len = rw_engine_chunk_len(e, c), off = c * 1024;
			struct rw_agg_chunk ch = {
				.src = src, .nsrc = RW_T_WORKERS,
				.n = len / 4, .dtype = RW_AGG_F32,
				.out = ref + off,
				.state = { state0 + off, state1 + off },
			};

			for (w = 0; w < RW_T_WORKERS; w++) {
				rw_kt_grad(grads + w * 1024, len, s, w, c);
				src[w] = grads + w * 1024;
			}
			KUNIT_ASSERT_EQ(test, rw_agg_update_chunk(&ch, &st), 0);
			KUNIT_ASSERT_EQ(test, rw_engine_read(e, c, got, len, &v), 0);
			KUNIT_EXPECT_EQ(test, v, s + 1);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(got, ref + off, len), 0,
					    "step %u chunk %u", s, c);
		}
	}
}

/* @u / 4 exactly, as an exponent change (zeros stay): the f32 u * 0.25. */
static u32 rw_t_quarter(u32 u)
{
	return u & 0x7f800000U ? u - (2U << 23) : u;
}

/*
 * Averaging mode, synchronous: every step writes the mean of the step's
 * gradients, bit for bit: the rank-order sum of the sum kernel divided by
 * W = 4 (exact), and what the average kernel gives called directly. No
 * state is kept, so the step before does not matter.
 */
static void rw_engine_average_test(struct kunit *test)
{
	static const u32 mixed[RW_T_WORKERS] = { 3, 1, 0, 2 };
	struct rw_engine *e = rw_t_create(test, RW_AGG_AVERAGE);
	u32 n = rw_engine_nr_chunks(e), c, w, s, i, *buf, *grads, *sum, *ref;
	const void *src[RW_T_WORKERS];
	struct rw_engine_config cfg;
	struct rw_agg_step st;
	float *got;
	u64 v;

	/* The job's number is the kernels' (job.c passes it through). */
	KUNIT_EXPECT_EQ(test, RW_OPTIM_AVERAGE, RW_AGG_AVERAGE);
	rw_t_config(&cfg, RW_AGG_AVERAGE);
	KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &cfg.hp, RW_T_WORKERS, 1),
			0);
	got = kunit_kzalloc(test, 4096, GFP_KERNEL);
	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	sum = kunit_kzalloc(test, 4096, GFP_KERNEL);
	ref = kunit_kzalloc(test, 4096, GFP_KERNEL);
	grads = kunit_kzalloc(test, RW_T_WORKERS * 4096, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, got && buf && sum && ref && grads);

	for (s = 0; s < RW_T_STEPS; s++) {
		/* Arrival order must not matter: the mean is in rank order. */
		rw_t_push_step(test, e, s, mixed, s & 1, buf);
		for (c = 0; c < n; c++) {
			u32 len = rw_engine_chunk_len(e, c);
			struct rw_agg_chunk ch = {
				.src = src, .nsrc = RW_T_WORKERS,
				.n = len / 4, .dtype = RW_AGG_F32,
				.out = (float *)sum,
			};

			for (w = 0; w < RW_T_WORKERS; w++) {
				rw_kt_grad(grads + w * 1024, len, s, w, c);
				src[w] = grads + w * 1024;
			}
			KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk(&ch), 0);
			for (i = 0; i < len / 4; i++)
				sum[i] = rw_t_quarter(sum[i]);
			ch.out = (float *)ref;
			KUNIT_ASSERT_EQ(test, rw_agg_update_chunk(&ch, &st), 0);
			KUNIT_ASSERT_EQ(test, rw_engine_read(e, c, got, len, &v), 0);
			KUNIT_EXPECT_EQ(test, v, s + 1);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(got, sum, len), 0,
					    "step %u chunk %u: not the rank-order mean",
					    s, c);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(got, ref, len), 0,
					    "step %u chunk %u: not the kernel's", s, c);
		}
	}
}

/*
 * Averaging mode, one step per gradient (ASP, SSP, adaptive): a step
 * writes the mean of the one gradient it applied, the gradient itself,
 * not scaled by 1/W; the parameters are the last gradient applied.
 */
static void rw_engine_average_each_test(struct kunit *test)
{
	static const u32 ranks[] = { 2, 0, 3 };
	struct rw_engine_config cfg;
	struct rw_engine *e;
	u32 n, c, k, *buf, *got;

	rw_t_config(&cfg, RW_AGG_AVERAGE);
	cfg.apply_each = true;
	e = rw_kt_engine(test, &cfg);
	n = rw_engine_nr_chunks(e);
	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	got = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, buf && got);

	for (k = 0; k < ARRAY_SIZE(ranks); k++) {
		for (c = 0; c < n; c++) {
			u32 len = rw_engine_chunk_len(e, c);

			rw_kt_grad(buf, len, k, ranks[k], c);
			KUNIT_ASSERT_EQ(test, rw_engine_push(e, ranks[k], c, buf,
							     len), 0);
		}
		for (c = 0; c < n; c++) {
			u32 len = rw_engine_chunk_len(e, c);

			KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, k + 1,
							     RW_T_TIMEOUT), 0);
			KUNIT_ASSERT_EQ(test, rw_engine_read(e, c, got, len,
							     NULL), 0);
			rw_kt_grad(buf, len, k, ranks[k], c);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(got, buf, len), 0,
					    "gradient %u of rank %u, chunk %u",
					    k, ranks[k], c);
		}
	}
}

/* Two engines, pushes in different orders: bit-identical parameters. */
static void rw_engine_order_independence_test(struct kunit *test)
{
	static const u32 fwd[RW_T_WORKERS] = { 0, 1, 2, 3 };
	static const u32 mixed[RW_T_WORKERS] = { 2, 0, 3, 1 };
	struct rw_engine *a = rw_t_create(test, RW_AGG_MOMENTUM);
	struct rw_engine *b = rw_t_create(test, RW_AGG_MOMENTUM);
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 *pa = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 s, c, nonzero = 0;

	KUNIT_ASSERT_TRUE(test, buf && pa);
	for (s = 0; s < RW_T_STEPS; s++) {
		rw_t_push_step(test, a, s, fwd, false, buf);
		rw_t_push_step(test, b, s, mixed, true, buf);
	}
	KUNIT_EXPECT_EQ(test, rw_t_differ(test, a, b), 0);
	/* The comparison means something only if training moved them. */
	for (c = 0; c < rw_engine_nr_chunks(a); c++) {
		u32 len = rw_engine_chunk_len(a, c);

		KUNIT_ASSERT_EQ(test, rw_engine_read(a, c, pa, len, NULL), 0);
		nonzero += !!memchr_inv(pa, 0, len);
	}
	KUNIT_EXPECT_EQ(test, nonzero, rw_engine_nr_chunks(a));
}

struct rw_t_storm {
	struct rw_engine *e;
	u32 first_worker;	/* this thread pushes workers first, first + T, ... */
	u32 stride;
	struct completion done;
	int err;
};

static int rw_t_storm_thread(void *arg)
{
	struct rw_t_storm *st = arg;
	struct rw_engine *e = st->e;
	u32 *buf = kmalloc(4096, GFP_KERNEL);
	u32 s, c, w;

	if (!buf) {
		st->err = -ENOMEM;
		goto out;
	}
	for (s = 0; s < RW_T_STEPS && !st->err; s++)
		for (c = 0; c < rw_engine_nr_chunks(e); c++)
			for (w = st->first_worker; w < RW_T_WORKERS; w += st->stride) {
				u32 len = rw_engine_chunk_len(e, c);
				int ret;

				rw_kt_grad(buf, len, s, w, c);
				/* Busy until the previous step is aggregated. */
				while ((ret = rw_engine_push(e, w, c, buf, len)) == -EBUSY)
					usleep_range(20, 100);
				if (ret)
					st->err = ret;
			}
	kfree(buf);
out:
	/* Leaves no code of this module to run after the completion. */
	kthread_complete_and_exit(&st->done, 0);
}

/* Many pushers at once: nothing lost, nothing counted twice. */
static void rw_engine_push_storm_test(struct kunit *test)
{
	static const u32 fwd[RW_T_WORKERS] = { 0, 1, 2, 3 };
	struct rw_engine *e = rw_t_create(test, RW_AGG_NESTEROV);
	struct rw_engine *ref = rw_t_create(test, RW_AGG_NESTEROV);
	struct rw_t_storm st[RW_T_WORKERS];
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 n = rw_engine_nr_chunks(e), i, c, s;
	struct rw_engine_stats stats;

	KUNIT_ASSERT_TRUE(test, buf);
	/* The reference first: its assertions may end the test early. */
	for (s = 0; s < RW_T_STEPS; s++)
		rw_t_push_step(test, ref, s, fwd, false, buf);
	for (i = 0; i < RW_T_WORKERS; i++) {
		st[i] = (struct rw_t_storm){ .e = e, .first_worker = i,
					     .stride = RW_T_WORKERS };
		init_completion(&st[i].done);
		if (IS_ERR(kthread_run(rw_t_storm_thread, &st[i], "rw_storm/%u",
				       i))) {
			st[i].err = -ECHILD;
			complete(&st[i].done);
		}
	}
	/*
	 * The pushers use @st and @e: never leave before they are done. A
	 * slow VM only makes this take longer; a lost wake-up hangs here and
	 * the VM's timeout reports it.
	 */
	for (i = 0; i < RW_T_WORKERS; i++) {
		if (!wait_for_completion_timeout(&st[i].done, 12 * RW_T_TIMEOUT)) {
			KUNIT_FAIL(test, "pusher %u still running after %d s", i,
				   12 * RW_T_TIMEOUT / HZ);
			wait_for_completion(&st[i].done);
		}
		KUNIT_EXPECT_EQ(test, st[i].err, 0);
	}
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, RW_T_STEPS, RW_T_TIMEOUT), 0);
		KUNIT_EXPECT_EQ(test, rw_engine_version(e, c), RW_T_STEPS);
	}
	KUNIT_EXPECT_EQ(test, rw_t_differ(test, e, ref), 0);
	rw_engine_get_stats(e, &stats);
	KUNIT_EXPECT_EQ(test, stats.pushes, (u64)RW_T_WORKERS * n * RW_T_STEPS);
	KUNIT_EXPECT_EQ(test, stats.steps, (u64)n * RW_T_STEPS);
	KUNIT_EXPECT_EQ(test, stats.events - stats.forwards, stats.pushes);
}

/* Chunks on each core: @count has rw_engine_nr_cores() entries. */
static void rw_t_owners(struct rw_engine *e, u32 *count)
{
	u32 c, i, n = rw_engine_nr_cores(e);

	memset(count, 0, n * sizeof(*count));
	for (c = 0; c < rw_engine_nr_chunks(e); c++)
		for (i = 0; i < n; i++)
			if (rw_engine_chunk_cpu(e, c) == rw_engine_core_cpu(e, i))
				count[i]++;
}

/*
 * A skewed window moves chunks off the hot core, within its node; the
 * moved chunks keep training to the same bits as an engine that never
 * moved; an even window moves nothing.
 */
static void rw_engine_rebalance_test(struct kunit *test)
{
	static const u32 fwd[RW_T_WORKERS] = { 0, 1, 2, 3 };
	struct rw_engine *e = rw_t_create(test, RW_AGG_MOMENTUM);
	struct rw_engine *ref = rw_t_create(test, RW_AGG_MOMENTUM);
	u32 nc = rw_engine_nr_cores(e), i, hot = nc, s, c;
	u32 *before, *after, *buf;
	u64 *load;
	int moved, tries;

	before = kunit_kcalloc(test, nc, sizeof(u32), GFP_KERNEL);
	after = kunit_kcalloc(test, nc, sizeof(u32), GFP_KERNEL);
	load = kunit_kcalloc(test, nc, sizeof(u64), GFP_KERNEL);
	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, before && after && load && buf);

	/* The measured path runs; loads this small move nothing. */
	KUNIT_EXPECT_GE(test, rw_engine_rebalance(e), 0);

	for (i = 0; i + 1 < nc && hot == nc; i++)
		if (cpu_to_node(rw_engine_core_cpu(e, i)) ==
		    cpu_to_node(rw_engine_core_cpu(e, i + 1)))
			hot = i;
	if (hot == nc)
		kunit_skip(test, "no NUMA node with two CPUs (boot with more CPUs)");

	rw_t_push_step(test, e, 0, fwd, false, buf);
	rw_t_push_step(test, ref, 0, fwd, false, buf);

	for (i = 0; i < nc; i++)
		load[i] = i == hot ? 10000000 : 1000000;
	rw_t_owners(e, before);
	moved = rw_engine_rebalance_loads(e, load, NULL);
	KUNIT_ASSERT_GT(test, moved, 0);
	/* Owners follow the map once each old owner reaches its migrate event. */
	for (tries = 0; tries < 500; tries++) {
		for (c = 0; c < rw_engine_nr_chunks(e); c++)
			if (rw_engine_chunk_cpu(e, c) !=
			    rw_engine_chunk_planned_cpu(e, c))
				break;
		if (c == rw_engine_nr_chunks(e))
			break;
		usleep_range(10000, 20000);
	}
	KUNIT_EXPECT_EQ_MSG(test, c, rw_engine_nr_chunks(e),
			    "chunk %u still on cpu %d, planned %d", c,
			    rw_engine_chunk_cpu(e, c),
			    rw_engine_chunk_planned_cpu(e, c));
	rw_t_owners(e, after);
	KUNIT_EXPECT_LT_MSG(test, after[hot], before[hot],
			    "hot core %u: %u chunks before, %u after, %d moved",
			    hot, before[hot], after[hot], moved);
	for (i = 0; i < nc; i++)
		if (cpu_to_node(rw_engine_core_cpu(e, i)) !=
		    cpu_to_node(rw_engine_core_cpu(e, hot)))
			KUNIT_EXPECT_EQ(test, after[i], before[i]);

	for (s = 1; s < RW_T_STEPS; s++) {
		rw_t_push_step(test, e, s, fwd, s & 1, buf);
		rw_t_push_step(test, ref, s, fwd, false, buf);
	}
	KUNIT_EXPECT_EQ(test, rw_t_differ(test, e, ref), 0);

	/* Even load: nothing moves, however often asked. */
	for (i = 0; i < nc; i++)
		load[i] = 1000000;
	for (tries = 0; tries < 5; tries++)
		KUNIT_EXPECT_EQ(test, rw_engine_rebalance_loads(e, load, NULL), 0);
}

/*
 * Under BSP a worker whose chunk is fresh reads the step's version in the
 * versions buffer: a trainer that numbers its steps by that buffer right
 * after its pull (--follow, every restored run) must not see the version
 * of the step before, or it computes its next gradient on the batch it
 * has just done. The owner frees worker 0's slot first and publishes the
 * version after the last worker's, so with RW_AGG_MAX_SRCS workers the
 * gap is widest; worker 0 pushes last and watches from another CPU than
 * the owner's, as a puller woken by the gate does.
 */
#define RW_T_FRESH_WORKERS	RW_AGG_MAX_SRCS
#define RW_T_FRESH_ROUNDS	300

static void rw_engine_fresh_version_test(struct kunit *test)
{
	static const struct rw_layout_tensor t = {
		.key = 1, .nelems = 16, .dtype = RW_DTYPE_F32,
	};
	int owner = cpumask_first(cpu_online_mask);
	int me = cpumask_next(owner, cpu_online_mask);
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 len, w, k, stale = 0, first = 0;
	const u64 *versions;
	struct rw_engine_config cfg;
	struct rw_engine *e;
	unsigned long end;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	if (me >= nr_cpu_ids)
		kunit_skip(test, "needs two CPUs");
	rw_t_config(&cfg, RW_AGG_SGD);
	cfg.tensors = &t;
	cfg.nr_tensors = 1;
	cfg.nr_workers = RW_T_FRESH_WORKERS;
	cfg.cpus = cpumask_of(owner);
	e = rw_kt_engine(test, &cfg);
	len = rw_engine_chunk_len(e, 0);
	versions = page_address(rw_engine_page(e, RW_BUF_VERSIONS, 0, 0));
	/* This case's own thread: the affinity ends with it. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(me)), 0);

	for (k = 0; k < RW_T_FRESH_ROUNDS; k++) {
		for (w = RW_T_FRESH_WORKERS - 1; w > 0; w--) {
			rw_kt_grad(buf, len, k, w, 0);
			KUNIT_ASSERT_EQ(test, rw_engine_push(e, w, 0, buf, len), 0);
		}
		rw_kt_grad(buf, len, k, 0, 0);
		KUNIT_ASSERT_EQ(test, rw_engine_push(e, 0, 0, buf, len), 0);
		end = jiffies + RW_T_TIMEOUT;
		while (!rw_engine_fresh(e, 0, 0, 0)) {
			KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
					      "round %u never fresh", k);
			cpu_relax();
		}
		if (READ_ONCE(versions[0]) != k + 1 && !stale++)
			first = k;
		/* Every slot is free once the version is out. */
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, 0, k + 1, RW_T_TIMEOUT),
				0);
	}
	KUNIT_EXPECT_EQ_MSG(test, stale, 0,
			    "fresh before its version in %u of %u rounds (first: %u)",
			    stale, RW_T_FRESH_ROUNDS, first);
}

/* Bytes [0, @len) of @e's image, taken in pieces of @piece bytes. */
static void rw_t_image_get(struct kunit *test, struct rw_engine *e, u8 *dst,
			   u64 len, u32 piece)
{
	u64 off;

	for (off = 0; off < len; off += piece)
		KUNIT_ASSERT_EQ(test, rw_engine_image_get(e, off,
							  min_t(u64, piece,
								len - off),
							  dst + off), 0);
}

/*
 * A transport's image, piece by piece (a remote save and restore): taken
 * in any pieces it is one and the same, and put into another engine it
 * makes the same run.
 */
static void rw_engine_image_pieces_test(struct kunit *test)
{
	static const u32 order[RW_T_WORKERS] = { 0, 1, 2, 3 };
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct rw_engine *a = rw_t_create(test, RW_AGG_MOMENTUM);
	struct rw_engine *b = rw_t_create(test, RW_AGG_MOMENTUM);
	u64 len = rw_engine_image_len(a);
	u8 *whole = kunit_kzalloc(test, len, GFP_KERNEL);
	u8 *pieces = kunit_kzalloc(test, len, GFP_KERNEL);
	u8 *back = kunit_kzalloc(test, len, GFP_KERNEL);
	u32 step;

	KUNIT_ASSERT_TRUE(test, buf && whole && pieces && back);
	for (step = 0; step < 2; step++)
		rw_t_push_step(test, a, step, order, false, buf);
	KUNIT_ASSERT_TRUE(test, rw_engine_quiet(a));
	rw_t_image_get(test, a, whole, len, (u32)len);
	rw_t_image_get(test, a, pieces, len, 1032);
	KUNIT_EXPECT_EQ(test, memcmp(whole, pieces, len), 0);
	/* The versions at the end: every chunk took both steps. */
	KUNIT_EXPECT_EQ(test, *(u64 *)(whole + len - 8), 2ULL);
	/* Bad input: not a multiple of 8, or past the image. */
	KUNIT_EXPECT_EQ(test, rw_engine_image_get(a, 4, 8, back), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_engine_image_get(a, 0, 12, back), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_engine_image_get(a, len - 8, 16, back),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, rw_engine_init_begin(b), 0);
	for (step = 0; step < len; step += 4096)
		KUNIT_ASSERT_EQ(test, rw_engine_image_put(b, step,
							  min_t(u64, 4096,
								len - step),
							  pieces + step), 0);
	rw_engine_init_end(b, true);
	rw_t_image_get(test, b, back, len, 4096);
	KUNIT_EXPECT_EQ(test, memcmp(whole, back, len), 0);
	KUNIT_EXPECT_EQ(test, rw_t_differ(test, a, b), 0);
	/* And both step the same from there. */
	rw_t_push_step(test, a, 2, order, false, buf);
	rw_t_push_step(test, b, 2, order, true, buf);
	KUNIT_EXPECT_EQ(test, rw_t_differ(test, a, b), 0);
}

static struct kunit_case rw_engine_test_cases[] = {
	KUNIT_CASE(rw_engine_threads_bound_test),
	KUNIT_CASE(rw_engine_bad_config_test),
	KUNIT_CASE(rw_engine_push_bad_input_test),
	KUNIT_CASE(rw_engine_matches_direct_test),
	KUNIT_CASE(rw_engine_average_test),
	KUNIT_CASE(rw_engine_average_each_test),
	KUNIT_CASE(rw_engine_order_independence_test),
	KUNIT_CASE(rw_engine_push_storm_test),
	KUNIT_CASE(rw_engine_rebalance_test),
	KUNIT_CASE(rw_engine_fresh_version_test),
	KUNIT_CASE(rw_engine_image_pieces_test),
	{}
};

static struct kunit_suite rw_engine_test_suite = {
	.name = "rackweave_engine",
	.test_cases = rw_engine_test_cases,
};

kunit_test_suite(rw_engine_test_suite);

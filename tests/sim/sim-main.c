// SPDX-License-Identifier: GPL-2.0
/*
 * sim-staleness: run every (profile, policy) over several seeds and
 * report medians, as text tables or one JSON object; optionally write the
 * loss curves of the first seed for plotting. See scripts/sim-staleness
 * and docs/performance.md ("Staleness gate").
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim.h"

/*
 * The policies the issues compare, then extras run only when named:
 * adaptive3_1024 is the controller with a cap too far away to matter,
 * i.e. the source document's Algorithm 1 without an enforced s_U. BSP's
 * backup-worker variants depend on W and are made by rw_sim_policies().
 */
static const struct rw_sim_policy rw_sim_fixed[] = {
	{ "asp", RW_GATE_ASP, 0, 0, 0, 0 },
	{ "ssp3", RW_GATE_SSP, 3, 0, 0, 0 },
	{ "ssp6", RW_GATE_SSP, 6, 0, 0, 0 },
	{ "ssp15", RW_GATE_SSP, 15, 0, 0, 0 },
	{ "adaptive3_15", RW_GATE_ADAPTIVE, 0, 3, 15, 0 },
	{ "adaptive3_1024", RW_GATE_ADAPTIVE, 0, 3, 1024, 0 },
};

#define RW_SIM_FIXED_DEFAULT	5	/* adaptive3_1024: when named */
#define RW_SIM_POLICIES		16	/* with every bspq<K> named */
#define RW_SIM_MAX_SEEDS	32
#define RW_SIM_TARGET		0.15	/* BSP reaches it about halfway */
#define RW_SIM_QUICK_TARGET	0.5	/* what 60 iterations reach */

/* Every seed's outcome of one (profile, policy). */
struct rw_sim_cell {
	struct rw_sim_result r[RW_SIM_MAX_SEEDS];
	u32 n;
};

struct rw_sim_opts {
	struct rw_sim_params sp;
	u32 seeds, jobs;
	bool json, quick;
	const char *data, *curves;
	bool want_profile[RW_SIM_PROFILES];
	/* The policies of this W, and which of them run. */
	struct rw_sim_policy pol[RW_SIM_POLICIES];
	bool want_policy[RW_SIM_POLICIES];
	u32 nr_pol;
	const char *named[RW_SIM_POLICIES];	/* --policy, in order */
	u32 nr_named;
};

static int rw_sim_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n values; never-reached (< 0) counts as +inf. */
static double rw_sim_median(double *v, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (v[i] < 0)
			v[i] = INFINITY;
	qsort(v, n, sizeof(*v), rw_sim_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define RW_SIM_MEDIAN(cell, field) ({					\
	double _v[RW_SIM_MAX_SEEDS];					\
	u32 _i;								\
	for (_i = 0; _i < (cell)->n; _i++)				\
		_v[_i] = (cell)->r[_i].field;				\
	rw_sim_median(_v, (cell)->n);					\
})

struct rw_sim_summary {
	double ttt, total, wait, ips, loss, stale, dropped;
	u64 skew, hist[RW_SIM_HIST], granted;
	u64 applied, updates, rounds, evicted_summed;	/* all seeds */
	u32 finished, expected, evicted;
	int errors, round_errors;
};

static void rw_sim_summarise(const struct rw_sim_cell *c,
			     struct rw_sim_summary *s)
{
	u32 i, b;

	memset(s, 0, sizeof(*s));
	s->ttt = RW_SIM_MEDIAN(c, time_to_target);
	s->total = RW_SIM_MEDIAN(c, total_time);
	s->wait = RW_SIM_MEDIAN(c, wait_fraction);
	s->ips = RW_SIM_MEDIAN(c, iters_per_sec);
	s->loss = RW_SIM_MEDIAN(c, final_loss);
	s->stale = RW_SIM_MEDIAN(c, stale_mean);
	s->dropped = RW_SIM_MEDIAN(c, dropped);
	s->finished = U32_MAX;
	for (i = 0; i < c->n; i++) {
		const struct rw_sim_result *r = &c->r[i];

		s->skew = max_t(u64, s->skew, r->max_skew);
		for (b = 0; b < RW_SIM_HIST; b++)
			s->hist[b] += r->hist[b];
		s->granted += r->granted;
		s->applied += r->applied;
		s->updates += r->updates;
		s->rounds += r->rounds;
		s->evicted_summed += r->evicted_summed;
		s->finished = min_t(u32, s->finished, r->finished);
		s->expected = r->expected;
		s->evicted = max_t(u32, s->evicted, r->evicted);
		s->errors += r->gate_errors;
		s->round_errors += r->round_errors;
	}
}

static void rw_sim_json_num(double v)
{
	if (isfinite(v))
		printf("%.6g", v);
	else
		printf("null");
}

static void rw_sim_print_json(const struct rw_sim_opts *o,
			      struct rw_sim_cell (*cells)[RW_SIM_POLICIES])
{
	const struct rw_sim_params *sp = &o->sp;
	bool first_prof = true;
	u32 pr, po, i, b;

	printf("{\"config\": {\"workers\": %u, \"iters\": %u, \"batch\": %u, "
	       "\"lr\": %g, \"async_step\": %g, \"target_loss\": %g, "
	       "\"base_ms\": %g, \"timeout_s\": %g, \"seeds\": %u, "
	       "\"staleness_bins\": [0",
	       sp->workers, sp->iters, sp->batch, sp->lr, sp->lr / sp->workers,
	       sp->target, (double)sp->base_ns / 1e6,
	       (double)sp->timeout_ns / RW_SIM_NS, o->seeds);
	for (b = 1; b < RW_SIM_HIST; b++)
		printf(", %u", 1U << (b - 1));
	printf("]},\n \"profiles\": {");
	for (pr = 0; pr < RW_SIM_PROFILES; pr++) {
		bool first_pol = true;

		if (!o->want_profile[pr])
			continue;
		printf("%s\n  \"%s\": {", first_prof ? "" : ",",
		       rw_sim_profile_names[pr]);
		first_prof = false;
		for (po = 0; po < o->nr_pol; po++) {
			const struct rw_sim_cell *c = &cells[pr][po];
			struct rw_sim_summary s;

			if (!o->want_policy[po])
				continue;
			rw_sim_summarise(c, &s);
			printf("%s\n   \"%s\": {\"quorum\": %u, "
			       "\"time_to_target\": ", first_pol ? "" : ",",
			       o->pol[po].name, o->pol[po].quorum);
			first_pol = false;
			rw_sim_json_num(s.ttt);
			printf(", \"total_time\": ");
			rw_sim_json_num(s.total);
			printf(", \"wait_fraction\": ");
			rw_sim_json_num(s.wait);
			printf(", \"max_skew\": %llu, \"iters_per_sec\": ",
			       (unsigned long long)s.skew);
			rw_sim_json_num(s.ips);
			printf(", \"final_loss\": ");
			rw_sim_json_num(s.loss);
			printf(", \"staleness_mean\": ");
			rw_sim_json_num(s.stale);
			printf(", \"staleness_hist\": [");
			for (b = 0; b < RW_SIM_HIST; b++)
				printf("%s%llu", b ? ", " : "",
				       (unsigned long long)s.hist[b]);
			printf("], \"workers_finished\": %u, "
			       "\"workers_expected\": %u, \"evicted\": %u, "
			       "\"granted\": %llu, \"gate_errors\": %d, "
			       "\"round_errors\": %d, \"dropped\": ",
			       s.finished, s.expected, s.evicted,
			       (unsigned long long)s.granted, s.errors,
			       s.round_errors);
			rw_sim_json_num(s.dropped);
			printf(", \"applied\": %llu, \"updates\": %llu, "
			       "\"rounds\": %llu, \"evicted_summed\": %llu, "
			       "\"time_to_target_seeds\": [",
			       (unsigned long long)s.applied,
			       (unsigned long long)s.updates,
			       (unsigned long long)s.rounds,
			       (unsigned long long)s.evicted_summed);
			for (i = 0; i < c->n; i++) {
				printf("%s", i ? ", " : "");
				rw_sim_json_num(c->r[i].time_to_target < 0 ?
						INFINITY : c->r[i].time_to_target);
			}
			printf("], \"dropped_seeds\": [");
			for (i = 0; i < c->n; i++)
				printf("%s%llu", i ? ", " : "",
				       (unsigned long long)c->r[i].dropped);
			printf("]}");
		}
		printf("\n  }");
	}
	printf("\n }\n}\n");
}

static void rw_sim_print_text(const struct rw_sim_opts *o,
			      struct rw_sim_cell (*cells)[RW_SIM_POLICIES])
{
	u32 pr, po;

	printf("# W=%u, %u iterations per worker, batch %u, lr %g, target loss %g, "
	       "%u seed(s); medians\n", o->sp.workers, o->sp.iters, o->sp.batch,
	       o->sp.lr, o->sp.target, o->seeds);
	for (pr = 0; pr < RW_SIM_PROFILES; pr++) {
		if (!o->want_profile[pr])
			continue;
		printf("\n%s\n%-13s %9s %9s %8s %6s %5s %7s %7s %6s %7s %s\n",
		       rw_sim_profile_names[pr], "policy", "to_target", "total_s",
		       "iters/s", "wait", "skew", "stale", "loss", "grants",
		       "dropped", "finished");
		for (po = 0; po < o->nr_pol; po++) {
			struct rw_sim_summary s;

			if (!o->want_policy[po])
				continue;
			rw_sim_summarise(&cells[pr][po], &s);
			printf("%-13s %9.2f %9.2f %8.1f %6.3f %5llu %7.2f %7.4f "
			       "%6llu %7.0f %u/%u%s%s%s\n",
			       o->pol[po].name, s.ttt, s.total, s.ips,
			       s.wait, (unsigned long long)s.skew, s.stale, s.loss,
			       (unsigned long long)s.granted, s.dropped,
			       s.finished, s.expected,
			       s.errors ? " GATE ERRORS" : "",
			       s.round_errors ? " ROUND ERRORS" : "",
			       s.evicted_summed ? " EVICTED WORKER SUMMED" : "");
		}
	}
}

/* Loss curves of the first seed: one file per profile, for gnuplot. */
static int rw_sim_write_curves(const struct rw_sim_opts *o,
			       struct rw_sim_cell (*cells)[RW_SIM_POLICIES])
{
	char path[4096];
	u32 pr, po, i, len;
	FILE *f;

	/* The median times to target, a row per profile, for a bar chart. */
	snprintf(path, sizeof(path), "%s/summary.txt", o->curves);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# workers %u\n# profile", o->sp.workers);
	for (po = 0; po < o->nr_pol; po++)
		if (o->want_policy[po])
			fprintf(f, " %s", o->pol[po].name);
	fprintf(f, "\n");
	for (pr = 0; pr < RW_SIM_PROFILES; pr++) {
		if (!o->want_profile[pr])
			continue;
		fprintf(f, "%s", rw_sim_profile_names[pr]);
		for (po = 0; po < o->nr_pol; po++) {
			struct rw_sim_summary s;

			if (!o->want_policy[po])
				continue;
			rw_sim_summarise(&cells[pr][po], &s);
			fprintf(f, isfinite(s.ttt) ? " %.3f" : " NaN", s.ttt);
		}
		fprintf(f, "\n");
	}
	fclose(f);

	for (pr = 0; pr < RW_SIM_PROFILES; pr++) {
		if (!o->want_profile[pr])
			continue;
		snprintf(path, sizeof(path), "%s/%s.dat", o->curves,
			 rw_sim_profile_names[pr]);
		f = fopen(path, "w");
		if (!f)
			return -errno;
		fprintf(f, "# target %g\n# time_s", o->sp.target);
		for (po = 0, len = 0; po < o->nr_pol; po++) {
			if (!o->want_policy[po])
				continue;
			fprintf(f, " %s", o->pol[po].name);
			len = max_t(u32, len, cells[pr][po].r[0].curve_len);
		}
		fprintf(f, "\n");
		for (i = 0; i < len; i++) {
			fprintf(f, "%.3f", (double)i * o->sp.eval_ns / RW_SIM_NS);
			for (po = 0; po < o->nr_pol; po++) {
				const struct rw_sim_result *r = &cells[pr][po].r[0];

				if (!o->want_policy[po])
					continue;
				if (i < r->curve_len)
					fprintf(f, " %.5f", r->curve[i]);
				else
					fprintf(f, " NaN");
			}
			fprintf(f, "\n");
		}
		fclose(f);
	}
	return 0;
}

static void rw_sim_usage(FILE *f)
{
	fprintf(f,
"usage: sim-staleness --data FILE [options]\n"
"  --data FILE       digits as CSV: label then 64 pixels per line\n"
"  --json            one JSON object on stdout\n"
"  --quick           a smoke run: 1 seed, 60 iterations per worker,\n"
"                    target loss 0.5\n"
"  --seeds N         seeds 1..N, medians reported (default 5, max %u)\n"
"  --profile NAME    only this profile (repeatable)\n"
"  --policy NAME     only this policy (repeatable). The default set: bsp,\n"
"                    bspq<W-1> and bspq<W-2> (those of K >= 1: bspq7 and\n"
"                    bspq6 at W = 8, only bspq1 at W = 2, none at W = 1),\n"
"                    asp ssp3 ssp6 ssp15 adaptive3_15. Also by name:\n"
"                    bspq<K> for any K in 1..W, and adaptive3_1024 (the\n"
"                    controller with its cap out of reach).\n"
"                    bspq<K> is BSP with backup workers: each round steps\n"
"                    on the first K gradients of its iteration (min(K,\n"
"                    members) after an eviction); later ones are dropped\n"
"                    and counted, and their workers skip ahead\n"
"  --workers W       simulated workers (default 8, max %u)\n"
"  --iters N         iterations per worker (default 400)\n"
"  --curves DIR      write DIR/PROFILE.dat: loss against time, first seed\n"
"  --lr X            the engine's learning rate (default 1.6): a round\n"
"                    steps X times the mean of its gradients, a lone\n"
"                    gradient (asp, ssp, adaptive) X / W times itself\n"
"  --batch N, --target L   minibatch, target loss\n"
"  --jobs N          threads (default: online CPUs, at most 8)\n"
"  --help\n", RW_SIM_MAX_SEEDS, RW_SIM_MAX_W);
}

static int rw_sim_pick(const char *name, const char *const *names, u32 n,
		       bool *want)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (!strcmp(name, names[i])) {
			want[i] = true;
			return 0;
		}
	}
	fprintf(stderr, "sim-staleness: unknown name '%s'\n", name);
	return -EINVAL;
}

static void rw_sim_add(struct rw_sim_opts *o, const struct rw_sim_policy *p,
		       bool want)
{
	o->want_policy[o->nr_pol] = want;
	o->pol[o->nr_pol++] = *p;
}

static u32 rw_sim_find(const struct rw_sim_opts *o, const char *name)
{
	u32 i;

	for (i = 0; i < o->nr_pol; i++)
		if (!strcmp(o->pol[i].name, name))
			return i;
	return U32_MAX;
}

/* BSP with quorum @k, named bspq<k>, unless it is there already. */
static void rw_sim_add_quorum(struct rw_sim_opts *o, u32 k, bool want)
{
	struct rw_sim_policy p = { .policy = RW_GATE_BSP, .quorum = k };
	u32 i;

	snprintf(p.name, sizeof(p.name), "bspq%u", k);
	i = rw_sim_find(o, p.name);
	if (i == U32_MAX)
		rw_sim_add(o, &p, want);
	else
		o->want_policy[i] |= want;
}

/*
 * The policies of this W: bsp, its backup-worker variants, the fixed
 * ones; then what --policy named (bspq<K> for any K in 1..W) replaces the
 * default set. 0 or 2 (usage).
 */
static int rw_sim_policies(struct rw_sim_opts *o)
{
	static const struct rw_sim_policy bsp = { .name = "bsp",
						  .policy = RW_GATE_BSP };
	char canon[RW_SIM_NAME_LEN];
	u32 w = o->sp.workers, i, k;

	rw_sim_add(o, &bsp, true);
	for (k = 1; k <= 2; k++)
		if (w > k)
			rw_sim_add_quorum(o, w - k, true);
	for (i = 0; i < ARRAY_SIZE(rw_sim_fixed); i++)
		rw_sim_add(o, &rw_sim_fixed[i], i < RW_SIM_FIXED_DEFAULT);
	if (!o->nr_named)
		return 0;
	memset(o->want_policy, 0, sizeof(o->want_policy));
	for (i = 0; i < o->nr_named; i++) {
		const char *name = o->named[i];
		u32 at = rw_sim_find(o, name);

		if (at != U32_MAX) {
			o->want_policy[at] = true;
			continue;
		}
		/* bspq<K> spelt exactly so: the name the output will use. */
		if (sscanf(name, "bspq%u", &k) == 1 && k >= 1 && k <= w &&
		    snprintf(canon, sizeof(canon), "bspq%u", k) > 0 &&
		    !strcmp(canon, name)) {
			if (o->nr_pol == RW_SIM_POLICIES) {
				fprintf(stderr, "sim-staleness: at most %u "
					"policies\n", RW_SIM_POLICIES);
				return 2;
			}
			rw_sim_add_quorum(o, k, true);
			continue;
		}
		fprintf(stderr, "sim-staleness: unknown policy '%s' (bspq<K> "
			"needs 1 <= K <= W = %u)\n", name, w);
		return 2;
	}
	return 0;
}

static int rw_sim_parse(int argc, char **argv, struct rw_sim_opts *o)
{
	static const struct option lo[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "quick", no_argument, NULL, 'q' },
		{ "seeds", required_argument, NULL, 's' },
		{ "profile", required_argument, NULL, 'p' },
		{ "policy", required_argument, NULL, 'P' },
		{ "workers", required_argument, NULL, 'w' },
		{ "iters", required_argument, NULL, 'n' },
		{ "curves", required_argument, NULL, 'c' },
		{ "lr", required_argument, NULL, 'l' },
		{ "batch", required_argument, NULL, 'b' },
		{ "target", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool any_prof = false;
	u32 i, iters = 0;
	int c;

	o->seeds = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->data = optarg; break;
		case 'j': o->json = true; break;
		case 'q': o->quick = true; break;
		case 's': o->seeds = (u32)atoi(optarg); break;
		case 'w': o->sp.workers = (u32)atoi(optarg); break;
		case 'n': iters = (u32)atoi(optarg); break;
		case 'c': o->curves = optarg; break;
		case 'l': o->sp.lr = atof(optarg); break;
		case 'b': o->sp.batch = (u32)atoi(optarg); break;
		case 't': o->sp.target = atof(optarg); break;
		case 'J': o->jobs = (u32)atoi(optarg); break;
		case 'p':
			if (rw_sim_pick(optarg, rw_sim_profile_names,
					RW_SIM_PROFILES, o->want_profile))
				return 2;
			any_prof = true;
			break;
		case 'P':
			if (o->nr_named == RW_SIM_POLICIES) {
				fprintf(stderr,
					"sim-staleness: too many --policy\n");
				return 2;
			}
			o->named[o->nr_named++] = optarg;
			break;
		case 'h':
			rw_sim_usage(stdout);
			exit(0);
		default:
			rw_sim_usage(stderr);
			return 2;
		}
	}
	if (!o->seeds)
		o->seeds = o->quick ? 1 : 5;
	if (iters)
		o->sp.iters = iters;
	else if (o->quick)
		o->sp.iters = 60;
	if (!(o->sp.target > 0))
		o->sp.target = o->quick ? RW_SIM_QUICK_TARGET : RW_SIM_TARGET;
	for (i = 0; !any_prof && i < RW_SIM_PROFILES; i++)
		o->want_profile[i] = true;
	if (!o->jobs)
		o->jobs = (u32)max_t(long, 1, min_t(long, 8, sysconf(_SC_NPROCESSORS_ONLN)));
	if (optind != argc || !o->data || o->seeds > RW_SIM_MAX_SEEDS ||
	    !o->sp.workers || o->sp.workers > RW_SIM_MAX_W || o->sp.iters < 12 ||
	    !o->sp.batch || !(o->sp.lr > 0) || o->jobs > 8) {
		rw_sim_usage(stderr);
		return 2;
	}
	return rw_sim_policies(o);
}

/* The runs to do, handed out to threads in a fixed order. */
struct rw_sim_work {
	const struct rw_sim_opts *o;
	const struct rw_sim_data *d;
	struct rw_sim_cell (*cells)[RW_SIM_POLICIES];
	pthread_mutex_t lock;
	u32 next, total;
	int err;
};

static void *rw_sim_worker(void *arg)
{
	struct rw_sim_work *wk = arg;
	const u32 nr_pol = wk->o->nr_pol, per_seed = RW_SIM_PROFILES * nr_pol;

	for (;;) {
		struct rw_sim_params sp = wk->o->sp;
		u32 task, seed, pr, po;
		int ret;

		pthread_mutex_lock(&wk->lock);
		task = wk->next++;
		pthread_mutex_unlock(&wk->lock);
		if (task >= wk->total)
			return NULL;
		seed = task / per_seed;
		pr = task % per_seed / nr_pol;
		po = task % nr_pol;
		if (!wk->o->want_profile[pr] || !wk->o->want_policy[po])
			continue;
		sp.seed = seed + 1;
		ret = rw_sim_run(pr, &wk->o->pol[po], &sp, wk->d,
				 &wk->cells[pr][po].r[seed]);
		if (ret) {
			fprintf(stderr, "sim-staleness: %s/%s seed %u: %s\n",
				rw_sim_profile_names[pr], wk->o->pol[po].name,
				seed + 1, strerror(-ret));
			pthread_mutex_lock(&wk->lock);
			wk->err = ret;
			pthread_mutex_unlock(&wk->lock);
		}
	}
}

int main(int argc, char **argv)
{
	static struct rw_sim_cell cells[RW_SIM_PROFILES][RW_SIM_POLICIES];
	struct rw_sim_opts o = {
		.sp = {
			.workers = 8, .iters = 400, .batch = 32, .lr = 1.6,
			.target = 0, .base_ns = 100000000ULL,
			.eval_ns = 100000000ULL, .hb_ns = 250000000ULL,
			.timeout_ns = 2 * RW_SIM_NS,
		},
	};
	struct rw_sim_work wk = { .o = &o, .cells = cells };
	pthread_t tid[8];
	struct rw_sim_data d;
	u32 pr, po, i;
	int ret;

	ret = rw_sim_parse(argc, argv, &o);
	if (ret)
		return ret;
	ret = rw_sim_data_load(&d, o.data);
	if (ret) {
		fprintf(stderr, "sim-staleness: cannot read %s: %s\n", o.data,
			strerror(-ret));
		return 1;
	}
	for (pr = 0; pr < RW_SIM_PROFILES; pr++)
		for (po = 0; po < o.nr_pol; po++)
			cells[pr][po].n = o.seeds;
	wk.d = &d;
	wk.total = o.seeds * RW_SIM_PROFILES * o.nr_pol;
	pthread_mutex_init(&wk.lock, NULL);
	for (i = 0; i < o.jobs; i++)
		if (pthread_create(&tid[i], NULL, rw_sim_worker, &wk))
			return 1;
	for (i = 0; i < o.jobs; i++)
		pthread_join(tid[i], NULL);
	if (wk.err)
		return 1;
	if (o.curves && rw_sim_write_curves(&o, cells)) {
		fprintf(stderr, "sim-staleness: cannot write %s\n", o.curves);
		return 1;
	}
	if (o.json)
		rw_sim_print_json(&o, cells);
	else
		rw_sim_print_text(&o, cells);
	rw_sim_data_free(&d);
	return 0;
}

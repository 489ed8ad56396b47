// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl stats: what a job and each of its workers have done.
 *
 *   job train1: epoch 2, 4 live, 0 parked, min clock 118, max skew 2
 *       pushes 48000  pulls 480  bytes 1.46 GiB  chunks 48000  steps 12000
 *       busy 12  migrations 0  evictions 0  errors 0  late_dropped 40
 *       box 2 of 3 (set epoch 1)
 *   rank  attached  live  clock  pushes  pulls     bytes  chunks  parks   parked  evictions  errors  late_dropped
 *      0  yes       yes     120     120    120   375 MiB   12000      3  1.20 ms          0       0            40
 *
 * A job over several boxes also has "moved out N chunks  moved in N chunks":
 * the chunks this box gave to and took from the set's other boxes in moves.
 *
 * late_dropped counts gradients that came after their step was done (a BSP
 * quorum below the worker count) and were dropped. The "box" line, of a
 * job with a box set only, says which box of the set these figures are
 * from: each box counts its own chunks' work, and "stats sum" adds the
 * boxes' documents up, one per box of the set.
 *
 * The columns are as wide as their widest cell; a counter the module did
 * not send is "-" in text and absent in JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "genl.h"
#include "job.h"
#include "print.h"
#include "rwctl.h"
#include "stats.h"

enum rwctl_stat_kind {
	RWCTL_STAT_NUM,			/* a count */
	RWCTL_STAT_BOOL,		/* 0 or 1: yes/no, true/false */
	RWCTL_STAT_BYTES,		/* human units in text */
	RWCTL_STAT_NS,			/* a duration, likewise */
};

struct rwctl_stat_field {
	int attr;
	const char *key;		/* JSON */
	const char *label;		/* text: column head, or a job label */
	enum rwctl_stat_kind kind;
};

/* The job's totals: one text line per group, NULL key ends a group. */
static const struct rwctl_stat_field rwctl_stats_job_fields[] = {
	{ RW_STAT_A_EPOCH, "epoch", "epoch %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_LIVE, "live", "%" PRIu64 " live", RWCTL_STAT_NUM },
	{ RW_STAT_A_PARKED, "parked", "%" PRIu64 " parked", RWCTL_STAT_NUM },
	{ RW_STAT_A_MIN_CLOCK, "min_clock", "min clock %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_MAX_SKEW, "max_skew", "max skew %" PRIu64, RWCTL_STAT_NUM },
	{ 0, NULL, NULL, 0 },
	{ RW_STAT_A_PUSHES, "pushes", "pushes %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_PULLS, "pulls", "pulls %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_BYTES, "bytes", "bytes %s", RWCTL_STAT_BYTES },
	{ RW_STAT_A_CHUNKS, "chunks", "chunks %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_STEPS, "steps", "steps %" PRIu64, RWCTL_STAT_NUM },
	{ 0, NULL, NULL, 0 },
	{ RW_STAT_A_BUSY, "busy", "busy %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_MIGRATIONS, "migrations", "migrations %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_EVICTIONS, "evictions", "evictions %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_ERRORS, "errors", "errors %" PRIu64, RWCTL_STAT_NUM },
	{ RW_STAT_A_LATE_DROPPED, "late_dropped", "late_dropped %" PRIu64,
	  RWCTL_STAT_NUM },
	{ 0, NULL, NULL, 0 },
	{ RW_STAT_A_MOVED_OUT, "moved_out", "moved out %" PRIu64 " chunks",
	  RWCTL_STAT_NUM },
	{ RW_STAT_A_MOVED_IN, "moved_in", "moved in %" PRIu64 " chunks",
	  RWCTL_STAT_NUM },
	{ 0, NULL, NULL, 0 },
};

#define RWCTL_STATS_NR_JOB \
	(sizeof(rwctl_stats_job_fields) / sizeof(rwctl_stats_job_fields[0]))

/* The worker table's columns, in order. */
static const struct rwctl_stat_field rwctl_stats_worker_fields[] = {
	{ RW_STAT_A_RANK, "rank", "rank", RWCTL_STAT_NUM },
	{ RW_STAT_A_ATTACHED, "attached", "attached", RWCTL_STAT_BOOL },
	{ RW_STAT_A_LIVE, "live", "live", RWCTL_STAT_BOOL },
	{ RW_STAT_A_CLOCK, "clock", "clock", RWCTL_STAT_NUM },
	{ RW_STAT_A_PUSHES, "pushes", "pushes", RWCTL_STAT_NUM },
	{ RW_STAT_A_PULLS, "pulls", "pulls", RWCTL_STAT_NUM },
	{ RW_STAT_A_BYTES, "bytes", "bytes", RWCTL_STAT_BYTES },
	{ RW_STAT_A_CHUNKS, "chunks", "chunks", RWCTL_STAT_NUM },
	{ RW_STAT_A_PARKS, "parks", "parks", RWCTL_STAT_NUM },
	{ RW_STAT_A_PARKED_NS, "parked_ns", "parked", RWCTL_STAT_NS },
	{ RW_STAT_A_EVICTIONS, "evictions", "evictions", RWCTL_STAT_NUM },
	{ RW_STAT_A_ERRORS, "errors", "errors", RWCTL_STAT_NUM },
	{ RW_STAT_A_LATE_DROPPED, "late_dropped", "late_dropped", RWCTL_STAT_NUM },
};

#define RWCTL_STATS_NR_COLS \
	(sizeof(rwctl_stats_worker_fields) / sizeof(rwctl_stats_worker_fields[0]))

#define RWCTL_STATS_CELL	24

static bool rwctl_stats_has(const struct rwctl_stat_set *set, int attr)
{
	return set->mask & (1U << attr);
}

/* A worker's cell as text: "-" when the module did not send it. */
static const char *rwctl_stats_cell(char buf[RWCTL_STATS_CELL],
				    const struct rwctl_stat_field *f,
				    const struct rwctl_stat_set *set)
{
	uint64_t v = set->v[f->attr];

	if (!rwctl_stats_has(set, f->attr))
		return "-";
	switch (f->kind) {
	case RWCTL_STAT_BOOL:
		return v ? "yes" : "no";
	case RWCTL_STAT_BYTES:
		return rwctl_pr_fmt_bytes(buf, v);
	case RWCTL_STAT_NS:
		return rwctl_pr_fmt_ns(buf, v);
	default:
		snprintf(buf, RWCTL_STATS_CELL, "%" PRIu64, v);
		return buf;
	}
}

/* One value: typed in JSON, as @fmt in text (@fmt gets a string for human units). */
static void rwctl_stats_value(struct rwctl_printer *p,
			      const struct rwctl_stat_field *f, uint64_t v,
			      const char *fmt, const char *text)
{
	switch (f->kind) {
	case RWCTL_STAT_BOOL:
		rwctl_pr_bool(p, f->key, fmt, v != 0);
		break;
	case RWCTL_STAT_BYTES:
	case RWCTL_STAT_NS:
		rwctl_pr_u64(p, f->key, NULL, v);
		rwctl_pr_text(p, fmt, text);
		break;
	default:
		rwctl_pr_u64(p, f->key, fmt, v);
		break;
	}
}

static void rwctl_stats_print_totals(struct rwctl_printer *p,
				     const struct rwctl_stat_set *set)
{
	const struct rwctl_stat_field *f;
	char buf[RWCTL_STATS_CELL], fmt[48];
	unsigned int in_line = 0, line = 0;
	size_t i;

	rwctl_pr_obj_open(p, "totals");
	for (i = 0; i < RWCTL_STATS_NR_JOB; i++) {
		f = &rwctl_stats_job_fields[i];
		if (!f->key) {
			/* The first line, "job NAME:", ends whatever follows. */
			if (in_line || !line)
				rwctl_pr_nl(p);
			in_line = 0;
			line++;
			continue;
		}
		if (!rwctl_stats_has(set, f->attr))
			continue;
		/* The first line goes on from "job NAME:". */
		snprintf(fmt, sizeof(fmt), "%s%s",
			 in_line ? (line ? "  " : ", ") : (line ? "    " : " "),
			 f->label);
		rwctl_stats_value(p, f, set->v[f->attr], fmt,
				  rwctl_stats_cell(buf, f, set));
		in_line++;
	}
	rwctl_pr_obj_close(p);
}

static void rwctl_stats_print_table(struct rwctl_printer *p,
				    const struct rwctl_stats *s)
{
	const struct rwctl_stat_field *f;
	unsigned int width[RWCTL_STATS_NR_COLS];
	char buf[RWCTL_STATS_CELL], fmt[32];
	const char *cell;
	size_t i, c, len;

	for (c = 0; c < RWCTL_STATS_NR_COLS; c++) {
		f = &rwctl_stats_worker_fields[c];
		width[c] = strlen(f->label);
		for (i = 0; i < s->nr_workers; i++) {
			len = strlen(rwctl_stats_cell(buf, f, &s->workers[i]));
			if (len > width[c])
				width[c] = len;
		}
	}

	if (!s->nr_workers)
		rwctl_pr_text(p, "no workers\n");
	/* Heads aligned as their cells: yes/no left, numbers right. */
	for (c = 0; s->nr_workers && c < RWCTL_STATS_NR_COLS; c++) {
		f = &rwctl_stats_worker_fields[c];
		rwctl_pr_text(p, f->kind == RWCTL_STAT_BOOL ? "%s%-*s" : "%s%*s",
			      c ? "  " : "", (int)width[c], f->label);
	}
	if (s->nr_workers)
		rwctl_pr_nl(p);

	rwctl_pr_arr_open(p, "workers");
	for (i = 0; i < s->nr_workers; i++) {
		rwctl_pr_obj_open(p, NULL);
		for (c = 0; c < RWCTL_STATS_NR_COLS; c++) {
			f = &rwctl_stats_worker_fields[c];
			cell = rwctl_stats_cell(buf, f, &s->workers[i]);
			if (!rwctl_stats_has(&s->workers[i], f->attr)) {
				rwctl_pr_text(p, "%s%*s", c ? "  " : "",
					      (int)width[c], cell);
				continue;
			}
			if (f->kind == RWCTL_STAT_NUM)
				snprintf(fmt, sizeof(fmt), "%s%%%u" PRIu64,
					 c ? "  " : "", width[c]);
			else
				snprintf(fmt, sizeof(fmt), "%s%%%s%us",
					 c ? "  " : "",
					 f->kind == RWCTL_STAT_BOOL ? "-" : "",
					 width[c]);
			rwctl_stats_value(p, f, s->workers[i].v[f->attr], fmt,
					  cell);
		}
		rwctl_pr_obj_close(p);
		rwctl_pr_nl(p);
	}
	rwctl_pr_arr_close(p);
}

/* Which box the figures are from, or how many boxes they are the sum of. */
static void rwctl_stats_print_boxes(struct rwctl_printer *p,
				    const struct rwctl_stats *s)
{
	if (!s->summed) {
		rwctl_boxes_print_line(p, &s->boxes, "    ");
		return;
	}
	rwctl_pr_u64(p, "boxes", "    sum over %" PRIu64, (uint64_t)s->summed);
	rwctl_pr_text(p, " box%s", s->summed == 1 ? "" : "es");
	if (s->boxes.nr)
		rwctl_pr_u32(p, "set_epoch", " (set epoch %u)", s->boxes.epoch);
	rwctl_pr_nl(p);
}

void rwctl_stats_print(struct rwctl_printer *p, const struct rwctl_stats *s)
{
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "name", "job %s:", s->name);
	rwctl_stats_print_totals(p, &s->job);
	rwctl_stats_print_boxes(p, s);
	rwctl_stats_print_table(p, s);
	rwctl_pr_obj_close(p);
}

static int rwctl_stats_show(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_list list = { 0 };
	struct rwctl_stats s = { 0 };
	struct rwctl_printer p;
	struct rwctl_err e;
	char msg[256];
	int err;

	if (argc < 1)
		return rwctl_usage_error(ctl, "stats", "'stats show' needs a JOB");
	if (rwctl_job_check_name(argv[0], msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "stats", "%s", msg);

	/* The job's box set, as "job show" gets it: which box this is. */
	err = rwctl_job_fetch(ctl, "stats show", argv[0], &list);
	if (err) {
		rwctl_job_list_free(&list);
		return err;
	}
	memset(&e, 0, sizeof(e));
	err = be->stats(argv[0], &s, &e);
	if (!err && list.nr == 1)
		s.boxes = list.jobs[0].boxes;
	rwctl_job_list_free(&list);
	if (err) {
		rwctl_stats_free(&s);
		return rwctl_job_report(ctl, "stats show", argv[0], err, &e,
					NULL);
	}
	rwctl_begin_output(ctl, &p);
	rwctl_stats_print(&p, &s);
	rwctl_stats_free(&s);
	return rwctl_end_output(ctl, &p);
}

/* Each FILE ("-": standard input, once) read into @d; errors reported. */
static int rwctl_stats_sum_read(struct rwctl *ctl, int argc, char **argv,
				struct rwctl_stats_docs *d)
{
	FILE *in = ctl->in ? ctl->in : stdin, *f;
	char msg[512];
	int i, err;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			err = rwctl_stats_read_file(in, "standard input", d,
						    msg, sizeof(msg));
		} else {
			f = fopen(argv[i], "r");
			if (!f) {
				fprintf(ctl->err, "rwctl: stats sum: cannot open %s: %s\n",
					argv[i], strerror(errno));
				return RWCTL_EXIT_ERR;
			}
			err = rwctl_stats_read_file(f, argv[i], d, msg,
						    sizeof(msg));
			fclose(f);
		}
		if (err) {
			fprintf(ctl->err, "rwctl: stats sum: %s\n", msg);
			return RWCTL_EXIT_ERR;
		}
	}
	return RWCTL_EXIT_OK;
}

static int rwctl_stats_sum(struct rwctl *ctl, int argc, char **argv)
{
	struct rwctl_stats_docs *d;
	struct rwctl_stats s = { 0 };
	struct rwctl_printer p;
	bool in_seen = false;
	char msg[512];
	int i, ret;

	if (argc < 1)
		return rwctl_usage_error(ctl, "stats",
					 "'stats sum' needs the 'rwctl -j stats show JOB' output of each box of the job: FILE... (- for standard input)");
	for (i = 0; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			return rwctl_usage_error(ctl, "stats",
						 "unexpected argument '%s' (options go before OBJECT; a file of that name is ./%s)",
						 argv[i], argv[i]);
		if (!strcmp(argv[i], "-") && in_seen)
			return rwctl_usage_error(ctl, "stats",
						 "'-' (standard input) given twice: it holds every document it has, one per line");
		in_seen |= !strcmp(argv[i], "-");
	}

	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(ctl->err, "rwctl: stats sum: out of memory\n");
		return RWCTL_EXIT_ERR;
	}
	ret = rwctl_stats_sum_read(ctl, argc, argv, d);
	if (ret)
		goto out;
	if (rwctl_stats_sum_docs(d, &s, msg, sizeof(msg))) {
		fprintf(ctl->err, "rwctl: stats sum: %s\n", msg);
		ret = RWCTL_EXIT_ERR;
		goto out;
	}
	rwctl_begin_output(ctl, &p);
	rwctl_stats_print(&p, &s);
	ret = rwctl_end_output(ctl, &p);
out:
	rwctl_stats_free(&s);
	rwctl_stats_docs_free(d);
	free(d);
	return ret;
}

static const struct rwctl_cmd rwctl_stats_cmds[] = {
	{
		.name = "show",
		.args = "JOB",
		.help = "a job's totals and a row of counters per worker",
		.details =
"stats show JOB\n"
"  Totals: gate epoch, live and parked workers, lowest clock and largest\n"
"  skew; pushes, pulls, gradient bytes and chunks pushed, optimizer steps;\n"
"  busy slots, chunk migrations, evictions, refused calls and gradients\n"
"  dropped late. Then per rank: attached, live, clock (iterations done),\n"
"  pushes, pulls, bytes, chunks, times parked by the gate and time spent\n"
"  parked, evictions, refused calls and late_dropped: gradients that came\n"
"  after a BSP quorum had completed their step, and were dropped.\n"
"  Counters count since the job was created, over all its runs; the\n"
"  gate's state (epoch, live, parked, clocks, skew) is the current run's.\n"
"  A job with a box set adds the line 'box S of N (set epoch E)' (JSON:\n"
"  box_set, as job show prints it): which box of the set the figures are\n"
"  from, so that 'stats sum' can tell the boxes' documents apart.\n",
		.max_args = 1,
		.run = rwctl_stats_show,
	},
	{
		.name = "sum",
		.args = "FILE...",
		.help = "each box's 'rwctl -j stats show JOB' summed over the job's box set",
		.details =
"stats sum FILE...\n"
"  A job over several boxes: its statistics over the set, printed as\n"
"  'stats show' prints one box's (the same text, the same JSON keys).\n"
"  rwctl asks its own host's module only, so each FILE holds the output of\n"
"  'rwctl -j stats show JOB' on one box of the set (- : standard input,\n"
"  one document per line), as 'ssh BOX rwctl -j stats show JOB' gives.\n"
"  Each box counts its own chunks, and an iteration pushes each chunk to\n"
"  its owner only, so these add up to a one-box run's figures:\n"
"    summed: pushes, bytes, chunks, steps, busy, migrations, evictions,\n"
"      errors, late_dropped; per rank pushes, bytes, chunks, parks,\n"
"      parked_ns, evictions, errors, late_dropped (parks and evictions\n"
"      count each box's gate: a rank parked by two boxes counts twice)\n"
"  What every box sees alike does not add up:\n"
"    least of the boxes': live, min_clock, pulls; per rank clock, pulls\n"
"      (a trainer's iteration and pull end when every box has answered)\n"
"    most of the boxes': epoch, parked, max_skew\n"
"    per rank attached, live: yes if yes on every box\n"
"  A figure some box lacks is left out. The documents must be one job's,\n"
"  with the same ranks, each box's once. Each says which box of the job's\n"
"  set it is from (box_set): they must be of one set (its epoch and\n"
"  boxes), each box once and none missing. Documents without a set (a job\n"
"  without one, or an older rwctl's) can be told apart by content only:\n"
"  two identical ones are refused as one box given twice. The sum says\n"
"  over how many boxes: 'sum over N boxes (set epoch E)' (JSON: boxes,\n"
"  set_epoch).\n",
		.max_args = RWCTL_STATS_SUM_MAX,
		.run = rwctl_stats_sum,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_stats = {
	.name = "stats",
	.help = "what a job and each of its workers have done",
	.cmds = rwctl_stats_cmds,
};

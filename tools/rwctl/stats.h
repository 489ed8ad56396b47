/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl stats: a job's counters (RW_CMD_STATS_GET) as plain structs, and
 * their printer.
 */
#ifndef RWCTL_STATS_H
#define RWCTL_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rackweave.h>

#include "boxes.h"

struct nlmsghdr;
struct rwctl_err;
struct rwctl_json;
struct rwctl_printer;

/*
 * One set of RW_STAT_A_* values, the job's or a worker's: v[a] holds
 * attribute a (u32 ones widened) when bit a of @mask says it came. A job
 * without a layout has no gate yet, so which counters come may vary;
 * only those that did are shown. The parser sets RW_STAT_A_LATE_DROPPED
 * always (0 from modules that do not count late drops).
 */
struct rwctl_stat_set {
	uint32_t mask;
	uint64_t v[RW_STAT_A_MAX + 1];
};

struct rwctl_stats {
	char name[RW_JOB_NAME_MAX];
	struct rwctl_stat_set job;
	struct rwctl_stat_set *workers;	/* by rank, each with RW_STAT_A_RANK */
	size_t nr_workers;
	/*
	 * One box's: the job's box set, self this box (nr 0: the job has
	 * none). A sum: the set its documents carried, self 0.
	 */
	struct rwctl_boxes boxes;
	size_t summed;			/* a sum over so many boxes; 0: one box's */
};

/* Free the workers and zero @s; safe on a zeroed or half-parsed struct. */
void rwctl_stats_free(struct rwctl_stats *s);

/*
 * Parse one RW_CMD_STATS_GET reply into @s (zeroed first). The name and
 * RW_JOB_A_STATS must come, integers with their exact length, each worker
 * entry with its rank and no rank twice. Attributes and entries newer than
 * this rwctl are ignored. Returns 0 or -EPROTO (-ENOMEM) with a sentence
 * in @msg; free @s whatever the result.
 */
int rwctl_genl_parse_stats(struct nlmsghdr *nlh, struct rwctl_stats *s,
			   char *msg, size_t msglen);

/* The job backend's stats operation over generic netlink. */
int rwctl_stats_genl_get(const char *name, struct rwctl_stats *s,
			 struct rwctl_err *e);

/*
 * "rwctl stats show": the job's totals, then a table with a row per
 * worker (the last column late_dropped); JSON {"name", "totals": {...},
 * "workers": [{...}]}. With a box set, "box_set" after "totals" as "job
 * show" prints it, and in text the line "box S of N (set epoch E)"; a sum
 * has instead "boxes": N (and "set_epoch" with a set), and the line "sum
 * over N boxes (set epoch E)".
 */
void rwctl_stats_print(struct rwctl_printer *p, const struct rwctl_stats *s);

/*
 * "rwctl stats sum" (stats-sum.c): the "rwctl -j stats show JOB" documents
 * of a job's boxes read back, and the job's statistics over the set.
 */
#define RWCTL_STATS_SUM_MAX	RW_JOB_MAX_BOXES

struct rwctl_stats_docs {
	struct rwctl_stats doc[RWCTL_STATS_SUM_MAX];
	/* Where each came from, for messages: @src as given, its first line. */
	const char *src[RWCTL_STATS_SUM_MAX];
	size_t line[RWCTL_STATS_SUM_MAX];
	size_t nr;
};

/* Free every document and zero @d. */
void rwctl_stats_docs_free(struct rwctl_stats_docs *d);

/*
 * Every document of @text (@len bytes, whitespace between documents, as
 * one per line), named @src in messages (kept in @d: it must outlive @d),
 * appended to @d. Each must be an
 * object with "name" (a job name), "totals" (an object) and "workers" (an
 * array of objects, each with its "rank", none twice), and "box_set" if
 * it has one (rwctl_stats_read_set()); values of the keys "stats show"
 * writes must have its types and ranges, other keys are ignored, and a
 * missing "late_dropped" is 0. 0, or a negative errno with
 * a sentence naming @src, the line and the column in @msg: -EINVAL for
 * what is not such JSON, -ENODATA for no document, -E2BIG for more than
 * RWCTL_STATS_SUM_MAX in @d.
 */
int rwctl_stats_read(const char *text, size_t len, const char *src,
		     struct rwctl_stats_docs *d, char *msg, size_t msglen);

/* rwctl_stats_read() of all of @f; also -EIO, -EFBIG past 16 MiB. */
int rwctl_stats_read_file(FILE *f, const char *src,
			  struct rwctl_stats_docs *d, char *msg,
			  size_t msglen);

/*
 * The job's statistics over its box set into @sum (free it with
 * rwctl_stats_free()): the documents must be of one job, with the same
 * ranks, and each box's once: with a box set, of one set and every box of
 * it (rwctl_stats_check_sets()); without, no two identical (one file
 * given twice). Counters of chunk work are added, the gate's state and
 * what every box counts alike take the least or the most (stats-sum.c's
 * tables, rwctl(8)); a figure some document lacks is left out. @sum's
 * summed is the number of documents and its boxes their set (self 0).
 * 0, or -ENODATA (no document), -EINVAL or -EOVERFLOW with a sentence in
 * @msg.
 */
int rwctl_stats_sum_docs(const struct rwctl_stats_docs *d,
			 struct rwctl_stats *sum, char *msg, size_t msglen);

/*
 * stats-set.c: the "box_set" of the document @doc into @b (zeroed first;
 * nr 0 without one): an object with "epoch" (1 or more), "self" and
 * "boxes", an array of 1..RW_JOB_MAX_BOXES objects each with its "id"
 * (1..RW_BOX_MAX_ID), none twice, self one of them; their other keys are
 * ignored. A document with "boxes" at the top is a sum, not one box's.
 * 0, or -EINVAL with a sentence in @msg.
 */
int rwctl_stats_read_set(const struct rwctl_json *doc, struct rwctl_boxes *b,
			 char *msg, size_t msglen);

/*
 * The documents of @d say which box they are from all or none; those that
 * do are of one set (epoch and boxes), each box once, and as many as the
 * set has boxes. 0, or -EINVAL with a sentence naming the documents, or
 * the box twice or missing, in @msg.
 */
int rwctl_stats_check_sets(const struct rwctl_stats_docs *d, char *msg,
			   size_t msglen);

#endif /* RWCTL_STATS_H */

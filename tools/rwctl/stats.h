/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl stats: a job's counters (RW_CMD_STATS_GET) as plain structs, and
 * their printer.
 */
#ifndef RWCTL_STATS_H
#define RWCTL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

struct nlmsghdr;
struct rwctl_err;
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
 * "workers": [{...}]}.
 */
void rwctl_stats_print(struct rwctl_printer *p, const struct rwctl_stats *s);

#endif /* RWCTL_STATS_H */

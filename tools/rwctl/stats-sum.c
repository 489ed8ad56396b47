// SPDX-License-Identifier: GPL-2.0
/*
 * "rwctl stats sum": a job's statistics over its box set, from the
 * "rwctl -j stats show JOB" document of each box. rwctl asks its own
 * host's module only, so the boxes' documents are brought here as files.
 *
 * Each box counts what it does with its own chunks, and an iteration pushes
 * each chunk to its owner only: the counters of chunk work add up to the
 * job's, the figures of a one-box run. What every box counts alike (the
 * gate's state, a trainer's pulls and iterations, which every box answers
 * and sees) does not add up: it is the least or the most of the boxes',
 * as the tables below say, and the man page repeats.
 *
 * A job with a box set says in each document which box of the set it is
 * from (stats-set.c): each box's must come once, and none be missing.
 * Documents without a set (of a job without one, or from an rwctl whose
 * "stats show" does not print it) are told apart by content only: two
 * identical ones are refused as one file given twice.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "json.h"
#include "stats.h"

enum rwctl_sum_rule {
	RWCTL_SUM_ADD,			/* each box's share of the work */
	RWCTL_SUM_MIN,			/* what every box has */
	RWCTL_SUM_MAX,			/* the most any box has */
	RWCTL_SUM_ALL,			/* a flag true on every box */
	RWCTL_SUM_SAME,			/* the rank: rows are matched by it */
};

struct rwctl_sum_field {
	int attr;
	const char *key;		/* as rwctl_stats_print() writes it */
	bool flag;			/* JSON true/false, else a number */
	uint64_t max;			/* largest value the uapi carries */
	enum rwctl_sum_rule rule;
};

#define U32	UINT32_MAX
#define U64	UINT64_MAX

static const struct rwctl_sum_field rwctl_sum_job_fields[] = {
	{ RW_STAT_A_EPOCH, "epoch", false, U32, RWCTL_SUM_MAX },
	{ RW_STAT_A_LIVE, "live", false, U32, RWCTL_SUM_MIN },
	{ RW_STAT_A_PARKED, "parked", false, U32, RWCTL_SUM_MAX },
	{ RW_STAT_A_MIN_CLOCK, "min_clock", false, U64, RWCTL_SUM_MIN },
	{ RW_STAT_A_MAX_SKEW, "max_skew", false, U64, RWCTL_SUM_MAX },
	{ RW_STAT_A_PUSHES, "pushes", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_PULLS, "pulls", false, U64, RWCTL_SUM_MIN },
	{ RW_STAT_A_BYTES, "bytes", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_CHUNKS, "chunks", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_STEPS, "steps", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_BUSY, "busy", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_MIGRATIONS, "migrations", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_EVICTIONS, "evictions", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_ERRORS, "errors", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_LATE_DROPPED, "late_dropped", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_MOVED_OUT, "moved_out", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_MOVED_IN, "moved_in", false, U64, RWCTL_SUM_ADD },
};

static const struct rwctl_sum_field rwctl_sum_worker_fields[] = {
	{ RW_STAT_A_RANK, "rank", false, U32, RWCTL_SUM_SAME },
	{ RW_STAT_A_ATTACHED, "attached", true, 1, RWCTL_SUM_ALL },
	{ RW_STAT_A_LIVE, "live", true, 1, RWCTL_SUM_ALL },
	{ RW_STAT_A_CLOCK, "clock", false, U64, RWCTL_SUM_MIN },
	{ RW_STAT_A_PUSHES, "pushes", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_PULLS, "pulls", false, U64, RWCTL_SUM_MIN },
	{ RW_STAT_A_BYTES, "bytes", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_CHUNKS, "chunks", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_PARKS, "parks", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_PARKED_NS, "parked_ns", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_EVICTIONS, "evictions", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_ERRORS, "errors", false, U64, RWCTL_SUM_ADD },
	{ RW_STAT_A_LATE_DROPPED, "late_dropped", false, U64, RWCTL_SUM_ADD },
};

#undef U32
#undef U64

#define RWCTL_NR(a)	(sizeof(a) / sizeof((a)[0]))

/* A document larger than this is not "stats show" output of any job. */
#define RWCTL_STATS_DOC_MAX	(16U << 20)

static int rwctl_sum_fail(char *msg, size_t msglen, int err,
			  const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rwctl_sum_fail(char *msg, size_t msglen, int err,
			  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return err;
}

void rwctl_stats_docs_free(struct rwctl_stats_docs *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		rwctl_stats_free(&d->doc[i]);
	memset(d, 0, sizeof(*d));
}

/* The fields of @fields found in the JSON object @obj, into @set. */
static int rwctl_sum_set(const struct rwctl_json *obj,
			 const struct rwctl_sum_field *fields, size_t nr,
			 struct rwctl_stat_set *set, const char *what,
			 char *msg, size_t msglen)
{
	const struct rwctl_json *v;
	size_t i;

	memset(set, 0, sizeof(*set));
	for (i = 0; i < nr; i++) {
		v = rwctl_json_get(obj, fields[i].key);
		if (!v)
			continue;
		if (fields[i].flag && v->type == RWCTL_JSON_BOOL) {
			set->v[fields[i].attr] = v->b;
		} else if (!fields[i].flag && v->type == RWCTL_JSON_NUM &&
			   v->is_u64 && v->u64 <= fields[i].max) {
			set->v[fields[i].attr] = v->u64;
		} else {
			return rwctl_sum_fail(msg, msglen, -EINVAL,
					      "%s: \"%s\" is %s, not %s",
					      what, fields[i].key,
					      rwctl_json_what(v),
					      fields[i].flag ? "true or false" :
					      fields[i].max == UINT32_MAX ?
					      "a whole number below 2^32" :
					      "a whole number below 2^64");
		}
		set->mask |= 1U << fields[i].attr;
	}
	/* As from the module: a document without late drops had none. */
	set->mask |= 1U << RW_STAT_A_LATE_DROPPED;
	return 0;
}

static int rwctl_sum_cmp_rank(const void *a, const void *b)
{
	const struct rwctl_stat_set *x = a, *y = b;

	return x->v[RW_STAT_A_RANK] < y->v[RW_STAT_A_RANK] ? -1 :
	       x->v[RW_STAT_A_RANK] > y->v[RW_STAT_A_RANK];
}

static int rwctl_sum_workers(const struct rwctl_json *arr,
			     struct rwctl_stats *s, char *msg, size_t msglen)
{
	const struct rwctl_json *e;
	char what[48];
	size_t n = 0, i;
	int err;

	for (e = arr->child; e; e = e->next)
		n++;
	s->workers = calloc(n + 1, sizeof(*s->workers));
	if (!s->workers)
		return rwctl_sum_fail(msg, msglen, -ENOMEM, "out of memory");
	for (e = arr->child; e; e = e->next, s->nr_workers++) {
		snprintf(what, sizeof(what), "workers[%zu]", s->nr_workers);
		if (e->type != RWCTL_JSON_OBJ)
			return rwctl_sum_fail(msg, msglen, -EINVAL,
					      "%s is %s, not an object", what,
					      rwctl_json_what(e));
		err = rwctl_sum_set(e, rwctl_sum_worker_fields,
				    RWCTL_NR(rwctl_sum_worker_fields),
				    &s->workers[s->nr_workers], what, msg,
				    msglen);
		if (err)
			return err;
		if (!rwctl_json_get(e, "rank"))
			return rwctl_sum_fail(msg, msglen, -EINVAL,
					      "%s has no \"rank\"", what);
	}
	qsort(s->workers, s->nr_workers, sizeof(*s->workers),
	      rwctl_sum_cmp_rank);
	for (i = 1; i < s->nr_workers; i++)
		if (s->workers[i].v[RW_STAT_A_RANK] ==
		    s->workers[i - 1].v[RW_STAT_A_RANK])
			return rwctl_sum_fail(msg, msglen, -EINVAL,
					      "rank %llu is in \"workers\" twice",
					      (unsigned long long)s->workers[i].v[RW_STAT_A_RANK]);
	return 0;
}

/* One document, {"name", "totals": {...}, "workers": [...]}, into @s. */
static int rwctl_sum_doc(const struct rwctl_json *doc, struct rwctl_stats *s,
			 char *msg, size_t msglen)
{
	const struct rwctl_json *name, *totals, *workers;
	char why[128];

	if (doc->type != RWCTL_JSON_OBJ)
		return rwctl_sum_fail(msg, msglen, -EINVAL,
				      "%s, not an object", rwctl_json_what(doc));
	name = rwctl_json_get(doc, "name");
	totals = rwctl_json_get(doc, "totals");
	workers = rwctl_json_get(doc, "workers");
	if (!name || !totals || !workers)
		return rwctl_sum_fail(msg, msglen, -EINVAL,
				      "no \"%s\"", !name ? "name" :
				      !totals ? "totals" : "workers");
	if (name->type != RWCTL_JSON_STR)
		return rwctl_sum_fail(msg, msglen, -EINVAL,
				      "\"name\" is %s, not a string",
				      rwctl_json_what(name));
	if (rwctl_job_check_name(name->str, why, sizeof(why)))
		return rwctl_sum_fail(msg, msglen, -EINVAL, "\"name\": %s", why);
	snprintf(s->name, sizeof(s->name), "%s", name->str);
	if (totals->type != RWCTL_JSON_OBJ || workers->type != RWCTL_JSON_ARR)
		return rwctl_sum_fail(msg, msglen, -EINVAL, "%s",
				      totals->type != RWCTL_JSON_OBJ ?
				      "\"totals\" is not an object" :
				      "\"workers\" is not an array");
	if (rwctl_sum_set(totals, rwctl_sum_job_fields,
			  RWCTL_NR(rwctl_sum_job_fields), &s->job, "totals",
			  msg, msglen))
		return -EINVAL;
	if (rwctl_sum_workers(workers, s, msg, msglen))
		return -EINVAL;
	return rwctl_stats_read_set(doc, &s->boxes, msg, msglen);
}

/* 1-based line and column of byte @pos of @text. */
static void rwctl_sum_where(const char *text, size_t pos, size_t *line,
			    size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int rwctl_stats_read(const char *text, size_t len, const char *src,
		     struct rwctl_stats_docs *d, char *msg, size_t msglen)
{
	struct rwctl_json *doc;
	size_t pos = 0, start, line, col, found = 0;
	char why[256];
	int ret;

	for (;;) {
		start = pos;
		ret = rwctl_json_next(text, len, &pos, &doc, why, sizeof(why));
		if (ret < 0) {
			rwctl_sum_where(text, pos, &line, &col);
			return rwctl_sum_fail(msg, msglen, ret,
					      "%s:%zu:%zu: not JSON: %s", src,
					      line, col, why);
		}
		if (!ret)
			break;
		/* The document starts after the whitespace before it. */
		while (start < len && (text[start] == ' ' || text[start] == '\t' ||
				       text[start] == '\n' || text[start] == '\r'))
			start++;
		rwctl_sum_where(text, start, &line, &col);
		if (d->nr == RWCTL_STATS_SUM_MAX) {
			rwctl_json_free(doc);
			return rwctl_sum_fail(msg, msglen, -E2BIG,
					      "%s:%zu: more than %d documents: a box set has at most %d boxes",
					      src, line, RWCTL_STATS_SUM_MAX,
					      RWCTL_STATS_SUM_MAX);
		}
		d->src[d->nr] = src;
		d->line[d->nr] = line;
		ret = rwctl_sum_doc(doc, &d->doc[d->nr], why, sizeof(why));
		rwctl_json_free(doc);
		d->nr++;
		if (ret)
			return rwctl_sum_fail(msg, msglen, ret,
					      "%s:%zu: not the output of 'rwctl -j stats show JOB': %s",
					      src, line, why);
		found++;
	}
	if (!found)
		return rwctl_sum_fail(msg, msglen, -ENODATA,
				      "%s is empty: expected the output of 'rwctl -j stats show JOB'",
				      src);
	return 0;
}

int rwctl_stats_read_file(FILE *f, const char *src, struct rwctl_stats_docs *d,
			  char *msg, size_t msglen)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *p;
	int ret;

	for (;;) {
		if (len == cap) {
			if (cap >= RWCTL_STATS_DOC_MAX) {
				ret = rwctl_sum_fail(msg, msglen, -EFBIG,
						     "%s is larger than %u MiB: not statistics of a box",
						     src, RWCTL_STATS_DOC_MAX >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p) {
				ret = rwctl_sum_fail(msg, msglen, -ENOMEM,
						     "out of memory");
				goto out;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n)
			continue;
		if (ferror(f)) {
			ret = rwctl_sum_fail(msg, msglen, -EIO,
					     "cannot read %s: %s", src,
					     strerror(errno));
			goto out;
		}
		break;
	}
	ret = rwctl_stats_read(buf ? buf : "", len, src, d, msg, msglen);
out:
	free(buf);
	return ret;
}

static bool rwctl_sum_set_equal(const struct rwctl_stat_set *a,
				const struct rwctl_stat_set *b)
{
	int i;

	if (a->mask != b->mask)
		return false;
	for (i = 0; i <= RW_STAT_A_MAX; i++)
		if ((a->mask & (1U << i)) && a->v[i] != b->v[i])
			return false;
	return true;
}

static bool rwctl_sum_doc_equal(const struct rwctl_stats *a,
				const struct rwctl_stats *b)
{
	size_t i;

	if (strcmp(a->name, b->name) || a->nr_workers != b->nr_workers ||
	    !rwctl_sum_set_equal(&a->job, &b->job))
		return false;
	for (i = 0; i < a->nr_workers; i++)
		if (!rwctl_sum_set_equal(&a->workers[i], &b->workers[i]))
			return false;
	return true;
}

/* The documents are one job's, each box's once, with the same ranks. */
static int rwctl_sum_check(const struct rwctl_stats_docs *d, char *msg,
			   size_t msglen)
{
	const struct rwctl_stats *a = &d->doc[0], *b;
	size_t i, j, k;
	int err;

	if (!d->nr)
		return rwctl_sum_fail(msg, msglen, -ENODATA,
				      "no statistics to sum");
	for (i = 1; i < d->nr; i++)
		if (strcmp(a->name, d->doc[i].name))
			return rwctl_sum_fail(msg, msglen, -EINVAL,
					      "%s:%zu is job '%s' but %s:%zu is job '%s': give one job's statistics, one document per box",
					      d->src[0], d->line[0], a->name,
					      d->src[i], d->line[i],
					      d->doc[i].name);
	err = rwctl_stats_check_sets(d, msg, msglen);
	if (err)
		return err;
	for (i = 1; i < d->nr; i++) {
		b = &d->doc[i];
		/* Without a set, content alone tells a file given twice. */
		for (j = 0; !a->boxes.nr && j < i; j++)
			if (rwctl_sum_doc_equal(&d->doc[j], b))
				return rwctl_sum_fail(msg, msglen, -EINVAL,
						      "%s:%zu and %s:%zu are the same statistics, and say no box: one box given twice? Give each box's once",
						      d->src[j], d->line[j],
						      d->src[i], d->line[i]);
		for (j = 0; j < a->nr_workers && j < b->nr_workers; j++)
			if (a->workers[j].v[RW_STAT_A_RANK] !=
			    b->workers[j].v[RW_STAT_A_RANK])
				break;
		if (j == a->nr_workers && j == b->nr_workers)
			continue;
		/* The first rank one has and the other not. */
		k = j < a->nr_workers &&
		    (j == b->nr_workers ||
		     a->workers[j].v[RW_STAT_A_RANK] <
		     b->workers[j].v[RW_STAT_A_RANK]) ? 0 : i;
		return rwctl_sum_fail(msg, msglen, -EINVAL,
				      "%s:%zu has rank %llu but %s:%zu does not: a job has the same workers on every box",
				      d->src[k], d->line[k],
				      (unsigned long long)d->doc[k].workers[j].v[RW_STAT_A_RANK],
				      d->src[k ? 0 : i], d->line[k ? 0 : i]);
	}
	return 0;
}

/* @from folded into @into by @fields' rules; -EOVERFLOW names the key. */
static int rwctl_sum_fold(struct rwctl_stat_set *into,
			  const struct rwctl_stat_set *from,
			  const struct rwctl_sum_field *fields, size_t nr,
			  const char **key)
{
	uint64_t *x, y;
	size_t i;
	int a;

	for (i = 0; i < nr; i++) {
		a = fields[i].attr;
		/* A figure some box lacks is unknown for the set. */
		if (!(from->mask & (1U << a)))
			into->mask &= ~(1U << a);
		if (!(into->mask & (1U << a)))
			continue;
		x = &into->v[a];
		y = from->v[a];
		switch (fields[i].rule) {
		case RWCTL_SUM_ADD:
			if (*x > UINT64_MAX - y) {
				*key = fields[i].key;
				return -EOVERFLOW;
			}
			*x += y;
			break;
		case RWCTL_SUM_MIN:
			*x = *x < y ? *x : y;
			break;
		case RWCTL_SUM_MAX:
			*x = *x > y ? *x : y;
			break;
		case RWCTL_SUM_ALL:
			*x = *x && y;
			break;
		case RWCTL_SUM_SAME:
			break;
		}
	}
	return 0;
}

int rwctl_stats_sum_docs(const struct rwctl_stats_docs *d,
			 struct rwctl_stats *sum, char *msg, size_t msglen)
{
	const char *key = NULL;
	size_t i, w;
	int err;

	memset(sum, 0, sizeof(*sum));
	err = rwctl_sum_check(d, msg, msglen);
	if (err)
		return err;
	*sum = d->doc[0];
	sum->workers = calloc(sum->nr_workers + 1, sizeof(*sum->workers));
	if (!sum->workers) {
		sum->nr_workers = 0;
		return rwctl_sum_fail(msg, msglen, -ENOMEM, "out of memory");
	}
	memcpy(sum->workers, d->doc[0].workers,
	       sum->nr_workers * sizeof(*sum->workers));
	sum->summed = d->nr;
	sum->boxes.self = 0;
	for (i = 1; i < d->nr; i++) {
		err = rwctl_sum_fold(&sum->job, &d->doc[i].job,
				     rwctl_sum_job_fields,
				     RWCTL_NR(rwctl_sum_job_fields), &key);
		for (w = 0; !err && w < sum->nr_workers; w++)
			err = rwctl_sum_fold(&sum->workers[w],
					     &d->doc[i].workers[w],
					     rwctl_sum_worker_fields,
					     RWCTL_NR(rwctl_sum_worker_fields),
					     &key);
		if (err)
			return rwctl_sum_fail(msg, msglen, err,
					      "the sum of %s\"%s\" passes 2^64 - 1: are these statistics real?",
					      w ? "a rank's " : "", key);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * "rwctl stats sum": which box each document is from. "rwctl -j stats
 * show JOB" of a job with a box set carries the set as "job show" prints
 * it ("box_set": {"epoch", "self", "boxes": [{"id", ...}]}); read back, the
 * documents must be of one set, each of its boxes once and none missing.
 * Two boxes may well count the same (a job not trained yet, an even
 * split), so by their ids, not their figures, are they told apart.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "genl.h"
#include "json.h"
#include "stats.h"

/* A whole number in @min..@max, or -EINVAL naming @key of "box_set". */
static int rwctl_set_num(const struct rwctl_json *obj, const char *key,
			 uint32_t min, uint32_t max, uint32_t *out,
			 const char *what, char *msg, size_t msglen)
{
	const struct rwctl_json *v = rwctl_json_get(obj, key);

	if (!v)
		return rwctl_genl_fail(msg, msglen, -EINVAL, "%s has no \"%s\"",
				       what, key);
	if (v->type != RWCTL_JSON_NUM || !v->is_u64 || v->u64 < min ||
	    v->u64 > max)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "%s: \"%s\" is %s, not a whole number %u..%u",
				       what, key, rwctl_json_what(v), min, max);
	*out = (uint32_t)v->u64;
	return 0;
}

static bool rwctl_set_has(const struct rwctl_boxes *b, uint32_t id)
{
	size_t i;

	for (i = 0; i < b->nr; i++)
		if (b->box[i].id == id)
			return true;
	return false;
}

int rwctl_stats_read_set(const struct rwctl_json *doc, struct rwctl_boxes *b,
			 char *msg, size_t msglen)
{
	const struct rwctl_json *set, *arr, *e;
	char what[48];
	uint32_t id;
	int err;

	memset(b, 0, sizeof(*b));
	e = rwctl_json_get(doc, "boxes");
	if (e)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "\"boxes\" at the top: 'rwctl stats sum' output, a sum already, not one box's");
	set = rwctl_json_get(doc, "box_set");
	if (!set)
		return 0;
	if (set->type != RWCTL_JSON_OBJ)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "\"box_set\" is %s, not an object",
				       rwctl_json_what(set));
	err = rwctl_set_num(set, "epoch", 1, UINT32_MAX, &b->epoch, "box_set",
			    msg, msglen);
	if (!err)
		err = rwctl_set_num(set, "self", 1, RW_BOX_MAX_ID, &b->self,
				    "box_set", msg, msglen);
	if (err)
		return err;
	arr = rwctl_json_get(set, "boxes");
	if (!arr || arr->type != RWCTL_JSON_ARR || !arr->child)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "box_set: \"boxes\" is %s, not an array of boxes",
				       arr ? rwctl_json_what(arr) : "missing");
	for (e = arr->child; e; e = e->next) {
		snprintf(what, sizeof(what), "box_set: boxes[%zu]", b->nr);
		if (b->nr == RW_JOB_MAX_BOXES)
			return rwctl_genl_fail(msg, msglen, -EINVAL,
					       "box_set: more than %d boxes",
					       RW_JOB_MAX_BOXES);
		if (e->type != RWCTL_JSON_OBJ)
			return rwctl_genl_fail(msg, msglen, -EINVAL,
					       "%s is %s, not an object", what,
					       rwctl_json_what(e));
		err = rwctl_set_num(e, "id", 1, RW_BOX_MAX_ID, &id, what, msg,
				    msglen);
		if (err)
			return err;
		if (rwctl_set_has(b, id))
			return rwctl_genl_fail(msg, msglen, -EINVAL,
					       "box_set: box %u is in \"boxes\" twice",
					       id);
		b->box[b->nr++].id = id;
	}
	if (!rwctl_set_has(b, b->self))
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "box_set: \"self\" %u is not one of its \"boxes\"",
				       b->self);
	return 0;
}

/* Document @i of @d as "FILE:LINE". */
#define RWCTL_AT(d, i)	(d)->src[i], (d)->line[i]

/* Document @i's set is document 0's: the same epoch and boxes. */
static int rwctl_set_same(const struct rwctl_stats_docs *d, size_t i,
			  char *msg, size_t msglen)
{
	const struct rwctl_boxes *a = &d->doc[0].boxes, *b = &d->doc[i].boxes;
	size_t j;

	if (a->epoch != b->epoch)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "%s:%zu is box %u of the set of epoch %u but %s:%zu box %u of epoch %u: give every box's statistics of one set",
				       RWCTL_AT(d, 0), a->self, a->epoch,
				       RWCTL_AT(d, i), b->self, b->epoch);
	if (a->nr != b->nr)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "%s:%zu has a set of %zu boxes but %s:%zu one of %zu, both epoch %u: the boxes were given different sets",
				       RWCTL_AT(d, 0), a->nr, RWCTL_AT(d, i),
				       b->nr, a->epoch);
	for (j = 0; j < a->nr; j++)
		if (!rwctl_set_has(b, a->box[j].id))
			return rwctl_genl_fail(msg, msglen, -EINVAL,
					       "box %u is in the set (epoch %u) of %s:%zu but not of %s:%zu: the boxes were given different sets",
					       a->box[j].id, a->epoch,
					       RWCTL_AT(d, 0), RWCTL_AT(d, i));
	return 0;
}

/* The boxes of the set no document is from, as "box 3" or "boxes 2, 3". */
static int rwctl_set_missing(const struct rwctl_stats_docs *d, char *msg,
			     size_t msglen)
{
	const struct rwctl_boxes *set = &d->doc[0].boxes;
	char list[512];
	size_t i, j, n = 0, len = 0;

	list[0] = '\0';
	for (i = 0; i < set->nr; i++) {
		for (j = 0; j < d->nr; j++)
			if (d->doc[j].boxes.self == set->box[i].id)
				break;
		if (j < d->nr)
			continue;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%u", n ? ", " : "",
						set->box[i].id);
		n++;
	}
	return rwctl_genl_fail(msg, msglen, -EINVAL,
			       "box%s %s of the set (epoch %u) %s missing: the set has %zu boxes and %zu of them were given; give each box's statistics once",
			       n == 1 ? "" : "es", list, set->epoch,
			       n == 1 ? "is" : "are", set->nr, d->nr);
}

int rwctl_stats_check_sets(const struct rwctl_stats_docs *d, char *msg,
			   size_t msglen)
{
	size_t i, j, k;
	int err;

	for (i = 1; i < d->nr; i++) {
		if (!d->doc[i].boxes.nr != !d->doc[0].boxes.nr) {
			k = d->doc[0].boxes.nr ? 0 : i;
			return rwctl_genl_fail(msg, msglen, -EINVAL,
					       "%s:%zu says which box of the set it is from (\"box_set\") but %s:%zu does not: give the output of an rwctl whose 'stats show' has it, on every box",
					       RWCTL_AT(d, k), RWCTL_AT(d, k ? 0 : i));
		}
	}
	if (!d->nr || !d->doc[0].boxes.nr)
		return 0;
	for (i = 1; i < d->nr; i++) {
		err = rwctl_set_same(d, i, msg, msglen);
		if (err)
			return err;
		for (j = 0; j < i; j++)
			if (d->doc[j].boxes.self == d->doc[i].boxes.self)
				return rwctl_genl_fail(msg, msglen, -EINVAL,
						       "%s:%zu and %s:%zu are both box %u of the set (epoch %u): give each box's statistics once",
						       RWCTL_AT(d, j), RWCTL_AT(d, i),
						       d->doc[i].boxes.self,
						       d->doc[i].boxes.epoch);
	}
	/* Distinct boxes of one set: as many as it has, or some missing. */
	if (d->nr < d->doc[0].boxes.nr)
		return rwctl_set_missing(d, msg, msglen);
	return 0;
}

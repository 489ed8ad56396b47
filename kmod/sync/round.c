// SPDX-License-Identifier: GPL-2.0
/*
 * Rounds (round.h): the step rule of a chunk under every policy. Pure and
 * deterministic: ranks are scanned in order, and ties go to the lowest.
 */
#include "sync/round.h"

bool rw_round_test(const u64 *bits, u32 p)
{
	return (bits[p / 64] >> (p % 64)) & 1;
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_test);

static void rw_round_set(u64 *bits, u32 p)
{
	bits[p / 64] |= 1ULL << (p % 64);
}

static void rw_round_clear(u64 *bits, u32 p)
{
	bits[p / 64] &= ~(1ULL << (p % 64));
}

u32 rw_round_weight(const u64 *bits)
{
	u32 i, n = 0;
	u64 x;

	for (i = 0; i < RW_ROUND_WORDS; i++)
		for (x = bits[i]; x; x &= x - 1)
			n++;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_weight);

void rw_round_recount(struct rw_round_view *v)
{
	u32 p;

	v->nr_members = 0;
	v->max_join = 0;
	for (p = 0; p < v->nr_ranks; p++) {
		if (!v->gen[p])
			continue;
		v->nr_members++;
		v->max_join = max_t(u64, v->max_join, v->join[p]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_recount);

int rw_round_view_init(struct rw_round_view *v, u32 nr_ranks,
		       const struct rw_round_rule *rule)
{
	u32 p;

	if (!v || !rule || !nr_ranks || nr_ranks > RW_ROUND_MAX_RANKS)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	v->nr_ranks = nr_ranks;
	v->rule = *rule;
	v->old = *rule;
	for (p = 0; p < nr_ranks; p++)
		v->gen[p] = 1;
	rw_round_recount(v);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_view_init);

/*
 * Rounds in progress are at or above the previous switch, so one old rule
 * (the one in force until now) is all they need.
 */
void rw_round_view_rule(struct rw_round_view *v,
			const struct rw_round_rule *rule, u64 from)
{
	v->old = v->rule;
	v->rule = *rule;
	v->from = max_t(u64, v->from, from);
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_view_rule);

void rw_round_view_member(struct rw_round_view *v, u32 p, u32 gen, u64 join)
{
	if (p >= v->nr_ranks)
		return;
	v->gen[p] = gen;
	v->join[p] = gen ? join : 0;
	rw_round_recount(v);
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_view_member);

const struct rw_round_rule *rw_round_rule_at(const struct rw_round_view *v,
					     u64 iter)
{
	return iter < v->from ? &v->old : &v->rule;
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_rule_at);

int rw_round_hold(struct rw_round *r, u32 nr_ranks, u32 p)
{
	if (p >= nr_ranks || p >= RW_ROUND_MAX_RANKS ||
	    rw_round_test(r->held, p))
		return -EINVAL;
	rw_round_set(r->held, p);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_hold);

/* Members needed in iteration @i. */
static u32 rw_round_eligible(const struct rw_round_view *v, u64 i)
{
	u32 p, n = 0;

	if (v->max_join <= i)
		return v->nr_members;
	for (p = 0; p < v->nr_ranks; p++)
		n += v->gen[p] && v->join[p] <= i;
	return n;
}

/* Keep the lowest @need ranks of @bits. */
static void rw_round_trim(u64 *bits, u32 need)
{
	u32 p, n = 0;

	for (p = 0; p < RW_ROUND_MAX_RANKS; p++) {
		if (!rw_round_test(bits, p))
			continue;
		if (n < need)
			n++;
		else
			rw_round_clear(bits, p);
	}
}

void rw_round_decide(const struct rw_round_view *v, const struct rw_round *r,
		     const struct rw_round_tag *tags, struct rw_round_out *out)
{
	u64 i = r->iter;
	u32 p, ncur = 0, elig, need;
	const struct rw_round_rule *ru;

	memset(out, 0, sizeof(*out));
	/* Synchronous rounds start again where the rule says they do. */
	if (i < v->from && v->old.each && !v->rule.each)
		i = v->from;
	out->iter = i;
	for (p = 0; p < v->nr_ranks; p++) {
		const struct rw_round_tag *t = &tags[p];
		u64 ti;

		if (!rw_round_test(r->held, p))
			continue;
		out->rank = p;
		if (t->gen && t->gen != v->gen[p]) {
			out->act = RW_ROUND_DROP;
			return;
		}
		ti = t->iter == RW_ROUND_ANY ? i : t->iter;
		if (rw_round_rule_at(v, ti)->each) {
			out->act = RW_ROUND_ONE;
			return;
		}
		if (ti < i) {
			out->act = RW_ROUND_LATE;
			return;
		}
		if (ti == i) {
			rw_round_set(out->sum, p);
			ncur++;
		}
	}
	out->rank = 0;
	ru = rw_round_rule_at(v, i);
	elig = rw_round_eligible(v, i);
	need = ru->quorum && ru->quorum < elig ? ru->quorum : elig;
	if (ru->each || !need || ncur < need || (v->stop && i >= v->stop)) {
		memset(out->sum, 0, sizeof(out->sum));
		return;
	}
	if (ncur > need)
		rw_round_trim(out->sum, need);
	out->act = RW_ROUND_STEP;
	out->nsum = need;
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_decide);

void rw_round_apply(struct rw_round *r, const struct rw_round_out *out)
{
	u32 i;

	r->iter = out->iter;
	switch (out->act) {
	case RW_ROUND_DROP:
	case RW_ROUND_LATE:
	case RW_ROUND_ONE:
		rw_round_clear(r->held, out->rank);
		break;
	case RW_ROUND_STEP:
		for (i = 0; i < RW_ROUND_WORDS; i++)
			r->held[i] &= ~out->sum[i];
		r->iter = out->iter + 1;
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_round_apply);

// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the kmod/sync cmocka tests; see synctest.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "synctest.h"

struct rw_gate_config st_cfg(u32 policy, u32 nr, u32 s, u32 lo, u32 hi)
{
	struct rw_gate_config cfg = {
		.policy = policy, .nr_workers = nr, .s = s, .s_lo = lo,
		.s_hi = hi,
	};

	return cfg;
}

void st_new(struct st_gate *sg, const struct rw_gate_config *cfg, u64 now)
{
	u32 win = rw_gate_window(cfg);

	memset(sg, 0, sizeof(*sg));
	sg->w = calloc(cfg->nr_workers, sizeof(*sg->w));
	sg->ts = calloc((size_t)cfg->nr_workers * win, sizeof(*sg->ts));
	assert_non_null(sg->w);
	assert_non_null(sg->ts);
	assert_int_equal(rw_gate_init(&sg->g, cfg, sg->w, sg->ts, now), 0);
	assert_int_equal(rw_gate_check(&sg->g), 0);
}

void st_free(struct st_gate *sg)
{
	free(sg->w);
	free(sg->ts);
	memset(sg, 0, sizeof(*sg));
}

void st_snap_take(struct st_snap *s, const struct st_gate *sg)
{
	u32 n = sg->g.cfg.nr_workers;

	assert_true(n <= ST_MAX_W);
	memset(s, 0, sizeof(*s));
	s->g = sg->g;
	memcpy(s->w, sg->w, n * sizeof(*sg->w));
	memcpy(s->ts, sg->ts, (size_t)n * sg->g.cfg.window * sizeof(*sg->ts));
}

void st_snap_same(const struct st_snap *s, const struct st_gate *sg)
{
	u32 n = sg->g.cfg.nr_workers;

	assert_memory_equal(&s->g, &sg->g, sizeof(s->g));
	assert_memory_equal(s->w, sg->w, n * sizeof(*sg->w));
	assert_memory_equal(s->ts, sg->ts,
			    (size_t)n * sg->g.cfg.window * sizeof(*sg->ts));
}

static const char *const st_op_name[] = {
	"request", "push", "heartbeat", "evict", "expire", "join",
};

void st_run(struct st_gate *sg, const struct st_step *steps, u32 n)
{
	u32 epoch[ST_MAX_W] = { 0 }, out[ST_MAX_W], i, k;
	char what[96];

	for (i = 0; i < n; i++) {
		const struct st_step *st = &steps[i];
		u32 ep = st->use_epoch ? st->epoch : epoch[st->p];
		u64 mask = 0;
		int ret = 0;
		bool adv = false;

		snprintf(what, sizeof(what), "step %u: %s of worker %u at %llu ns",
			 i, st_op_name[st->op], st->p, (unsigned long long)st->t);
		switch (st->op) {
		case ST_REQ:
			ret = rw_gate_request(&sg->g, st->p, ep, st->t);
			break;
		case ST_PUSH:
			ret = rw_gate_push(&sg->g, st->p, ep, st->t, &adv);
			break;
		case ST_HB:
			ret = rw_gate_heartbeat(&sg->g, st->p, ep, st->t);
			break;
		case ST_EVICT:
			ret = rw_gate_evict(&sg->g, st->p, st->t);
			break;
		case ST_EXPIRE:
			ret = (int)rw_gate_expire(&sg->g, st->t, out, ST_MAX_W);
			for (k = 0; k < (u32)ret; k++)
				mask |= 1ULL << out[k];
			if (mask != st->evicted)
				fail_msg("%s: evicted %#llx, expected %#llx", what,
					 (unsigned long long)mask,
					 (unsigned long long)st->evicted);
			mask = 0;
			break;
		case ST_JOIN:
			ret = rw_gate_join(&sg->g, st->p, st->t, &epoch[st->p]);
			break;
		}
		if (ret != st->expect)
			fail_msg("%s: returned %d, expected %d", what, ret, st->expect);
		k = rw_gate_release(&sg->g, st->t, out, ST_MAX_W);
		while (k--)
			mask |= 1ULL << out[k];
		if (mask != st->released)
			fail_msg("%s: released %#llx, expected %#llx", what,
				 (unsigned long long)mask,
				 (unsigned long long)st->released);
		if (rw_gate_check(&sg->g))
			fail_msg("%s: invariant broken", what);
	}
}

u64 st_rand(u64 *s)
{
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

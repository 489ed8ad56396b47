/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the staleness gate share and no one else calls:
 *  - member.c: heartbeats, eviction, joins, new settings;
 *  - request.c: requests, pushes, parking and release, the hold;
 *  - adapt.c: the ADAPTIVE rules, the paces and the controller;
 *  - gate.c: settings, set-up, the clocks over live workers.
 * Each calls only files below it in that list. The module's glue (sync.c),
 * the engine, the tests and the simulator go through gate.h. Pure, like
 * them: compat.h and gate.h only.
 */
#ifndef _RW_SYNC_GATE_PRIV_H
#define _RW_SYNC_GATE_PRIV_H

#include "compat.h"
#include "gate.h"

static inline u64 rw_gate_sat_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

static inline u64 rw_gate_sat_mul(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

static inline u64 rw_gate_since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

static inline bool rw_gate_valid(const struct rw_gate *g, u32 p)
{
	return g && p < g->cfg.nr_workers;
}

/* 0, or -ESTALE for a worker that is gone or speaks for an old epoch. */
static inline int rw_gate_current(const struct rw_gate *g, u32 p, u32 epoch)
{
	const struct rw_gate_worker *x = &g->w[p];

	return x->live && x->epoch == epoch ? 0 : -ESTALE;
}

/* gate.c */
int rw_gate_config_check(const struct rw_gate_config *cfg);
bool rw_gate_backups(const struct rw_gate *g);
u64 rw_gate_limit(const struct rw_gate *g);
void rw_gate_refloor(struct rw_gate *g);
void rw_gate_rescan(struct rw_gate *g);

/* request.c */
bool rw_gate_admissible(const struct rw_gate *g,
			const struct rw_gate_worker *x);
void rw_gate_unpark(struct rw_gate *g, struct rw_gate_worker *x, u64 now);

/* adapt.c */
void rw_gate_record(struct rw_gate *g, struct rw_gate_worker *x, u64 iter_ns);
bool rw_gate_follower(const struct rw_gate *g, const struct rw_gate_worker *x);
bool rw_gate_consumes(const struct rw_gate *g, const struct rw_gate_worker *x);
bool rw_gate_grant(struct rw_gate *g, struct rw_gate_worker *x,
		   u64 now, u64 *key);

#endif /* _RW_SYNC_GATE_PRIV_H */

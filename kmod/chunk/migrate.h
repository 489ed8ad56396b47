/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rebalancing a running engine (implemented in chunk/migrate.c). The engine
 * starts and stops its windows itself; these are for callers that want a
 * window now.
 */
#ifndef _RW_CHUNK_MIGRATE_H
#define _RW_CHUNK_MIGRATE_H

#include <linux/types.h>

struct rw_engine;

/*
 * One rebalancing window now: chunks move between cores of a node when the
 * work measured since the last window is skewed. Returns chunks moved.
 */
int rw_engine_rebalance(struct rw_engine *e);

#if IS_ENABLED(CONFIG_KUNIT)
/* A window with given loads (core_load NULL: measured ones). */
int rw_engine_rebalance_loads(struct rw_engine *e, const u64 *core_load,
			      const u64 *chunk_load);
#endif

#endif /* _RW_CHUNK_MIGRATE_H */

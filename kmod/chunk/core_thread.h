/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation cores (implemented in chunk/core_thread.c): a bound kthread
 * per CPU of a job, each draining its own lockless queue of chunk events.
 */
#ifndef _RW_CHUNK_CORE_THREAD_H
#define _RW_CHUNK_CORE_THREAD_H

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/types.h>

struct task_struct;

/* What an event asks of the core that owns its chunk. */
enum rw_event_type {
	RW_EV_PUSH,	/* a worker's gradient for the chunk has landed */
	RW_EV_MIGRATE,	/* hand the chunk to another core (rebalance) */
	RW_EV_RECHECK,	/* membership or rules changed: look again */
};

/*
 * One entry in a core's queue. Push events are embedded in the receive
 * slot they describe, so the fast path never allocates: a slot is queued
 * at most once at a time (its owner refuses a second push while the first
 * is in flight).
 */
struct rw_event {
	struct llist_node node;
	u32 chunk;
	u16 worker;
	u16 type;			/* enum rw_event_type */
};

struct rw_core;
typedef void (*rw_core_handler_t)(struct rw_core *core, struct rw_event *ev);
typedef void (*rw_core_idle_t)(struct rw_core *core);

/*
 * An aggregation core: a kthread bound to one CPU draining one lockless
 * multi-producer, single-consumer queue. Producers (completion handlers,
 * local pushers, the rebalancer) run anywhere; only the thread consumes,
 * so the per-chunk state a core owns needs no lock.
 */
struct rw_core {
	struct llist_head queue;
	struct task_struct *thread;
	rw_core_handler_t handle;
	rw_core_idle_t idle;		/* after each batch taken (or NULL) */
	void *owner;			/* the engine, for the handler */
	unsigned int cpu;
	int node;
	u32 index;			/* in the engine's core array */

	/* Written by the thread only; read by anyone for statistics. */
	u64 events;
	atomic64_t busy_ns;		/* time spent in the handler */
};

int rw_core_start(struct rw_core *core, const char *job_name);
void rw_core_stop(struct rw_core *core);
void rw_core_put(struct rw_core *core);

/* Queue @ev on @core and wake its thread if the queue was empty. */
void rw_core_post(struct rw_core *core, struct rw_event *ev);

#endif /* _RW_CHUNK_CORE_THREAD_H */

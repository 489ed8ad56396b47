// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation cores: one kthread per CPU of a job's core set, bound to that
 * CPU, each draining its own lockless queue of chunk events.
 *
 * Why kthreads and not softirq or a plain workqueue: summing and optimizing
 * a chunk takes microseconds of FPU work (kernel_fpu_begin disables
 * preemption), which does not belong in softirq; and a chunk must always be
 * handled by the same core so its state stays in that core's cache and
 * needs no lock. A bound kthread gives both.
 *
 * Queue protocol (llist: lock-free for any number of producers against one
 * consumer that takes the whole list at once):
 *  - producer: llist_add(); if the list was empty, wake the thread.
 *  - consumer: mark itself sleeping, then look; an add that races with the
 *    check wakes it (wake_up_process sets it running), so no wake-up is
 *    lost. Events are handled in arrival order (llist is LIFO; reversed),
 *    a batch (all the thread took at once) at a time, and the owner's idle
 *    hook runs after each batch, before the thread looks again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#include "core_thread.h"

static void rw_core_drain(struct rw_core *core)
{
	struct llist_node *list;
	struct rw_event *ev, *next;
	u64 t0;

	list = llist_reverse_order(llist_del_all(&core->queue));
	t0 = ktime_get_ns();
	llist_for_each_entry_safe(ev, next, list, node) {
		/*
		 * Counted before it is handled: whoever sees the effect of an
		 * event (a new version) also sees it counted.
		 */
		WRITE_ONCE(core->events, core->events + 1);
		core->handle(core, ev);
	}
	/* The batch is done: what the handler held back for it goes out. */
	if (core->idle)
		core->idle(core);
	atomic64_add(ktime_get_ns() - t0, &core->busy_ns);
}

static int rw_core_thread(void *data)
{
	struct rw_core *core = data;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		if (llist_empty(&core->queue)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		rw_core_drain(core);
		cond_resched();
	}
	/* Whatever raced in after the last drain is still handled. */
	rw_core_drain(core);
	return 0;
}

int rw_core_start(struct rw_core *core, const char *job_name)
{
	struct task_struct *t;

	init_llist_head(&core->queue);
	t = kthread_create_on_node(rw_core_thread, core, core->node,
				   "rw/%s/%u", job_name, core->cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, core->cpu);
	/* Held until rw_core_put(): producers may wake it until then. */
	get_task_struct(t);
	core->thread = t;
	wake_up_process(t);
	return 0;
}

/*
 * Stop the thread after it has handled everything queued so far. Callers
 * stop producers first, so nothing is posted after this returns.
 */
void rw_core_stop(struct rw_core *core)
{
	if (core->thread)
		kthread_stop(core->thread);
}

/*
 * Drop the thread once every core of the engine has stopped: until then a
 * stopping core may still forward an event and wake this one's (exited,
 * still referenced) task, which is harmless.
 */
void rw_core_put(struct rw_core *core)
{
	if (core->thread)
		put_task_struct(core->thread);
	core->thread = NULL;
}

/*
 * While a job is torn down, a core that is stopping may pass an event on to
 * one that has already stopped: the event then waits in the queue, and the
 * engine collects it after every core has stopped.
 */
void rw_core_post(struct rw_core *core, struct rw_event *ev)
{
	if (llist_add(&ev->node, &core->queue) && core->thread)
		wake_up_process(core->thread);
}

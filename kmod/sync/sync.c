// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate in the kernel: the pure gate (kmod/sync/gate.h)
 * decides, this file adds the lock, the sleeping, the clock and the
 * eviction timer.
 *
 * One spinlock per job serialises every gate call (they are short: at most
 * O(workers) for a release). It is taken with bottom halves off, so a push
 * may come from a completion handler as well as from a process. A parked
 * worker sleeps on the job's wait queue until its waiter state leaves
 * RW_SYNC_PARKED; whoever changes that state (a push that releases it, an
 * eviction) does so under the lock and then wakes the queue, and the
 * sleeper re-checks the state after every wake-up, so no release is lost
 * whatever order pushes and waits run in.
 *
 * Silent workers are evicted by a delayed work that runs every quarter of
 * the eviction timeout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "sync/sync.h"
#include "trace.h"

enum rw_sync_state {
	RW_SYNC_IDLE,		/* not waiting */
	RW_SYNC_PARKED,		/* parked in the gate, maybe sleeping */
	RW_SYNC_RELEASED,	/* released, not yet seen by its waiter */
	RW_SYNC_EVICTED,	/* evicted while parked */
};

struct rw_sync {
	spinlock_t lock;		/* protects gate, w, ts, state */
	struct rw_gate gate;
	struct rw_gate_worker *w;
	u64 *ts;
	u8 *state;			/* enum rw_sync_state per worker */
	u32 *scratch;			/* released or evicted workers */
	wait_queue_head_t wq;
	rw_sync_notify_t notify;	/* silent workers evicted, locked */
	void *notify_arg;
	rw_sync_members_t members;	/* membership or settings changed */
	void *members_arg;
	struct delayed_work expire_work;
	unsigned long expire_period;	/* jiffies; 0: no timer */
	char name[24];			/* the job's, for trace events */
};

/* Mark the listed workers and report whether a waiter must be woken. */
static bool rw_sync_mark(struct rw_sync *s, const u32 *list, u32 n, u8 to)
{
	bool wake = false;
	u32 i;

	lockdep_assert_held(&s->lock);
	for (i = 0; i < n; i++) {
		if (s->state[list[i]] == RW_SYNC_PARKED) {
			s->state[list[i]] = to;
			wake = true;
		}
	}
	return wake;
}

static bool rw_sync_release_locked(struct rw_sync *s, u64 now)
{
	u32 n = rw_gate_release(&s->gate, now, s->scratch,
				s->gate.cfg.nr_workers);

	return rw_sync_mark(s, s->scratch, n, RW_SYNC_RELEASED);
}

static void rw_sync_changed(struct rw_sync *s)
{
	lockdep_assert_held(&s->lock);
	if (s->members)
		s->members(s->members_arg, &s->gate);
}

/* The waiter's view: stop sleeping once the state is no longer PARKED. */
static bool rw_sync_settled(struct rw_sync *s, u32 p)
{
	bool done;

	spin_lock_bh(&s->lock);
	done = s->state[p] != RW_SYNC_PARKED;
	spin_unlock_bh(&s->lock);
	return done;
}

int rw_sync_wait(struct rw_sync *s, u32 p, u32 epoch, long timeout)
{
	long left;
	int ret;

	if (p >= s->gate.cfg.nr_workers)
		return -EINVAL;
	spin_lock_bh(&s->lock);
	switch (s->state[p]) {
	case RW_SYNC_RELEASED:		/* released after an earlier timeout */
		s->state[p] = RW_SYNC_IDLE;
		spin_unlock_bh(&s->lock);
		return 0;
	case RW_SYNC_EVICTED:
		s->state[p] = RW_SYNC_IDLE;
		spin_unlock_bh(&s->lock);
		return -ESTALE;
	case RW_SYNC_IDLE:
		ret = rw_gate_request(&s->gate, p, epoch, ktime_get_ns());
		if (ret != RW_GATE_PARK) {
			spin_unlock_bh(&s->lock);
			return ret < 0 ? ret : 0;
		}
		s->state[p] = RW_SYNC_PARKED;
		trace_rw_gate_wait(s->name, p, s->gate.w[p].clock,
				   s->gate.w[p].key);
		break;
	}
	spin_unlock_bh(&s->lock);

	left = wait_event_interruptible_timeout(s->wq, rw_sync_settled(s, p),
						timeout);
	spin_lock_bh(&s->lock);
	switch (s->state[p]) {
	case RW_SYNC_RELEASED:
		s->state[p] = RW_SYNC_IDLE;
		ret = 0;
		break;
	case RW_SYNC_EVICTED:
		s->state[p] = RW_SYNC_IDLE;
		ret = -ESTALE;
		break;
	default:
		/* Still parked: the next call resumes this wait. */
		ret = left < 0 ? left : -ETIMEDOUT;
		break;
	}
	trace_rw_gate_release(s->name, p, s->gate.w[p].clock, ret);
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_wait);

int rw_sync_push(struct rw_sync *s, u32 p, u32 epoch)
{
	bool advanced = false, wake = false;
	u64 now = ktime_get_ns();
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_push(&s->gate, p, epoch, now, &advanced);
	if (!ret && advanced)
		wake = rw_sync_release_locked(s, now);
	spin_unlock_bh(&s->lock);
	if (wake)
		wake_up_all(&s->wq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_push);

int rw_sync_heartbeat(struct rw_sync *s, u32 p, u32 epoch)
{
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_heartbeat(&s->gate, p, epoch, ktime_get_ns());
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_heartbeat);

/* After evictions: tell evicted waiters, release those c_min now allows. */
static bool rw_sync_after_evict(struct rw_sync *s, const u32 *gone, u32 n,
				u64 now)
{
	bool wake;
	u32 i;

	lockdep_assert_held(&s->lock);
	for (i = 0; i < n; i++)
		trace_rw_evict(s->name, gone[i]);
	rw_sync_changed(s);
	wake = rw_sync_mark(s, gone, n, RW_SYNC_EVICTED);
	return rw_sync_release_locked(s, now) || wake;
}

int rw_sync_evict(struct rw_sync *s, u32 p)
{
	u64 now = ktime_get_ns();
	bool wake = false;
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_evict(&s->gate, p, now);
	if (ret > 0)
		wake = rw_sync_after_evict(s, &p, 1, now);
	spin_unlock_bh(&s->lock);
	if (wake)
		wake_up_all(&s->wq);
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_evict);

u32 rw_sync_expire(struct rw_sync *s)
{
	u64 now = ktime_get_ns();
	bool wake = false;
	u32 n;

	spin_lock_bh(&s->lock);
	n = rw_gate_expire(&s->gate, now, s->scratch, s->gate.cfg.nr_workers);
	if (n && s->notify) {
		u32 i;

		for (i = 0; i < n; i++)
			s->notify(s->notify_arg, s->scratch[i]);
	}
	if (n)
		wake = rw_sync_after_evict(s, s->scratch, n, now);
	spin_unlock_bh(&s->lock);
	/* Pollers of an idle evicted worker learn of it too. */
	if (wake || n)
		wake_up_all(&s->wq);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_expire);

int rw_sync_join(struct rw_sync *s, u32 p, u32 *epoch)
{
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_join(&s->gate, p, ktime_get_ns(), epoch);
	if (!ret) {
		s->state[p] = RW_SYNC_IDLE;
		rw_sync_changed(s);
	}
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_join);

int rw_sync_enter(struct rw_sync *s, u32 p, u32 *epoch)
{
	int ret = 0;

	if (p >= s->gate.cfg.nr_workers)
		return -EINVAL;
	spin_lock_bh(&s->lock);
	if (s->w[p].live) {
		*epoch = s->w[p].epoch;
	} else {
		ret = rw_gate_join(&s->gate, p, ktime_get_ns(), epoch);
		if (!ret) {
			s->state[p] = RW_SYNC_IDLE;
			rw_sync_changed(s);
		}
	}
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_enter);

__poll_t rw_sync_poll(struct rw_sync *s, u32 p, struct file *file,
		      poll_table *pt)
{
	if (p >= s->gate.cfg.nr_workers)
		return EPOLLERR;
	poll_wait(file, &s->wq, pt);
	return rw_sync_settled(s, p) ? EPOLLIN : 0;
}

void rw_sync_set_notify(struct rw_sync *s, rw_sync_notify_t fn, void *arg)
{
	spin_lock_bh(&s->lock);
	s->notify = fn;
	s->notify_arg = arg;
	spin_unlock_bh(&s->lock);
}

void rw_sync_set_name(struct rw_sync *s, const char *name)
{
	strscpy(s->name, name, sizeof(s->name));
}

void rw_sync_set_members(struct rw_sync *s, rw_sync_members_t fn, void *arg)
{
	spin_lock_bh(&s->lock);
	s->members = fn;
	s->members_arg = arg;
	rw_sync_changed(s);
	spin_unlock_bh(&s->lock);
}

int rw_sync_reconfigure(struct rw_sync *s, const struct rw_gate_config *cfg)
{
	u64 now = ktime_get_ns();
	unsigned long period = 0;
	bool wake = false;
	int ret;

	if (cfg->evict_timeout_ns)
		period = max(1UL, nsecs_to_jiffies(cfg->evict_timeout_ns / 4));
	spin_lock_bh(&s->lock);
	ret = rw_gate_reconfigure(&s->gate, cfg, now);
	if (!ret) {
		rw_sync_changed(s);
		wake = rw_sync_release_locked(s, now);
		WRITE_ONCE(s->expire_period, period);
	}
	spin_unlock_bh(&s->lock);
	if (ret)
		return ret;
	if (wake)
		wake_up_all(&s->wq);
	/* The timer re-arms itself with the period it reads. */
	if (period)
		mod_delayed_work(system_wq, &s->expire_work, period);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_reconfigure);

u64 rw_sync_hold(struct rw_sync *s)
{
	u64 at;

	spin_lock_bh(&s->lock);
	rw_gate_hold(&s->gate, true);
	at = s->gate.hold_at;
	spin_unlock_bh(&s->lock);
	return at;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_hold);

void rw_sync_unhold(struct rw_sync *s)
{
	bool wake;

	spin_lock_bh(&s->lock);
	rw_gate_hold(&s->gate, false);
	wake = rw_sync_release_locked(s, ktime_get_ns());
	spin_unlock_bh(&s->lock);
	if (wake)
		wake_up_all(&s->wq);
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_unhold);

int rw_sync_hold_own(struct rw_sync *s, u32 p, u32 epoch)
{
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_hold_own(&s->gate, p, epoch);
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_hold_own);

int rw_sync_withdraw(struct rw_sync *s, u32 p, u32 epoch)
{
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_withdraw(&s->gate, p, epoch);
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_withdraw);

bool rw_sync_running(struct rw_sync *s)
{
	bool ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_running(&s->gate);
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_running);

int rw_sync_worker_clock(struct rw_sync *s, u32 p, u32 epoch, u64 *clock)
{
	int ret = -ESTALE;

	if (p >= s->gate.cfg.nr_workers)
		return -EINVAL;
	spin_lock_bh(&s->lock);
	if (s->w[p].live && s->w[p].epoch == epoch) {
		*clock = s->w[p].clock;
		ret = 0;
	}
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_worker_clock);

void rw_sync_info(struct rw_sync *s, struct rw_sync_info *info)
{
	spin_lock_bh(&s->lock);
	info->min_clock = s->gate.min_clock;
	info->max_skew = s->gate.max_skew;
	info->epoch = s->gate.epoch;
	info->nr_live = s->gate.nr_live;
	info->nr_parked = s->gate.nr_parked;
	spin_unlock_bh(&s->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_info);

int rw_sync_worker_stats(struct rw_sync *s, u32 p, struct rw_gate_stats *st,
			 u64 *clock, bool *live)
{
	if (p >= s->gate.cfg.nr_workers)
		return -EINVAL;
	spin_lock_bh(&s->lock);
	*st = s->w[p].stats;
	*clock = s->w[p].clock;
	*live = s->w[p].live;
	spin_unlock_bh(&s->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_worker_stats);

bool rw_sync_worker_live(struct rw_sync *s, u32 p)
{
	return !rw_sync_worker_epoch(s, p, NULL);
}

int rw_sync_worker_epoch(struct rw_sync *s, u32 p, u32 *epoch)
{
	int ret = -ESTALE;

	if (p >= s->gate.cfg.nr_workers)
		return -ESTALE;
	spin_lock_bh(&s->lock);
	if (s->w[p].live) {
		if (epoch)
			*epoch = s->w[p].epoch;
		ret = 0;
	}
	spin_unlock_bh(&s->lock);
	return ret;
}

#if IS_ENABLED(CONFIG_KUNIT)
int rw_sync_check(struct rw_sync *s)
{
	int ret;

	spin_lock_bh(&s->lock);
	ret = rw_gate_check(&s->gate);
	spin_unlock_bh(&s->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_check);
#endif

static void rw_sync_expire_work(struct work_struct *work)
{
	struct rw_sync *s = container_of(to_delayed_work(work), struct rw_sync,
					 expire_work);

	unsigned long period;

	rw_sync_expire(s);
	/* rw_sync_reconfigure() may have changed it, or stopped it (0). */
	period = READ_ONCE(s->expire_period);
	if (period)
		schedule_delayed_work(&s->expire_work, period);
}

static void rw_sync_free(struct rw_sync *s)
{
	kfree(s->scratch);
	kfree(s->state);
	kvfree(s->ts);
	kvfree(s->w);
	kfree(s);
}

struct rw_sync *rw_sync_create(const struct rw_gate_config *cfg)
{
	u32 n = cfg->nr_workers, win = rw_gate_window(cfg);
	struct rw_sync *s;
	int ret;

	if (!n || n > RW_GATE_MAX_WORKERS || !win || win > RW_GATE_MAX_WINDOW)
		return ERR_PTR(-EINVAL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	INIT_DELAYED_WORK(&s->expire_work, rw_sync_expire_work);
	s->w = kvcalloc(n, sizeof(*s->w), GFP_KERNEL);
	s->ts = kvcalloc(array_size(n, win), sizeof(*s->ts), GFP_KERNEL);
	s->state = kcalloc(n, sizeof(*s->state), GFP_KERNEL);
	s->scratch = kcalloc(n, sizeof(*s->scratch), GFP_KERNEL);
	ret = -ENOMEM;
	if (!s->w || !s->ts || !s->state || !s->scratch)
		goto err;
	ret = rw_gate_init(&s->gate, cfg, s->w, s->ts, ktime_get_ns());
	if (ret)
		goto err;
	if (cfg->evict_timeout_ns) {
		s->expire_period = max(1UL, nsecs_to_jiffies(cfg->evict_timeout_ns / 4));
		schedule_delayed_work(&s->expire_work, s->expire_period);
	}
	return s;
err:
	rw_sync_free(s);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_create);

/* The caller has stopped every worker's calls; nobody waits any more. */
void rw_sync_destroy(struct rw_sync *s)
{
	if (IS_ERR_OR_NULL(s))
		return;
	cancel_delayed_work_sync(&s->expire_work);
	rw_sync_free(s);
}
EXPORT_SYMBOL_IF_KUNIT(rw_sync_destroy);

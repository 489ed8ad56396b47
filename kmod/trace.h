/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RackWeave's trace events, under the "rackweave" system of tracefs
 * (/sys/kernel/tracing/events/rackweave/). Created in kmod/trace.c only;
 * a disabled event costs a static branch. What each one says:
 *
 *   rw_xfer          a push, pull or pushpull ioctl entered (op: 1 push,
 *                    2 pull, 3 both; the ranges asked for, 0: all)
 *   rw_xfer_done     that ioctl returns (its result); with rw_xfer, the
 *                    caller's pid ties it to the pushes it queued
 *   rw_push          a worker's chunk handed to its core (job, rank, chunk,
 *                    the iteration it belongs to; -1: untagged)
 *   rw_arrive        the chunk's owner thread took a pushed chunk off its
 *                    queue (job, rank, chunk): queued to running
 *   rw_step          a chunk stepped on its core: the iteration, how many
 *                    ranks were summed, the optimizer, the new version and
 *                    the time the kernel took (ns)
 *   rw_publish       the chunk's new version visible to pullers
 *   rw_gate_wait     a worker parked in the gate: its clock, and the
 *                    minimum clock (BSP: the quorum's) it waits for
 *   rw_gate_release  the park ended: 0 released, -ESTALE evicted,
 *                    -ETIMEDOUT or a signal (still parked)
 *   rw_evict         the gate dropped a worker (silent, killed, removed)
 *   rw_attach        a worker attached (a remote one: its connection)
 *   rw_detach        a worker left
 *   rw_wire_push     the box received a chunk over RDMA (the immediate's
 *                    clock bits)
 *   rw_wire_write    the box wrote a chunk's parameters to a remote worker
 *   rw_wire_error    a connection failed: what, and the completion status
 *                    or errno
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rackweave

#if !defined(_RW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RW_TRACE_H

#include <linux/tracepoint.h>

#define rw_show_optim(o)					\
	__print_symbolic(o, { 0, "sgd" }, { 1, "momentum" },	\
			 { 2, "nesterov" }, { 3, "adam" },	\
			 { 4, "average" })

TRACE_EVENT(rw_push,
	    TP_PROTO(const char *job, u32 rank, u32 chunk, u64 iter),
	    TP_ARGS(job, rank, chunk, iter),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, rank)
			     __field(u32, chunk)
			     __field(s64, iter)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->rank = rank;
			   __entry->chunk = chunk;
			   __entry->iter = (s64)iter;),
	    TP_printk("job=%s rank=%u chunk=%u iter=%lld", __get_str(job),
		      __entry->rank, __entry->chunk, __entry->iter)
);

TRACE_EVENT(rw_xfer,
	    TP_PROTO(const char *job, u32 op, u32 nr),
	    TP_ARGS(job, op, nr),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, op)
			     __field(u32, nr)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->op = op;
			   __entry->nr = nr;),
	    TP_printk("job=%s op=%u nr=%u", __get_str(job), __entry->op,
		      __entry->nr)
);

TRACE_EVENT(rw_xfer_done,
	    TP_PROTO(const char *job, u32 op, int ret),
	    TP_ARGS(job, op, ret),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, op)
			     __field(int, ret)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->op = op;
			   __entry->ret = ret;),
	    TP_printk("job=%s op=%u ret=%d", __get_str(job), __entry->op,
		      __entry->ret)
);

TRACE_EVENT(rw_arrive,
	    TP_PROTO(const char *job, u32 rank, u32 chunk),
	    TP_ARGS(job, rank, chunk),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, rank)
			     __field(u32, chunk)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->rank = rank;
			   __entry->chunk = chunk;),
	    TP_printk("job=%s rank=%u chunk=%u", __get_str(job),
		      __entry->rank, __entry->chunk)
);

TRACE_EVENT(rw_step,
	    TP_PROTO(const char *job, u32 chunk, u64 iter, u32 nsum, u32 optim,
		     u64 version, u64 ns),
	    TP_ARGS(job, chunk, iter, nsum, optim, version, ns),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, chunk)
			     __field(s64, iter)
			     __field(u32, nsum)
			     __field(u32, optim)
			     __field(u64, version)
			     __field(u64, ns)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->chunk = chunk;
			   __entry->iter = (s64)iter;
			   __entry->nsum = nsum;
			   __entry->optim = optim;
			   __entry->version = version;
			   __entry->ns = ns;),
	    TP_printk("job=%s chunk=%u iter=%lld nsum=%u optim=%s version=%llu ns=%llu",
		      __get_str(job), __entry->chunk, __entry->iter, __entry->nsum,
		      rw_show_optim(__entry->optim), __entry->version, __entry->ns)
);

TRACE_EVENT(rw_publish,
	    TP_PROTO(const char *job, u32 chunk, u64 version),
	    TP_ARGS(job, chunk, version),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, chunk)
			     __field(u64, version)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->chunk = chunk;
			   __entry->version = version;),
	    TP_printk("job=%s chunk=%u version=%llu", __get_str(job),
		      __entry->chunk, __entry->version)
);

TRACE_EVENT(rw_gate_wait,
	    TP_PROTO(const char *job, u32 rank, u64 clock, u64 key),
	    TP_ARGS(job, rank, clock, key),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, rank)
			     __field(u64, clock)
			     __field(u64, key)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->rank = rank;
			   __entry->clock = clock;
			   __entry->key = key;),
	    TP_printk("job=%s rank=%u clock=%llu bound=%llu", __get_str(job),
		      __entry->rank, __entry->clock, __entry->key)
);

TRACE_EVENT(rw_gate_release,
	    TP_PROTO(const char *job, u32 rank, u64 clock, int ret),
	    TP_ARGS(job, rank, clock, ret),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, rank)
			     __field(u64, clock)
			     __field(int, ret)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->rank = rank;
			   __entry->clock = clock;
			   __entry->ret = ret;),
	    TP_printk("job=%s rank=%u clock=%llu ret=%d", __get_str(job),
		      __entry->rank, __entry->clock, __entry->ret)
);

DECLARE_EVENT_CLASS(rw_member,
		    TP_PROTO(const char *job, u32 rank),
		    TP_ARGS(job, rank),
		    TP_STRUCT__entry(__string(job, job)
				     __field(u32, rank)),
		    TP_fast_assign(__assign_str(job, job);
				   __entry->rank = rank;),
		    TP_printk("job=%s rank=%u", __get_str(job), __entry->rank)
);

DEFINE_EVENT(rw_member, rw_evict,
	     TP_PROTO(const char *job, u32 rank),
	     TP_ARGS(job, rank));
DEFINE_EVENT(rw_member, rw_attach,
	     TP_PROTO(const char *job, u32 rank),
	     TP_ARGS(job, rank));
DEFINE_EVENT(rw_member, rw_detach,
	     TP_PROTO(const char *job, u32 rank),
	     TP_ARGS(job, rank));

DECLARE_EVENT_CLASS(rw_wire_chunk,
		    TP_PROTO(const char *job, u32 rank, u32 chunk, u64 clock),
		    TP_ARGS(job, rank, chunk, clock),
		    TP_STRUCT__entry(__string(job, job)
				     __field(u32, rank)
				     __field(u32, chunk)
				     __field(u64, clock)),
		    TP_fast_assign(__assign_str(job, job);
				   __entry->rank = rank;
				   __entry->chunk = chunk;
				   __entry->clock = clock;),
		    TP_printk("job=%s rank=%u chunk=%u clock=%llu", __get_str(job),
			      __entry->rank, __entry->chunk, __entry->clock)
);

DEFINE_EVENT(rw_wire_chunk, rw_wire_push,
	     TP_PROTO(const char *job, u32 rank, u32 chunk, u64 clock),
	     TP_ARGS(job, rank, chunk, clock));
DEFINE_EVENT(rw_wire_chunk, rw_wire_write,
	     TP_PROTO(const char *job, u32 rank, u32 chunk, u64 clock),
	     TP_ARGS(job, rank, chunk, clock));
/*
 * A worker host's end: a push posted (clock: its iterations pushed in
 * full), and a chunk's parameters come (clock: the chunk's version).
 */
DEFINE_EVENT(rw_wire_chunk, rw_host_push,
	     TP_PROTO(const char *job, u32 rank, u32 chunk, u64 clock),
	     TP_ARGS(job, rank, chunk, clock));
DEFINE_EVENT(rw_wire_chunk, rw_host_params,
	     TP_PROTO(const char *job, u32 rank, u32 chunk, u64 clock),
	     TP_ARGS(job, rank, chunk, clock));

TRACE_EVENT(rw_wire_error,
	    TP_PROTO(const char *job, u32 rank, const char *what, int status),
	    TP_ARGS(job, rank, what, status),
	    TP_STRUCT__entry(__string(job, job)
			     __field(u32, rank)
			     __string(what, what)
			     __field(int, status)),
	    TP_fast_assign(__assign_str(job, job);
			   __entry->rank = rank;
			   __assign_str(what, what);
			   __entry->status = status;),
	    TP_printk("job=%s rank=%u what=\"%s\" status=%d", __get_str(job),
		      __entry->rank, __get_str(what), __entry->status)
);

#endif /* _RW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

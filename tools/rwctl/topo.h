/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl topo: where a job's chunks live (RW_CMD_TOPO_GET), as plain structs,
 * and its printer, which adds the box's nodes and RDMA devices from
 * RW_CMD_STATUS_GET.
 */
#ifndef RWCTL_TOPO_H
#define RWCTL_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

#include "boxes.h"

struct nlmsghdr;
struct rwctl_err;
struct rwctl_printer;
struct rwctl_status;

/* One aggregation core of the job. */
struct rwctl_topo_core {
	uint32_t cpu;
	uint32_t node;
	uint32_t chunks;		/* chunks it aggregates */
	uint64_t bytes;			/* their bytes */
	uint64_t busy_ns;		/* time spent aggregating */
};

struct rwctl_topo_nic {
	uint32_t nic;
	uint32_t node;
	uint32_t chunks;
	uint64_t bytes;
};

/* Chunks [first, first + count) placed on one core and one NIC. */
struct rwctl_topo_run {
	uint32_t first;
	uint32_t count;
	uint32_t cpu;
	uint32_t nic;
	uint32_t node;			/* of the core */
};

struct rwctl_topo {
	char name[RW_JOB_NAME_MAX];
	bool declared;			/* a layout exists; else no lists */
	uint32_t nr_chunks;
	struct rwctl_topo_core *cores;	/* by node, then cpu */
	size_t nr_cores;
	struct rwctl_topo_nic *nics;	/* by node, then nic */
	size_t nr_nics;
	struct rwctl_topo_run *runs;	/* by first chunk */
	size_t nr_runs;
	bool truncated;			/* the module had more runs */
	/* The job's box set (nr 0: none), each box's share once declared. */
	struct rwctl_boxes boxes;
};

/* Free the arrays and zero @t; safe on a zeroed or half-parsed struct. */
void rwctl_topo_free(struct rwctl_topo *t);

/*
 * Parse one RW_CMD_TOPO_GET reply into @t (zeroed first). Integers must
 * have their exact length, strings be terminated, every entry carry the
 * attributes the uapi lists, every run lie inside the model's chunks, and
 * without RW_JOB_A_CHUNKS (no layout) no list may come, nor a box's
 * share (rwctl_boxes_parse_reply() checks the set). Entries and
 * attributes newer than this rwctl are ignored. Returns 0 or -EPROTO
 * (-ENOMEM) with a sentence in @msg; free @t whatever the result.
 */
int rwctl_genl_parse_topo(struct nlmsghdr *nlh, struct rwctl_topo *t,
			  char *msg, size_t msglen);

/* The job backend's topo operation over generic netlink. */
int rwctl_topo_genl_get(const char *name, struct rwctl_topo *t,
			struct rwctl_err *e);

/*
 * "rwctl topo show": the job's box set and each box's share, if it has
 * one; text in one block per NUMA node (its CPUs, memory and RDMA
 * devices, then the job's cores and NICs there) and the chunk map; JSON as
 * one object with "box_set" and the arrays nodes, devices, cores, nics and
 * chunk_map. The items are printed by the same calls in both; only their
 * order differs, since people read a node at a time and programs filter
 * flat arrays.
 */
void rwctl_topo_print(struct rwctl_printer *p, const struct rwctl_status *st,
		      const struct rwctl_topo *t);

#endif /* RWCTL_TOPO_H */

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * RackWeave user-space API: the one definition of every number shared by the
 * kernel module, librackweave, rwctl and the wire.
 *
 * Rules: append only, never renumber; every struct has a fixed size pinned at
 * compile time on both sides (BUILD_BUG_ON in the module, _Static_assert in
 * user space); every ioctl struct starts with its size and flags; unknown flag
 * bits and non-zero reserved fields are rejected with -EINVAL.
 *
 * Character device /dev/rackweave
 * -------------------------------
 * RW_IOC_VERSION (struct rw_version_info, in/out)
 *   In:  size = sizeof(struct rw_version_info), flags = 0, reserved all 0;
 *        version, abi and features are ignored.
 *   Out: version (RW_VERSION_CODE of the running module), abi (RW_ABI_VERSION)
 *        and features (RW_FEAT_* bits the module implements).
 *   Errors: EINVAL for a wrong size, unknown flags or non-zero reserved bytes;
 *           EFAULT for a bad pointer; ENOTTY for an unknown command.
 *
 * Generic netlink family "rackweave" (RW_GENL_NAME, version RW_GENL_VERSION)
 * ---------------------------------------------------------------------------
 * RW_CMD_STATUS_GET (doit; no attributes accepted; no privilege needed)
 *   Reply attributes (enum rw_attr):
 *     RW_A_VERSION       string  module version, "MAJOR.MINOR.PATCH"
 *     RW_A_VERSION_CODE  u32     RW_VERSION_CODE of the module
 *     RW_A_FEATURES      u64     RW_FEAT_* bits
 *     RW_A_CPUS_ONLINE   u32     number of online CPUs the module sees
 *     RW_A_NODES         nest    one RW_A_NODES_ENTRY per online NUMA node:
 *       RW_NODE_A_ID       u32     node id
 *       RW_NODE_A_NR_CPUS  u32     online CPUs whose home node this is
 *       RW_NODE_A_CPULIST  string  the same CPUs as a list ("0-3,8")
 *       RW_NODE_A_MEM_MB   u64     memory present on the node, MiB
 *     RW_A_DEVICES       nest    one RW_A_DEVICES_ENTRY per RDMA device the
 *                                module's ib_client has been given:
 *       RW_DEV_A_NAME      string  ib device name (e.g. "rxe0")
 *       RW_DEV_A_NODE      s32     NUMA node of the device, -1 if it has none
 *       RW_DEV_A_PORTS     u32     number of ports
 *       RW_DEV_A_NODE_GUID u64     node GUID (host byte order)
 *       RW_DEV_A_INDEX     u32     ib device index (stable while registered)
 *     RW_A_AGG_IMPL      string  aggregation kernels chosen at load
 *                                ("scalar", "avx2", "avx512", ...)
 *
 * RW_CMD_JOB_NEW (doit; CAP_NET_ADMIN) creates a job. Attributes (enum
 * rw_job_attr) of the request:
 *     RW_JOB_A_NAME         string  required; 1..RW_JOB_NAME_MAX-1 bytes of
 *                                   [A-Za-z0-9._-]; unique on the box
 *     RW_JOB_A_WORKERS      u32     required; 1..RW_JOB_MAX_WORKERS
 *     RW_JOB_A_CHUNK_SIZE   u32     power of two, 4096..1048576; default: the
 *                                   module's chunk_size parameter
 *     RW_JOB_A_TOKEN        binary  RW_JOB_TOKEN_LEN bytes; absent: the module
 *                                   generates one and returns it, once, in
 *                                   the reply
 *     RW_JOB_A_SYNC         u32     enum rw_sync_mode; default BSP
 *     RW_JOB_A_STALENESS    u32     SSP bound s, 1..RW_JOB_MAX_STALENESS
 *     RW_JOB_A_STALENESS_LO u32     ADAPTIVE band low end s_L (>= 1)
 *     RW_JOB_A_STALENESS_HI u32     ADAPTIVE band high end s_U, s_L..1024
 *     RW_JOB_A_EVICT_MS     u32     evict a silent worker after this; 0: never
 *     RW_JOB_A_OPTIM        u32     enum rw_optim; default SGD
 *     RW_JOB_A_LR, _MOMENTUM, _WEIGHT_DECAY, _BETA1, _BETA2, _EPS
 *                           u32     optimizer hyper-parameters, each an IEEE
 *                                   754 binary32 bit pattern; defaults: lr
 *                                   0.01, momentum 0.9, weight decay 0, betas
 *                                   0.9 and 0.999, eps 1e-8
 *   Reply: the job as RW_CMD_JOB_GET describes it, plus RW_JOB_A_TOKEN when
 *   the module generated it. Errors: EEXIST (name taken), ENOSPC (max_jobs
 *   reached), ERANGE (a number outside its attribute's range, or a token
 *   of the wrong length), EINVAL (a missing or malformed attribute, or a
 *   bad combination, with an extended ack saying which), EPERM.
 *
 * RW_CMD_JOB_DEL (doit; CAP_NET_ADMIN): RW_JOB_A_NAME, optional
 *   RW_JOB_A_FLAGS (RW_JOB_DEL_FORCE). Refused with EBUSY while workers are
 *   attached unless forced. The token is wiped. ENOENT for an unknown name.
 *
 * RW_CMD_JOB_GET: doit with RW_JOB_A_NAME, or dump of every job (restartable;
 *   a dump that raced with a change is flagged NLM_F_DUMP_INTR). Each job:
 *   RW_JOB_A_NAME, RW_JOB_A_ID, RW_JOB_A_WORKERS, RW_JOB_A_CHUNK_SIZE,
 *   RW_JOB_A_SYNC and its bounds, RW_JOB_A_EVICT_MS, RW_JOB_A_OPTIM and its
 *   hyper-parameters, RW_JOB_A_ATTACHED (workers attached now). Never the
 *   token.
 *
 * Messages with attributes the command does not take, attributes of the wrong
 * type or length, and unknown commands are rejected with EINVAL or EOPNOTSUPP
 * and an extended ack message.
 */
#ifndef _UAPI_RACKWEAVE_H
#define _UAPI_RACKWEAVE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define RW_VERSION_MAJOR	0
#define RW_VERSION_MINOR	1
#define RW_VERSION_PATCH	0
#define RW_VERSION_CODE \
	((RW_VERSION_MAJOR << 16) | (RW_VERSION_MINOR << 8) | RW_VERSION_PATCH)
#define RW_STR_(x)		#x
#define RW_STR(x)		RW_STR_(x)
#define RW_VERSION_STRING \
	RW_STR(RW_VERSION_MAJOR) "." RW_STR(RW_VERSION_MINOR) "." \
	RW_STR(RW_VERSION_PATCH)

/* Bumped only on an incompatible change, which the rules above forbid. */
#define RW_ABI_VERSION		1

#define RW_DEV_NAME		"rackweave"
#define RW_DEV_PATH		"/dev/" RW_DEV_NAME

/* Features: what this module implements. Bits are never reused. */
#define RW_FEAT_VERSION_IOCTL	(1ULL << 0)	/* RW_IOC_VERSION */
#define RW_FEAT_GENL_STATUS	(1ULL << 1)	/* RW_CMD_STATUS_GET */
#define RW_FEAT_IB_CLIENT	(1ULL << 2)	/* RDMA devices tracked */
#define RW_FEATURES_ALL \
	(RW_FEAT_VERSION_IOCTL | RW_FEAT_GENL_STATUS | RW_FEAT_IB_CLIENT)

/* Module parameter limits, shared so rwctl can explain them. */
#define RW_CHUNK_SIZE_MIN	4096U
#define RW_CHUNK_SIZE_MAX	(1U << 20)
#define RW_CHUNK_SIZE_DEFAULT	32768U
#define RW_MAX_JOBS_LIMIT	1024U
#define RW_MAX_JOBS_DEFAULT	64U

/* ---- ioctls ---- */

#define RW_IOC_MAGIC		0xB2

struct rw_version_info {
	__u32 size;		/* in: sizeof(struct rw_version_info) */
	__u32 flags;		/* in: 0; no flags defined */
	__u32 version;		/* out: RW_VERSION_CODE */
	__u32 abi;		/* out: RW_ABI_VERSION */
	__u64 features;		/* out: RW_FEAT_* */
	__u64 reserved[3];	/* in: 0; out: 0 */
};

#define RW_VERSION_INFO_SIZE	48
#define RW_VERSION_FLAGS_ALL	0U

#define RW_IOC_VERSION		_IOWR(RW_IOC_MAGIC, 0x00, struct rw_version_info)

/* ---- generic netlink ---- */

#define RW_GENL_NAME		"rackweave"
#define RW_GENL_VERSION		1

enum rw_cmd {
	RW_CMD_UNSPEC,
	RW_CMD_STATUS_GET,
	RW_CMD_JOB_NEW,
	RW_CMD_JOB_DEL,
	RW_CMD_JOB_GET,
	__RW_CMD_MAX
};

#define RW_CMD_MAX (__RW_CMD_MAX - 1)

enum rw_attr {
	RW_A_UNSPEC,
	RW_A_VERSION,
	RW_A_VERSION_CODE,
	RW_A_FEATURES,
	RW_A_CPUS_ONLINE,
	RW_A_NODES,
	RW_A_DEVICES,
	RW_A_AGG_IMPL,
	__RW_A_MAX
};

#define RW_A_MAX (__RW_A_MAX - 1)

/* Type of each element inside RW_A_NODES and RW_A_DEVICES. */
#define RW_A_NODES_ENTRY	1
#define RW_A_DEVICES_ENTRY	1

enum rw_node_attr {
	RW_NODE_A_UNSPEC,
	RW_NODE_A_ID,
	RW_NODE_A_NR_CPUS,
	RW_NODE_A_CPULIST,
	RW_NODE_A_MEM_MB,
	__RW_NODE_A_MAX
};

#define RW_NODE_A_MAX (__RW_NODE_A_MAX - 1)

enum rw_dev_attr {
	RW_DEV_A_UNSPEC,
	RW_DEV_A_NAME,
	RW_DEV_A_NODE,
	RW_DEV_A_PORTS,
	RW_DEV_A_NODE_GUID,
	RW_DEV_A_INDEX,
	__RW_DEV_A_MAX
};

#define RW_DEV_A_MAX (__RW_DEV_A_MAX - 1)

/* Attributes of the job commands (a namespace of their own). */
enum rw_job_attr {
	RW_JOB_A_UNSPEC,
	RW_JOB_A_NAME,
	RW_JOB_A_ID,
	RW_JOB_A_WORKERS,
	RW_JOB_A_CHUNK_SIZE,
	RW_JOB_A_TOKEN,
	RW_JOB_A_SYNC,
	RW_JOB_A_STALENESS,
	RW_JOB_A_STALENESS_LO,
	RW_JOB_A_STALENESS_HI,
	RW_JOB_A_EVICT_MS,
	RW_JOB_A_OPTIM,
	RW_JOB_A_LR,
	RW_JOB_A_MOMENTUM,
	RW_JOB_A_WEIGHT_DECAY,
	RW_JOB_A_BETA1,
	RW_JOB_A_BETA2,
	RW_JOB_A_EPS,
	RW_JOB_A_FLAGS,
	RW_JOB_A_ATTACHED,
	__RW_JOB_A_MAX
};
#define RW_JOB_A_MAX (__RW_JOB_A_MAX - 1)

enum rw_sync_mode {
	RW_SYNC_BSP = 0,
	RW_SYNC_ASP = 1,
	RW_SYNC_SSP = 2,
	RW_SYNC_ADAPTIVE = 3,
	__RW_SYNC_MAX
};

enum rw_optim {
	RW_OPTIM_SGD = 0,
	RW_OPTIM_MOMENTUM = 1,
	RW_OPTIM_NESTEROV = 2,
	RW_OPTIM_ADAM = 3,
	__RW_OPTIM_MAX
};

#define RW_JOB_NAME_MAX		32	/* with the terminating NUL */
#define RW_JOB_TOKEN_LEN	32
#define RW_JOB_MAX_WORKERS	256
#define RW_JOB_MAX_STALENESS	1024
#define RW_JOB_DEL_FORCE	(1U << 0)
#define RW_JOB_DEL_FLAGS_ALL	RW_JOB_DEL_FORCE

/* Longest RDMA device name (IB_DEVICE_NAME_MAX) and CPU list we send. */
#define RW_DEV_NAME_MAX		64
#define RW_AGG_IMPL_NAME_MAX	32
#define RW_CPULIST_MAX		256

#endif /* _UAPI_RACKWEAVE_H */

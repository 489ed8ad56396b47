/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions every RackWeave kernel file shares. Kept tiny on purpose: a
 * subsystem's own declarations live in its own header. Each .c file defines
 * pr_fmt itself, before any include, so messages carry the module name.
 */
#ifndef _RW_RW_H
#define _RW_RW_H

#include <linux/gfp.h>

#include "rackweave.h"

/* What this build of the module implements, reported by ioctl and netlink. */
#define RW_FEATURES	RW_FEATURES_ALL

/*
 * Allocations sized by a tenant's model (per chunk, per slot): reclaim may
 * be tried, the OOM killer is never woken, and a failure is quiet (the
 * caller refuses the request).
 */
#define RW_GFP_BIG	(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

#endif /* _RW_RW_H */

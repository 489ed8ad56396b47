/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions every RackWeave kernel file shares. Kept tiny on purpose: a
 * subsystem's own declarations live in its own header. Each .c file defines
 * pr_fmt itself, before any include, so messages carry the module name.
 */
#ifndef _RW_RW_H
#define _RW_RW_H

#include "rackweave.h"

/* What this build of the module implements, reported by ioctl and netlink. */
#define RW_FEATURES	RW_FEATURES_ALL

#endif /* _RW_RW_H */

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_GENL_H
#define _RW_GENL_H

#include <linux/gfp.h>
#include <linux/types.h>

int rw_genl_init(void);

/*
 * Tell the "events" multicast group: @job and @dev may be NULL, @rank < 0
 * for none. Best effort: an event nobody listens to, or that cannot be
 * allocated, is dropped.
 */
void rw_genl_event(u32 event, const char *job, int rank, const char *dev,
		   gfp_t gfp);
void rw_genl_exit(void);

#endif /* _RW_GENL_H */

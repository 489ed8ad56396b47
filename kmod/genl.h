/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "rackweave" generic netlink family (genl.c): its registration, the
 * events the rest of the module sends, and the family itself for the
 * command files (genl_job.c, genl_run.c).
 */
#ifndef _RW_GENL_H
#define _RW_GENL_H

#include <linux/gfp.h>
#include <linux/types.h>

struct genl_family;

int rw_genl_init(void);

/*
 * Tell the "events" multicast group: @job and @dev may be NULL, @rank < 0
 * for none. Best effort: an event nobody listens to, or that cannot be
 * allocated, is dropped.
 */
void rw_genl_event(u32 event, const char *job, int rank, const char *dev,
		   gfp_t gfp);
void rw_genl_exit(void);

/* The family, for the replies genl_job.c and genl_run.c build. */
extern struct genl_family rw_genl_family;

#endif /* _RW_GENL_H */

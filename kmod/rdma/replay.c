// SPDX-License-Identifier: GPL-2.0
/*
 * Replayed connect requests: a bounded set of (nonce, time) pairs.
 *
 * A request is taken only if its time is within the window around the
 * box's clock, so a nonce needs remembering only until its time leaves
 * the window; a slot whose time has left it is free again. The window is
 * what bounds the set: with every slot live, a new request waits (-EBUSY)
 * rather than forgetting a nonce that could still be replayed.
 */
#include "replay.h"

int rw_replay_check(struct rw_replay *r, u64 nonce, s64 time_s, s64 now,
		    s64 skew)
{
	int i, slot = -1;

	if (time_s > now + skew || time_s < now - skew)
		return -ETIMEDOUT;
	for (i = 0; i < RW_REPLAY_SLOTS; i++) {
		if (r->until[i] > now) {
			if (r->nonce[i] == nonce)
				return -ETIMEDOUT;
		} else if (slot < 0) {
			slot = i;
		}
	}
	if (slot < 0)
		return -EBUSY;
	r->nonce[slot] = nonce;
	/* The last second its time is in the window is time_s + skew. */
	r->until[slot] = time_s + skew + 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_replay_check);

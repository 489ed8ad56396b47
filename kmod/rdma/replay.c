// SPDX-License-Identifier: GPL-2.0
/*
 * Replayed connect requests: per rank, a floor and a few (nonce, time)
 * pairs.
 *
 * A request is taken only if its time is within the window around the
 * box's clock and its nonce is new. Whatever could be taken now or later
 * must be remembered until its time leaves the window: a request refused
 * for its rank or epoch may be right after a policy set or in another run,
 * so admit.c remembers a request before those checks, in the table of its
 * rank. One rank's requests therefore never take the room of another's.
 *
 * A full table never forgets a nonce early: it raises its floor, at or
 * below which every time is refused (WireGuard refuses a handshake whose
 * timestamp is not after the peer's last; this is that rule, applied only
 * to what no longer fits). A newer request pushes out the slots of the
 * oldest time (the floor becomes that time); a request no newer than all
 * of them is refused, the floor rising to its time. A rank whose clock
 * goes forward is only ever told to wait for sending more than
 * RW_REPLAY_SLOTS requests within one second.
 *
 * A request from further ahead than the window is refused and not
 * remembered: the box cannot hold every future time. Its replay would be
 * taken once the box's clock comes within the window of it; a sender
 * whose clock is that far ahead has its requests refused, and must have
 * it set right (docs/design.md, "Replays").
 */
#include "replay.h"

static bool rw_replay_live(const struct rw_replay *r, int i, s64 now,
			   s64 skew)
{
	return r->time[i] > r->floor && r->time[i] >= now - skew;
}

static bool rw_replay_seen(const struct rw_replay *r, u64 nonce, s64 now,
			   s64 skew)
{
	int i;

	for (i = 0; i < RW_REPLAY_SLOTS; i++)
		if (rw_replay_live(r, i, now, skew) && r->nonce[i] == nonce)
			return true;
	return false;
}

/*
 * Cover a request whose time is in the window and above the floor:
 * remember it (0), or raise the floor to its time (-EBUSY).
 */
static int rw_replay_cover(struct rw_replay *r, u64 nonce, s64 time_s,
			   s64 now, s64 skew)
{
	int i, slot = 0;

	for (i = 0; i < RW_REPLAY_SLOTS; i++) {
		if (!rw_replay_live(r, i, now, skew))
			break;
		if (r->time[i] < r->time[slot])
			slot = i;
	}
	if (i < RW_REPLAY_SLOTS) {
		slot = i;
	} else if (time_s > r->time[slot]) {
		/* Frees every slot of the oldest time, this one among them. */
		r->floor = r->time[slot];
	} else {
		r->floor = time_s;
		return -EBUSY;
	}
	r->nonce[slot] = nonce;
	r->time[slot] = time_s;
	return 0;
}

int rw_replay_check(struct rw_replay *r, u64 nonce, s64 time_s, s64 now,
		    s64 skew)
{
	if (time_s > now + skew || time_s < now - skew)
		return -ETIMEDOUT;
	if (time_s <= r->floor)
		return -EBUSY;
	if (rw_replay_seen(r, nonce, now, skew))
		return -ETIMEDOUT;
	return rw_replay_cover(r, nonce, time_s, now, skew);
}
EXPORT_SYMBOL_IF_KUNIT(rw_replay_check);

/* Add what @from covers to what @to does. */
static void rw_replay_absorb(struct rw_replay *to, const struct rw_replay *from,
			     s64 now, s64 skew)
{
	int i;

	if (from->floor > to->floor)
		to->floor = from->floor;
	for (i = 0; i < RW_REPLAY_SLOTS; i++) {
		if (!rw_replay_live(from, i, now, skew) ||
		    from->time[i] <= to->floor ||
		    rw_replay_seen(to, from->nonce[i], now, skew))
			continue;
		/* -EBUSY: under the floor now, covered all the same. */
		rw_replay_cover(to, from->nonce[i], from->time[i], now, skew);
	}
}

void rw_replay_move(struct rw_replay *to, u32 to_nr,
		    const struct rw_replay *from, u32 from_nr, s64 now,
		    s64 skew)
{
	u32 r;

	for (r = 0; r < to_nr; r++)
		to[r] = from[r < from_nr ? r : from_nr];
	to[to_nr] = from[from_nr];
	for (r = to_nr; r < from_nr; r++)
		rw_replay_absorb(&to[to_nr], &from[r], now, skew);
}
EXPORT_SYMBOL_IF_KUNIT(rw_replay_move);

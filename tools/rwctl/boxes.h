/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's box set in rwctl: the boxes a job's chunks are spread over, the
 * set's epoch and which box this one is. The words of "boxes LIST self ID
 * [epoch N]" and the set's printer are in boxes.c; its netlink attributes,
 * both ways, in boxes-genl.c. Used by the job, policy, topo and stats
 * objects.
 */
#ifndef RWCTL_BOXES_H
#define RWCTL_BOXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

struct nl_msg;
struct nlattr;
struct nla_policy;
struct rwctl_printer;

struct rwctl_box {
	uint32_t id;
	int family;			/* AF_INET or AF_INET6 */
	uint16_t port;			/* host order; 0: not given (default) */
	uint8_t addr[16];		/* network order; IPv4: the first 4 */
	/* In a topology reply once a layout is declared: the box's share. */
	bool has_share;
	uint32_t chunks;
	uint64_t bytes;
};

/*
 * A set as typed (nr 0: "boxes none") or as the module reports it (@nr 0:
 * the job has none). @self and @epoch are 0 when not given.
 */
struct rwctl_boxes {
	uint32_t epoch;
	uint32_t self;
	size_t nr;
	struct rwctl_box box[RW_JOB_MAX_BOXES];
};

/*
 * "ID@ADDR[:PORT],ID@ADDR[:PORT],..." or "none" into @b's boxes (the rest
 * of @b is kept). IPv6 as [ADDR]:PORT, [ADDR] or ADDR. Ids and addresses
 * must be good and none twice. 0, or -EINVAL with a sentence in @msg.
 */
int rwctl_boxes_parse(const char *list, struct rwctl_boxes *b, char *msg,
		      size_t msglen);

/*
 * The words of a set checked together: @given says "boxes" was given;
 * "self" goes with a set and must be one of its ids (or, with @leaving,
 * a set a running job moves to, may be this box's id in the job's set
 * when it leaves), "epoch" goes with one, and "boxes none" takes
 * neither. 0, or -EINVAL with a sentence.
 */
int rwctl_boxes_check(bool given, bool leaving, const struct rwctl_boxes *b,
		      char *msg, size_t msglen);

/*
 * The set @b as part of a job's or a topology's object: nothing without
 * boxes; else the key "box_set" ({"epoch", "self", "boxes": [{"id",
 * "addr", "port", "self" and, with a share, "chunks", "bytes",
 * "model_pct"}]}) and in text a line "box set epoch E, N boxes, this box
 * is S:" and a line per box, each starting with @indent.
 */
void rwctl_boxes_print(struct rwctl_printer *p, const struct rwctl_boxes *b,
		       const char *indent);

/*
 * The set a job moves to, as above under the key "move_to"; in text
 * "moving (when the run ends) to box set epoch E, N boxes, ..." and its
 * boxes, "without this box" when this box leaves the job.
 */
void rwctl_boxes_print_move(struct rwctl_printer *p,
			    const struct rwctl_boxes *b, const char *indent);

/*
 * The same JSON; in text the one line "box S of N (set epoch E)" after
 * @indent: which box of its job's set a part of the job's output is
 * from ("stats show").
 */
void rwctl_boxes_print_line(struct rwctl_printer *p,
			    const struct rwctl_boxes *b, const char *indent);

/* RW_JOB_A_BOXES, _BOX_SELF and _BOX_EPOCH of a request (empty: none). */
int rwctl_boxes_put(struct nl_msg *m, const struct rwctl_boxes *b);

/*
 * The set of a job or topology reply from its attributes @tb (indexed by
 * RW_JOB_A_*) into @b (zeroed first): all three attributes or none, every
 * box with its id, address and port, a share whole or not at all (and
 * only if @shares), at most RW_JOB_MAX_BOXES boxes, the self one of them
 * or 0 (this box left the set by a move).
 * Entries and attributes newer than this rwctl are ignored. 0, or -EPROTO
 * with "malformed @kind reply ..." in @msg.
 */
int rwctl_boxes_parse_reply(struct nlattr **tb, struct rwctl_boxes *b,
			    bool shares, const char *kind, char *msg,
			    size_t msglen);

/*
 * RW_JOB_A_MOVE (@move, may be NULL: none) of a job reply into @b (zeroed
 * first): the set the job moves to, checked as above, whose self is 0
 * when this box leaves the job. @policy (@maxtype) is the job reply's.
 */
int rwctl_boxes_parse_move(struct nlattr *move,
			   const struct nla_policy *policy,
			   int maxtype, struct rwctl_boxes *b,
			   const char *kind, char *msg, size_t msglen);

#endif /* RWCTL_BOXES_H */

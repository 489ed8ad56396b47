/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA wire's pure half (implemented in rdma/wire.c): immediates and
 * the connect handshake's private data, packed and checked. The layouts
 * and their rules are in uapi/rackweave.h ("RDMA wire"). Pure logic (see
 * compat.h): the module, the cmocka tests and a raw test peer share it.
 */
#ifndef _RW_RDMA_WIRE_H
#define _RW_RDMA_WIRE_H

#include "compat.h"
#include "rackweave.h"

/* One immediate, decoded. */
struct rw_wire_imm {
	u32 type;			/* enum rw_imm_type */
	u32 clock;			/* low RW_IMM_CLOCK_MASK bits only */
	u32 chunk;
};

/*
 * Decode @imm (host order) for a job of @nr_chunks chunks: 0, or -EPROTO
 * for a type that is not one of enum rw_imm_type, -ERANGE for a chunk id
 * not below @nr_chunks. @out is written only on success.
 */
int rw_wire_imm_parse(u32 imm, u32 nr_chunks, struct rw_wire_imm *out);

/* A connect request, decoded (struct rw_wire_req without the framing). */
struct rw_wire_req_info {
	u32 rank;
	u32 epoch;
	u32 nic;			/* below @nr_nics, or 0 */
	u32 nr_nics;			/* 0: the only connection */
	u32 session;			/* with @nr_nics, non-zero */
	bool observer;			/* RW_WIRE_REQ_OBSERVER */
	bool box;			/* RW_WIRE_REQ_BOX: @rank a box id */
	u8 job_tag[RW_WIRE_TAG_LEN];
	u64 nonce;
	u64 time_s;
	u8 auth[RW_WIRE_AUTH_LEN];
};

void rw_wire_req_pack(struct rw_wire_req *w, const struct rw_wire_req_info *in);

/*
 * Whether an attachment's connection fields hold together: @nr_nics 0
 * (one connection) with @nic and @session 0, or 2..RW_WIRE_MAX_NICS with
 * @nic below it and a non-zero @session. 0 or -EPROTO.
 */
int rw_wire_nics_check(u32 nic, u32 nr_nics, u32 session);

/* A chunk or connection that no NUMA node holds (NUMA_NO_NODE's value). */
#define RW_WIRE_NO_NODE		(-1)

/*
 * The box's rule for which of an attachment's @nr_links connections
 * carries each chunk (uapi "RDMA wire"): chunk c, the k-th of the chunks
 * whose @chunk_node is n, goes to the (k mod m)-th of the m connections
 * whose @link_node is n, or of all @nr_links if none is. A node of
 * RW_WIRE_NO_NODE matches nothing. Writes @link_of[0 .. @nr_chunks) and
 * returns 0, or -EINVAL for @nr_links 0 or above RW_WIRE_MAX_NICS.
 * O(chunks * the chunks' distinct nodes).
 */
int rw_wire_assign(const int *chunk_node, u32 nr_chunks,
		   const int *link_node, u32 nr_links, u8 *link_of);

/*
 * Check and decode the private data of a connect request: 0, or -EPROTO
 * with *@why saying what was wrong (too short, magic, version, flags,
 * connection fields: rw_wire_nics_check). Bytes after the request
 * (padding a transport adds) are ignored. Nothing is authenticated
 * here: the caller checks the tag and the authenticator next.
 */
int rw_wire_req_parse(const void *data, size_t len,
		      struct rw_wire_req_info *out, const char **why);

/* A refusal for reject private data: @err a negative errno. */
void rw_wire_rej_pack(struct rw_wire_rej *w, int err);

/*
 * The reason of a refusal as a negative errno, or -EPROTO if @data is not
 * a RackWeave refusal (a transport-level reject carries none).
 */
int rw_wire_rej_parse(const void *data, size_t len);

/*
 * Control messages (uapi "Control messages"). A decoded window points at
 * its segments inside the message, as they came (little-endian):
 * rw_wire_seg_get() reads one.
 */
struct rw_wire_seg_info {
	u64 addr;
	u32 rkey;
};

struct rw_wire_win {
	u32 seg_shift;
	u32 nr_segs;
	const struct rw_wire_seg *segs;
};

void rw_wire_seg_get(const struct rw_wire_win *w, u32 i,
		     struct rw_wire_seg_info *out);

/*
 * Whether @w covers exactly a buffer of @bytes bytes with segments of
 * whole @chunk_size chunks: 0 or -EINVAL.
 */
int rw_wire_win_check(const struct rw_wire_win *w, u64 bytes, u32 chunk_size);

/* Where byte @off of a checked window's buffer is: its address and key. */
void rw_wire_win_at(const struct rw_wire_win *w, u64 off,
		    struct rw_wire_seg_info *out);

struct rw_wire_setup_info {
	u32 flags;
	u32 nr_tensors;
	const struct rw_wire_tensor *tensors;	/* in the message */
	struct rw_wire_win win;			/* the parameter window */
	struct rw_wire_seg_info inbox;		/* all 0: none */
};

/* Bytes of a setup message, or 0 if it would exceed RW_WIRE_MSG_MAX. */
size_t rw_wire_setup_size(u32 nr_segs, u32 nr_tensors);

/*
 * Pack a setup message into @buf (@len bytes): its size, or -EMSGSIZE.
 * @in->win.segs and @in->tensors are ignored: @segs and @t are packed.
 */
int rw_wire_setup_pack(void *buf, size_t len,
		       const struct rw_wire_setup_info *in,
		       const struct rw_wire_seg_info *segs,
		       const struct rw_tensor_desc *t);

/*
 * Check and decode a setup message of @len bytes (a receive's byte
 * count): 0, or -EPROTO with *@why saying what was wrong. The tensors'
 * own values are the declaration's to check.
 */
int rw_wire_setup_parse(const void *data, size_t len,
			struct rw_wire_setup_info *out, const char **why);
void rw_wire_tensor_get(const struct rw_wire_setup_info *s, u32 i,
			struct rw_tensor_desc *out);

struct rw_wire_reply_info {
	u32 status;			/* 0 or a positive errno */
	u32 rank;
	u32 nr_workers;
	u32 sync;
	u32 epoch;
	u32 chunk_size;
	u32 nr_chunks;
	u64 model_bytes;
	u32 credits;
	u32 nic;			/* the request's, echoed */
	u32 nr_nics;
	u32 nr_own;			/* the chunks this connection carries */
	u32 flags;			/* RW_WIRE_PARAMS_SET */
	/* A job over several boxes: this box, its set; all 0 if whole. */
	u32 box_id;
	u32 nr_boxes;
	u32 box_epoch;
	u64 box_digest;
	struct rw_wire_win win;		/* the gradient window */
	struct rw_wire_seg_info inbox;	/* the box's, for requests */
};

/* Bytes of a reply, or 0 if it would exceed RW_WIRE_MSG_MAX. */
size_t rw_wire_reply_size(u32 nr_segs);
/* As rw_wire_setup_pack; a refusal (@in->status) packs no window. */
int rw_wire_reply_pack(void *buf, size_t len,
		       const struct rw_wire_reply_info *in,
		       const struct rw_wire_seg_info *segs);
/*
 * Check and decode a reply: 0 (a refusal too: see @out->status), or
 * -EPROTO with *@why. An accepting reply's geometry and window agree
 * (no window at all: an observer's, which the caller checks it is).
 */
int rw_wire_reply_parse(const void *data, size_t len,
			struct rw_wire_reply_info *out, const char **why);
/*
 * The accepting replies of one attachment's @n connections (1 to
 * RW_WIRE_MAX_NICS), each parsed: 0 if they describe one job, rank and
 * layout and their connections carry every chunk once between them (the
 * chunks here add up to the count), else -EPROTO with *@why. Connections
 * to the boxes of a job over several (their replies name a set) must be
 * one to each box of one set, epoch and digest alike: -EXDEV otherwise
 * (an attachment that names some of the boxes only, or boxes that
 * disagree on the set).
 */
int rw_wire_replies_check(const struct rw_wire_reply_info *const *reps,
			  u32 n, const char **why);

/*
 * Requests and answers (uapi "Requests"; rdma/wire_ctl.c). A decoded
 * request points into the message as rw_wire_setup_info does.
 */
struct rw_wire_request_info {
	u32 op;				/* enum rw_wire_op */
	u32 seq;
	u32 timeout_ms;
	u32 nr_runs;
	const struct rw_wire_run *runs;	/* in the message */
	struct rw_wire_win win;		/* RW_OP_INIT's, else empty */
	u64 at;				/* reserved, 0 */
};

/* One run of chunks: [@first, @first + @count). */
struct rw_wire_run_info {
	u32 first;
	u32 count;
};

/* Bytes of a request, or 0 if it would exceed RW_WIRE_INBOX_LEN. */
size_t rw_wire_request_size(u32 nr_segs, u32 nr_runs);
/* Pack into @buf (@len bytes): the size, or -EMSGSIZE. */
int rw_wire_request_pack(void *buf, size_t len,
			 const struct rw_wire_request_info *in,
			 const struct rw_wire_seg_info *segs,
			 const struct rw_wire_run_info *runs);
/*
 * Check and decode a request of @len bytes for a run of @nr_chunks
 * chunks: 0, or -EPROTO with *@why. RW_OP_INIT's runs are in range,
 * ascending and apart, its window well formed (the caller checks that it
 * covers the model); RW_OP_RESTORE carries a window and no runs; the
 * other ops carry neither.
 */
int rw_wire_request_parse(const void *data, size_t len, u32 nr_chunks,
			  struct rw_wire_request_info *out, const char **why);
void rw_wire_run_get(const struct rw_wire_request_info *r, u32 i,
		     struct rw_wire_run_info *out);

struct rw_wire_answer_info {
	u32 status;			/* 0 or a positive errno */
	u32 op;
	u32 seq;
	u32 flags;			/* RW_WIRE_PARAMS_SET */
	bool has_head;			/* RW_OP_HEAD's, on success */
	struct rw_ckpt_head head;
};

/* Bytes of an answer; pack it into @buf (@len bytes): its size or -EMSGSIZE. */
size_t rw_wire_answer_size(const struct rw_wire_answer_info *in);
int rw_wire_answer_pack(void *buf, size_t len,
			const struct rw_wire_answer_info *in);
/* Check and decode an answer of @len bytes: 0, or -EPROTO with *@why. */
int rw_wire_answer_parse(const void *data, size_t len,
			 struct rw_wire_answer_info *out, const char **why);

/*
 * Notices (uapi "Notices"; rdma/wire_move.c). A move's notice carries the
 * set moved to, decoded into a set of the caller's (self 0).
 */
struct rw_boxset;

struct rw_wire_notice_info {
	u32 kind;			/* enum rw_wire_notice_kind */
	u32 seq;
	u32 epoch;
	u32 stop_before;		/* RW_NOTICE_STOP's */
	u64 digest;
	struct rw_boxset *set;		/* RW_NOTICE_MOVE's; NULL otherwise */
};

/* Bytes of a notice with @nr_boxes boxes. */
size_t rw_wire_notice_size(u32 nr_boxes);
/* Pack into @buf (@len bytes): the size, or -EMSGSIZE (-EINVAL: no set). */
int rw_wire_notice_pack(void *buf, size_t len,
			const struct rw_wire_notice_info *in);
/*
 * Check and decode a notice of @len bytes: 0, or -EPROTO with *@why. A
 * move's boxes go into *@set (the caller's; out->set points to it): their
 * ids, families and addresses as the wire says them, which the caller
 * checks as a set (rw_boxset_check(), rw_boxset_digest()).
 */
int rw_wire_notice_parse(const void *data, size_t len, struct rw_boxset *set,
			 struct rw_wire_notice_info *out, const char **why);

/*
 * Gifts (uapi "Gifts"; rdma/wire_move.c): a move's chunks, box to box.
 * Packed from @map, host-order words (bit i: chunk @first + i); decoded,
 * @map points into the message (little-endian words: rw_wire_gift_has()).
 */
struct rw_wire_gift_info {
	u32 giver;
	u32 epoch;
	u64 digest;
	u64 layout_hash;
	u32 nr_chunks;
	u32 nr_state;
	u32 chunk_size;
	bool last_short;
	bool half;			/* records of f32 masters (job_carry.h) */
	u32 first;
	u32 nr_map;
	u32 nr_given;
	u64 off;			/* the first record in @win */
	struct rw_wire_win win;
	const u64 *map;			/* to pack */
	const void *wire_map;		/* decoded */
};

/* The most state arrays a chunk has (Adam's two and the parameters'). */
#define RW_WIRE_GIFT_STATE_MAX	2

/* One record's bytes (uapi "Gifts"). */
u64 rw_wire_gift_rec_len(u32 nr_state, u32 chunk_size, bool half);
/* Bytes of a gift with @nr_segs segments and @nr_map chunks: 0 if too many. */
size_t rw_wire_gift_size(u32 nr_segs, u32 nr_map);
/*
 * Pack into @buf (@len bytes) with the window's segments @segs: the size,
 * or -EMSGSIZE.
 */
int rw_wire_gift_pack(void *buf, size_t len, const struct rw_wire_gift_info *in,
		      const struct rw_wire_seg_info *segs);
/*
 * Check and decode a gift of @len bytes: 0, or -EPROTO with *@why. The
 * model's geometry is one a box could run, the map lies in the model,
 * counts @nr_given chunks and no bit past @nr_map, and the records fit
 * the window.
 */
int rw_wire_gift_parse(const void *data, size_t len,
		       struct rw_wire_gift_info *out, const char **why);
/* Whether a decoded gift offers its map's chunk @i (@i < nr_map). */
bool rw_wire_gift_has(const struct rw_wire_gift_info *g, u32 i);

/* A gift's reply: @status 0 or a positive errno, @taken chunks. */
void rw_wire_gift_reply_pack(struct rw_wire_gift_reply *r, u32 status,
			     u32 taken);
int rw_wire_gift_reply_parse(const void *data, size_t len, u32 *status,
			     u32 *taken, const char **why);

#endif /* _RW_RDMA_WIRE_H */

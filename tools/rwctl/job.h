/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl job: the parameter-server jobs the module serves.
 *
 * Three layers, each testable alone:
 *   - the command line of "job add", "job del" and "policy set" parsed into
 *     plain structs (job-args.c);
 *   - a backend that talks to the module (backend.h: job-genl.c over
 *     generic netlink, or a test's own through struct rwctl.job_backend),
 *     turning replies into plain structs;
 *   - the printers (rwctl_job_print()), text and JSON from the same calls.
 *
 * The policy object shares the job list fetch and printers declared here;
 * topo and stats need only backend.h.
 */
#ifndef RWCTL_JOB_H
#define RWCTL_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

#include "boxes.h"

struct nl_msg;
struct nlmsghdr;
struct rwctl;
struct rwctl_printer;
struct rwctl_stats;
struct rwctl_topo;

/* Hyper-parameters, in the order of their RW_JOB_A_* attributes. */
enum rwctl_job_hp {
	RWCTL_HP_LR,
	RWCTL_HP_MOMENTUM,
	RWCTL_HP_WEIGHT_DECAY,
	RWCTL_HP_BETA1,
	RWCTL_HP_BETA2,
	RWCTL_HP_EPS,
	RWCTL_NR_HP
};

/* One job as the module describes it (RW_CMD_JOB_GET / _NEW reply). */
struct rwctl_job {
	char name[RW_JOB_NAME_MAX];
	uint32_t id;
	uint32_t workers;
	uint32_t chunk_size;
	uint32_t sync;			/* enum rw_sync_mode */
	uint32_t staleness;		/* SSP only */
	uint32_t staleness_lo;		/* ADAPTIVE only */
	uint32_t staleness_hi;		/* ADAPTIVE only */
	/*
	 * BSP: a step sums the first @quorum gradients of its iteration to
	 * arrive; @workers (the module's default, and what a module older
	 * than the attribute does) means every worker's.
	 */
	uint32_t quorum;
	uint32_t evict_ms;
	uint32_t optim;			/* enum rw_optim */
	unsigned int hp_mask;		/* bit per enum rwctl_job_hp reported */
	float hp[RWCTL_NR_HP];
	uint32_t attached;
	uint32_t mappings;		/* live mmaps of its buffers */
	/*
	 * Memory limits: the three below (bytes), sent together by a module
	 * that has them. @max_memory is the setting, 0 for the default (half
	 * the box's budget); @memory_limit the limit in force; @memory what
	 * the job's run is charged now.
	 */
	bool has_memory;
	uint64_t max_memory;
	uint64_t memory_limit;
	uint64_t memory;
	bool has_run;			/* a layout is declared: the three below */
	uint32_t tensors;
	uint32_t chunks;
	uint64_t model_bytes;
	struct rwctl_boxes boxes;	/* its box set; nr 0: none */
	struct rwctl_boxes move;	/* the set it moves to; nr 0: none */
	uint32_t carry_due;		/* chunks a move gives this box, not come */
	bool has_token;			/* only in a RW_CMD_JOB_NEW reply */
	uint8_t token[RW_JOB_TOKEN_LEN];
};

/* "job add" or "policy set" as typed; has_* / masks say what was given. */
struct rwctl_job_add {
	char name[RW_JOB_NAME_MAX];
	bool has_workers;		/* always, after "job add" parsed */
	uint32_t workers;
	bool has_chunk_size;
	uint32_t chunk_size;
	bool has_sync;
	uint32_t sync;
	uint32_t staleness;		/* SSP */
	uint32_t staleness_lo;		/* ADAPTIVE */
	uint32_t staleness_hi;
	/*
	 * "quorum K" or "quorum all": K in 1..workers, checked by
	 * rwctl_job_check_quorum() once the worker count is known, which
	 * also turns "all" into that count.
	 */
	bool has_quorum;
	bool quorum_all;
	uint32_t quorum;
	const char *quorum_arg;		/* as typed, for messages; in argv */
	bool has_evict_ms;
	uint32_t evict_ms;
	bool has_optim;
	uint32_t optim;
	unsigned int hp_mask;
	float hp[RWCTL_NR_HP];
	bool has_max_memory;
	uint64_t max_memory;		/* bytes; 0: "default" */
	/*
	 * "boxes LIST self ID [epoch N]" (boxes.nr 0: "boxes none", no set;
	 * self and epoch 0 when not given), checked by rwctl_boxes_check().
	 */
	bool has_boxes;
	struct rwctl_boxes boxes;
	const char *token_file;		/* points into argv; NULL if none */
	bool has_token;			/* set by rwctl_job_read_token() */
	uint8_t token[RW_JOB_TOKEN_LEN];
};

struct rwctl_job_list {
	struct rwctl_job *jobs;
	size_t nr;
};

void rwctl_job_list_free(struct rwctl_job_list *list);

/*
 * "job add" arguments (what follows "add") into @a, which is zeroed first.
 * Returns 0, or -EINVAL with a sentence in @msg (a usage error).
 */
int rwctl_job_parse_add(int argc, char **argv, struct rwctl_job_add *a,
			char *msg, size_t msglen);

/*
 * "policy set" arguments: JOB and at least one of the settings of "job add"
 * (workers included, the token not). Same conventions. A quorum is
 * checked here only if @a also gives the worker count and the sync mode;
 * otherwise rwctl_job_quorum_needs_job() says so.
 */
int rwctl_job_parse_policy(int argc, char **argv, struct rwctl_job_add *a,
			   char *msg, size_t msglen);

/*
 * True if "policy set" @a gives a quorum whose check needs the job's own
 * worker count or sync mode (@a does not change both).
 */
bool rwctl_job_quorum_needs_job(const struct rwctl_job_add *a);

/*
 * Check @a's quorum against the job it will apply to: @workers and @sync
 * are the worker count and sync mode the job will have, @job its name
 * when they are the job's current ones (NULL: the command line's own).
 * "all" becomes @workers. Returns 0 (also without a quorum), or -EINVAL
 * with a sentence in @msg: a quorum outside 1..@workers, or one for a
 * sync mode other than BSP.
 */
int rwctl_job_check_quorum(struct rwctl_job_add *a, uint32_t workers,
			   uint32_t sync, const char *job, char *msg,
			   size_t msglen);

/*
 * True if @a changes a setting that shapes the job's memory (workers, chunk
 * size, optimizer, hyper-parameters), which a declared layout fixes. The
 * max-memory limit does not: it may change during a run, for the next.
 */
bool rwctl_job_add_shapes_memory(const struct rwctl_job_add *a);

/*
 * Words for a "job add" or "policy set" @a that the module refused with
 * @err because it does not know one of the settings sent (strict parsing:
 * EINVAL and "Unknown attribute type" in @extack): into @buf, which is
 * returned; NULL for any other refusal.
 */
const char *rwctl_job_unknown_setting(char *buf, size_t len,
				      const struct rwctl_job_add *a, int err,
				      const char *extack);

/* "job del" arguments: NAME [force]. Same conventions. */
int rwctl_job_parse_del(int argc, char **argv, const char **name, bool *force,
			char *msg, size_t msglen);

/*
 * Read exactly RW_JOB_TOKEN_LEN raw bytes from @path into @token. Returns 0,
 * -EINVAL if the file holds another number of bytes, or the errno of the
 * failing open/read; @msg says which.
 */
int rwctl_job_read_token(const char *path, uint8_t token[RW_JOB_TOKEN_LEN],
			 char *msg, size_t msglen);

/* "bsp", ..., or NULL for a value this rwctl does not know. */
const char *rwctl_job_sync_name(uint32_t sync);
const char *rwctl_job_optim_name(uint32_t optim);

/* Command-line keyword ("weight-decay") and JSON key ("weight_decay"). */
const char *rwctl_job_hp_word(enum rwctl_job_hp hp);
const char *rwctl_job_hp_key(enum rwctl_job_hp hp);

/* @token as 2 * RW_JOB_TOKEN_LEN lowercase hex digits and a NUL. */
void rwctl_job_format_token(char buf[2 * RW_JOB_TOKEN_LEN + 1],
			    const uint8_t token[RW_JOB_TOKEN_LEN]);

/*
 * {"jobs":[...]} or one block per job. A job with has_token carries
 * "token" in JSON and a "token: ... (shown once; store it now)" line.
 */
void rwctl_job_print(struct rwctl_printer *p, const struct rwctl_job *jobs,
		     size_t nr);

/*
 * Pieces of a job's block, for printers of a part of it: "sync ssp
 * staleness 3" (keys sync, staleness or staleness_lo/_hi; a BSP job has
 * the key quorum, and "sync bsp quorum 3/4" in text when its quorum is
 * below its workers) and "optim adam lr 0.001 ..." (optim and the
 * hyper-parameters reported), no newline.
 */
void rwctl_job_print_sync(struct rwctl_printer *p, const struct rwctl_job *j);
void rwctl_job_print_optim(struct rwctl_printer *p, const struct rwctl_job *j);

/* "  evict-ms 5000" or "  evict-ms 0 (never)" (key evict_ms), no newline. */
void rwctl_job_print_evict(struct rwctl_printer *p, const struct rwctl_job *j);

/*
 * "memory 12.3 MiB of 512 MiB (max-memory default)" or "... (max-memory
 * 1 GiB)" (keys max_memory, memory_limit, memory), no newline; nothing for
 * a job without has_memory.
 */
void rwctl_job_print_memory(struct rwctl_printer *p,
			    const struct rwctl_job *j);

/* A printer of a job list: rwctl_job_print() or one of a part of it. */
typedef void (*rwctl_job_print_fn)(struct rwctl_printer *p,
				   const struct rwctl_job *jobs, size_t nr);

/* @jobs through @print on ctl->out as the options ask. RWCTL_EXIT_*. */
int rwctl_job_output(struct rwctl *ctl, rwctl_job_print_fn print,
		     const struct rwctl_job *jobs, size_t nr);

/*
 * "@obj show [NAME]" for @cmd ("job show", "policy show"): check the name,
 * fetch every job or the one named and print them with @print. Returns
 * RWCTL_EXIT_*, failures reported.
 */
int rwctl_job_show_with(struct rwctl *ctl, const char *obj, const char *cmd,
			int argc, char **argv, rwctl_job_print_fn print);

/*
 * The job @name, or every job (@name NULL), into @list for @cmd; a dump
 * that raced with a change is read again once. Returns RWCTL_EXIT_*,
 * failures reported; free @list whatever the result.
 */
int rwctl_job_fetch(struct rwctl *ctl, const char *cmd, const char *name,
		    struct rwctl_job_list *list);

/*
 * The settings of "job add" and "policy set" for their help text: their
 * synopsis after the command's own words, then what each value may be,
 * each line indented by two spaces.
 */
#define RWCTL_JOB_SETTINGS_SYNOPSIS \
"        [ sync { bsp | asp | ssp S | adaptive LO HI } ] [ quorum { K | all } ]\n" \
"        [ evict-ms MS ] [ max-memory { SIZE | default } ]\n" \
"        [ boxes { ID@ADDR[:PORT],... | none } self ID [ epoch E ] ]\n" \
"        [ optim { sgd | momentum | nesterov | adam | average } ] [ lr X ]\n" \
"        [ momentum X ] [ weight-decay X ] [ beta1 X ] [ beta2 X ] [ eps X ]\n"

#define RWCTL_JOB_SETTINGS_HELP \
"  N           workers, 1-" RW_STR(RW_JOB_MAX_WORKERS) "\n" \
"  BYTES       a power of two, 4096-1048576 (default: the module's chunk_size)\n" \
"  S, LO, HI   staleness bounds, 1-" RW_STR(RW_JOB_MAX_STALENESS) ", LO <= HI\n" \
"  K           BSP only: a step sums the first K gradients of its iteration to\n" \
"              arrive and drops the late ones (backup workers), 1-N; all: N,\n" \
"              every worker's (the default)\n" \
"  MS          evict a silent worker after MS ms; 0 never\n" \
"  SIZE        most memory a run of the job may take, all told: bytes, or with\n" \
"              K, M, G or T (powers of 1024); default or 0: half the box's\n" \
"              budget (max_memory). A declare that would go over fails EDQUOT\n" \
"  average     no optimizer: a step writes the mean of the gradients it sums\n" \
"              as the parameters (asp, ssp, adaptive: the one it applies);\n" \
"              the hyper-parameters are ignored\n" \
"  X           a finite number, sent as IEEE 754 single precision\n" \
"  ID@ADDR     a box of the job's set: its id, 1-" RW_STR(RW_BOX_MAX_ID) ", and the address\n" \
"              trainers reach it at (IPv4, or IPv6 as [ADDR]:PORT or ADDR;\n" \
"              port default " RW_STR(RW_WIRE_PORT) "); up to " RW_STR(RW_JOB_MAX_BOXES) ", comma-separated, no id\n" \
"              or address twice; none: no set (policy set drops it)\n" \
"  self ID     which box of the set this one is: every box of the set is\n" \
"              given the same job and set, each with its own self\n" \
"  E           the set's epoch, 1 or more (default 1; policy set: the\n" \
"              old epoch + 1). The set changes between runs only\n"

/*
 * Parse one RW_CMD_JOB_GET / RW_CMD_JOB_NEW reply into @job (zeroed first).
 * Integers must have their exact length, the name be a terminated string
 * of 1..RW_JOB_NAME_MAX-1 bytes, the token exactly RW_JOB_TOKEN_LEN bytes;
 * the bounds of the sync mode must be present, and the memory attributes
 * come all three or none (a module older than memory limits). Attributes
 * newer than this rwctl are ignored. Returns 0 or -EPROTO with a sentence
 * in @msg.
 */
int rwctl_genl_parse_job(struct nlmsghdr *nlh, struct rwctl_job *job,
			 char *msg, size_t msglen);

/*
 * The attributes of a "job add" or "policy set" request: the name, then
 * the settings @a gives and nothing else (the module keeps the others).
 * Returns 0, or -EMSGSIZE if they do not fit in @m.
 */
int rwctl_job_put_settings(struct nl_msg *m, const struct rwctl_job_add *a);

#endif /* RWCTL_JOB_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl job: the parameter-server jobs the module serves.
 *
 * Three layers, each testable alone:
 *   - the command line of "job add" / "job del" parsed into plain structs
 *     (rwctl_job_parse_add(), rwctl_job_parse_del(), rwctl_job_read_token());
 *   - a backend that talks to the module (job-genl.c over generic netlink,
 *     or a test's own through struct rwctl.job_backend), turning replies
 *     into struct rwctl_job;
 *   - the printers (rwctl_job_print()), text and JSON from the same calls.
 */
#ifndef RWCTL_JOB_H
#define RWCTL_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

struct nlmsghdr;
struct rwctl_printer;

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
	uint32_t evict_ms;
	uint32_t optim;			/* enum rw_optim */
	unsigned int hp_mask;		/* bit per enum rwctl_job_hp reported */
	float hp[RWCTL_NR_HP];
	uint32_t attached;
	bool has_token;			/* only in a RW_CMD_JOB_NEW reply */
	uint8_t token[RW_JOB_TOKEN_LEN];
};

/* "job add" as typed; has_* / masks say what was given. */
struct rwctl_job_add {
	char name[RW_JOB_NAME_MAX];
	uint32_t workers;
	bool has_chunk_size;
	uint32_t chunk_size;
	bool has_sync;
	uint32_t sync;
	uint32_t staleness;		/* SSP */
	uint32_t staleness_lo;		/* ADAPTIVE */
	uint32_t staleness_hi;
	bool has_evict_ms;
	uint32_t evict_ms;
	bool has_optim;
	uint32_t optim;
	unsigned int hp_mask;
	float hp[RWCTL_NR_HP];
	const char *token_file;		/* points into argv; NULL if none */
	bool has_token;			/* set by rwctl_job_read_token() */
	uint8_t token[RW_JOB_TOKEN_LEN];
};

/* What the backend returns for a request. */
struct rwctl_job_err {
	/*
	 * true: the module refused the request with the errno returned; the
	 * caller words it. false: @msg is a complete sentence (module not
	 * loaded, malformed reply, ...).
	 */
	bool kernel;
	char msg[512];
	char extack[256];		/* the module's extended ack, or "" */
};

struct rwctl_job_list {
	struct rwctl_job *jobs;
	size_t nr;
};

/*
 * Where jobs come from. Each returns 0 or a negative errno with @e filled.
 * @out / @list are zeroed by the caller; lists are freed with
 * rwctl_job_list_free() whatever the result.
 */
struct rwctl_job_backend {
	int (*add)(const struct rwctl_job_add *a, struct rwctl_job *out,
		   struct rwctl_job_err *e);
	int (*del)(const char *name, bool force, struct rwctl_job_err *e);
	/* @name NULL: every job (a dump). */
	int (*get)(const char *name, struct rwctl_job_list *list,
		   struct rwctl_job_err *e);
};

extern const struct rwctl_job_backend rwctl_job_genl_backend;

void rwctl_job_list_free(struct rwctl_job_list *list);

/*
 * 0 if @name may name a job (1..RW_JOB_NAME_MAX-1 bytes of [A-Za-z0-9._-]),
 * else -EINVAL with a sentence in @msg.
 */
int rwctl_job_check_name(const char *name, char *msg, size_t msglen);

/*
 * "job add" arguments (what follows "add") into @a, which is zeroed first.
 * Returns 0, or -EINVAL with a sentence in @msg (a usage error).
 */
int rwctl_job_parse_add(int argc, char **argv, struct rwctl_job_add *a,
			char *msg, size_t msglen);

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
 * The user's sentence for the module's refusal @err of "job @cmd" on job
 * @name, with the extended ack appended when there is one.
 */
void rwctl_job_explain(char *buf, size_t len, const char *cmd,
		       const char *name, int err, const char *extack);

/*
 * Parse one RW_CMD_JOB_GET / RW_CMD_JOB_NEW reply into @job (zeroed first).
 * Integers must have their exact length, the name be a terminated string
 * of 1..RW_JOB_NAME_MAX-1 bytes, the token exactly RW_JOB_TOKEN_LEN bytes;
 * the bounds of the sync mode must be present. Attributes newer than this
 * rwctl are ignored. Returns 0 or -EPROTO with a sentence in @msg.
 */
int rwctl_genl_parse_job(struct nlmsghdr *nlh, struct rwctl_job *job,
			 char *msg, size_t msglen);

#endif /* RWCTL_JOB_H */

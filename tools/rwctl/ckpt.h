/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl job checkpoint / job restore: a job's parameters, optimizer state
 * and chunk versions to a file and back (ckpt.c: the command line and the
 * summary), through an observer attached with the job's token
 * (ckpt-dev.c: librackweave on the device, or a test's own backend
 * through struct rwctl.ckpt_backend).
 */
#ifndef RWCTL_CKPT_H
#define RWCTL_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

struct rwctl;

/* One "job checkpoint" or "job restore" as typed, the token read. */
struct rwctl_ckpt_req {
	const char *job;		/* these three point into argv */
	const char *file;
	const char *token_file;
	uint32_t timeout_ms;		/* checkpoint only; 0: no limit */
	uint8_t token[RW_JOB_TOKEN_LEN];
};

/* What the file holds afterwards, for the summary line. */
struct rwctl_ckpt_info {
	uint64_t step;			/* optimizer steps the run had applied */
	uint64_t bytes;			/* the file's length */
};

/*
 * Where the commands go. Each returns 0 with @info filled, or a negative
 * errno with one line in @why (the file named when it is about the file).
 */
struct rwctl_ckpt_backend {
	int (*save)(const struct rwctl_ckpt_req *r,
		    struct rwctl_ckpt_info *info, char *why, size_t whylen);
	int (*restore)(const struct rwctl_ckpt_req *r,
		       struct rwctl_ckpt_info *info, char *why, size_t whylen);
};

extern const struct rwctl_ckpt_backend rwctl_ckpt_dev_backend;

/*
 * "JOB FILE token-file PATH [timeout MS]" (@save) or "JOB FILE token-file
 * PATH" into @r (zeroed first; the token is not read). 0, or -EINVAL with
 * a sentence in @msg (a usage error).
 */
int rwctl_ckpt_parse(int argc, char **argv, bool save,
		     struct rwctl_ckpt_req *r, char *msg, size_t msglen);

/* The commands of the job object's table. RWCTL_EXIT_*. */
int rwctl_job_checkpoint(struct rwctl *ctl, int argc, char **argv);
int rwctl_job_restore(struct rwctl *ctl, int argc, char **argv);

#endif /* RWCTL_CKPT_H */

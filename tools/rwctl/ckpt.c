// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl job checkpoint / job restore:
 *
 *   $ rwctl job checkpoint train run.ckpt token-file train.token
 *   job train: checkpoint of step 1200, 7340160 bytes, to run.ckpt
 *   $ rwctl job restore train run.ckpt token-file train.token
 *   job train: restored step 1200, 7340160 bytes, from run.ckpt
 *
 * The file format and every check belong to librackweave
 * (rw_checkpoint_save(3), docs/checkpoint.md); this file parses the words,
 * reads the token, asks the backend and prints one line (or, with -j,
 * {"job":...,"file":...,"step":...,"bytes":...}).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "ckpt.h"
#include "print.h"
#include "rwctl.h"

static int rwctl_ckpt_einval(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rwctl_ckpt_einval(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rwctl_ckpt_parse(int argc, char **argv, bool save,
		     struct rwctl_ckpt_req *r, char *msg, size_t msglen)
{
	const char *cmd = save ? "job checkpoint" : "job restore";
	bool has_timeout = false, is_token, is_timeout;
	const char *w;
	int i, err;

	memset(r, 0, sizeof(*r));
	if (argc < 2)
		return rwctl_ckpt_einval(msg, msglen,
					 "'%s' needs a JOB, a FILE and 'token-file PATH'",
					 cmd);
	err = rwctl_job_check_name(argv[0], msg, msglen);
	if (err)
		return err;
	r->job = argv[0];
	if (!argv[1][0])
		return rwctl_ckpt_einval(msg, msglen,
					 "'%s' needs a FILE, not an empty word",
					 cmd);
	r->file = argv[1];
	for (i = 2; i < argc; i += 2) {
		w = argv[i];
		is_token = !strcmp(w, "token-file");
		is_timeout = save && !strcmp(w, "timeout");
		if (!is_token && !is_timeout && w[0] == '-')
			return rwctl_ckpt_einval(msg, msglen,
						 "unexpected argument '%s' (options go before OBJECT)",
						 w);
		if (!is_token && !is_timeout)
			return rwctl_ckpt_einval(msg, msglen,
						 "unknown argument '%s' to '%s' (%s)",
						 w, cmd, save ?
						 "token-file PATH, timeout MS" :
						 "token-file PATH");
		if ((is_token && r->token_file) || (is_timeout && has_timeout))
			return rwctl_ckpt_einval(msg, msglen,
						 "'%s' given twice", w);
		if (i + 1 >= argc)
			return rwctl_ckpt_einval(msg, msglen,
						 "'%s' needs a value", w);
		if (is_token) {
			if (!argv[i + 1][0])
				return rwctl_ckpt_einval(msg, msglen,
							 "'token-file' needs a path");
			r->token_file = argv[i + 1];
			continue;
		}
		has_timeout = true;
		err = rwctl_parse_u32("timeout", argv[i + 1], 0, UINT32_MAX,
				      &r->timeout_ms, msg, msglen);
		if (err)
			return err;
	}
	if (!r->token_file)
		return rwctl_ckpt_einval(msg, msglen,
					 "'%s' needs 'token-file PATH': the job's token, with which rwctl attaches as an observer",
					 cmd);
	return 0;
}

/* The job's token from r->token_file: 0, or the failure reported. */
static int rwctl_ckpt_token(struct rwctl *ctl, const char *cmd,
			    struct rwctl_ckpt_req *r)
{
	int err = rw_token_read(r->token_file, r->token);

	if (!err)
		return 0;
	if (err == -EINVAL)
		fprintf(ctl->err,
			"rwctl: %s: token file '%s' holds no token (%d raw bytes, or %d hex digits as 'job add' prints them)\n",
			cmd, r->token_file, RW_JOB_TOKEN_LEN,
			2 * RW_JOB_TOKEN_LEN);
	else
		fprintf(ctl->err, "rwctl: %s: cannot read token file '%s': %s\n",
			cmd, r->token_file, strerror(-err));
	return -EINVAL;
}

static int rwctl_ckpt_run(struct rwctl *ctl, int argc, char **argv, bool save)
{
	const struct rwctl_ckpt_backend *be = ctl->ckpt_backend ?
		ctl->ckpt_backend : &rwctl_ckpt_dev_backend;
	const char *cmd = save ? "job checkpoint" : "job restore";
	struct rwctl_ckpt_info info = { 0 };
	struct rwctl_ckpt_req r;
	struct rwctl_printer p;
	char msg[1024] = "";
	int err;

	if (rwctl_ckpt_parse(argc, argv, save, &r, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "job", "%s", msg);
	if (rwctl_ckpt_token(ctl, cmd, &r))
		return RWCTL_EXIT_ERR;
	err = save ? be->save(&r, &info, msg, sizeof(msg)) :
		     be->restore(&r, &info, msg, sizeof(msg));
	memset(r.token, 0, sizeof(r.token));
	if (err) {
		fprintf(ctl->err, "rwctl: %s: %s\n", cmd,
			msg[0] ? msg : strerror(-err));
		return RWCTL_EXIT_ERR;
	}

	rwctl_begin_output(ctl, &p);
	rwctl_pr_obj_open(&p, NULL);
	rwctl_pr_str(&p, "job", "job %s: ", r.job);
	rwctl_pr_text(&p, save ? "checkpoint of " : "restored ");
	rwctl_pr_u64(&p, "step", "step %" PRIu64, info.step);
	rwctl_pr_u64(&p, "bytes", ", %" PRIu64 " bytes, ", info.bytes);
	rwctl_pr_str(&p, "file", save ? "to %s" : "from %s", r.file);
	rwctl_pr_nl(&p);
	rwctl_pr_obj_close(&p);
	return rwctl_end_output(ctl, &p);
}

int rwctl_job_checkpoint(struct rwctl *ctl, int argc, char **argv)
{
	return rwctl_ckpt_run(ctl, argc, argv, true);
}

int rwctl_job_restore(struct rwctl *ctl, int argc, char **argv)
{
	return rwctl_ckpt_run(ctl, argc, argv, false);
}

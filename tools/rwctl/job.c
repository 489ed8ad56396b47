// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl job: create, list and delete the jobs the module serves; their
 * checkpoints are in ckpt.c.
 *
 *   job train1 id 3
 *       workers 4 (2 attached)  chunk-size 32768  evict-ms 5000
 *       sync ssp staleness 3
 *       optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08
 *       memory 12.3 MiB of 512 MiB (max-memory default)
 *
 * A BSP job whose steps wait for fewer gradients than it has workers says
 * "sync bsp quorum 3/4"; JSON has "quorum" for every BSP job. A job spread
 * over several boxes lists its box set last (boxes.c prints it).
 *
 * The words of the command line are parsed in job-args.c; the failure
 * reporting and the job list fetch here serve policy, topo and stats too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "boxes.h"
#include "ckpt.h"
#include "genl.h"
#include "job.h"
#include "print.h"
#include "rwctl.h"

void rwctl_job_format_token(char buf[2 * RW_JOB_TOKEN_LEN + 1],
			    const uint8_t token[RW_JOB_TOKEN_LEN])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < RW_JOB_TOKEN_LEN; i++) {
		buf[2 * i] = hex[token[i] >> 4];
		buf[2 * i + 1] = hex[token[i] & 0xf];
	}
	buf[2 * RW_JOB_TOKEN_LEN] = '\0';
}

/* A name for a value this rwctl knows, else "<prefix><number>". */
static const char *rwctl_job_enum_str(const char *name, const char *prefix,
				      uint32_t v, char *buf, size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "%s%u", prefix, v);
	return buf;
}

void rwctl_job_print_sync(struct rwctl_printer *p, const struct rwctl_job *j)
{
	char other[16];
	const char *s;
	uint32_t k;

	s = rwctl_job_enum_str(rwctl_job_sync_name(j->sync), "sync", j->sync,
			       other, sizeof(other));
	rwctl_pr_str(p, "sync", "sync %s", s);
	if (j->sync == RW_SYNC_SSP)
		rwctl_pr_u32(p, "staleness", " staleness %u", j->staleness);
	if (j->sync == RW_SYNC_ADAPTIVE) {
		rwctl_pr_u32(p, "staleness_lo", " staleness %u", j->staleness_lo);
		rwctl_pr_u32(p, "staleness_hi", "..%u", j->staleness_hi);
	}
	if (j->sync != RW_SYNC_BSP)
		return;
	/*
	 * Every worker's gradient is the default, so text names only fewer.
	 * 0 is what a job filled by hand says for that default.
	 */
	k = j->quorum ? j->quorum : j->workers;
	if (k >= j->workers) {
		rwctl_pr_u32(p, "quorum", NULL, k);
		return;
	}
	rwctl_pr_u32(p, "quorum", " quorum %u", k);
	rwctl_pr_text(p, "/%u", j->workers);
}

void rwctl_job_print_evict(struct rwctl_printer *p, const struct rwctl_job *j)
{
	rwctl_pr_u32(p, "evict_ms", j->evict_ms ? "  evict-ms %u" : NULL,
		     j->evict_ms);
	if (!j->evict_ms)
		rwctl_pr_text(p, "  evict-ms 0 (never)");
}

void rwctl_job_print_memory(struct rwctl_printer *p,
			    const struct rwctl_job *j)
{
	char used[RWCTL_PR_HUMAN_LEN], limit[RWCTL_PR_HUMAN_LEN];
	char setting[RWCTL_PR_SIZE_LEN];

	if (!j->has_memory)
		return;
	rwctl_pr_text(p, "memory %s of %s", rwctl_pr_fmt_bytes(used, j->memory),
		      rwctl_pr_fmt_bytes(limit, j->memory_limit));
	rwctl_pr_u64(p, "max_memory", NULL, j->max_memory);
	rwctl_pr_u64(p, "memory_limit", NULL, j->memory_limit);
	rwctl_pr_u64(p, "memory", NULL, j->memory);
	if (j->max_memory)
		rwctl_pr_text(p, " (max-memory %s)",
			      rwctl_pr_fmt_size(setting, j->max_memory));
	else
		rwctl_pr_text(p, " (max-memory default)");
}

/*
 * The hyper-parameters each optimizer reads (uapi/rackweave.h, JOB_NEW):
 * the module reports all six for every job, but showing momentum for SGD
 * or anything for average suggests they act. An optimizer this rwctl does
 * not know shows them all.
 */
static unsigned int rwctl_job_optim_hps(uint32_t optim)
{
	const unsigned int lr_wd = 1U << RWCTL_HP_LR | 1U << RWCTL_HP_WEIGHT_DECAY;

	switch (optim) {
	case RW_OPTIM_SGD:
		return lr_wd;
	case RW_OPTIM_MOMENTUM:
	case RW_OPTIM_NESTEROV:
		return lr_wd | 1U << RWCTL_HP_MOMENTUM;
	case RW_OPTIM_ADAM:
		return lr_wd | 1U << RWCTL_HP_BETA1 | 1U << RWCTL_HP_BETA2 |
		       1U << RWCTL_HP_EPS;
	case RW_OPTIM_AVERAGE:
		return 0;
	default:
		return ~0U;
	}
}

void rwctl_job_print_optim(struct rwctl_printer *p, const struct rwctl_job *j)
{
	unsigned int used = rwctl_job_optim_hps(j->optim);
	char label[32], other[16];
	const char *s;
	size_t i;

	s = rwctl_job_enum_str(rwctl_job_optim_name(j->optim), "optim",
			       j->optim, other, sizeof(other));
	rwctl_pr_str(p, "optim", "optim %s", s);
	for (i = 0; i < RWCTL_NR_HP; i++) {
		if (!(j->hp_mask & used & (1U << i)))
			continue;
		snprintf(label, sizeof(label), "%s%s %%g", i ? " " : "  ",
			 rwctl_job_hp_word(i));
		rwctl_pr_float(p, rwctl_job_hp_key(i), label, j->hp[i]);
	}
}

static void rwctl_job_print_one(struct rwctl_printer *p,
				const struct rwctl_job *j)
{
	char token[2 * RW_JOB_TOKEN_LEN + 1];

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "name", "job %s", j->name);
	rwctl_pr_u32(p, "id", " id %u", j->id);
	rwctl_pr_nl(p);

	rwctl_pr_u32(p, "workers", "    workers %u", j->workers);
	rwctl_pr_u32(p, "attached", " (%u attached)", j->attached);
	rwctl_pr_u32(p, "chunk_size", "  chunk-size %u", j->chunk_size);
	rwctl_job_print_evict(p, j);
	rwctl_pr_nl(p);

	rwctl_pr_text(p, "    ");
	rwctl_job_print_sync(p, j);
	rwctl_pr_nl(p);

	rwctl_pr_text(p, "    ");
	rwctl_job_print_optim(p, j);
	rwctl_pr_nl(p);

	if (j->has_memory) {
		rwctl_pr_text(p, "    ");
		rwctl_job_print_memory(p, j);
		rwctl_pr_nl(p);
	}

	if (j->has_run) {
		rwctl_pr_u32(p, "tensors", "    running: %u tensors", j->tensors);
		rwctl_pr_u64(p, "model_bytes", ", %" PRIu64 " bytes", j->model_bytes);
		rwctl_pr_u32(p, "chunks", " in %u chunks", j->chunks);
		rwctl_pr_u32(p, "mappings", ", %u mappings", j->mappings);
		rwctl_pr_nl(p);
	}
	rwctl_boxes_print(p, &j->boxes, "    ");
	rwctl_boxes_print_move(p, &j->move, "    ");
	if (j->carry_due) {
		rwctl_pr_u32(p, "carry_due",
			     "    waiting for %u chunks a move gives this box "
			     "(its next run starts once they have come)",
			     j->carry_due);
		rwctl_pr_nl(p);
	}

	if (j->has_token) {
		rwctl_job_format_token(token, j->token);
		rwctl_pr_str(p, "token", "token: %s (shown once; store it now)",
			     token);
		rwctl_pr_nl(p);
		memset(token, 0, sizeof(token));
	}
	rwctl_pr_obj_close(p);
}

void rwctl_job_print(struct rwctl_printer *p, const struct rwctl_job *jobs,
		     size_t nr)
{
	size_t i;

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_arr_open(p, "jobs");
	for (i = 0; i < nr; i++)
		rwctl_job_print_one(p, &jobs[i]);
	rwctl_pr_arr_close(p);
	rwctl_pr_obj_close(p);
}

const char *rwctl_job_unknown_setting(char *buf, size_t len,
				      const struct rwctl_job_add *a, int err,
				      const char *extack)
{
	if (err != -EINVAL || !extack || !strstr(extack, "Unknown attribute"))
		return NULL;
	if (a->has_boxes)
		snprintf(buf, len,
			 "the loaded rackweave module has no box sets (boxes, self, epoch); load the module of rwctl's release (%s), or leave them out",
			 RW_VERSION_STRING);
	else if (a->has_max_memory)
		snprintf(buf, len,
			 "the loaded rackweave module has no memory limits (max-memory); load the module of rwctl's release (%s), or leave max-memory out",
			 RW_VERSION_STRING);
	else
		snprintf(buf, len,
			 "the loaded rackweave module does not know a setting given; load the module of rwctl's release (%s)",
			 RW_VERSION_STRING);
	return buf;
}

int rwctl_job_fetch(struct rwctl *ctl, const char *cmd, const char *name,
		    struct rwctl_job_list *list)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_err e;
	int err, tries;

	for (tries = 0; tries < 2; tries++) {
		memset(&e, 0, sizeof(e));
		rwctl_job_list_free(list);
		err = be->get(name, list, &e);
		if (err != -EAGAIN || e.kernel)
			break;
	}
	if (err == -EAGAIN && !e.kernel) {
		fprintf(ctl->err,
			"rwctl: %s: the job list changed while it was read, twice in a row; try again\n",
			cmd);
		return RWCTL_EXIT_ERR;
	}
	if (err)
		return rwctl_job_report(ctl, cmd, name, err, &e, NULL);
	return RWCTL_EXIT_OK;
}

int rwctl_job_output(struct rwctl *ctl, rwctl_job_print_fn print,
		     const struct rwctl_job *jobs, size_t nr)
{
	struct rwctl_printer p;

	rwctl_begin_output(ctl, &p);
	print(&p, jobs, nr);
	return rwctl_end_output(ctl, &p);
}

int rwctl_job_show_with(struct rwctl *ctl, const char *obj, const char *cmd,
			int argc, char **argv, rwctl_job_print_fn print)
{
	struct rwctl_job_list list = { 0 };
	const char *name = argc ? argv[0] : NULL;
	char msg[256];
	int ret;

	if (name && rwctl_job_check_name(name, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, obj, "%s", msg);
	ret = rwctl_job_fetch(ctl, cmd, name, &list);
	if (!ret)
		ret = rwctl_job_output(ctl, print, list.jobs, list.nr);
	rwctl_job_list_free(&list);
	return ret;
}

static int rwctl_job_show(struct rwctl *ctl, int argc, char **argv)
{
	return rwctl_job_show_with(ctl, "job", "job show", argc, argv,
				   rwctl_job_print);
}

static int rwctl_job_add(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_add a;
	struct rwctl_job job;
	struct rwctl_err e;
	char msg[512];
	const char *why;
	int err, ret;

	if (rwctl_job_parse_add(argc, argv, &a, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "job", "%s", msg);
	if (a.token_file) {
		err = rwctl_job_read_token(a.token_file, a.token, msg,
					   sizeof(msg));
		if (err) {
			fprintf(ctl->err, "rwctl: job add: %s\n", msg);
			return RWCTL_EXIT_ERR;
		}
		a.has_token = true;
	}

	memset(&e, 0, sizeof(e));
	memset(&job, 0, sizeof(job));
	err = be->add(&a, &job, &e);
	memset(a.token, 0, sizeof(a.token));
	if (err) {
		why = e.kernel ? rwctl_job_unknown_setting(msg, sizeof(msg), &a,
							   err, e.extack) :
				 NULL;
		/* The sentence says what the module's ack would. */
		if (why)
			e.extack[0] = '\0';
		return rwctl_job_report(ctl, "job add", a.name, err, &e, why);
	}
	ret = rwctl_job_output(ctl, rwctl_job_print, &job, 1);
	memset(job.token, 0, sizeof(job.token));
	return ret;
}

static int rwctl_job_del(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_err e;
	const char *name;
	char msg[256], busy[128];
	bool force;
	int err;

	if (rwctl_job_parse_del(argc, argv, &name, &force, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "job", "%s", msg);
	memset(&e, 0, sizeof(e));
	err = be->del(name, force, &e);
	if (!err)
		return RWCTL_EXIT_OK;
	snprintf(busy, sizeof(busy),
		 "workers are attached to job '%s'; use 'force' to detach them",
		 name);
	return rwctl_job_report(ctl, "job del", name, err, &e,
				err == -EBUSY ? busy : NULL);
}

static const struct rwctl_cmd rwctl_job_cmds[] = {
	{
		.name = "show",
		.alias = "list",
		.args = "[NAME]",
		.help = "every job, or the one named",
		.max_args = 1,
		.run = rwctl_job_show,
	},
	{
		.name = "add",
		.args = "NAME workers N [ARGS]",
		.help = "create a job (needs CAP_NET_ADMIN)",
		.details =
"job add NAME workers N [ chunk-size BYTES ]\n"
RWCTL_JOB_SETTINGS_SYNOPSIS
"        [ token-file PATH ]\n"
"  NAME        1-31 characters of A-Z a-z 0-9 . _ -\n"
RWCTL_JOB_SETTINGS_HELP
"  PATH        a file of exactly " RW_STR(RW_JOB_TOKEN_LEN) " raw bytes, or the 64 hex digits\n"
"              rwctl printed for a generated token; without it the module\n"
"              generates the token and rwctl prints it once\n",
		.max_args = 64,
		.run = rwctl_job_add,
	},
	{
		.name = "del",
		.alias = "delete",
		.args = "NAME [force]",
		.help = "delete a job; 'force' detaches its workers",
		.max_args = 2,
		.run = rwctl_job_del,
	},
	{
		.name = "checkpoint",
		.args = "JOB FILE ARGS",
		.help = "save a job's parameters and optimizer state to FILE",
		.details =
"job checkpoint JOB FILE token-file PATH [ timeout MS ]\n"
"job restore JOB FILE token-file PATH\n"
"  PATH        the job's token (what 'job add' printed, or its raw bytes):\n"
"              rwctl attaches as an observer with it\n"
"  MS          give up if the iterations in flight take longer (default:\n"
"              wait); the workers train on meanwhile\n"
"  A checkpoint is taken between iterations while the workers train and\n"
"  written to FILE.tmp, then renamed. A restore loads one into a new run of\n"
"  a job with the same layout, optimizer and hyper-parameters, after its\n"
"  workers declared the model and before any of them pushes.\n",
		.max_args = 6,
		.run = rwctl_job_checkpoint,
	},
	{
		.name = "restore",
		.args = "JOB FILE ARGS",
		.help = "load a checkpoint into a job's new run",
		.max_args = 4,
		.run = rwctl_job_restore,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_job = {
	.name = "job",
	.help = "parameter-server jobs served by the rackweave module",
	.cmds = rwctl_job_cmds,
};

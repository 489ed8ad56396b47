// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl policy: how a job synchronises its workers and updates its
 * parameters. "policy set" takes the settings of "job add" (parsed by the
 * same code, with the same limits) and sends RW_CMD_POLICY_SET; "policy
 * show" is the sync and optimizer part of "job show":
 *
 *   job train1
 *       sync ssp staleness 3  evict-ms 5000
 *       optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "genl.h"
#include "job.h"
#include "policy.h"
#include "print.h"
#include "rwctl.h"

static void rwctl_policy_print_one(struct rwctl_printer *p,
				   const struct rwctl_job *j)
{
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "name", "job %s", j->name);
	rwctl_pr_nl(p);

	rwctl_pr_text(p, "    ");
	rwctl_job_print_sync(p, j);
	rwctl_job_print_evict(p, j);
	rwctl_pr_nl(p);

	rwctl_pr_text(p, "    ");
	rwctl_job_print_optim(p, j);
	rwctl_pr_nl(p);
	rwctl_pr_obj_close(p);
}

/* {"jobs":[...]} as "job show", each job with its policy only. */
void rwctl_policy_print(struct rwctl_printer *p, const struct rwctl_job *jobs,
			size_t nr)
{
	size_t i;

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_arr_open(p, "jobs");
	for (i = 0; i < nr; i++)
		rwctl_policy_print_one(p, &jobs[i]);
	rwctl_pr_arr_close(p);
	rwctl_pr_obj_close(p);
}

static int rwctl_policy_show(struct rwctl *ctl, int argc, char **argv)
{
	return rwctl_job_show_with(ctl, "policy", "policy show", argc, argv,
				   rwctl_policy_print);
}

static int rwctl_policy_set(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_add a;
	struct rwctl_err e;
	struct rwctl_job job;
	char msg[512], busy[384];
	int err;

	if (rwctl_job_parse_policy(argc, argv, &a, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "policy", "%s", msg);

	memset(&e, 0, sizeof(e));
	memset(&job, 0, sizeof(job));
	err = be->policy(&a, &job, &e);
	if (err) {
		/*
		 * The module says why it is busy in its extended ack, after
		 * "job 'NAME' is busy"; without one, name the causes this
		 * request can have.
		 */
		if (rwctl_job_add_shapes_memory(&a))
			snprintf(busy, sizeof(busy),
				 "job '%s' is in use (workers attached or buffers mapped), or its declared layout fixes workers, chunk-size, optim and the hyper-parameters; change them between runs, or delete and re-create the job",
				 a.name);
		else
			snprintf(busy, sizeof(busy),
				 "job '%s' is in use (workers attached or buffers mapped); change its settings between runs",
				 a.name);
		return rwctl_job_report(ctl, "policy set", a.name, err, &e,
					err == -EBUSY && !e.extack[0] ?
					busy : NULL);
	}
	return rwctl_job_output(ctl, rwctl_job_print, &job, 1);
}

static const struct rwctl_cmd rwctl_policy_cmds[] = {
	{
		.name = "show",
		.alias = "list",
		.args = "[JOB]",
		.help = "sync and optimizer settings of every job, or the one named",
		.max_args = 1,
		.run = rwctl_policy_show,
	},
	{
		.name = "set",
		.args = "JOB SETTING...",
		.help = "change a job's settings (needs CAP_NET_ADMIN)",
		.details =
"policy set JOB [ workers N ] [ chunk-size BYTES ]\n"
RWCTL_JOB_SETTINGS_SYNOPSIS
RWCTL_JOB_SETTINGS_HELP
"  At least one setting; the others keep their values. Refused while the job\n"
"  is in use (workers attached, buffers mapped); a declared layout fixes\n"
"  workers, chunk-size, optim and the hyper-parameters. A new sync mode,\n"
"  bound or evict-ms restarts the gate (every clock back to 0). The job is\n"
"  printed as by 'job show'.\n",
		.max_args = 64,
		.run = rwctl_policy_set,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_policy = {
	.name = "policy",
	.help = "how jobs synchronise their workers and apply gradients",
	.cmds = rwctl_policy_cmds,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl policy: how a job synchronises its workers and updates its
 * parameters. "policy set" takes the settings of "job add" (parsed by the
 * same code, with the same limits) and sends RW_CMD_POLICY_SET; "policy
 * show" is the sync and optimizer part of "job show":
 *
 *   job train1
 *       sync bsp quorum 3/4  evict-ms 5000
 *       optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08
 *
 * The sync settings (sync mode, staleness bounds, quorum, evict-ms) may
 * change while the job runs: the module applies them at the next
 * iteration boundary. So may max-memory, which limits the job's next run
 * (the running one keeps what it was charged). Workers, chunk size and the
 * optimizer with its hyper-parameters shape the run's memory and change
 * only between runs.
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

/*
 * A quorum without both the worker count and the sync mode on the command
 * line is checked against the job's own, read first ("all" needs the
 * count). A change of the job between the two requests is caught by the
 * module, which checks the quorum again.
 */
static int rwctl_policy_check_quorum(struct rwctl *ctl,
				     struct rwctl_job_add *a)
{
	struct rwctl_job_list list = { 0 };
	const struct rwctl_job *j;
	char msg[512];
	int ret;

	ret = rwctl_job_fetch(ctl, "policy set", a->name, &list);
	if (!ret && list.nr != 1) {
		fprintf(ctl->err, "rwctl: policy set: no job named '%s'\n",
			a->name);
		ret = RWCTL_EXIT_ERR;
	} else if (!ret) {
		j = &list.jobs[0];
		if (rwctl_job_check_quorum(a,
					   a->has_workers ? a->workers : j->workers,
					   a->has_sync ? a->sync : j->sync,
					   j->name, msg, sizeof(msg)))
			ret = rwctl_usage_error(ctl, "policy", "%s", msg);
	}
	rwctl_job_list_free(&list);
	return ret;
}

/*
 * Words for EBUSY without the module's own: which settings wait for the
 * run to end. A module older than live sync changes refuses them all.
 */
static void rwctl_policy_busy(char *buf, size_t len,
			      const struct rwctl_job_add *a)
{
	if (a->has_boxes)
		snprintf(buf, len,
			 "job '%s' has a run (workers attached or buffers mapped): its box set changes between runs only; wait for the run to end",
			 a->name);
	else if (rwctl_job_add_shapes_memory(a))
		snprintf(buf, len,
			 "job '%s' has a run (workers attached or buffers mapped): workers, chunk-size, optim and the hyper-parameters wait for it to end (or delete and re-create the job); sync, quorum, evict-ms and max-memory may change now, set without them",
			 a->name);
	else
		snprintf(buf, len,
			 "job '%s' has a run (workers attached or buffers mapped) and the loaded rackweave module changes sync settings only between runs; wait for it to end, or load the module of rwctl's release (%s)",
			 a->name, RW_VERSION_STRING);
}

static int rwctl_policy_set(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_add a;
	struct rwctl_err e;
	struct rwctl_job job;
	char msg[512], busy[512];
	const char *why;
	int err, ret;

	if (rwctl_job_parse_policy(argc, argv, &a, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "policy", "%s", msg);
	if (rwctl_job_quorum_needs_job(&a)) {
		ret = rwctl_policy_check_quorum(ctl, &a);
		if (ret)
			return ret;
	}

	memset(&e, 0, sizeof(e));
	memset(&job, 0, sizeof(job));
	err = be->policy(&a, &job, &e);
	if (err) {
		/*
		 * The module says why it is busy in its extended ack, after
		 * "job 'NAME' is busy"; without one, name the causes this
		 * request can have.
		 */
		rwctl_policy_busy(busy, sizeof(busy), &a);
		why = err == -EBUSY && !e.extack[0] ? busy : NULL;
		if (e.kernel && rwctl_job_unknown_setting(msg, sizeof(msg), &a,
							  err, e.extack)) {
			why = msg;
			e.extack[0] = '\0';
		}
		return rwctl_job_report(ctl, "policy set", a.name, err, &e, why);
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
"  At least one setting; the others keep their values. sync, its bounds,\n"
"  quorum and evict-ms may change while the job runs: they take effect at\n"
"  the next iteration boundary, and monitor shows a 'policy JOB' event.\n"
"  max-memory may change at any time and limits the job's next run (the\n"
"  running one keeps what it was charged). workers, chunk-size, optim and\n"
"  the hyper-parameters are refused while a run exists (workers attached or\n"
"  buffers mapped). A box set (boxes) has the epoch given, else the job's\n"
"  old epoch + 1; 'boxes none' drops the set. While a run exists a set is\n"
"  the job's move, taken when the run ends, whose state the box keeps for\n"
"  the next run: self is this box's id in the job's set (not in the new\n"
"  one if this box leaves), one move at a time, no chunk changing owner. A\n"
"  quorum is checked against the job's workers, read first unless workers\n"
"  and sync are given. The job is printed as by 'job show'.\n",
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

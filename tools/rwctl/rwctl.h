/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl's command model: a table of objects, each with a table of commands,
 * and the invocation state they share. Everything here is callable without
 * main(), so tests drive rwctl_run() with their own streams and status source.
 */
#ifndef RWCTL_H
#define RWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rwctl_status;
struct rwctl_printer;
struct rwctl_job_backend;

/* Exit codes, as in iproute2. */
enum {
	RWCTL_EXIT_OK = 0,
	RWCTL_EXIT_ERR = 1,		/* the request could not be carried out */
	RWCTL_EXIT_USAGE = 2,		/* the command line is wrong */
};

/*
 * Where the module's status comes from: 0, or a negative errno with a
 * sentence for the user in @msg. @st is zeroed on entry and freed by the
 * caller with rwctl_status_free() whatever the result.
 */
typedef int (*rwctl_fetch_fn)(struct rwctl_status *st, char *msg,
			      size_t msglen);

struct rwctl {
	FILE *out;			/* command output */
	FILE *err;			/* diagnostics */
	rwctl_fetch_fn fetch;
	/* The job commands' module; NULL: generic netlink. */
	const struct rwctl_job_backend *job_backend;
	bool json;			/* -j */
	bool pretty;			/* -p; only affects JSON */
};

struct rwctl_cmd {
	const char *name;
	const char *alias;		/* NULL if none */
	const char *args;		/* synopsis of its arguments, NULL if none */
	const char *help;		/* one line, for "OBJECT help" */
	/* Lines printed after the command list by "OBJECT help"; NULL if none. */
	const char *details;
	unsigned int max_args;		/* more is a usage error */
	/* @argv: what follows the command word. Returns RWCTL_EXIT_*. */
	int (*run)(struct rwctl *ctl, int argc, char **argv);
};

struct rwctl_obj {
	const char *name;
	const char *help;		/* one line, for "rwctl help" */
	const struct rwctl_cmd *cmds;	/* first is the default; NULL name ends */
};

extern const struct rwctl_obj rwctl_obj_status;
extern const struct rwctl_obj rwctl_obj_dev;
extern const struct rwctl_obj rwctl_obj_job;

/* Parse @argv (argv[0]: program name), run the command, return RWCTL_EXIT_*. */
int rwctl_run(struct rwctl *ctl, int argc, char **argv);

/*
 * For commands: fetch the status through ctl->fetch, print it with @print
 * on ctl->out in the requested mode (text or JSON from the same calls) and
 * return RWCTL_EXIT_*; errors have been reported.
 */
/* Open the output of a command in the mode -j/-p asked for. */
void rwctl_begin_output(struct rwctl *ctl, struct rwctl_printer *p);

/*
 * Close the output of a command: RWCTL_EXIT_OK, or RWCTL_EXIT_ERR with a
 * message if it could not be written or came out malformed.
 */
int rwctl_end_output(struct rwctl *ctl, struct rwctl_printer *p);

int rwctl_show(struct rwctl *ctl,
	       void (*print)(struct rwctl_printer *p,
			     const struct rwctl_status *st));

#endif /* RWCTL_H */

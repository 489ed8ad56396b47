/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl's command model: a table of objects, each with a table of commands,
 * and the invocation state they share (cli.c dispatches), plus the helpers
 * every command uses (cmd.c). Everything here is callable without main(),
 * so tests drive rwctl_run() with their own streams and status source.
 */
#ifndef RWCTL_H
#define RWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rwctl_status;
struct rwctl_printer;
struct rwctl_job_backend;
struct rwctl_monitor_backend;
struct rwctl_listen_backend;
struct rwctl_ckpt_backend;

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
	FILE *in;			/* what "-" reads; NULL: stdin */
	FILE *out;			/* command output */
	FILE *err;			/* diagnostics */
	rwctl_fetch_fn fetch;
	/* The job, policy, topo and stats commands' module; NULL: netlink. */
	const struct rwctl_job_backend *job_backend;
	/* Where "monitor" reads events; NULL: the "events" multicast group. */
	const struct rwctl_monitor_backend *monitor_backend;
	/* Where "listen add/del" go; NULL: generic netlink. */
	const struct rwctl_listen_backend *listen_backend;
	/* Where "job checkpoint/restore" go; NULL: librackweave, the device. */
	const struct rwctl_ckpt_backend *ckpt_backend;
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
	/*
	 * No command words: everything after OBJECT goes to cmds[0], whose
	 * name is then not a word of the command line (rwctl monitor count 5).
	 */
	bool args_only;
};

extern const struct rwctl_obj rwctl_obj_status;
extern const struct rwctl_obj rwctl_obj_dev;
extern const struct rwctl_obj rwctl_obj_job;
extern const struct rwctl_obj rwctl_obj_policy;
extern const struct rwctl_obj rwctl_obj_topo;
extern const struct rwctl_obj rwctl_obj_stats;
extern const struct rwctl_obj rwctl_obj_monitor;
extern const struct rwctl_obj rwctl_obj_listen;

/* Parse @argv (argv[0]: program name), run the command, return RWCTL_EXIT_*. */
int rwctl_run(struct rwctl *ctl, int argc, char **argv);

/* What every object's commands share: implemented in cmd.c. */

/*
 * A usage error of object @obj (NULL: the top level): "rwctl: <message>"
 * and where to find help on ctl->err. Returns RWCTL_EXIT_USAGE.
 */
int rwctl_usage_error(struct rwctl *ctl, const char *obj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A decimal number in [@min, @max] for the argument @what: 0, or -EINVAL
 * with a sentence in @msg ("count '0' is out of range (1..4294967295)").
 */
int rwctl_parse_u32(const char *what, const char *s, uint32_t min,
		    uint32_t max, uint32_t *val, char *msg, size_t msglen);

/*
 * A size in bytes for the argument @what: a decimal number, alone (bytes)
 * or followed by a binary unit, any case: B, K or KiB, M or MiB, G or GiB,
 * T or TiB (powers of 1024). 0, or a sentence in @msg and -EINVAL for
 * what is not a size or -ERANGE for one past 64 bits. "KB", "1.5G", "-1"
 * and " 1" are not sizes: KB would be ambiguous (1000 or 1024?), and a size
 * is a whole number of its unit.
 */
int rwctl_parse_size(const char *what, const char *s, uint64_t *val,
		     char *msg, size_t msglen);

/*
 * The module's status through ctl->fetch into @st (free it with
 * rwctl_status_free() after RWCTL_EXIT_OK); failures are reported.
 */
int rwctl_fetch_status(struct rwctl *ctl, struct rwctl_status *st);

/* Open the output of a command in the mode -j/-p asked for. */
void rwctl_begin_output(struct rwctl *ctl, struct rwctl_printer *p);

/*
 * Close the output of a command: RWCTL_EXIT_OK, or RWCTL_EXIT_ERR with a
 * message if it could not be written or came out malformed.
 */
int rwctl_end_output(struct rwctl *ctl, struct rwctl_printer *p);

/*
 * For commands: fetch the status through ctl->fetch, print it with @print
 * on ctl->out in the requested mode (text or JSON from the same calls) and
 * return RWCTL_EXIT_*; errors have been reported.
 */
int rwctl_show(struct rwctl *ctl,
	       void (*print)(struct rwctl_printer *p,
			     const struct rwctl_status *st));

#endif /* RWCTL_H */

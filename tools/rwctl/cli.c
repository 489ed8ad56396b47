// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl [OPTIONS] OBJECT [COMMAND [ARGS]]: options, dispatch through the
 * object and command tables, help at every level, and the exit codes
 * (0 ok, 1 runtime error, 2 usage error).
 *
 * Options are parsed by hand rather than with getopt_long(): they appear only
 * before OBJECT, as in iproute2, and a parser without global state can be run
 * any number of times from the tests.
 */
#include <ctype.h>
#include <string.h>

#include <rackweave.h>

#include "rwctl.h"

static const struct rwctl_obj *const rwctl_objs[] = {
	&rwctl_obj_status,
	&rwctl_obj_dev,
	&rwctl_obj_listen,
	&rwctl_obj_job,
	&rwctl_obj_policy,
	&rwctl_obj_topo,
	&rwctl_obj_stats,
	&rwctl_obj_monitor,
	NULL,
};

static const struct {
	char short_opt;
	const char *long_opt;
	const char *help;
} rwctl_opts[] = {
	{ 'j', "json",    "print JSON instead of text" },
	{ 'p', "pretty",  "indent JSON output (with -j)" },
	{ 'h', "help",    "show this help and exit" },
	{ 'V', "version", "show the version and exit" },
};

#define RWCTL_NR_OPTS	(sizeof(rwctl_opts) / sizeof(rwctl_opts[0]))

static void rwctl_help(FILE *f)
{
	const struct rwctl_obj *const *o;
	size_t i;

	fputs("Usage: rwctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       rwctl help [ OBJECT ]\n"
	      "where  OBJECT := {", f);
	for (o = rwctl_objs; *o; o++)
		fprintf(f, " %s%s", (*o)->name, o[1] ? " |" : " }\n");
	fputs("       OPTIONS := {", f);
	for (i = 0; i < RWCTL_NR_OPTS; i++)
		fprintf(f, " -%c[%s] %s", rwctl_opts[i].short_opt,
			rwctl_opts[i].long_opt + 1,
			i + 1 < RWCTL_NR_OPTS ? "|" : "}\n");

	fputs("\nObjects:\n", f);
	for (o = rwctl_objs; *o; o++)
		fprintf(f, "  %-10s %s\n", (*o)->name, (*o)->help);

	fputs("\nOptions:\n", f);
	for (i = 0; i < RWCTL_NR_OPTS; i++)
		fprintf(f, "  -%c, --%-9s %s\n", rwctl_opts[i].short_opt,
			rwctl_opts[i].long_opt, rwctl_opts[i].help);

	fputs("\nRun 'rwctl OBJECT help' for the commands of an object.\n"
	      "Exit status: 0 success, 1 error, 2 usage error.\n", f);
}

/* "rwctl monitor help": one synopsis, no command list. */
static void rwctl_args_only_help(FILE *f, const struct rwctl_obj *obj)
{
	const struct rwctl_cmd *c = obj->cmds;

	fprintf(f, "Usage: rwctl [OPTIONS] %s%s%s\n"
		"       rwctl %s help\n\n", obj->name, c->args ? " " : "",
		c->args ? c->args : "", obj->name);
	fprintf(f, "%c%s.\n", toupper((unsigned char)obj->help[0]),
		obj->help + 1);
	if (c->details)
		fprintf(f, "\n%s", c->details);
}

static void rwctl_obj_help(FILE *f, const struct rwctl_obj *obj)
{
	const struct rwctl_cmd *c;
	char synopsis[64];
	int width = 10, len;

	if (obj->args_only) {
		rwctl_args_only_help(f, obj);
		return;
	}

	/* One column for the synopses, as wide as the longest. */
	for (c = obj->cmds; c->name; c++) {
		len = snprintf(synopsis, sizeof(synopsis), "%s%s%s", c->name,
			       c->args ? " " : "", c->args ? c->args : "");
		if (len > width)
			width = len < (int)sizeof(synopsis) ? len :
				(int)sizeof(synopsis) - 1;
	}

	fprintf(f, "Usage: rwctl [OPTIONS] %s { COMMAND | help }\n\n", obj->name);
	/* The one-liner from the object table, as a sentence. */
	fprintf(f, "%c%s.\n\nCommands:\n", toupper((unsigned char)obj->help[0]),
		obj->help + 1);
	for (c = obj->cmds; c->name; c++) {
		snprintf(synopsis, sizeof(synopsis), "%s%s%s", c->name,
			 c->args ? " " : "", c->args ? c->args : "");
		fprintf(f, "  %-*s %s", width, synopsis, c->help);
		if (c->alias)
			fprintf(f, " (alias: %s)", c->alias);
		if (c == obj->cmds)
			fputs(" (default)", f);
		fputc('\n', f);
	}
	fprintf(f, "  %-*s %s\n", width, "help", "show this help");
	for (c = obj->cmds; c->name; c++)
		if (c->details)
			fprintf(f, "\n%s", c->details);
}

static const struct rwctl_obj *rwctl_find_obj(const char *name)
{
	const struct rwctl_obj *const *o;

	for (o = rwctl_objs; *o; o++)
		if (!strcmp((*o)->name, name))
			return *o;
	return NULL;
}

static const struct rwctl_cmd *rwctl_find_cmd(const struct rwctl_obj *obj,
					      const char *name)
{
	const struct rwctl_cmd *c;

	for (c = obj->cmds; c->name; c++)
		if (!strcmp(c->name, name) || (c->alias && !strcmp(c->alias, name)))
			return c;
	return NULL;
}

static int rwctl_dispatch(struct rwctl *ctl, const struct rwctl_obj *obj,
			  int argc, char **argv)
{
	const struct rwctl_cmd *cmd = obj->cmds;
	int i;

	if (argc > 0 && !obj->args_only) {
		if (!strcmp(argv[0], "help")) {
			rwctl_obj_help(ctl->out, obj);
			return RWCTL_EXIT_OK;
		}
		cmd = rwctl_find_cmd(obj, argv[0]);
		if (!cmd)
			return rwctl_usage_error(ctl, obj->name,
						 "unknown command '%s' for object '%s'",
						 argv[0], obj->name);
		argc--;
		argv++;
	}

	/* "rwctl dev show help" is help too, wherever it appears. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			rwctl_obj_help(ctl->out, obj);
			return RWCTL_EXIT_OK;
		}
	}
	if ((unsigned int)argc > cmd->max_args) {
		if (argv[cmd->max_args][0] == '-')
			return rwctl_usage_error(ctl, obj->name,
						 "unexpected argument '%s' (options go before OBJECT)",
						 argv[cmd->max_args]);
		return rwctl_usage_error(ctl, obj->name,
					 "unexpected argument '%s' to '%s%s%s'",
					 argv[cmd->max_args], obj->name,
					 obj->args_only ? "" : " ",
					 obj->args_only ? "" : cmd->name);
	}
	return cmd->run(ctl, argc, argv);
}

/*
 * The option letter of @arg in *@letter (a long option maps to its short
 * letter). Returns 1 if more short options follow in the same word (-jp),
 * 0 if not, -1 for an unknown long option.
 */
static int rwctl_parse_opt(const char *arg, char *letter)
{
	size_t i;

	if (arg[1] == '-') {
		for (i = 0; i < RWCTL_NR_OPTS; i++) {
			if (!strcmp(arg + 2, rwctl_opts[i].long_opt)) {
				*letter = rwctl_opts[i].short_opt;
				return 0;
			}
		}
		return -1;
	}
	*letter = arg[1];
	return arg[2] ? 1 : 0;	/* 1: more letters follow, as in -jp */
}

int rwctl_run(struct rwctl *ctl, int argc, char **argv)
{
	bool help = false, version = false;
	const struct rwctl_obj *obj;
	const char *arg;
	char letter;
	int more;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-' && argv[0][1]) {
		if (!strcmp(argv[0], "--")) {
			argc--;
			argv++;
			break;
		}
		arg = argv[0];
		do {
			more = rwctl_parse_opt(arg, &letter);
			if (more < 0)
				return rwctl_usage_error(ctl, NULL,
							 "unknown option '%s'",
							 argv[0]);
			switch (letter) {
			case 'j':
				ctl->json = true;
				break;
			case 'p':
				ctl->pretty = true;
				break;
			case 'h':
				help = true;
				break;
			case 'V':
				version = true;
				break;
			default:
				return rwctl_usage_error(ctl, NULL,
							 "unknown option '-%c'",
							 letter);
			}
			arg++;
		} while (more);
		argc--;
		argv++;
	}

	if (help) {
		rwctl_help(ctl->out);
		return RWCTL_EXIT_OK;
	}
	if (version) {
		fprintf(ctl->out, "rwctl %s (abi %d)\n", RW_VERSION_STRING,
			RW_ABI_VERSION);
		return RWCTL_EXIT_OK;
	}
	if (argc == 0) {
		rwctl_help(ctl->err);
		return RWCTL_EXIT_USAGE;
	}

	if (!strcmp(argv[0], "help")) {
		if (argc == 1) {
			rwctl_help(ctl->out);
			return RWCTL_EXIT_OK;
		}
		obj = rwctl_find_obj(argv[1]);
		if (!obj)
			return rwctl_usage_error(ctl, NULL,
						 "no help for unknown object '%s'",
						 argv[1]);
		if (argc > 2)
			return rwctl_usage_error(ctl, NULL,
						 "unexpected argument '%s' to 'help'",
						 argv[2]);
		rwctl_obj_help(ctl->out, obj);
		return RWCTL_EXIT_OK;
	}

	obj = rwctl_find_obj(argv[0]);
	if (!obj)
		return rwctl_usage_error(ctl, NULL, "unknown object '%s'",
					 argv[0]);
	return rwctl_dispatch(ctl, obj, argc - 1, argv + 1);
}

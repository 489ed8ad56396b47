// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl job: create, list and delete the jobs the module serves.
 *
 *   job train1 id 3
 *       workers 4 (2 attached)  chunk-size 32768  evict-ms 5000
 *       sync ssp staleness 3
 *       optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08
 *
 * Every limit the uapi states is checked here before anything is sent, so
 * that a typo is a usage error (exit 2) with a sentence naming the argument;
 * the module checks again and has the last word.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "print.h"
#include "rwctl.h"

static const char *const rwctl_sync_names[] = {
	[RW_SYNC_BSP]		= "bsp",
	[RW_SYNC_ASP]		= "asp",
	[RW_SYNC_SSP]		= "ssp",
	[RW_SYNC_ADAPTIVE]	= "adaptive",
};

static const char *const rwctl_optim_names[] = {
	[RW_OPTIM_SGD]		= "sgd",
	[RW_OPTIM_MOMENTUM]	= "momentum",
	[RW_OPTIM_NESTEROV]	= "nesterov",
	[RW_OPTIM_ADAM]		= "adam",
};

/* Keyword on the command line, text label and JSON key of each enum rwctl_job_hp. */
static const struct {
	const char *word;
	const char *key;
} rwctl_hp_names[RWCTL_NR_HP] = {
	[RWCTL_HP_LR]		= { "lr", "lr" },
	[RWCTL_HP_MOMENTUM]	= { "momentum", "momentum" },
	[RWCTL_HP_WEIGHT_DECAY]	= { "weight-decay", "weight_decay" },
	[RWCTL_HP_BETA1]	= { "beta1", "beta1" },
	[RWCTL_HP_BETA2]	= { "beta2", "beta2" },
	[RWCTL_HP_EPS]		= { "eps", "eps" },
};

#define RWCTL_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *rwctl_job_sync_name(uint32_t sync)
{
	return sync < RWCTL_ARRAY_SIZE(rwctl_sync_names) ?
	       rwctl_sync_names[sync] : NULL;
}

const char *rwctl_job_optim_name(uint32_t optim)
{
	return optim < RWCTL_ARRAY_SIZE(rwctl_optim_names) ?
	       rwctl_optim_names[optim] : NULL;
}

static int rwctl_job_einval(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rwctl_job_einval(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rwctl_job_check_name(const char *name, char *msg, size_t msglen)
{
	size_t len = strlen(name), i;
	unsigned char c;

	if (!len)
		return rwctl_job_einval(msg, msglen, "job name is empty");
	if (len > RW_JOB_NAME_MAX - 1)
		return rwctl_job_einval(msg, msglen,
					"job name '%s' is too long (%zu bytes; at most %d)",
					name, len, RW_JOB_NAME_MAX - 1);
	for (i = 0; i < len; i++) {
		c = (unsigned char)name[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
			continue;
		return rwctl_job_einval(msg, msglen,
					"job name '%s' has an invalid character at byte %zu (allowed: A-Z a-z 0-9 . _ -)",
					name, i + 1);
	}
	return 0;
}

/* A decimal u32 in [@min, @max] for keyword @what. */
static int rwctl_job_u32(const char *what, const char *s, uint32_t min,
			 uint32_t max, uint32_t *val, char *msg, size_t msglen)
{
	unsigned long long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		goto bad;
	if (errno == ERANGE || v < min || v > max)
		return rwctl_job_einval(msg, msglen,
					"%s '%s' is out of range (%u..%u)",
					what, s, min, max);
	*val = (uint32_t)v;
	return 0;
bad:
	return rwctl_job_einval(msg, msglen, "%s '%s' is not a number", what, s);
}

static int rwctl_job_float(const char *what, const char *s, float *val,
			   char *msg, size_t msglen)
{
	char *end;
	float f;

	errno = 0;
	f = strtof(s, &end);
	if (end == s || *end)
		return rwctl_job_einval(msg, msglen,
					"%s '%s' is not a number", what, s);
	if (!isfinite(f) || errno == ERANGE)
		return rwctl_job_einval(msg, msglen,
					"%s '%s' is not a finite single-precision number",
					what, s);
	*val = f;
	return 0;
}

/* The value(s) of keyword argv[*i] must follow it. */
static int rwctl_job_need(int argc, char **argv, int i, int n, char *msg,
			  size_t msglen)
{
	if (i + n < argc)
		return 0;
	return rwctl_job_einval(msg, msglen, "'%s' needs %s", argv[i],
				n == 1 ? "a value" : "two values");
}

static int rwctl_job_parse_sync(int argc, char **argv, int *i,
				struct rwctl_job_add *a, char *msg,
				size_t msglen)
{
	const char *mode;
	size_t k;
	int err;

	err = rwctl_job_need(argc, argv, *i, 1, msg, msglen);
	if (err)
		return err;
	mode = argv[++*i];
	for (k = 0; k < RWCTL_ARRAY_SIZE(rwctl_sync_names); k++)
		if (!strcmp(mode, rwctl_sync_names[k]))
			break;
	if (k == RWCTL_ARRAY_SIZE(rwctl_sync_names))
		return rwctl_job_einval(msg, msglen,
					"unknown sync mode '%s' (bsp, asp, ssp S, adaptive LO HI)",
					mode);
	a->has_sync = true;
	a->sync = (uint32_t)k;
	if (k == RW_SYNC_SSP) {
		if (*i + 1 >= argc)
			return rwctl_job_einval(msg, msglen,
						"'sync ssp' needs the staleness bound S");
		return rwctl_job_u32("staleness", argv[++*i], 1,
				     RW_JOB_MAX_STALENESS, &a->staleness,
				     msg, msglen);
	}
	if (k == RW_SYNC_ADAPTIVE) {
		if (*i + 2 >= argc)
			return rwctl_job_einval(msg, msglen,
						"'sync adaptive' needs the staleness band LO HI");
		err = rwctl_job_u32("staleness LO", argv[++*i], 1,
				    RW_JOB_MAX_STALENESS, &a->staleness_lo,
				    msg, msglen);
		if (err)
			return err;
		err = rwctl_job_u32("staleness HI", argv[++*i], 1,
				    RW_JOB_MAX_STALENESS, &a->staleness_hi,
				    msg, msglen);
		if (err)
			return err;
		if (a->staleness_lo > a->staleness_hi)
			return rwctl_job_einval(msg, msglen,
						"staleness band %u..%u: LO must not exceed HI",
						a->staleness_lo, a->staleness_hi);
	}
	return 0;
}

static int rwctl_job_parse_optim(const char *s, uint32_t *optim, char *msg,
				 size_t msglen)
{
	size_t k;

	for (k = 0; k < RWCTL_ARRAY_SIZE(rwctl_optim_names); k++) {
		if (!strcmp(s, rwctl_optim_names[k])) {
			*optim = (uint32_t)k;
			return 0;
		}
	}
	return rwctl_job_einval(msg, msglen,
				"unknown optimizer '%s' (sgd, momentum, nesterov, adam)",
				s);
}

/* Bits of the "given twice" check beyond the hyper-parameters. */
enum {
	RWCTL_SEEN_WORKERS = RWCTL_NR_HP,
	RWCTL_SEEN_CHUNK,
	RWCTL_SEEN_SYNC,
	RWCTL_SEEN_EVICT,
	RWCTL_SEEN_OPTIM,
	RWCTL_SEEN_TOKEN,
};

int rwctl_job_parse_add(int argc, char **argv, struct rwctl_job_add *a,
			char *msg, size_t msglen)
{
	unsigned int seen = 0, bit;
	const char *w;
	int i, err;
	size_t k;

	memset(a, 0, sizeof(*a));
	if (argc < 1)
		return rwctl_job_einval(msg, msglen,
					"'job add' needs a NAME and 'workers N'");
	err = rwctl_job_check_name(argv[0], msg, msglen);
	if (err)
		return err;
	strcpy(a->name, argv[0]);

	for (i = 1; i < argc; i++) {
		w = argv[i];
		for (k = 0; k < RWCTL_NR_HP; k++)
			if (!strcmp(w, rwctl_hp_names[k].word))
				break;
		if (k < RWCTL_NR_HP)
			bit = (unsigned int)k;
		else if (!strcmp(w, "workers"))
			bit = RWCTL_SEEN_WORKERS;
		else if (!strcmp(w, "chunk-size"))
			bit = RWCTL_SEEN_CHUNK;
		else if (!strcmp(w, "sync"))
			bit = RWCTL_SEEN_SYNC;
		else if (!strcmp(w, "evict-ms"))
			bit = RWCTL_SEEN_EVICT;
		else if (!strcmp(w, "optim"))
			bit = RWCTL_SEEN_OPTIM;
		else if (!strcmp(w, "token-file"))
			bit = RWCTL_SEEN_TOKEN;
		else if (w[0] == '-')
			return rwctl_job_einval(msg, msglen,
						"unexpected argument '%s' (options go before OBJECT)",
						w);
		else
			return rwctl_job_einval(msg, msglen,
						"unknown argument '%s' to 'job add'",
						w);
		if (seen & (1U << bit))
			return rwctl_job_einval(msg, msglen,
						"'%s' given twice", w);
		seen |= 1U << bit;

		if (bit == RWCTL_SEEN_SYNC) {
			err = rwctl_job_parse_sync(argc, argv, &i, a, msg,
						   msglen);
			if (err)
				return err;
			continue;
		}
		err = rwctl_job_need(argc, argv, i, 1, msg, msglen);
		if (err)
			return err;
		i++;
		switch (bit) {
		case RWCTL_SEEN_WORKERS:
			err = rwctl_job_u32("workers", argv[i], 1,
					    RW_JOB_MAX_WORKERS, &a->workers,
					    msg, msglen);
			break;
		case RWCTL_SEEN_CHUNK:
			err = rwctl_job_u32("chunk-size", argv[i],
					    RW_CHUNK_SIZE_MIN, RW_CHUNK_SIZE_MAX,
					    &a->chunk_size, msg, msglen);
			if (!err && (a->chunk_size & (a->chunk_size - 1)))
				err = rwctl_job_einval(msg, msglen,
						       "chunk-size %u is not a power of two",
						       a->chunk_size);
			a->has_chunk_size = true;
			break;
		case RWCTL_SEEN_EVICT:
			err = rwctl_job_u32("evict-ms", argv[i], 0, UINT32_MAX,
					    &a->evict_ms, msg, msglen);
			a->has_evict_ms = true;
			break;
		case RWCTL_SEEN_OPTIM:
			err = rwctl_job_parse_optim(argv[i], &a->optim, msg,
						    msglen);
			a->has_optim = true;
			break;
		case RWCTL_SEEN_TOKEN:
			if (!argv[i][0])
				err = rwctl_job_einval(msg, msglen,
						       "'token-file' needs a path");
			a->token_file = argv[i];
			break;
		default:	/* a hyper-parameter */
			err = rwctl_job_float(w, argv[i], &a->hp[bit], msg,
					      msglen);
			a->hp_mask |= 1U << bit;
			break;
		}
		if (err)
			return err;
	}

	if (!(seen & (1U << RWCTL_SEEN_WORKERS)))
		return rwctl_job_einval(msg, msglen,
					"'job add' needs 'workers N' (1..%d)",
					RW_JOB_MAX_WORKERS);
	return 0;
}

int rwctl_job_parse_del(int argc, char **argv, const char **name, bool *force,
			char *msg, size_t msglen)
{
	int err;

	*name = NULL;
	*force = false;
	if (argc < 1)
		return rwctl_job_einval(msg, msglen, "'job del' needs a NAME");
	err = rwctl_job_check_name(argv[0], msg, msglen);
	if (err)
		return err;
	if (argc > 1) {
		if (strcmp(argv[1], "force"))
			return rwctl_job_einval(msg, msglen,
						"unknown argument '%s' to 'job del' (only 'force')",
						argv[1]);
		*force = true;
	}
	if (argc > 2)
		return rwctl_job_einval(msg, msglen,
					"unexpected argument '%s' to 'job del'",
					argv[2]);
	*name = argv[0];
	return 0;
}

int rwctl_job_read_token(const char *path, uint8_t token[RW_JOB_TOKEN_LEN],
			 char *msg, size_t msglen)
{
	uint8_t buf[RW_JOB_TOKEN_LEN + 1];
	size_t got = 0;
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "cannot open token file '%s': %s", path,
			 strerror(-err));
		return err;
	}
	/* One byte more than a token tells "too long" from "just right". */
	while (got < sizeof(buf)) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			snprintf(msg, msglen, "cannot read token file '%s': %s",
				 path, strerror(-err));
			close(fd);
			return err;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	if (got != RW_JOB_TOKEN_LEN) {
		if (got > RW_JOB_TOKEN_LEN && !fstat(fd, &st) &&
		    S_ISREG(st.st_mode))
			snprintf(msg, msglen,
				 "token file '%s' holds %lld bytes; a token is exactly %d raw bytes",
				 path, (long long)st.st_size, RW_JOB_TOKEN_LEN);
		else
			snprintf(msg, msglen,
				 "token file '%s' holds %s%zu bytes; a token is exactly %d raw bytes",
				 path, got > RW_JOB_TOKEN_LEN ? "more than " : "",
				 got > RW_JOB_TOKEN_LEN ? got - 1 : got,
				 RW_JOB_TOKEN_LEN);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	memcpy(token, buf, RW_JOB_TOKEN_LEN);
	memset(buf, 0, sizeof(buf));
	return 0;
}

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

static void rwctl_job_print_one(struct rwctl_printer *p,
				const struct rwctl_job *j)
{
	char token[2 * RW_JOB_TOKEN_LEN + 1];
	char label[32], other[16];
	const char *s;
	size_t i;

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "name", "job %s", j->name);
	rwctl_pr_u32(p, "id", " id %u", j->id);
	rwctl_pr_nl(p);

	rwctl_pr_u32(p, "workers", "    workers %u", j->workers);
	rwctl_pr_u32(p, "attached", " (%u attached)", j->attached);
	rwctl_pr_u32(p, "chunk_size", "  chunk-size %u", j->chunk_size);
	rwctl_pr_u32(p, "evict_ms", j->evict_ms ? "  evict-ms %u" : NULL,
		     j->evict_ms);
	if (!j->evict_ms)
		rwctl_pr_text(p, "  evict-ms 0 (never)");
	rwctl_pr_nl(p);

	s = rwctl_job_enum_str(rwctl_job_sync_name(j->sync), "sync", j->sync,
			       other, sizeof(other));
	rwctl_pr_str(p, "sync", "    sync %s", s);
	if (j->sync == RW_SYNC_SSP)
		rwctl_pr_u32(p, "staleness", " staleness %u", j->staleness);
	if (j->sync == RW_SYNC_ADAPTIVE) {
		rwctl_pr_u32(p, "staleness_lo", " staleness %u", j->staleness_lo);
		rwctl_pr_u32(p, "staleness_hi", "..%u", j->staleness_hi);
	}
	rwctl_pr_nl(p);

	s = rwctl_job_enum_str(rwctl_job_optim_name(j->optim), "optim",
			       j->optim, other, sizeof(other));
	rwctl_pr_str(p, "optim", "    optim %s", s);
	for (i = 0; i < RWCTL_NR_HP; i++) {
		if (!(j->hp_mask & (1U << i)))
			continue;
		snprintf(label, sizeof(label), "%s%s %%g", i ? " " : "  ",
			 rwctl_hp_names[i].word);
		rwctl_pr_float(p, rwctl_hp_names[i].key, label, j->hp[i]);
	}
	rwctl_pr_nl(p);

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

void rwctl_job_explain(char *buf, size_t len, const char *cmd,
		       const char *name, int err, const char *extack)
{
	char what[128];

	switch (-err) {
	case EEXIST:
		snprintf(what, sizeof(what), "a job named '%s' already exists",
			 name);
		break;
	case ENOENT:
		snprintf(what, sizeof(what), "no job named '%s'", name);
		break;
	case EPERM:
		snprintf(what, sizeof(what), "needs CAP_NET_ADMIN (run as root)");
		break;
	case EBUSY:
		snprintf(what, sizeof(what),
			 "workers are attached to job '%s'; use 'force' to detach them",
			 name);
		break;
	case ENOSPC:
		snprintf(what, sizeof(what),
			 "the box serves its maximum number of jobs (max_jobs)");
		break;
	default:
		snprintf(what, sizeof(what), "%s", strerror(-err));
		break;
	}
	snprintf(buf, len, "job %s: %s%s%s", cmd, what,
		 extack && extack[0] ? ": " : "", extack ? extack : "");
}

static const struct rwctl_job_backend *
rwctl_job_backend(const struct rwctl *ctl)
{
	return ctl->job_backend ? ctl->job_backend : &rwctl_job_genl_backend;
}

static int rwctl_job_usage(struct rwctl *ctl, const char *msg)
{
	fprintf(ctl->err, "rwctl: %s\nTry 'rwctl job help'.\n", msg);
	return RWCTL_EXIT_USAGE;
}

/* A failed request: the module's refusal in words, or the backend's sentence. */
static int rwctl_job_failed(struct rwctl *ctl, const char *cmd,
			    const char *name, int err,
			    const struct rwctl_job_err *e)
{
	char buf[1024];

	if (e->kernel) {
		rwctl_job_explain(buf, sizeof(buf), cmd, name ? name : "", err,
				  e->extack);
		fprintf(ctl->err, "rwctl: %s\n", buf);
	} else {
		fprintf(ctl->err, "rwctl: %s\n", e->msg[0] ? e->msg :
			strerror(-err));
	}
	return RWCTL_EXIT_ERR;
}

static int rwctl_job_output(struct rwctl *ctl, const struct rwctl_job *jobs,
			    size_t nr)
{
	struct rwctl_printer p;

	rwctl_begin_output(ctl, &p);
	rwctl_job_print(&p, jobs, nr);
	return rwctl_end_output(ctl, &p);
}

static int rwctl_job_show(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_list list = { 0 };
	const char *name = argc ? argv[0] : NULL;
	struct rwctl_job_err e;
	char msg[256];
	int err, tries, ret;

	if (name && rwctl_job_check_name(name, msg, sizeof(msg)))
		return rwctl_job_usage(ctl, msg);

	for (tries = 0; tries < 2; tries++) {
		memset(&e, 0, sizeof(e));
		rwctl_job_list_free(&list);
		err = be->get(name, &list, &e);
		if (err != -EAGAIN || e.kernel)
			break;
	}
	if (err == -EAGAIN && !e.kernel) {
		rwctl_job_list_free(&list);
		fprintf(ctl->err,
			"rwctl: job show: the job list changed while it was read, twice in a row; try again\n");
		return RWCTL_EXIT_ERR;
	}
	if (err) {
		rwctl_job_list_free(&list);
		return rwctl_job_failed(ctl, "show", name, err, &e);
	}
	ret = rwctl_job_output(ctl, list.jobs, list.nr);
	rwctl_job_list_free(&list);
	return ret;
}

static int rwctl_job_add(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_add a;
	struct rwctl_job job;
	struct rwctl_job_err e;
	char msg[512];
	int err, ret;

	if (rwctl_job_parse_add(argc, argv, &a, msg, sizeof(msg)))
		return rwctl_job_usage(ctl, msg);
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
	if (err)
		return rwctl_job_failed(ctl, "add", a.name, err, &e);
	ret = rwctl_job_output(ctl, &job, 1);
	memset(job.token, 0, sizeof(job.token));
	return ret;
}

static int rwctl_job_del(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_job_backend *be = rwctl_job_backend(ctl);
	struct rwctl_job_err e;
	const char *name;
	char msg[256];
	bool force;
	int err;

	if (rwctl_job_parse_del(argc, argv, &name, &force, msg, sizeof(msg)))
		return rwctl_job_usage(ctl, msg);
	memset(&e, 0, sizeof(e));
	err = be->del(name, force, &e);
	if (err)
		return rwctl_job_failed(ctl, "del", name, err, &e);
	return RWCTL_EXIT_OK;
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
"        [ sync { bsp | asp | ssp S | adaptive LO HI } ] [ evict-ms MS ]\n"
"        [ optim { sgd | momentum | nesterov | adam } ] [ lr X ]\n"
"        [ momentum X ] [ weight-decay X ] [ beta1 X ] [ beta2 X ] [ eps X ]\n"
"        [ token-file PATH ]\n"
"  NAME        1-31 characters of A-Z a-z 0-9 . _ -\n"
"  N           workers, 1-" RW_STR(RW_JOB_MAX_WORKERS) "\n"
"  BYTES       a power of two, 4096-1048576 (default: the module's chunk_size)\n"
"  S, LO, HI   staleness bounds, 1-" RW_STR(RW_JOB_MAX_STALENESS) ", LO <= HI\n"
"  MS          evict a silent worker after MS ms; 0 never\n"
"  PATH        a file of exactly " RW_STR(RW_JOB_TOKEN_LEN) " raw bytes; without it the module\n"
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
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_job = {
	.name = "job",
	.help = "parameter-server jobs served by the rackweave module",
	.cmds = rwctl_job_cmds,
};

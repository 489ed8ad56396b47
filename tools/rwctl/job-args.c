// SPDX-License-Identifier: GPL-2.0
/*
 * The words of the job commands: job names, the settings "job add" and
 * "policy set" share (workers, chunk size, sync mode and BSP quorum,
 * eviction, memory limit, optimizer and its hyper-parameters, the box set,
 * whose own words boxes.c reads), "job del" and token files.
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

#include "backend.h"
#include "boxes.h"
#include "job.h"
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
	[RW_OPTIM_AVERAGE]	= "average",
};

/* Keyword on the command line and JSON key of each enum rwctl_job_hp. */
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

const char *rwctl_job_hp_word(enum rwctl_job_hp hp)
{
	return rwctl_hp_names[hp].word;
}

const char *rwctl_job_hp_key(enum rwctl_job_hp hp)
{
	return rwctl_hp_names[hp].key;
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
		return rwctl_parse_u32("staleness", argv[++*i], 1,
				       RW_JOB_MAX_STALENESS, &a->staleness,
				       msg, msglen);
	}
	if (k == RW_SYNC_ADAPTIVE) {
		if (*i + 2 >= argc)
			return rwctl_job_einval(msg, msglen,
						"'sync adaptive' needs the staleness band LO HI");
		err = rwctl_parse_u32("staleness LO", argv[++*i], 1,
				      RW_JOB_MAX_STALENESS, &a->staleness_lo,
				      msg, msglen);
		if (err)
			return err;
		err = rwctl_parse_u32("staleness HI", argv[++*i], 1,
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
				"unknown optimizer '%s' (sgd, momentum, nesterov, adam, average)",
				s);
}

/*
 * "quorum K" or "quorum all". Only the form is checked here: the range
 * 1..workers waits for the worker count (rwctl_job_check_quorum()).
 */
static int rwctl_job_parse_quorum(const char *s, struct rwctl_job_add *a,
				  char *msg, size_t msglen)
{
	unsigned long long v;

	a->has_quorum = true;
	a->quorum_arg = s;
	if (!strcmp(s, "all")) {
		a->quorum_all = true;
		return 0;
	}
	if (!s[0] || strspn(s, "0123456789") != strlen(s))
		return rwctl_job_einval(msg, msglen,
					"quorum '%s' is not a number or 'all'",
					s);
	errno = 0;
	v = strtoull(s, NULL, 10);
	/* Too large for any job: the range check says so. */
	a->quorum = errno == ERANGE || v > UINT32_MAX ? UINT32_MAX :
		    (uint32_t)v;
	return 0;
}

/*
 * "max-memory SIZE", "max-memory default" or "max-memory 0": the default
 * is sent as 0, which the module takes for half the box's budget.
 */
static int rwctl_job_parse_memory(const char *s, struct rwctl_job_add *a,
				  char *msg, size_t msglen)
{
	size_t n;
	int err;

	a->has_max_memory = true;
	if (!strcmp(s, "default")) {
		a->max_memory = 0;
		return 0;
	}
	err = rwctl_parse_size("max-memory", s, &a->max_memory, msg, msglen);
	if (err == -EINVAL) {
		n = strnlen(msg, msglen);
		snprintf(msg + n, msglen - n, "; or 'default'");
	}
	return err ? -EINVAL : 0;
}

/* Bits of the "given twice" check beyond the hyper-parameters. */
enum {
	RWCTL_SEEN_WORKERS = RWCTL_NR_HP,
	RWCTL_SEEN_CHUNK,
	RWCTL_SEEN_SYNC,
	RWCTL_SEEN_EVICT,
	RWCTL_SEEN_OPTIM,
	RWCTL_SEEN_TOKEN,
	RWCTL_SEEN_QUORUM,
	RWCTL_SEEN_MEMORY,
	RWCTL_SEEN_BOXES,
	RWCTL_SEEN_SELF,
	RWCTL_SEEN_EPOCH,
};

/* The keyword @w as a RWCTL_SEEN_* or enum rwctl_job_hp bit, or -1. */
static int rwctl_job_keyword(const char *w)
{
	static const struct {
		const char *word;
		int bit;
	} words[] = {
		{ "workers", RWCTL_SEEN_WORKERS },
		{ "chunk-size", RWCTL_SEEN_CHUNK },
		{ "sync", RWCTL_SEEN_SYNC },
		{ "evict-ms", RWCTL_SEEN_EVICT },
		{ "optim", RWCTL_SEEN_OPTIM },
		{ "token-file", RWCTL_SEEN_TOKEN },
		{ "quorum", RWCTL_SEEN_QUORUM },
		{ "max-memory", RWCTL_SEEN_MEMORY },
		{ "boxes", RWCTL_SEEN_BOXES },
		{ "self", RWCTL_SEEN_SELF },
		{ "epoch", RWCTL_SEEN_EPOCH },
	};
	size_t k;

	for (k = 0; k < RWCTL_NR_HP; k++)
		if (!strcmp(w, rwctl_hp_names[k].word))
			return (int)k;
	for (k = 0; k < RWCTL_ARRAY_SIZE(words); k++)
		if (!strcmp(w, words[k].word))
			return words[k].bit;
	return -1;
}

/* The value of setting @bit, argv[*i] being its keyword. */
static int rwctl_job_parse_value(int bit, int argc, char **argv, int *i,
				 struct rwctl_job_add *a, char *msg,
				 size_t msglen)
{
	const char *w = argv[*i];
	int err;

	if (bit == RWCTL_SEEN_SYNC)
		return rwctl_job_parse_sync(argc, argv, i, a, msg, msglen);
	err = rwctl_job_need(argc, argv, *i, 1, msg, msglen);
	if (err)
		return err;
	++*i;
	switch (bit) {
	case RWCTL_SEEN_WORKERS:
		a->has_workers = true;
		return rwctl_parse_u32("workers", argv[*i], 1,
				       RW_JOB_MAX_WORKERS, &a->workers, msg,
				       msglen);
	case RWCTL_SEEN_CHUNK:
		a->has_chunk_size = true;
		err = rwctl_parse_u32("chunk-size", argv[*i], RW_CHUNK_SIZE_MIN,
				      RW_CHUNK_SIZE_MAX, &a->chunk_size, msg,
				      msglen);
		if (!err && (a->chunk_size & (a->chunk_size - 1)))
			err = rwctl_job_einval(msg, msglen,
					       "chunk-size %u is not a power of two",
					       a->chunk_size);
		return err;
	case RWCTL_SEEN_EVICT:
		a->has_evict_ms = true;
		return rwctl_parse_u32("evict-ms", argv[*i], 0, UINT32_MAX,
				       &a->evict_ms, msg, msglen);
	case RWCTL_SEEN_OPTIM:
		a->has_optim = true;
		return rwctl_job_parse_optim(argv[*i], &a->optim, msg, msglen);
	case RWCTL_SEEN_QUORUM:
		return rwctl_job_parse_quorum(argv[*i], a, msg, msglen);
	case RWCTL_SEEN_MEMORY:
		return rwctl_job_parse_memory(argv[*i], a, msg, msglen);
	case RWCTL_SEEN_BOXES:
		a->has_boxes = true;
		return rwctl_boxes_parse(argv[*i], &a->boxes, msg, msglen);
	case RWCTL_SEEN_SELF:
		return rwctl_parse_u32("self", argv[*i], 1, RW_BOX_MAX_ID,
				       &a->boxes.self, msg, msglen);
	case RWCTL_SEEN_EPOCH:
		return rwctl_parse_u32("epoch", argv[*i], 1, UINT32_MAX,
				       &a->boxes.epoch, msg, msglen);
	case RWCTL_SEEN_TOKEN:
		a->token_file = argv[*i];
		if (!argv[*i][0])
			return rwctl_job_einval(msg, msglen,
						"'token-file' needs a path");
		return 0;
	default:	/* a hyper-parameter */
		a->hp_mask |= 1U << bit;
		return rwctl_job_float(w, argv[*i], &a->hp[bit], msg, msglen);
	}
}

/*
 * NAME and settings of "job add" (@add) or "policy set" into @a. @cmd names
 * the command in messages. Returns the RWCTL_SEEN_* / hp bits given.
 */
static int rwctl_job_parse_settings(int argc, char **argv,
				    struct rwctl_job_add *a, const char *cmd,
				    bool add, unsigned int *seen, char *msg,
				    size_t msglen)
{
	const char *w;
	int i, bit, err;

	memset(a, 0, sizeof(*a));
	*seen = 0;
	if (argc < 1)
		return rwctl_job_einval(msg, msglen,
					add ? "'%s' needs a NAME and 'workers N'" :
					      "'%s' needs a job NAME and a setting",
					cmd);
	err = rwctl_job_check_name(argv[0], msg, msglen);
	if (err)
		return err;
	strcpy(a->name, argv[0]);

	for (i = 1; i < argc; i++) {
		w = argv[i];
		bit = rwctl_job_keyword(w);
		if (bit == RWCTL_SEEN_TOKEN && !add)
			return rwctl_job_einval(msg, msglen,
						"'%s' does not take 'token-file': a job's token is set once, by 'job add'",
						cmd);
		if (bit < 0 && w[0] == '-')
			return rwctl_job_einval(msg, msglen,
						"unexpected argument '%s' (options go before OBJECT)",
						w);
		if (bit < 0)
			return rwctl_job_einval(msg, msglen,
						"unknown argument '%s' to '%s'",
						w, cmd);
		if (*seen & (1U << bit))
			return rwctl_job_einval(msg, msglen,
						"'%s' given twice", w);
		*seen |= 1U << bit;
		err = rwctl_job_parse_value(bit, argc, argv, &i, a, msg,
					    msglen);
		if (err)
			return err;
	}
	return rwctl_boxes_check(a->has_boxes, !add, &a->boxes, msg, msglen);
}

int rwctl_job_parse_add(int argc, char **argv, struct rwctl_job_add *a,
			char *msg, size_t msglen)
{
	unsigned int seen;
	int err;

	err = rwctl_job_parse_settings(argc, argv, a, "job add", true, &seen,
				       msg, msglen);
	if (err)
		return err;
	if (!a->has_workers)
		return rwctl_job_einval(msg, msglen,
					"'job add' needs 'workers N' (1..%d)",
					RW_JOB_MAX_WORKERS);
	return rwctl_job_check_quorum(a, a->workers,
				      a->has_sync ? a->sync : RW_SYNC_BSP,
				      NULL, msg, msglen);
}

int rwctl_job_parse_policy(int argc, char **argv, struct rwctl_job_add *a,
			   char *msg, size_t msglen)
{
	unsigned int seen;
	int err;

	err = rwctl_job_parse_settings(argc, argv, a, "policy set", false,
				       &seen, msg, msglen);
	if (err)
		return err;
	if (!seen)
		return rwctl_job_einval(msg, msglen,
					"'policy set %s' changes nothing: give at least one setting (workers, chunk-size, sync, quorum, evict-ms, max-memory, boxes, optim, lr, ...)",
					a->name);
	/* A sync mode given is enough to refuse a quorum it has not. */
	if (a->has_quorum && a->has_sync && a->sync != RW_SYNC_BSP)
		return rwctl_job_check_quorum(a, 0, a->sync, NULL, msg,
					      msglen);
	if (a->has_quorum && !rwctl_job_quorum_needs_job(a))
		return rwctl_job_check_quorum(a, a->workers, a->sync, NULL,
					      msg, msglen);
	return 0;
}

bool rwctl_job_quorum_needs_job(const struct rwctl_job_add *a)
{
	return a->has_quorum && (!a->has_workers || !a->has_sync);
}

int rwctl_job_check_quorum(struct rwctl_job_add *a, uint32_t workers,
			   uint32_t sync, const char *job, char *msg,
			   size_t msglen)
{
	char other[16];
	const char *name;

	if (!a->has_quorum)
		return 0;
	if (sync != RW_SYNC_BSP) {
		name = rwctl_job_sync_name(sync);
		if (!name) {
			snprintf(other, sizeof(other), "sync%u", sync);
			name = other;
		}
		if (job)
			return rwctl_job_einval(msg, msglen,
						"quorum applies to sync bsp only, and job '%s' is sync %s; give 'sync bsp quorum K' to change both",
						job, name);
		return rwctl_job_einval(msg, msglen,
					"quorum applies to sync bsp only, not to sync %s",
					name);
	}
	if (a->quorum_all) {
		a->quorum = workers;
		return 0;
	}
	if (a->quorum < 1 || a->quorum > workers)
		return rwctl_job_einval(msg, msglen,
					"quorum '%s' is out of range (1..%u, the job's worker count)",
					a->quorum_arg, workers);
	return 0;
}

bool rwctl_job_add_shapes_memory(const struct rwctl_job_add *a)
{
	return a->has_workers || a->has_chunk_size || a->has_optim ||
	       a->hp_mask;
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

	/*
	 * The library's reader, as the trainers use: 32 raw bytes, or the 64
	 * hex digits (and a newline) this command prints for a generated
	 * token. What follows only explains a file it refused.
	 */
	if (!rw_token_read(path, token))
		return 0;
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
				 "token file '%s' holds %lld bytes; a token is exactly %d raw bytes, or %d hex digits",
				 path, (long long)st.st_size, RW_JOB_TOKEN_LEN,
				 2 * RW_JOB_TOKEN_LEN);
		else
			snprintf(msg, msglen,
				 "token file '%s' holds %s%zu bytes; a token is exactly %d raw bytes, or %d hex digits",
				 path, got > RW_JOB_TOKEN_LEN ? "more than " : "",
				 got > RW_JOB_TOKEN_LEN ? got - 1 : got,
				 RW_JOB_TOKEN_LEN, 2 * RW_JOB_TOKEN_LEN);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	memcpy(token, buf, RW_JOB_TOKEN_LEN);
	memset(buf, 0, sizeof(buf));
	return 0;
}

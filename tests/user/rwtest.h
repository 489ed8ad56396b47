/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the rwctl tests: a known module status, an in-memory
 * stream to capture what rwctl prints, runs of rwctl and the checks made
 * on their results, and netlink replies built as the module would.
 */
#ifndef RW_TEST_RWTEST_H
#define RW_TEST_RWTEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rwctl_printer;
struct rwctl_status;

/*
 * Fill @st (allocated arrays, free with rwctl_status_free) with a module
 * 0.1.0, ABI 1, all features, 4 CPUs on two nodes, and two devices: rxe0 on
 * node 0 and siw_eth1 with no NUMA node.
 */
void rw_test_status_fill(struct rwctl_status *st);

struct rw_capture {
	FILE *f;
	char *buf;
	size_t len;
};

/* Start capturing; rw_capture_str() ends it and returns the text (owned). */
void rw_capture_open(struct rw_capture *c);
const char *rw_capture_str(struct rw_capture *c);
void rw_capture_free(struct rw_capture *c);

/*
 * What a printer prints: rw_render_begin() starts a capture with a printer
 * of @flags (RWCTL_PR_*) on it; rw_render_end() ends the printer, which
 * must succeed, and the capture, and returns the text (free it).
 */
void rw_render_begin(struct rw_capture *c, struct rwctl_printer *p,
		     unsigned int flags);
char *rw_render_end(struct rw_capture *c, struct rwctl_printer *p);

/* Fails the test unless @text is one valid JSON value. */
void rw_assert_json(const char *text);

/*
 * A parser's refusal: @err must be -EPROTO and @why hold @kind (as
 * "malformed job reply") and @what unless it is NULL.
 */
void rw_assert_malformed_why(int err, const char *why, const char *kind,
			     const char *what);

struct rwctl;

/* What one rwctl run returned and printed (strings owned, never NULL). */
struct rw_result {
	int rc;
	char *out;
	char *err;
};

/*
 * Run rwctl on the NULL-terminated @args (the words after "rwctl") with
 * @tmpl's fetch and job backend, its output captured into @res, whose
 * previous strings are freed. Returns the exit code.
 */
int rw_test_rwctl(struct rw_result *res, const struct rwctl *tmpl,
		  const char *const *args);
void rw_result_free(struct rw_result *res);

/* rw_test_rwctl() on the words given as arguments: RW_RUN(&r, &t, "job"). */
#define RW_RUN(res, tmpl, ...) \
	rw_test_rwctl(res, tmpl, (const char *const[]){ __VA_ARGS__, NULL })

/* The status fetch of commands that must not ask for it: -EIO. */
int rw_test_no_fetch(struct rwctl_status *st, char *msg, size_t msglen);

/*
 * A failed run: exit @rc, @what in what it printed on stderr and nothing
 * on stdout. A usage error also says "Try 'rwctl @obj help'.".
 */
void rw_assert_exit(const struct rw_result *res, int rc, const char *what);
void rw_assert_usage_of(const struct rw_result *res, const char *obj,
			const char *what);

struct nl_msg;

/*
 * A generic netlink message of the family with id @family and command
 * @cmd, without attributes yet, as the module would start its reply.
 */
struct nl_msg *rw_test_genl_msg(int family, int cmd);

/*
 * Attribute @type with value @v, unless bit @type of @skip is set: replies
 * that lack an attribute are built by naming it in @skip.
 */
void rw_test_put_u32(struct nl_msg *m, unsigned int skip, int type,
		     uint32_t v);
void rw_test_put_u64(struct nl_msg *m, unsigned int skip, int type,
		     uint64_t v);

/* Drop the last @bytes of @m, as a message cut short in transit. */
void rw_test_genl_cut(struct nl_msg *m, unsigned int bytes);

#endif /* RW_TEST_RWTEST_H */

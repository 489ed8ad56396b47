/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the rwctl tests: a known module status and an in-memory
 * stream to capture what rwctl prints.
 */
#ifndef RW_TEST_RWTEST_H
#define RW_TEST_RWTEST_H

#include <stdio.h>

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

struct nl_msg;

/*
 * A generic netlink message of the family with id @family and command
 * @cmd, without attributes yet, as the module would start its reply.
 */
struct nl_msg *rw_test_genl_msg(int family, int cmd);

/* Drop the last @bytes of @m, as a message cut short in transit. */
void rw_test_genl_cut(struct nl_msg *m, unsigned int bytes);

#endif /* RW_TEST_RWTEST_H */

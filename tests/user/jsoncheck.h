/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict JSON validator (RFC 8259) for the tests: rwctl's -j output must
 * parse, whatever it contains, without depending on a parser being installed.
 */
#ifndef RW_TEST_JSONCHECK_H
#define RW_TEST_JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True if @text is exactly one JSON value surrounded by optional
 * whitespace. On failure *@err_off (if not NULL) is the offset of the first
 * byte that could not be accepted.
 */
bool rw_json_valid(const char *text, size_t *err_off);

#endif /* RW_TEST_JSONCHECK_H */

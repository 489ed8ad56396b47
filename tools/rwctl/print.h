/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One printer for text and JSON, in the manner of iproute2's print_*():
 * every command describes its output once, as a sequence of calls, and the
 * printer's mode decides what reaches the stream.
 *
 *   key   the JSON member name. Ignored inside arrays (pass NULL there) and
 *         in text mode.
 *   fmt   the text rendering, a printf format consuming exactly the value
 *         argument (%u for u32, PRIu64/PRIx64 for u64, %d for s32, %s for
 *         str). NULL: the value appears in JSON only.
 *
 * Text-only decoration (labels, separators, newlines) goes through
 * rwctl_pr_text() and rwctl_pr_nl(), which JSON mode ignores; objects and
 * arrays exist only in JSON. JSON strings are escaped and invalid UTF-8 is
 * replaced with U+FFFD, so the output is valid JSON whatever the module sent.
 */
#ifndef RWCTL_PRINT_H
#define RWCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RWCTL_PR_JSON		(1U << 0)
#define RWCTL_PR_PRETTY		(1U << 1)	/* indent JSON; no effect on text */

#define RWCTL_PR_MAX_DEPTH	16

/* Fields are private to print.c; the struct is public for stack allocation. */
struct rwctl_printer {
	FILE *f;
	unsigned int flags;
	unsigned int depth;
	bool misused;		/* unbalanced nesting or a missing key */
	bool top_done;		/* a top-level JSON value has been written */
	struct {
		char close;	/* '}' or ']' */
		bool empty;
	} stack[RWCTL_PR_MAX_DEPTH];
};

void rwctl_pr_init(struct rwctl_printer *p, FILE *f, unsigned int flags);
bool rwctl_pr_is_json(const struct rwctl_printer *p);

void rwctl_pr_obj_open(struct rwctl_printer *p, const char *key);
void rwctl_pr_obj_close(struct rwctl_printer *p);
void rwctl_pr_arr_open(struct rwctl_printer *p, const char *key);
void rwctl_pr_arr_close(struct rwctl_printer *p);

void rwctl_pr_str(struct rwctl_printer *p, const char *key, const char *fmt,
		  const char *val);
void rwctl_pr_u32(struct rwctl_printer *p, const char *key, const char *fmt,
		  unsigned int val);
void rwctl_pr_u64(struct rwctl_printer *p, const char *key, const char *fmt,
		  uint64_t val);
void rwctl_pr_s32(struct rwctl_printer *p, const char *key, const char *fmt,
		  int val);
/*
 * A binary32 value. Text: @fmt gets it as a double (%g). JSON: the shortest
 * %g rendering that reads back as the same float ("0.01", not
 * "0.00999999978"); null for NaN and infinities, which JSON cannot express.
 */
void rwctl_pr_float(struct rwctl_printer *p, const char *key, const char *fmt,
		    float val);

/* JSON true/false; text: @fmt gets "yes" or "no" (%s). */
void rwctl_pr_bool(struct rwctl_printer *p, const char *key, const char *fmt,
		   bool val);

/* Text mode only. */
void rwctl_pr_text(struct rwctl_printer *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rwctl_pr_nl(struct rwctl_printer *p);

/*
 * Finish the output: the closing newline of a JSON document, then a flush.
 * Returns 0, -EINVAL if the calls did not nest properly, or -EIO if the
 * stream failed (errno from the failing write is not preserved by stdio).
 */
int rwctl_pr_end(struct rwctl_printer *p);

/*
 * For text a person reads: @bytes with a binary unit and three significant
 * digits ("512 B", "1.50 MiB", "768 KiB"), @ns likewise ("850 ns",
 * "12.0 ms", "3.20 s"). Returns @buf.
 */
#define RWCTL_PR_HUMAN_LEN	16
const char *rwctl_pr_fmt_bytes(char buf[RWCTL_PR_HUMAN_LEN], uint64_t bytes);
const char *rwctl_pr_fmt_ns(char buf[RWCTL_PR_HUMAN_LEN], uint64_t ns);

/*
 * @bytes exactly, in the largest binary unit that divides it ("1 GiB",
 * "1536 MiB", "4097 B"): a setting shown as it was given. Returns @buf.
 */
#define RWCTL_PR_SIZE_LEN	32
const char *rwctl_pr_fmt_size(char buf[RWCTL_PR_SIZE_LEN], uint64_t bytes);

/* Write @s as a JSON string literal, quotes included. */
void rwctl_pr_json_string(FILE *f, const char *s);

#endif /* RWCTL_PRINT_H */

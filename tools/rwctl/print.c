// SPDX-License-Identifier: GPL-2.0
/*
 * The text/JSON printer behind every rwctl command; see print.h for the
 * calling convention.
 *
 * JSON is streamed: nothing is buffered beyond stdio, so a comma is written
 * before every value but the first in its container, which is what the
 * per-level 'empty' flag tracks. Pretty mode adds a newline and four spaces
 * per level before each member and before the closing bracket of a non-empty
 * container, the layout of iproute2's -j -p and python's json.dumps(indent=4).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

void rwctl_pr_init(struct rwctl_printer *p, FILE *f, unsigned int flags)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->flags = flags;
}

bool rwctl_pr_is_json(const struct rwctl_printer *p)
{
	return p->flags & RWCTL_PR_JSON;
}

static bool rwctl_pr_pretty(const struct rwctl_printer *p)
{
	return (p->flags & (RWCTL_PR_JSON | RWCTL_PR_PRETTY)) ==
	       (RWCTL_PR_JSON | RWCTL_PR_PRETTY);
}

static void rwctl_pr_indent(struct rwctl_printer *p, unsigned int depth)
{
	fputc('\n', p->f);
	while (depth--)
		fputs("    ", p->f);
}

/*
 * Length of the valid UTF-8 sequence at @s, 0 if it is not one (overlong
 * forms, surrogates and code points past U+10FFFF included). The NUL
 * terminator fails the continuation test, so this never reads past it.
 */
static size_t rwctl_pr_utf8_len(const unsigned char *s)
{
	unsigned int cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}

	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}

	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void rwctl_pr_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		switch (*s) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*s < 0x20) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			n = rwctl_pr_utf8_len(s);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', f);
}

/* Everything a JSON value needs before it: comma, indentation, key. */
static void rwctl_pr_json_lead(struct rwctl_printer *p, const char *key)
{
	bool in_obj;

	if (!p->depth) {
		if (p->top_done)
			p->misused = true;
		p->top_done = true;
		return;
	}

	in_obj = p->stack[p->depth - 1].close == '}';
	if (!p->stack[p->depth - 1].empty)
		fputc(',', p->f);
	p->stack[p->depth - 1].empty = false;
	if (rwctl_pr_pretty(p))
		rwctl_pr_indent(p, p->depth);

	if (!in_obj)
		return;
	if (!key) {
		p->misused = true;
		key = "";
	}
	rwctl_pr_json_string(p->f, key);
	fputs(rwctl_pr_pretty(p) ? ": " : ":", p->f);
}

static void rwctl_pr_open(struct rwctl_printer *p, const char *key, char open,
			  char close)
{
	if (!rwctl_pr_is_json(p))
		return;
	if (p->depth == RWCTL_PR_MAX_DEPTH) {
		p->misused = true;
		return;
	}
	rwctl_pr_json_lead(p, key);
	fputc(open, p->f);
	p->stack[p->depth].close = close;
	p->stack[p->depth].empty = true;
	p->depth++;
}

static void rwctl_pr_close(struct rwctl_printer *p, char close)
{
	if (!rwctl_pr_is_json(p))
		return;
	if (!p->depth || p->stack[p->depth - 1].close != close) {
		p->misused = true;
		return;
	}
	p->depth--;
	if (rwctl_pr_pretty(p) && !p->stack[p->depth].empty)
		rwctl_pr_indent(p, p->depth);
	fputc(close, p->f);
}

void rwctl_pr_obj_open(struct rwctl_printer *p, const char *key)
{
	rwctl_pr_open(p, key, '{', '}');
}

void rwctl_pr_obj_close(struct rwctl_printer *p)
{
	rwctl_pr_close(p, '}');
}

void rwctl_pr_arr_open(struct rwctl_printer *p, const char *key)
{
	rwctl_pr_open(p, key, '[', ']');
}

void rwctl_pr_arr_close(struct rwctl_printer *p)
{
	rwctl_pr_close(p, ']');
}

void rwctl_pr_str(struct rwctl_printer *p, const char *key, const char *fmt,
		  const char *val)
{
	if (!val)
		val = "";
	if (rwctl_pr_is_json(p)) {
		rwctl_pr_json_lead(p, key);
		rwctl_pr_json_string(p->f, val);
	} else if (fmt) {
		fprintf(p->f, fmt, val);
	}
}

void rwctl_pr_u32(struct rwctl_printer *p, const char *key, const char *fmt,
		  unsigned int val)
{
	if (rwctl_pr_is_json(p)) {
		rwctl_pr_json_lead(p, key);
		fprintf(p->f, "%u", val);
	} else if (fmt) {
		fprintf(p->f, fmt, val);
	}
}

void rwctl_pr_u64(struct rwctl_printer *p, const char *key, const char *fmt,
		  uint64_t val)
{
	if (rwctl_pr_is_json(p)) {
		rwctl_pr_json_lead(p, key);
		fprintf(p->f, "%" PRIu64, val);
	} else if (fmt) {
		fprintf(p->f, fmt, val);
	}
}

void rwctl_pr_s32(struct rwctl_printer *p, const char *key, const char *fmt,
		  int val)
{
	if (rwctl_pr_is_json(p)) {
		rwctl_pr_json_lead(p, key);
		fprintf(p->f, "%d", val);
	} else if (fmt) {
		fprintf(p->f, fmt, val);
	}
}

void rwctl_pr_float(struct rwctl_printer *p, const char *key, const char *fmt,
		    float val)
{
	char buf[32];
	int prec;

	if (!rwctl_pr_is_json(p)) {
		if (fmt)
			fprintf(p->f, fmt, (double)val);
		return;
	}
	rwctl_pr_json_lead(p, key);
	if (!isfinite(val)) {
		fputs("null", p->f);
		return;
	}
	/* FLT_DECIMAL_DIG (9) digits always read back exactly. */
	for (prec = 6; prec <= 9; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, (double)val);
		if (strtof(buf, NULL) == val)
			break;
	}
	fputs(buf, p->f);
}

void rwctl_pr_bool(struct rwctl_printer *p, const char *key, const char *fmt,
		   bool val)
{
	if (rwctl_pr_is_json(p)) {
		rwctl_pr_json_lead(p, key);
		fputs(val ? "true" : "false", p->f);
	} else if (fmt) {
		fprintf(p->f, fmt, val ? "yes" : "no");
	}
}

/*
 * @v in units of @step named @units (the first for @v < @step), with three
 * significant digits once scaled: 999 B, 1.00 KiB, 10.0 KiB, 100 KiB.
 */
static const char *rwctl_pr_human(char buf[RWCTL_PR_HUMAN_LEN], uint64_t v,
				  double step, const char *const *units,
				  size_t nr_units)
{
	double x = (double)v;
	size_t u = 0;

	if (v < step) {
		snprintf(buf, RWCTL_PR_HUMAN_LEN, "%" PRIu64 " %s", v, units[0]);
		return buf;
	}
	while (u + 1 < nr_units && x >= step) {
		x /= step;
		u++;
	}
	/* Rounding may carry into the next unit: 1023.9 KiB is 1.00 MiB. */
	if (x >= step - 0.5 && u + 1 < nr_units) {
		x /= step;
		u++;
	}
	snprintf(buf, RWCTL_PR_HUMAN_LEN, x < 9.995 ? "%.2f %s" :
		 x < 99.95 ? "%.1f %s" : "%.0f %s", x, units[u]);
	return buf;
}

const char *rwctl_pr_fmt_bytes(char buf[RWCTL_PR_HUMAN_LEN], uint64_t bytes)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};

	return rwctl_pr_human(buf, bytes, 1024.0, units,
			      sizeof(units) / sizeof(units[0]));
}

const char *rwctl_pr_fmt_size(char buf[RWCTL_PR_SIZE_LEN], uint64_t bytes)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	const size_t nr = sizeof(units) / sizeof(units[0]);
	size_t u = 0;

	while (bytes && !(bytes & 1023) && u + 1 < nr) {
		bytes >>= 10;
		u++;
	}
	snprintf(buf, RWCTL_PR_SIZE_LEN, "%" PRIu64 " %s", bytes, units[u]);
	return buf;
}

const char *rwctl_pr_fmt_ns(char buf[RWCTL_PR_HUMAN_LEN], uint64_t ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	return rwctl_pr_human(buf, ns, 1000.0, units,
			      sizeof(units) / sizeof(units[0]));
}

void rwctl_pr_text(struct rwctl_printer *p, const char *fmt, ...)
{
	va_list ap;

	if (rwctl_pr_is_json(p))
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}

void rwctl_pr_nl(struct rwctl_printer *p)
{
	if (!rwctl_pr_is_json(p))
		fputc('\n', p->f);
}

int rwctl_pr_end(struct rwctl_printer *p)
{
	if (rwctl_pr_is_json(p)) {
		if (p->depth || !p->top_done)
			p->misused = true;
		fputc('\n', p->f);
	}
	if (fflush(p->f) || ferror(p->f))
		return -EIO;
	return p->misused ? -EINVAL : 0;
}

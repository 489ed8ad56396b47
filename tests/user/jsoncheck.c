// SPDX-License-Identifier: GPL-2.0
/*
 * Recursive-descent JSON validator for the tests. It accepts what RFC 8259
 * accepts and nothing more: no trailing commas, no single quotes, no raw
 * control characters in strings, no leading zeros, no bare words other than
 * true, false and null. Strings must be valid UTF-8 and \u escapes must
 * have four hex digits. Nesting is bounded so malformed input cannot exhaust
 * the stack.
 */
#include <ctype.h>
#include <string.h>

#include "jsoncheck.h"

#define RW_JSON_MAX_DEPTH	64

struct rw_json {
	const unsigned char *s;
	size_t pos;
	unsigned int depth;
};

static bool rw_json_value(struct rw_json *j);

static void rw_json_ws(struct rw_json *j)
{
	while (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' ||
	       j->s[j->pos] == '\n' || j->s[j->pos] == '\r')
		j->pos++;
}

static bool rw_json_lit(struct rw_json *j, const char *word)
{
	size_t n = strlen(word);

	if (strncmp((const char *)j->s + j->pos, word, n))
		return false;
	j->pos += n;
	return true;
}

/* One UTF-8 sequence of two to four bytes, minimal form, no surrogates. */
static bool rw_json_utf8(struct rw_json *j)
{
	const unsigned char *c = j->s + j->pos;
	unsigned int cp, n, i;

	if (c[0] >= 0xc2 && c[0] <= 0xdf) {
		n = 2;
		cp = c[0] & 0x1f;
	} else if ((c[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = c[0] & 0x0f;
	} else if (c[0] >= 0xf0 && c[0] <= 0xf4) {
		n = 4;
		cp = c[0] & 0x07;
	} else {
		return false;
	}
	for (i = 1; i < n; i++) {
		if ((c[i] & 0xc0) != 0x80)
			return false;
		cp = (cp << 6) | (c[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return false;
	j->pos += n;
	return true;
}

static bool rw_json_string(struct rw_json *j)
{
	unsigned int i;

	if (j->s[j->pos] != '"')
		return false;
	j->pos++;
	for (;;) {
		unsigned char c = j->s[j->pos];

		if (c == '"') {
			j->pos++;
			return true;
		}
		if (c < 0x20)		/* raw control character, or the end */
			return false;
		if (c >= 0x80) {
			if (!rw_json_utf8(j))
				return false;
			continue;
		}
		j->pos++;
		if (c != '\\')
			continue;
		c = j->s[j->pos];
		if (c && strchr("\"\\/bfnrt", c)) {
			j->pos++;
			continue;
		}
		if (c != 'u')
			return false;
		j->pos++;
		for (i = 0; i < 4; i++, j->pos++)
			if (!isxdigit(j->s[j->pos]))
				return false;
	}
}

static bool rw_json_digits(struct rw_json *j)
{
	size_t start = j->pos;

	while (isdigit(j->s[j->pos]))
		j->pos++;
	return j->pos > start;
}

static bool rw_json_number(struct rw_json *j)
{
	if (j->s[j->pos] == '-')
		j->pos++;
	if (j->s[j->pos] == '0')
		j->pos++;
	else if (!rw_json_digits(j))
		return false;
	if (j->s[j->pos] == '.') {
		j->pos++;
		if (!rw_json_digits(j))
			return false;
	}
	if (j->s[j->pos] == 'e' || j->s[j->pos] == 'E') {
		j->pos++;
		if (j->s[j->pos] == '+' || j->s[j->pos] == '-')
			j->pos++;
		if (!rw_json_digits(j))
			return false;
	}
	/* "01" and "1x" end a number where a value may not continue. */
	return !isalnum(j->s[j->pos]) && j->s[j->pos] != '.';
}

/* Members of an object or elements of an array, after the opening bracket. */
static bool rw_json_container(struct rw_json *j, char close, bool obj)
{
	bool ok = false;

	if (++j->depth > RW_JSON_MAX_DEPTH)
		return false;
	rw_json_ws(j);
	if (j->s[j->pos] == close) {
		j->pos++;
		ok = true;
		goto out;
	}
	for (;;) {
		if (obj) {
			rw_json_ws(j);
			if (!rw_json_string(j))
				goto out;
			rw_json_ws(j);
			if (j->s[j->pos] != ':')
				goto out;
			j->pos++;
		}
		if (!rw_json_value(j))
			goto out;
		rw_json_ws(j);
		if (j->s[j->pos] == close) {
			j->pos++;
			ok = true;
			goto out;
		}
		if (j->s[j->pos] != ',')
			goto out;
		j->pos++;
	}
out:
	j->depth--;
	return ok;
}

static bool rw_json_value(struct rw_json *j)
{
	rw_json_ws(j);
	switch (j->s[j->pos]) {
	case '{':
		j->pos++;
		return rw_json_container(j, '}', true);
	case '[':
		j->pos++;
		return rw_json_container(j, ']', false);
	case '"':
		return rw_json_string(j);
	case 't':
		return rw_json_lit(j, "true");
	case 'f':
		return rw_json_lit(j, "false");
	case 'n':
		return rw_json_lit(j, "null");
	default:
		return rw_json_number(j);
	}
}

bool rw_json_valid(const char *text, size_t *err_off)
{
	struct rw_json j = { .s = (const unsigned char *)text };
	bool ok;

	ok = rw_json_value(&j);
	rw_json_ws(&j);
	ok = ok && j.s[j.pos] == '\0';
	if (!ok && err_off)
		*err_off = j.pos;
	return ok;
}

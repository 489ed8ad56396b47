// SPDX-License-Identifier: GPL-2.0
/*
 * A recursive-descent JSON reader that takes what RFC 8259 takes and
 * nothing more: no trailing commas, no comments, no single quotes, no raw
 * control characters in strings, no leading zeros, no bare words but true,
 * false and null, strings of valid UTF-8 with surrogate pairs whole.
 * rwctl reads documents it did not necessarily write (a file edited or cut
 * short), so it also refuses what would be read two ways: a key twice in
 * one object, and \u0000, which a C string cannot hold. Nesting is bounded
 * so that no input can exhaust the stack.
 *
 * The text has a length and may hold NUL bytes; the reader never looks
 * past @len (peek() is -1 there).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define RWCTL_JSON_MAX_DEPTH	64

struct rwctl_json_rd {
	const unsigned char *s;
	size_t len, pos;
	unsigned int depth;
	char *msg;
	size_t msglen;
};

static int rwctl_json_value(struct rwctl_json_rd *r, struct rwctl_json **out);

static int rwctl_json_peek(const struct rwctl_json_rd *r)
{
	return r->pos < r->len ? r->s[r->pos] : -1;
}

static int rwctl_json_bad(struct rwctl_json_rd *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rwctl_json_bad(struct rwctl_json_rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, r->msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int rwctl_json_nomem(struct rwctl_json_rd *r)
{
	snprintf(r->msg, r->msglen, "out of memory");
	return -ENOMEM;
}

static void rwctl_json_ws(struct rwctl_json_rd *r)
{
	int c;

	while ((c = rwctl_json_peek(r)) == ' ' || c == '\t' || c == '\n' ||
	       c == '\r')
		r->pos++;
}

/* A bytes buffer that grows: the decoded string. */
struct rwctl_json_buf {
	char *p;
	size_t len, cap;
};

static int rwctl_json_put(struct rwctl_json_buf *b, const void *src, size_t n)
{
	char *p;

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		p = realloc(b->p, b->cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

/* Length of the valid UTF-8 sequence at the reader, 0 if none. */
static size_t rwctl_json_utf8(const struct rwctl_json_rd *r)
{
	const unsigned char *c = r->s + r->pos;
	size_t n, i, left = r->len - r->pos;
	unsigned int cp;

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
		return 0;
	}
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((c[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (c[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Four hex digits of a \u escape. */
static int rwctl_json_hex4(struct rwctl_json_rd *r, unsigned int *cp)
{
	unsigned int i, d;
	int c;

	*cp = 0;
	for (i = 0; i < 4; i++) {
		c = rwctl_json_peek(r);
		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return rwctl_json_bad(r, "\\u needs four hex digits");
		*cp = *cp << 4 | d;
		r->pos++;
	}
	return 0;
}

/* A \u escape (after the 'u'), a surrogate pair whole, as UTF-8. */
static int rwctl_json_unicode(struct rwctl_json_rd *r, struct rwctl_json_buf *b)
{
	unsigned int cp, lo;
	unsigned char u[4];
	size_t n;
	int err;

	err = rwctl_json_hex4(r, &cp);
	if (err)
		return err;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return rwctl_json_bad(r, "a low surrogate without its high one");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (rwctl_json_peek(r) != '\\' || r->pos + 1 >= r->len ||
		    r->s[r->pos + 1] != 'u')
			return rwctl_json_bad(r, "a high surrogate without its low one");
		r->pos += 2;
		err = rwctl_json_hex4(r, &lo);
		if (err)
			return err;
		if (lo < 0xdc00 || lo > 0xdfff)
			return rwctl_json_bad(r, "a high surrogate without its low one");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!cp)
		return rwctl_json_bad(r, "\\u0000 in a string");
	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return rwctl_json_put(b, u, n) ? rwctl_json_nomem(r) : 0;
}

/* A string at the reader's '"', decoded into *@out (allocated). */
static int rwctl_json_string(struct rwctl_json_rd *r, char **out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	struct rwctl_json_buf b = { 0 };
	const char *e;
	size_t n;
	int c, err = 0;

	r->pos++;
	if (rwctl_json_put(&b, "", 0))
		return rwctl_json_nomem(r);
	for (;;) {
		c = rwctl_json_peek(r);
		if (c == '"')
			break;
		if (c < 0) {
			err = rwctl_json_bad(r, "a string without its closing '\"'");
			goto fail;
		}
		if (c < 0x20) {
			err = rwctl_json_bad(r, "a control character in a string");
			goto fail;
		}
		if (c == '\\') {
			r->pos++;
			c = rwctl_json_peek(r);
			e = c > 0 ? strchr(esc_in, c) : NULL;
			if (!e && c != 'u') {
				err = rwctl_json_bad(r, "a bad escape in a string");
				goto fail;
			}
			r->pos++;
			if (c == 'u')
				err = rwctl_json_unicode(r, &b);
			else if (rwctl_json_put(&b, &esc_out[e - esc_in], 1))
				err = rwctl_json_nomem(r);
			if (err)
				goto fail;
			continue;
		}
		n = c < 0x80 ? 1 : rwctl_json_utf8(r);
		if (!n) {
			err = rwctl_json_bad(r, "invalid UTF-8 in a string");
			goto fail;
		}
		if (rwctl_json_put(&b, r->s + r->pos, n)) {
			err = rwctl_json_nomem(r);
			goto fail;
		}
		r->pos += n;
	}
	r->pos++;
	*out = b.p;
	return 0;
fail:
	free(b.p);
	return err;
}

static bool rwctl_json_digit(const struct rwctl_json_rd *r)
{
	int c = rwctl_json_peek(r);

	return c >= '0' && c <= '9';
}

/* A number: its grammar, and its value if a whole one within 64 bits. */
static int rwctl_json_number(struct rwctl_json_rd *r, struct rwctl_json *v)
{
	bool whole = true, fits = true;
	uint64_t u = 0;
	unsigned int d;
	int c;

	v->type = RWCTL_JSON_NUM;
	if (rwctl_json_peek(r) == '-') {
		whole = false;
		r->pos++;
	}
	if (!rwctl_json_digit(r))
		return rwctl_json_bad(r, "expected a value");
	if (rwctl_json_peek(r) == '0') {
		r->pos++;
		if (rwctl_json_digit(r))
			return rwctl_json_bad(r, "a number with a leading zero");
	}
	while (rwctl_json_digit(r)) {
		d = (unsigned int)(rwctl_json_peek(r) - '0');
		if (u > (UINT64_MAX - d) / 10)
			fits = false;
		u = u * 10 + d;
		r->pos++;
	}
	if (rwctl_json_peek(r) == '.') {
		whole = false;
		r->pos++;
		if (!rwctl_json_digit(r))
			return rwctl_json_bad(r, "a number without digits after '.'");
		while (rwctl_json_digit(r))
			r->pos++;
	}
	c = rwctl_json_peek(r);
	if (c == 'e' || c == 'E') {
		whole = false;
		r->pos++;
		c = rwctl_json_peek(r);
		if (c == '+' || c == '-')
			r->pos++;
		if (!rwctl_json_digit(r))
			return rwctl_json_bad(r, "a number without digits in its exponent");
		while (rwctl_json_digit(r))
			r->pos++;
	}
	v->is_u64 = whole && fits;
	v->u64 = v->is_u64 ? u : 0;
	return 0;
}

static int rwctl_json_word(struct rwctl_json_rd *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n))
		return rwctl_json_bad(r, "expected a value");
	r->pos += n;
	return 0;
}

/* Elements or members after the opening bracket, into @v's children. */
static int rwctl_json_container(struct rwctl_json_rd *r, struct rwctl_json *v)
{
	bool obj = v->type == RWCTL_JSON_OBJ;
	struct rwctl_json **tail = &v->child, *e;
	char close = obj ? '}' : ']', *key = NULL;
	int err;

	if (++r->depth > RWCTL_JSON_MAX_DEPTH)
		return rwctl_json_bad(r, "nested deeper than %d",
				      RWCTL_JSON_MAX_DEPTH);
	r->pos++;
	rwctl_json_ws(r);
	if (rwctl_json_peek(r) == close)
		goto done;
	for (;;) {
		if (obj) {
			rwctl_json_ws(r);
			if (rwctl_json_peek(r) != '"')
				return rwctl_json_bad(r, "expected a key in quotes");
			err = rwctl_json_string(r, &key);
			if (err)
				return err;
			if (rwctl_json_get(v, key)) {
				err = rwctl_json_bad(r, "the key \"%s\" twice in one object",
						     key);
				free(key);
				return err;
			}
			rwctl_json_ws(r);
			if (rwctl_json_peek(r) != ':') {
				free(key);
				return rwctl_json_bad(r, "expected ':' after a key");
			}
			r->pos++;
		}
		err = rwctl_json_value(r, &e);
		if (err) {
			free(key);
			return err;
		}
		e->key = key;
		key = NULL;
		*tail = e;
		tail = &e->next;
		rwctl_json_ws(r);
		if (rwctl_json_peek(r) == close)
			break;
		if (rwctl_json_peek(r) != ',')
			return rwctl_json_bad(r, "expected ',' or '%c'", close);
		r->pos++;
	}
done:
	r->pos++;
	r->depth--;
	return 0;
}

static int rwctl_json_value(struct rwctl_json_rd *r, struct rwctl_json **out)
{
	struct rwctl_json *v = calloc(1, sizeof(*v));
	int err;

	*out = NULL;
	if (!v)
		return rwctl_json_nomem(r);
	rwctl_json_ws(r);
	switch (rwctl_json_peek(r)) {
	case '{':
		v->type = RWCTL_JSON_OBJ;
		err = rwctl_json_container(r, v);
		break;
	case '[':
		v->type = RWCTL_JSON_ARR;
		err = rwctl_json_container(r, v);
		break;
	case '"':
		v->type = RWCTL_JSON_STR;
		err = rwctl_json_string(r, &v->str);
		break;
	case 't':
		v->type = RWCTL_JSON_BOOL;
		v->b = true;
		err = rwctl_json_word(r, "true");
		break;
	case 'f':
		v->type = RWCTL_JSON_BOOL;
		err = rwctl_json_word(r, "false");
		break;
	case 'n':
		err = rwctl_json_word(r, "null");
		break;
	case -1:
		err = rwctl_json_bad(r, "the text ends where a value should be");
		break;
	default:
		err = rwctl_json_number(r, v);
		break;
	}
	if (err) {
		rwctl_json_free(v);
		return err;
	}
	*out = v;
	return 0;
}

int rwctl_json_next(const char *text, size_t len, size_t *pos,
		    struct rwctl_json **out, char *msg, size_t msglen)
{
	struct rwctl_json_rd r = {
		.s = (const unsigned char *)text, .len = len, .pos = *pos,
		.msg = msg, .msglen = msglen,
	};
	int c, err;

	*out = NULL;
	rwctl_json_ws(&r);
	*pos = r.pos;
	if (r.pos == len)
		return 0;
	err = rwctl_json_value(&r, out);
	if (!err) {
		/* "1 2" is two values, "12" one: a value ends at whitespace. */
		c = rwctl_json_peek(&r);
		if (c >= 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			rwctl_json_free(*out);
			*out = NULL;
			err = rwctl_json_bad(&r, "expected a new line after a document");
		}
	}
	*pos = r.pos;
	return err ? err : 1;
}

void rwctl_json_free(struct rwctl_json *v)
{
	struct rwctl_json *next;

	while (v) {
		next = v->next;
		rwctl_json_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = next;
	}
}

const struct rwctl_json *rwctl_json_get(const struct rwctl_json *obj,
					const char *key)
{
	const struct rwctl_json *e;

	if (!obj || obj->type != RWCTL_JSON_OBJ)
		return NULL;
	for (e = obj->child; e; e = e->next)
		if (e->key && !strcmp(e->key, key))
			return e;
	return NULL;
}

const char *rwctl_json_what(const struct rwctl_json *v)
{
	static const char *const what[] = {
		[RWCTL_JSON_NULL] = "null",
		[RWCTL_JSON_BOOL] = "a boolean",
		[RWCTL_JSON_NUM] = "a number",
		[RWCTL_JSON_STR] = "a string",
		[RWCTL_JSON_ARR] = "an array",
		[RWCTL_JSON_OBJ] = "an object",
	};

	return what[v->type];
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small strict JSON reader (RFC 8259) for what rwctl reads back: its own
 * -j output, saved on other boxes ("stats sum"). Values become a tree;
 * numbers keep whether they are a whole number in 0..UINT64_MAX, which is
 * all rwctl prints, so no floating point is involved.
 */
#ifndef RWCTL_JSON_H
#define RWCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rwctl_json_type {
	RWCTL_JSON_NULL,
	RWCTL_JSON_BOOL,
	RWCTL_JSON_NUM,
	RWCTL_JSON_STR,
	RWCTL_JSON_ARR,
	RWCTL_JSON_OBJ,
};

struct rwctl_json {
	enum rwctl_json_type type;
	bool b;				/* BOOL */
	bool is_u64;			/* NUM: whole, 0..UINT64_MAX, in @u64 */
	uint64_t u64;
	char *str;			/* STR: UTF-8, no NUL inside */
	char *key;			/* a member of an OBJ: its key */
	struct rwctl_json *child;	/* ARR, OBJ: the first element */
	struct rwctl_json *next;	/* the next element of the parent */
};

/*
 * The next value of @text (@len bytes) from *@pos on: 1 and the value in
 * *@out (free it with rwctl_json_free()), *@pos past it; 0 if only
 * whitespace is left. Values are separated by whitespace, as one document
 * per line. -EINVAL for what is not JSON (an object with a key twice, a
 * string with \u0000 and nesting deeper than 64 included) and -ENOMEM,
 * with a sentence in @msg and *@pos at the byte that could not be taken.
 */
int rwctl_json_next(const char *text, size_t len, size_t *pos,
		    struct rwctl_json **out, char *msg, size_t msglen);

void rwctl_json_free(struct rwctl_json *v);

/* The member @key of the object @obj, or NULL. */
const struct rwctl_json *rwctl_json_get(const struct rwctl_json *obj,
					const char *key);

/* "an object", "a number", ...: @v's type for messages. */
const char *rwctl_json_what(const struct rwctl_json *v);

#endif /* RWCTL_JSON_H */

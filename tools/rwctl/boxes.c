// SPDX-License-Identifier: GPL-2.0
/*
 * A job's box set: the words "boxes ID@ADDR[:PORT],... self ID [epoch N]"
 * of "job add" and "policy set", checked as far as rwctl can before
 * anything is sent (the module checks again and has the last word), and
 * the set as "job show" and "topo show" print it:
 *
 *   box set epoch 2, 3 boxes, this box is 2:
 *       box 1  10.0.0.1:18515   341 chunks (33.3%)  10.7 MiB
 *       box 2  10.0.0.2:18515   342 chunks (33.4%)  10.7 MiB  (this box)
 *       box 3  [fd00::3]:7000   341 chunks (33.3%)  10.7 MiB
 *
 * (the shares only in a topology with a layout declared).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "boxes.h"
#include "print.h"
#include "rwctl.h"

/* "[ADDR]:PORT" of the longest IPv6 address and port, and a NUL. */
#define RWCTL_BOX_WHERE_LEN	(INET6_ADDRSTRLEN + 8)

/* One element of the list, as typed, for messages. */
static int rwctl_box_bad(char *msg, size_t msglen, const char *elem,
			 const char *why)
{
	snprintf(msg, msglen, "box %s: %s", elem, why);
	return -EINVAL;
}

/* ADDR, [ADDR] or [ADDR]:PORT (IPv6), ADDR or ADDR:PORT (IPv4) into @b. */
static int rwctl_box_parse_where(const char *elem, const char *where,
				 struct rwctl_box *b, char *msg, size_t msglen)
{
	char addr[RWCTL_BOX_WHERE_LEN], why[128];
	const char *port = NULL, *end;
	uint32_t v;
	size_t len;

	if (where[0] == '[') {
		end = strchr(where, ']');
		if (!end)
			return rwctl_box_bad(msg, msglen, elem,
					     "an IPv6 address in [ ] lacks its ']'");
		len = (size_t)(end - where - 1);
		where++;
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return rwctl_box_bad(msg, msglen, elem,
					     "only ':PORT' may follow ']'");
	} else {
		end = strchr(where, ':');
		/* Two colons or more: a bare IPv6 address, no port. */
		if (end && !strchr(end + 1, ':')) {
			port = end + 1;
			len = (size_t)(end - where);
		} else {
			len = strlen(where);
		}
	}
	if (!len || len >= sizeof(addr))
		return rwctl_box_bad(msg, msglen, elem, "not an address");
	memcpy(addr, where, len);
	addr[len] = '\0';
	memset(b->addr, 0, sizeof(b->addr));
	if (inet_pton(AF_INET, addr, b->addr) == 1)
		b->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, b->addr) == 1)
		b->family = AF_INET6;
	else
		return rwctl_box_bad(msg, msglen, elem, "not an address");
	if (!memcmp(b->addr, (const uint8_t[16]){ 0 },
		    b->family == AF_INET ? 4 : 16))
		return rwctl_box_bad(msg, msglen, elem,
				     "an all-zero address reaches no box");
	if (!port)
		return 0;
	if (rwctl_parse_u32("port", port, 1, 65535, &v, why, sizeof(why)))
		return rwctl_box_bad(msg, msglen, elem, why);
	b->port = (uint16_t)v;
	return 0;
}

/* ID@WHERE, @elem NUL-terminated, into @b. */
static int rwctl_box_parse_one(const char *elem, struct rwctl_box *b,
			       char *msg, size_t msglen)
{
	char id[16], why[128];
	const char *at = strchr(elem, '@');
	size_t len;

	memset(b, 0, sizeof(*b));
	if (!at)
		return rwctl_box_bad(msg, msglen, elem,
				     "not ID@ADDR[:PORT]");
	len = (size_t)(at - elem);
	if (!len || len >= sizeof(id))
		return rwctl_box_bad(msg, msglen, elem,
				     len ? "the id is not a number" :
					   "the id is missing before '@'");
	memcpy(id, elem, len);
	id[len] = '\0';
	if (rwctl_parse_u32("id", id, 1, RW_BOX_MAX_ID, &b->id, why,
			    sizeof(why)))
		return rwctl_box_bad(msg, msglen, elem, why);
	return rwctl_box_parse_where(elem, at + 1, b, msg, msglen);
}

static bool rwctl_box_same_where(const struct rwctl_box *a,
				 const struct rwctl_box *b)
{
	/* An unnamed port is the default one, as the module stores it. */
	uint16_t pa = a->port ? a->port : RW_WIRE_PORT;
	uint16_t pb = b->port ? b->port : RW_WIRE_PORT;

	return a->family == b->family && pa == pb &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

/* "10.0.0.1:18515" or "[fd00::1]:7000"; the address alone into @addr. */
static void rwctl_box_format(char where[RWCTL_BOX_WHERE_LEN],
			     char addr[INET6_ADDRSTRLEN],
			     const struct rwctl_box *b)
{
	if (!inet_ntop(b->family, b->addr, addr, INET6_ADDRSTRLEN))
		snprintf(addr, INET6_ADDRSTRLEN, "?");
	snprintf(where, RWCTL_BOX_WHERE_LEN,
		 b->family == AF_INET6 ? "[%s]:%u" : "%s:%u", addr,
		 b->port ? b->port : RW_WIRE_PORT);
}

int rwctl_boxes_parse(const char *list, struct rwctl_boxes *b, char *msg,
		      size_t msglen)
{
	char elem[128], where[RWCTL_BOX_WHERE_LEN], addr[INET6_ADDRSTRLEN];
	const char *s = list, *comma;
	size_t len, i;
	int err;

	b->nr = 0;
	if (!strcmp(list, "none"))
		return 0;
	for (;;) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (!len) {
			snprintf(msg, msglen,
				 "boxes '%s': an empty box in the list (ID@ADDR[:PORT],...)",
				 list);
			return -EINVAL;
		}
		if (b->nr == RW_JOB_MAX_BOXES) {
			snprintf(msg, msglen,
				 "boxes: a box set holds at most %d boxes",
				 RW_JOB_MAX_BOXES);
			return -EINVAL;
		}
		snprintf(elem, sizeof(elem), "%.*s", (int)len, s);
		if (len >= sizeof(elem))
			return rwctl_box_bad(msg, msglen, elem, "too long");
		err = rwctl_box_parse_one(elem, &b->box[b->nr], msg, msglen);
		if (err)
			return err;
		for (i = 0; i < b->nr; i++) {
			if (b->box[i].id == b->box[b->nr].id) {
				snprintf(msg, msglen,
					 "box %s: id %u is in the set twice",
					 elem, b->box[i].id);
				return -EINVAL;
			}
			if (rwctl_box_same_where(&b->box[i], &b->box[b->nr])) {
				rwctl_box_format(where, addr, &b->box[i]);
				snprintf(msg, msglen,
					 "box %s: boxes %u and %u have one address, %s",
					 elem, b->box[i].id, b->box[b->nr].id,
					 where);
				return -EINVAL;
			}
		}
		b->nr++;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

int rwctl_boxes_check(bool given, bool leaving, const struct rwctl_boxes *b,
		      char *msg, size_t msglen)
{
	size_t i;

	if (!given) {
		if (!b->self && !b->epoch)
			return 0;
		snprintf(msg, msglen, "'%s' goes with a box set: give 'boxes ID@ADDR,... self ID'",
			 b->self ? "self" : "epoch");
		return -EINVAL;
	}
	if (!b->nr) {
		if (!b->self && !b->epoch)
			return 0;
		snprintf(msg, msglen, "'boxes none' takes no 'self' or 'epoch'");
		return -EINVAL;
	}
	if (!b->self) {
		snprintf(msg, msglen,
			 "'boxes' needs 'self ID': which box of the set this one is");
		return -EINVAL;
	}
	for (i = 0; i < b->nr; i++)
		if (b->box[i].id == b->self)
			return 0;
	if (leaving)
		return 0;
	snprintf(msg, msglen, "self %u is not one of the set's box ids",
		 b->self);
	return -EINVAL;
}

/* Column widths of the box lines. */
struct rwctl_box_widths {
	int id, where, chunks;
};

static int rwctl_box_digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void rwctl_box_widths(const struct rwctl_boxes *b,
			     struct rwctl_box_widths *w)
{
	char where[RWCTL_BOX_WHERE_LEN], addr[INET6_ADDRSTRLEN];
	int n;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < b->nr; i++) {
		rwctl_box_format(where, addr, &b->box[i]);
		n = (int)strlen(where);
		w->where = n > w->where ? n : w->where;
		n = rwctl_box_digits(b->box[i].id);
		w->id = n > w->id ? n : w->id;
		n = rwctl_box_digits(b->box[i].chunks);
		w->chunks = n > w->chunks ? n : w->chunks;
	}
}

static void rwctl_box_print_share(struct rwctl_printer *p,
				  const struct rwctl_box *x,
				  const struct rwctl_box_widths *w,
				  uint64_t model)
{
	char fmt[32], human[RWCTL_PR_HUMAN_LEN];
	uint64_t tenths;

	snprintf(fmt, sizeof(fmt), "  %%%du chunk%s", w->chunks,
		 x->chunks == 1 ? " " : "s");
	rwctl_pr_u32(p, "chunks", fmt, x->chunks);
	rwctl_pr_u64(p, "bytes", NULL, x->bytes);
	/* Of the model's bytes, to a tenth of a per cent. */
	tenths = model ? (x->bytes * 1000 + model / 2) / model : 0;
	rwctl_pr_float(p, "model_pct", " (%.1f%%)", (float)tenths / 10.0f);
	rwctl_pr_text(p, "  %8s", rwctl_pr_fmt_bytes(human, x->bytes));
}

/*
 * The set's JSON, the same in both forms; in text a line per box (@lines)
 * or the one line "box S of N (set epoch E)".
 */
static void rwctl_boxes_print_set(struct rwctl_printer *p,
				  const struct rwctl_boxes *b,
				  const char *indent, bool lines,
				  const char *key, const char *title)
{
	char where[RWCTL_BOX_WHERE_LEN], addr[INET6_ADDRSTRLEN], fmt[32];
	struct rwctl_box_widths w;
	uint64_t model = 0;
	size_t i;

	if (!b->nr)
		return;
	rwctl_box_widths(b, &w);
	for (i = 0; i < b->nr; i++)
		model += b->box[i].bytes;
	rwctl_pr_obj_open(p, key);
	rwctl_pr_u32(p, "epoch", NULL, b->epoch);
	rwctl_pr_u32(p, "self", NULL, b->self);
	if (lines && b->self)
		rwctl_pr_text(p, "%s%s epoch %u, %zu box%s, this box is %u:\n",
			      indent, title, b->epoch, b->nr,
			      b->nr == 1 ? "" : "es", b->self);
	else if (lines)
		rwctl_pr_text(p, "%s%s epoch %u, %zu box%s, without this box:\n",
			      indent, title, b->epoch, b->nr,
			      b->nr == 1 ? "" : "es");
	else
		rwctl_pr_text(p, "%sbox %u of %zu (set epoch %u)\n", indent,
			      b->self, b->nr, b->epoch);
	rwctl_pr_arr_open(p, "boxes");
	for (i = 0; i < b->nr; i++) {
		const struct rwctl_box *x = &b->box[i];

		rwctl_box_format(where, addr, x);
		rwctl_pr_obj_open(p, NULL);
		snprintf(fmt, sizeof(fmt), "%s    box %%-%du", indent, w.id);
		rwctl_pr_u32(p, "id", lines ? fmt : NULL, x->id);
		rwctl_pr_str(p, "addr", NULL, addr);
		rwctl_pr_u32(p, "port", NULL, x->port ? x->port : RW_WIRE_PORT);
		rwctl_pr_bool(p, "self", NULL, x->id == b->self);
		if (!lines) {
			rwctl_pr_obj_close(p);
			continue;
		}
		/* Padded only where something follows. */
		if (x->has_share || x->id == b->self)
			rwctl_pr_text(p, "  %-*s", w.where, where);
		else
			rwctl_pr_text(p, "  %s", where);
		if (x->has_share)
			rwctl_box_print_share(p, x, &w, model);
		if (x->id == b->self)
			rwctl_pr_text(p, "  (this box)");
		rwctl_pr_obj_close(p);
		rwctl_pr_nl(p);
	}
	rwctl_pr_arr_close(p);
	rwctl_pr_obj_close(p);
}

void rwctl_boxes_print(struct rwctl_printer *p, const struct rwctl_boxes *b,
		       const char *indent)
{
	rwctl_boxes_print_set(p, b, indent, true, "box_set", "box set");
}

void rwctl_boxes_print_move(struct rwctl_printer *p,
			    const struct rwctl_boxes *b, const char *indent)
{
	rwctl_boxes_print_set(p, b, indent, true, "move_to",
			      "moving (when the run ends) to box set");
}

void rwctl_boxes_print_line(struct rwctl_printer *p,
			    const struct rwctl_boxes *b, const char *indent)
{
	rwctl_boxes_print_set(p, b, indent, false, "box_set", "box set");
}

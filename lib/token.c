// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Job tokens from files. rwctl takes a token file of raw bytes and prints a
 * generated token in hex, so a trainer may be handed either; the two are
 * told apart by length alone (32 bytes against 64 or 65), never by content,
 * since raw bytes may happen to be hex digits. Copies of the secret on the
 * stack are wiped before returning.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ctx.h"

#define RW_TOKEN_HEX_LEN	(2 * RW_JOB_TOKEN_LEN)
/* Enough to tell "hex plus newline" from anything longer. */
#define RW_TOKEN_READ_MAX	(RW_TOKEN_HEX_LEN + 2)

static int rw_hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode @len bytes of @buf into @out; -EINVAL if they are no token. */
static int rw_token_parse(const unsigned char *buf, size_t len,
			  uint8_t out[RW_JOB_TOKEN_LEN])
{
	int hi, lo;
	size_t i;

	if (len == RW_JOB_TOKEN_LEN) {
		memcpy(out, buf, RW_JOB_TOKEN_LEN);
		return 0;
	}
	if (len == RW_TOKEN_HEX_LEN + 1 && buf[RW_TOKEN_HEX_LEN] == '\n')
		len--;
	if (len != RW_TOKEN_HEX_LEN)
		return -EINVAL;
	for (i = 0; i < RW_JOB_TOKEN_LEN; i++) {
		hi = rw_hex_digit(buf[2 * i]);
		lo = rw_hex_digit(buf[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int rw_token_read(const char *path, uint8_t token[RW_JOB_TOKEN_LEN])
{
	unsigned char buf[RW_TOKEN_READ_MAX];
	uint8_t tok[RW_JOB_TOKEN_LEN];
	size_t len = 0;
	ssize_t n;
	int fd, err;

	if (!path || !token)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? rw_enoent(RW_ENOENT_TOKEN) :
		       rw_neg_errno();

	/* A file may arrive in pieces (a pipe, a FUSE file): read to EOF. */
	do {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = rw_neg_errno();
			goto out;
		}
		len += (size_t)n;
	} while (n > 0 && len < sizeof(buf));

	err = rw_token_parse(buf, len, tok);
	if (!err)
		memcpy(token, tok, sizeof(tok));
out:
	close(fd);
	explicit_bzero(buf, sizeof(buf));
	explicit_bzero(tok, sizeof(tok));
	return err;
}

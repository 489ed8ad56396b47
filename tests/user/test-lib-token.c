// SPDX-License-Identifier: GPL-2.0
/*
 * rw_token_read(): the two formats rwctl deals in (32 raw bytes, 64 hex
 * digits with an optional newline), everything else refused, and the
 * caller's buffer written only on success. Real files in a temporary
 * directory; open() goes through the mock only to be recorded.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "test-lib-mock.c"

static char rwt_dir[] = "/tmp/rw-token-XXXXXX";
static char rwt_path[sizeof(rwt_dir) + 16];

static const uint8_t rwt_bytes[RW_JOB_TOKEN_LEN] = {
	0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff, 0x10,
	0x0a, 0x0d, 0x20, 0x41, 0x61, 0x39, 0x30, 0x66,
	0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe, 0xba, 0xbe,
	0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
};

static const char rwt_hex[] =
	"0001027f80feff10"
	"0a0d204161393066"
	"deadbeefcafebabe"
	"123456789abcdef0";

static void rwt_write(const void *data, size_t len)
{
	FILE *f = fopen(rwt_path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int rwt_setup(void **state)
{
	(void)state;
	rwm_reset();
	if (!mkdtemp(rwt_dir))
		return -1;
	snprintf(rwt_path, sizeof(rwt_path), "%s/token", rwt_dir);
	return 0;
}

static int rwt_teardown(void **state)
{
	(void)state;
	unlink(rwt_path);
	rmdir(rwt_dir);
	return 0;
}

static void rwt_raw(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];

	(void)state;
	rwt_write(rwt_bytes, sizeof(rwt_bytes));
	memset(tok, 0x55, sizeof(tok));
	assert_int_equal(rw_token_read(rwt_path, tok), 0);
	assert_memory_equal(tok, rwt_bytes, sizeof(tok));
	assert_string_equal(rwm.opened, rwt_path);
	assert_int_equal(rwm.opened_flags, O_RDONLY | O_CLOEXEC);
}

/* 32 raw bytes that happen to be hex digits are still raw bytes. */
static void rwt_raw_looks_hex(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];

	(void)state;
	rwt_write(rwt_hex, RW_JOB_TOKEN_LEN);
	assert_int_equal(rw_token_read(rwt_path, tok), 0);
	assert_memory_equal(tok, rwt_hex, RW_JOB_TOKEN_LEN);
}

static void rwt_hex_plain(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];

	(void)state;
	rwt_write(rwt_hex, 64);
	assert_int_equal(rw_token_read(rwt_path, tok), 0);
	assert_memory_equal(tok, rwt_bytes, sizeof(tok));
}

static void rwt_hex_newline(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];
	char buf[65];

	(void)state;
	memcpy(buf, rwt_hex, 64);
	buf[64] = '\n';
	rwt_write(buf, sizeof(buf));
	assert_int_equal(rw_token_read(rwt_path, tok), 0);
	assert_memory_equal(tok, rwt_bytes, sizeof(tok));
}

static void rwt_hex_upper(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)toupper((unsigned char)rwt_hex[i]);
	rwt_write(buf, sizeof(buf));
	assert_int_equal(rw_token_read(rwt_path, tok), 0);
	assert_memory_equal(tok, rwt_bytes, sizeof(tok));
}

/* Table of contents that are not tokens: each must give -EINVAL. */
static void rwt_rejects(void **state)
{
	static const struct {
		const char *what;
		const char *data;
		size_t len;
	} bad[] = {
		{ "empty", "", 0 },
		{ "31 raw bytes", rwt_hex, 31 },
		{ "33 raw bytes", rwt_hex, 33 },
		{ "63 hex digits", rwt_hex, 63 },
		{ "63 hex digits and a newline",
		  "0001027f80feff100a0d204161393066deadbeefcafebabe123456789abcdef\n", 64 },
		{ "65 hex digits",
		  "0001027f80feff100a0d204161393066deadbeefcafebabe123456789abcdef00", 65 },
		{ "hex and CRLF",
		  "0001027f80feff100a0d204161393066deadbeefcafebabe123456789abcdef0\r\n", 66 },
		{ "hex and two newlines",
		  "0001027f80feff100a0d204161393066deadbeefcafebabe123456789abcdef0\n\n", 66 },
		{ "a non-hex digit",
		  "0001027f80feff100a0d204161393066deadbeefcafebabe123456789abcdefg", 64 },
		{ "a space",
		  "0001027f80feff100a0d2041613930 6deadbeefcafebabe123456789abcdef0", 64 },
		{ "a 0x prefix",
		  "0x01027f80feff100a0d204161393066deadbeefcafebabe123456789abcdef0", 64 },
		{ "hex, then a space instead of a newline",
		  "0001027f80feff100a0d204161393066deadbeefcafebabe123456789abcdef0 ", 65 },
	};
	uint8_t tok[RW_JOB_TOKEN_LEN], before[RW_JOB_TOKEN_LEN];
	size_t i;

	(void)state;
	memset(before, 0xa5, sizeof(before));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rwt_write(bad[i].data, bad[i].len);
		memcpy(tok, before, sizeof(tok));
		if (rw_token_read(rwt_path, tok) != -EINVAL)
			fail_msg("accepted %s", bad[i].what);
		assert_memory_equal(tok, before, sizeof(tok));
	}
}

static void rwt_long_file(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];
	char big[4096];

	(void)state;
	memset(big, 'a', sizeof(big));
	rwt_write(big, sizeof(big));
	assert_int_equal(rw_token_read(rwt_path, tok), -EINVAL);
}

static void rwt_errno(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];

	(void)state;
	assert_int_equal(rw_token_read("/nonexistent/rw-token", tok), -ENOENT);
	/* read() of a directory fails with EISDIR, passed on as is. */
	assert_int_equal(rw_token_read(rwt_dir, tok), -EISDIR);
	assert_int_equal(rw_token_read(NULL, tok), -EINVAL);
	assert_int_equal(rw_token_read(rwt_path, NULL), -EINVAL);
}

/* A FIFO hands the token over in two writes: read() must go on to EOF. */
static void rwt_pieces(void **state)
{
	uint8_t tok[RW_JOB_TOKEN_LEN];
	char fifo[sizeof(rwt_path) + 8];
	pid_t pid;
	int fd, st;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo", rwt_dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = __real_open(fifo, O_WRONLY);
		if (fd < 0 || write(fd, rwt_hex, 20) != 20)
			_exit(1);
		usleep(50000);
		if (write(fd, rwt_hex + 20, 44) != 44 || write(fd, "\n", 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(rw_token_read(fifo, tok), 0);
	assert_memory_equal(tok, rwt_bytes, sizeof(tok));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(fifo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rwt_raw),
		cmocka_unit_test(rwt_raw_looks_hex),
		cmocka_unit_test(rwt_hex_plain),
		cmocka_unit_test(rwt_hex_newline),
		cmocka_unit_test(rwt_hex_upper),
		cmocka_unit_test(rwt_rejects),
		cmocka_unit_test(rwt_long_file),
		cmocka_unit_test(rwt_errno),
		cmocka_unit_test(rwt_pieces),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave tokens", tests,
					   rwt_setup, rwt_teardown);
}

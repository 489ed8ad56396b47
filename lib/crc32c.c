// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * CRC-32C for checkpoint files. A checkpoint of a large model is gigabytes
 * that are written and read once each, so the checksum must keep up with
 * the disk: x86-64 CPUs since 2008 have an instruction for exactly this
 * polynomial (SSE4.2 crc32, about 8 bytes per 3 cycles), and elsewhere
 * slicing-by-8 tables do a few bytes per cycle. Both give the same value;
 * tests compare them on random buffers.
 *
 * The tables are built on first use (pthread_once), not stored: 8 KiB of
 * constants would say less than the eight lines that make them.
 */
#include <pthread.h>
#include <string.h>

#include "crc32c.h"

#define RW_CRC32C_POLY	0x82f63b78U	/* reflected Castagnoli */

static uint32_t rw_crc32c_table[8][256];
static pthread_once_t rw_crc32c_once = PTHREAD_ONCE_INIT;

static void rw_crc32c_init(void)
{
	uint32_t c, n, k;

	for (n = 0; n < 256; n++) {
		c = n;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ RW_CRC32C_POLY : c >> 1;
		rw_crc32c_table[0][n] = c;
	}
	/* Table k: the CRC of byte n followed by k zero bytes. */
	for (n = 0; n < 256; n++)
		for (k = 1; k < 8; k++)
			rw_crc32c_table[k][n] =
				(rw_crc32c_table[k - 1][n] >> 8) ^
				rw_crc32c_table[0][rw_crc32c_table[k - 1][n] & 0xff];
}

/* Slicing-by-8 on the inverted register; bytes read one by one, so any host. */
static uint32_t rw_crc32c_sw_reg(uint32_t reg, const unsigned char *p,
				 size_t len)
{
	const uint32_t (*t)[256] = rw_crc32c_table;
	uint32_t lo;

	pthread_once(&rw_crc32c_once, rw_crc32c_init);
	for (; len >= 8; p += 8, len -= 8) {
		lo = reg ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		reg = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
	}
	while (len--)
		reg = (reg >> 8) ^ t[0][(reg ^ *p++) & 0xff];
	return reg;
}

uint32_t rw_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	return ~rw_crc32c_sw_reg(~crc, buf, len);
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t rw_crc32c_hw_reg(uint32_t reg, const unsigned char *p,
				 size_t len)
{
	uint64_t r = reg, v;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&v, p, sizeof(v));	/* x86 is little-endian */
		r = _mm_crc32_u64(r, v);
	}
	reg = (uint32_t)r;
	while (len--)
		reg = _mm_crc32_u8(reg, *p++);
	return reg;
}

static int rw_crc32c_have_hw(void)
{
	static int have = -1;

	/* A benign race: every thread stores the same answer. */
	if (__atomic_load_n(&have, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&have, __builtin_cpu_supports("sse4.2") ? 1 : 0,
				 __ATOMIC_RELAXED);
	return __atomic_load_n(&have, __ATOMIC_RELAXED);
}

uint32_t rw_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (rw_crc32c_have_hw())
		return ~rw_crc32c_hw_reg(~crc, buf, len);
	return rw_crc32c_sw(crc, buf, len);
}
#else
uint32_t rw_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return rw_crc32c_sw(crc, buf, len);
}
#endif

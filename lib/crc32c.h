/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * CRC-32C (Castagnoli), the checksum of checkpoint files (crc32c.c). Not
 * installed.
 */
#ifndef RW_LIB_CRC32C_H
#define RW_LIB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * Continue the CRC-32C @crc (0 to start) over @len bytes at @buf: the
 * iSCSI / ext4 one (reflected polynomial 0x82f63b78, initial value and
 * final xor all ones), so rw_crc32c(0, "123456789", 9) == 0xe3069283.
 * Uses the CPU's crc32 instruction where there is one.
 */
uint32_t rw_crc32c(uint32_t crc, const void *buf, size_t len);

/* The same, always from the table: for tests of the fast path. */
uint32_t rw_crc32c_sw(uint32_t crc, const void *buf, size_t len);

#endif /* RW_LIB_CRC32C_H */

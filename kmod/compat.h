/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tiny layer that lets pure-logic sources (chunk mapping, the staleness
 * gate, summation and optimizer kernels) build both in the module and in
 * user space, where cmocka tests them and benchmarks time them natively.
 *
 * A pure source includes only this header (and its own), uses the kernel's
 * type names and the helpers below, never allocates and never sleeps: the
 * caller owns memory, locking and time.
 */
#ifndef _RW_COMPAT_H
#define _RW_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/compiler.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/export.h>
#include <linux/bitmap.h>
#include <kunit/visibility.h>
#include <asm/byteorder.h>

#else /* user space */

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

#define min_t(type, a, b) ({ type _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(type, a, b) ({ type _a = (a), _b = (b); _a > _b ? _a : _b; })
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef U64_MAX
#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#endif

/* As <linux/overflow.h>: store a op b in *d, return true if it wrapped. */
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#ifndef WRITE_ONCE
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#endif

/* Little-endian wire fields, as <asm/byteorder.h> has them. */
#include <endian.h>
#define le16_to_cpu(x)	((u16)le16toh(x))
#define le32_to_cpu(x)	((u32)le32toh(x))
#define le64_to_cpu(x)	((u64)le64toh(x))
#define cpu_to_le16(x)	((__le16)htole16(x))
#define cpu_to_le32(x)	((__le32)htole32(x))
#define cpu_to_le64(x)	((__le64)htole64(x))

/* As <linux/bitmap.h>: the bitmaps a pure source fills (chunk selections). */
#define RW_COMPAT_LONG_BITS	(8 * sizeof(unsigned long))

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, (nbits + RW_COMPAT_LONG_BITS - 1) /
		       RW_COMPAT_LONG_BITS * sizeof(unsigned long));
}

static inline void bitmap_set(unsigned long *map, unsigned int start,
			      unsigned int len)
{
	for (; len; start++, len--)
		map[start / RW_COMPAT_LONG_BITS] |=
			1UL << (start % RW_COMPAT_LONG_BITS);
}

/* Exports exist only for the KUnit module; user space links statically. */
#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif /* __KERNEL__ */

#endif /* _RW_COMPAT_H */

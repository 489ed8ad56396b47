/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RWCTL_DEV_H
#define RWCTL_DEV_H

#include <stdbool.h>
#include <stddef.h>

struct rwctl_device;
struct rwctl_printer;
struct rwctl_status;

/* Longest "xxxx:xxxx:xxxx:xxxx" with its NUL. */
#define RWCTL_GUID_LEN	20

/* @guid as iproute2's rdma tool shows node GUIDs. */
void rwctl_dev_format_guid(char buf[RWCTL_GUID_LEN], unsigned long long guid);

/*
 * One device as a JSON object. In text, the name is printed with @name_fmt
 * and, if @detail, the other fields follow on the same line; without
 * @detail only the name appears (status lists names only).
 */
void rwctl_dev_print_one(struct rwctl_printer *p, const struct rwctl_device *d,
			 const char *name_fmt, bool detail);

/* "rwctl dev show": {"devices":[...]}, or one aligned line per device. */
void rwctl_dev_print(struct rwctl_printer *p, const struct rwctl_status *st);

#endif /* RWCTL_DEV_H */

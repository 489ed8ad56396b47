/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RWCTL_STATUS_H
#define RWCTL_STATUS_H

#include <stddef.h>

struct rwctl_printer;
struct rwctl_status;

/* The real status source: generic netlink, plus the ABI from the device. */
int rwctl_status_fetch(struct rwctl_status *st, char *msg, size_t msglen);

/* "rwctl status show": one JSON object, or a few lines of text. */
void rwctl_status_print(struct rwctl_printer *p, const struct rwctl_status *st);

#endif /* RWCTL_STATUS_H */

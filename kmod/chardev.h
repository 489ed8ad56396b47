/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_CHARDEV_H
#define _RW_CHARDEV_H

int rw_chardev_init(void);
void rw_chardev_exit(void);

#endif /* _RW_CHARDEV_H */

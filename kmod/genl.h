/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_GENL_H
#define _RW_GENL_H

int rw_genl_init(void);
void rw_genl_exit(void);

#endif /* _RW_GENL_H */

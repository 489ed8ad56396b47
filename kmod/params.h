/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_PARAMS_H
#define _RW_PARAMS_H

#include <linux/types.h>

/* Values of the module parameters, validated when the module was loaded. */
unsigned int rw_params_chunk_size(void);
unsigned int rw_params_max_jobs(void);
/* KiB, 0: none (module parameter push_window). */
#define RW_PUSH_WINDOW_MAX	1048576U
unsigned int rw_params_push_window(void);

#if IS_ENABLED(CONFIG_KUNIT)
int rw_params_parse_chunk_size(const char *val, unsigned int *out);
int rw_params_parse_max_jobs(const char *val, unsigned int *out);
int rw_params_parse_push_window(const char *val, unsigned int *out);
#endif

#endif /* _RW_PARAMS_H */

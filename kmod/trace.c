// SPDX-License-Identifier: GPL-2.0
/* The one file that creates RackWeave's trace events (kmod/trace.h). */
#define CREATE_TRACE_POINTS
#include "trace.h"

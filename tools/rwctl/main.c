// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl: inspect and configure the RackWeave module. Everything but the
 * choice of real streams and the real status source lives in the rest of
 * this directory, so the tests run the same code with their own.
 */
#include <stdio.h>

#include "rwctl.h"
#include "status.h"

int main(int argc, char **argv)
{
	struct rwctl ctl = {
		.out = stdout,
		.err = stderr,
		.fetch = rwctl_status_fetch,
	};

	return rwctl_run(&ctl, argc, argv);
}

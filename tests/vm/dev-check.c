// SPDX-License-Identifier: GPL-2.0
/*
 * dev-check: drives /dev/rackweave's local path (attach, declare, setup,
 * mmap, push/pull, poll) with raw system calls from inside a VM and prints
 * TAP. Every refusal the uapi header documents is asserted by errno, and
 * then two workers train a small model under BSP to show that the bad input
 * left the job working and that SGD does what it says.
 *
 *   dev-check bad-input JOB TOKENFILE
 *	JOB: `rwctl job add JOB workers 2 chunk-size 4096 token-file TOKENFILE`
 *	(BSP, SGD, default lr 0.01). Ends with "# params checksum HEX".
 *   dev-check hold JOB TOKENFILE RANK
 *	Attach, declare, map all three buffers, touch every page, print
 *	the params checksum and "ready", and sleep. On SIGUSR1 (sent after
 *	`rwctl job del JOB force`) check that ioctls now get ENODEV while
 *	the mappings stay readable, print TAP and exit.
 *   dev-check hold JOB TOKENFILE RANK pull
 *	The same, but after "ready" push iteration 1 and block in a pull
 *	(no other rank pushes): SIGUSR2 must interrupt it with EINTR (it
 *	prints "interrupted" and pulls again), `rwctl job del JOB force`
 *	must wake it with ENODEV; then the same checks as above.
 *   dev-check observer JOB TOKENFILE
 *	Attach as an observer, map the parameters read-only and print their
 *	checksum (what a holder of the same run printed, while the run
 *	lasts: it ends when the job's last file and mapping go).
 *
 * The pieces: dev-common.c (reporting, raw calls, mappings, the model),
 * dev-bad-input.c and dev-hold.c (the subcommands).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev-check.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: dev-check bad-input JOB TOKENFILE\n"
		"       dev-check hold JOB TOKENFILE RANK [pull]\n"
		"       dev-check observer JOB TOKENFILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long rank;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (argc < 4)
		return usage();
	job = argv[2];
	read_token(argv[3]);
	if (!strcmp(argv[1], "bad-input") && argc == 4)
		return bad_input();
	if (!strcmp(argv[1], "observer") && argc == 4)
		return observer();
	if (!strcmp(argv[1], "hold") && (argc == 5 ||
	    (argc == 6 && !strcmp(argv[5], "pull")))) {
		rank = strtoul(argv[4], &end, 10);
		if (*end || rank >= NR_WORKERS)
			return usage();
		return hold((uint32_t)rank, argc == 6);
	}
	return usage();
}

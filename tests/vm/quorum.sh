#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 600
# vm-alone: quorum 3 at least twice quorum 4's pace, with rank 3's slowness a sleep measured against the job's pace
#
# Backup workers: a quorum of 3 of 4 against a trainer slowed 5x. The
# checks are elastic.sh's "backup" part (see its header), split off so
# that only they run alone and the rest of elastic.sh beside other VMs.
RW_TEST_NAME=quorum exec "$(dirname "$0")/elastic.sh" backup

// SPDX-License-Identifier: GPL-2.0
/*
 * rackweave_kunit.ko: the KUnit suites for rackweave.ko. Each *_test.c file
 * holds one suite; KUnit finds them through kunit_test_suite() and runs
 * them when this module loads. Results: dmesg (KTAP) and
 * /sys/kernel/debug/kunit/<suite>/results.
 */
#include <linux/module.h>
#include <kunit/visibility.h>

MODULE_DESCRIPTION("KUnit tests for RackWeave");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

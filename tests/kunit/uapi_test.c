// SPDX-License-Identifier: GPL-2.0
/*
 * uapi layout: the numbers user space compiled against must be the numbers
 * the module uses. Sizes are also pinned with BUILD_BUG_ON in the module;
 * here they are checked at run time together with the encodings that a
 * compile-time check would not catch (ioctl direction and size bits,
 * feature bits, netlink numbering that must never shift).
 */
#include <kunit/test.h>
#include <linux/stddef.h>

#include "rw.h"

static void rw_uapi_version_info_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct rw_version_info), 48);
	KUNIT_EXPECT_EQ(test, RW_VERSION_INFO_SIZE, 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_version_info, size), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_version_info, flags), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_version_info, version), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_version_info, abi), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_version_info, features), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_version_info, reserved), 24);
}

/* The structs of initial parameters and checkpoints: sizes and places. */
static void rw_uapi_state_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct rw_params_init), RW_PARAMS_INIT_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_params_init, ranges), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_params_init, len), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct rw_checkpoint), RW_CHECKPOINT_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_checkpoint, len), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct rw_ckpt_head), RW_CKPT_HEAD_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_ckpt_head, hparams), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_ckpt_head, params_len), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_ckpt_head, step), 80);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(RW_IOC_PARAMS_INIT), RW_PARAMS_INIT_SIZE);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(RW_IOC_CHECKPOINT), RW_CHECKPOINT_SIZE);
	KUNIT_EXPECT_EQ(test, _IOC_NR(RW_IOC_CHECKPOINT), 8);
}

static void rw_uapi_ioctl_encoding_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, _IOC_TYPE(RW_IOC_VERSION), 0xB2);
	KUNIT_EXPECT_EQ(test, _IOC_NR(RW_IOC_VERSION), 0);
	KUNIT_EXPECT_EQ(test, _IOC_DIR(RW_IOC_VERSION), _IOC_READ | _IOC_WRITE);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(RW_IOC_VERSION), RW_VERSION_INFO_SIZE);
}

static void rw_uapi_numbering_test(struct kunit *test)
{
	/* Append only: these values are on the wire and in binaries. */
	KUNIT_EXPECT_EQ(test, RW_CMD_STATUS_GET, 1);
	KUNIT_EXPECT_EQ(test, RW_CMD_JOB_GET, 4);
	KUNIT_EXPECT_EQ(test, RW_JOB_A_ATTACHED, 19);
	KUNIT_EXPECT_EQ(test, RW_SYNC_ADAPTIVE, 3);
	KUNIT_EXPECT_EQ(test, RW_OPTIM_ADAM, 3);
	KUNIT_EXPECT_EQ(test, RW_A_VERSION, 1);
	KUNIT_EXPECT_EQ(test, RW_A_DEVICES, 6);
	KUNIT_EXPECT_EQ(test, RW_A_AGG_IMPL, 7);
	KUNIT_EXPECT_EQ(test, RW_NODE_A_MEM_MB, 4);
	KUNIT_EXPECT_EQ(test, RW_DEV_A_INDEX, 5);
	KUNIT_EXPECT_EQ(test, RW_CMD_LISTEN_ADD, 9);
	KUNIT_EXPECT_EQ(test, RW_A_LISTENERS, 8);
	KUNIT_EXPECT_EQ(test, RW_A_CONNECTIONS, 9);
	KUNIT_EXPECT_EQ(test, RW_CONN_A_RANK, 5);
	KUNIT_EXPECT_EQ(test, RW_LISTEN_A_REF_OTHER, 15);
	KUNIT_EXPECT_EQ(test, RW_LISTEN_A_VIOL_ACCESS, 18);
	KUNIT_EXPECT_STREQ(test, RW_GENL_NAME, "rackweave");
}

static void rw_uapi_version_test(struct kunit *test)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u.%u.%u", RW_VERSION_CODE >> 16,
		 (RW_VERSION_CODE >> 8) & 0xff, RW_VERSION_CODE & 0xff);
	KUNIT_EXPECT_STREQ(test, buf, RW_VERSION_STRING);
}

static void rw_uapi_features_test(struct kunit *test)
{
	/* Each feature is one distinct bit and the module claims them all. */
	KUNIT_EXPECT_EQ(test, hweight64(RW_FEATURES_ALL), 9);
	KUNIT_EXPECT_EQ(test, RW_FEATURES & ~RW_FEATURES_ALL, 0);
	KUNIT_EXPECT_EQ(test, RW_FEATURES, RW_FEATURES_ALL);
}

static struct kunit_case rw_uapi_test_cases[] = {
	KUNIT_CASE(rw_uapi_version_info_layout_test),
	KUNIT_CASE(rw_uapi_ioctl_encoding_test),
	KUNIT_CASE(rw_uapi_state_layout_test),
	KUNIT_CASE(rw_uapi_numbering_test),
	KUNIT_CASE(rw_uapi_version_test),
	KUNIT_CASE(rw_uapi_features_test),
	{}
};

static struct kunit_suite rw_uapi_test_suite = {
	.name = "rackweave_uapi",
	.test_cases = rw_uapi_test_cases,
};

kunit_test_suite(rw_uapi_test_suite);

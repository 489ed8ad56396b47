// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl-check: drives /dev/rackweave's ioctls with good and bad input from
 * inside a VM and prints TAP. Bad input must get its documented errno and
 * leave the device working: each bad call is followed by a good one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rackweave/uapi.h>

_Static_assert(sizeof(struct rw_version_info) == RW_VERSION_INFO_SIZE,
	       "rw_version_info size");

static int failed;
static int fd;

static void check(int cond, const char *what)
{
	printf("%sok - ioctl: %s\n", cond ? "" : "not ", what);
	if (!cond)
		failed = 1;
}

static void init_info(struct rw_version_info *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
}

/* Returns 0 or -errno. */
static int version(struct rw_version_info *v)
{
	return ioctl(fd, RW_IOC_VERSION, v) ? -errno : 0;
}

static int good_call_works(void)
{
	struct rw_version_info v;

	init_info(&v);
	return version(&v) == 0 && v.version == RW_VERSION_CODE;
}

static void expect_einval(struct rw_version_info *v, const char *what)
{
	char msg[160];
	int ret = version(v);

	snprintf(msg, sizeof(msg), "%s -> EINVAL (got %d), device still works",
		 what, ret);
	check(ret == -EINVAL && good_call_works(), msg);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : RW_DEV_PATH;
	struct rw_version_info v;
	int ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	check(fd >= 0, "open the device");
	if (fd < 0) {
		printf("#   open %s: %s\n", path, strerror(errno));
		return 1;
	}

	init_info(&v);
	v.version = 0xdead;	/* out fields are ignored on input */
	ret = version(&v);
	check(ret == 0, "RW_IOC_VERSION succeeds");
	check(v.version == RW_VERSION_CODE, "version is RW_VERSION_CODE");
	check(v.abi == RW_ABI_VERSION, "abi is RW_ABI_VERSION");
	check((v.features & ~RW_FEATURES_ALL) == 0 &&
	      (v.features & RW_FEAT_VERSION_IOCTL),
	      "features are known bits and include the version ioctl");
	check(v.size == sizeof(v) && !v.reserved[0] && !v.reserved[1] &&
	      !v.reserved[2], "size kept, reserved returned zero");

	init_info(&v);
	v.size = sizeof(v) - 8;
	expect_einval(&v, "size too small");
	init_info(&v);
	v.size = sizeof(v) + 8;
	expect_einval(&v, "size too large");
	init_info(&v);
	v.size = 0;
	expect_einval(&v, "size zero");
	init_info(&v);
	v.flags = 1;
	expect_einval(&v, "unknown flag bit 0");
	init_info(&v);
	v.flags = 0x80000000u;
	expect_einval(&v, "unknown flag bit 31");
	for (int i = 0; i < 3; i++) {
		char what[48];

		init_info(&v);
		v.reserved[i] = 1ull << (i * 20);
		snprintf(what, sizeof(what), "non-zero reserved[%d]", i);
		expect_einval(&v, what);
	}

	ret = ioctl(fd, RW_IOC_VERSION, (void *)8) ? -errno : 0;
	check(ret == -EFAULT && good_call_works(), "bad pointer -> EFAULT");
	ret = ioctl(fd, _IOWR(RW_IOC_MAGIC, 0x7f, struct rw_version_info), &v) ?
	      -errno : 0;
	check(ret == -ENOTTY && good_call_works(), "unknown command -> ENOTTY");
	ret = ioctl(fd, _IOWR(RW_IOC_MAGIC, 0x00, uint64_t), &v) ? -errno : 0;
	check(ret == -ENOTTY && good_call_works(),
	      "version command with a truncated size -> ENOTTY");

	close(fd);
	return failed;
}

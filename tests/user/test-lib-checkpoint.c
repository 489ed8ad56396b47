// SPDX-License-Identifier: GPL-2.0
/*
 * rw_checkpoint_save(), rw_checkpoint_restore() and rw_checkpoint_head()
 * (lib/checkpoint.c) through the mocked device (test-lib-mock.c): a save
 * writes a file that restore accepts and loads byte for byte; restore
 * refuses another layout, another optimizer, other hyper-parameters with
 * their exact sentences and never reaches RW_IOC_PARAMS_INIT, and refuses
 * a damaged file before any ioctl; a save whose ioctl fails leaves no
 * file (nor a temporary one) and an older file untouched; a failed rename
 * and a planted symbolic link leave nothing behind; a run that changes
 * between the two ioctls of a save is read again, once.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "test-lib-mock.c"

#include "../../lib/ckpt.h"
#include "ckpttest.h"

/* A run as the module knows it: its head and image (host order). */
struct ckt_run {
	struct rw_ckpt_head head;
	unsigned char *image;
};

struct ckt_fx {
	struct rw_ctx *ctx;
	char dir[64];
	char path[128];
	char tmp[160];
	struct ckt_run job;		/* the run saved and restored */
	struct ckt_run other;		/* another run of the same job */
	/* RW_IOC_PARAMS_INIT as received, and whether its data matched. */
	struct rw_params_init init;
	struct rw_ckpt_head init_head;
	bool init_data_ok;
};

static int ckt_fx_setup(void **state)
{
	struct ckt_fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	rwm_reset();
	assert_int_equal(rw_ctx_open(&fx->ctx, "/dev/null"), 0);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/rw-ckpt-test-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/train.ckpt", fx->dir);
	snprintf(fx->tmp, sizeof(fx->tmp), "%s.tmp", fx->path);
	ckt_head(&fx->job.head, CKT_CHUNKS, CKT_CHUNK, RW_OPTIM_ADAM,
		 CKT_STATE, CKT_STEP);
	fx->job.image = ckt_image(&fx->job.head, 11);
	/* Recreated with one chunk more: another image length. */
	ckt_head(&fx->other.head, CKT_CHUNKS + 1, CKT_CHUNK, RW_OPTIM_ADAM,
		 CKT_STATE, 40);
	fx->other.head.layout_hash = 0xfedcba9876543210ULL;
	fx->other.image = ckt_image(&fx->other.head, 12);
	*state = fx;
	return 0;
}

static int ckt_fx_teardown(void **state)
{
	struct ckt_fx *fx = *state;
	struct dirent *d;
	char p[400];
	DIR *dir;

	rw_ctx_close(fx->ctx);
	rwm_reset();
	dir = opendir(fx->dir);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, d->d_name);
		/* A test that failed half-way may leave its directory. */
		if (unlink(p))
			rmdir(p);
	}
	if (dir)
		closedir(dir);
	rmdir(fx->dir);
	free(fx->job.image);
	free(fx->other.image);
	free(fx);
	return 0;
}

/* RW_IOC_CHECKPOINT as the module answers it for the run @priv. */
static int ckt_fake_ckpt(void *arg, void *priv)
{
	struct rw_checkpoint *c = arg;
	const struct ckt_run *run = priv;

	if (c->size != sizeof(*c) || c->flags & ~RW_CKPT_FLAGS_ALL || !c->head)
		return -EINVAL;
	if (!(c->flags & RW_CKPT_HEAD_ONLY)) {
		if (c->len != run->head.image_len || !c->data)
			return -EINVAL;
		memcpy((void *)(uintptr_t)c->data, run->image,
		       run->head.image_len);
	}
	memcpy((void *)(uintptr_t)c->head, &run->head, sizeof(run->head));
	return 0;
}

/* RW_IOC_PARAMS_INIT: note what came, compare the data with fx->job. */
static int ckt_fake_init(void *arg, void *priv)
{
	struct rw_params_init *pi = arg;
	struct ckt_fx *fx = priv;
	const unsigned char *data = (const void *)(uintptr_t)pi->data;

	fx->init = *pi;
	if (pi->len != sizeof(struct rw_ckpt_head) + fx->job.head.image_len)
		return -EINVAL;
	memcpy(&fx->init_head, data, sizeof(fx->init_head));
	fx->init_data_ok = !memcmp(data + sizeof(fx->init_head), fx->job.image,
				   fx->job.head.image_len);
	return 0;
}

static void ckt_expect_ckpt(struct ckt_run *run)
{
	rwm_expect_fn(RW_IOC_CHECKPOINT, ckt_fake_ckpt, run);
}

static bool ckt_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void ckt_save(struct ckt_fx *fx)
{
	char why[512] = "";

	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&fx->job);
	if (rw_checkpoint_save(fx->ctx, fx->path, 2500, why, sizeof(why)))
		fail_msg("save: %s", why);
	assert_true(rwm_done());
}

static void ckt_save_restore(void **state)
{
	struct ckt_fx *fx = *state;
	struct rw_ckpt_head h;
	uint64_t file_len;
	char why[512] = "";
	struct stat st;

	ckt_save(fx);
	/* Two requests: the head alone, then head and image. */
	assert_int_equal(rwm_ncalls(), 2);
	assert_int_equal(rwm_call(0)->arg.ckpt.flags, RW_CKPT_HEAD_ONLY);
	assert_int_equal(rwm_call(0)->arg.ckpt.len, 0);
	assert_int_equal(rwm_call(1)->arg.ckpt.size, RW_CHECKPOINT_SIZE);
	assert_int_equal(rwm_call(1)->arg.ckpt.flags, 0);
	assert_int_equal(rwm_call(1)->arg.ckpt.timeout_ms, 2500);
	assert_int_equal(rwm_call(1)->arg.ckpt.len, CKT_IMAGE);
	assert_int_equal(rwm_call(1)->arg.ckpt.reserved0, 0);
	assert_true(rwm_zero(rwm_call(1)->arg.ckpt.reserved,
			     sizeof(rwm_call(1)->arg.ckpt.reserved)));
	assert_true(ckt_exists(fx->path));
	assert_false(ckt_exists(fx->tmp));
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_size, CKT_FILE);

	/* Its head without the device. */
	assert_int_equal(rw_checkpoint_head(fx->path, &h, &file_len, why,
					    sizeof(why)), 0);
	assert_memory_equal(&h, &fx->job.head, sizeof(h));
	assert_int_equal(file_len, CKT_FILE);

	/* A new run of the same job: step 0, the same layout. */
	rwm_reset();
	fx->job.head.step = 0;
	ckt_expect_ckpt(&fx->job);
	rwm_expect_fn(RW_IOC_PARAMS_INIT, ckt_fake_init, fx);
	if (rw_checkpoint_restore(fx->ctx, fx->path, why, sizeof(why)))
		fail_msg("restore: %s", why);
	assert_true(rwm_done());
	assert_int_equal(rwm_call(0)->arg.ckpt.flags, RW_CKPT_HEAD_ONLY);
	assert_int_equal(fx->init.size, RW_PARAMS_INIT_SIZE);
	assert_int_equal(fx->init.flags, RW_INIT_CHECKPOINT);
	assert_int_equal(fx->init.nr, 0);
	assert_int_equal(fx->init.ranges, 0);
	assert_int_equal(fx->init.len, 104 + CKT_IMAGE);
	assert_true(rwm_zero(fx->init.reserved, sizeof(fx->init.reserved)));
	/* The file's head (its step), then the image, byte for byte. */
	fx->job.head.step = CKT_STEP;
	assert_memory_equal(&fx->init_head, &fx->job.head, sizeof(fx->init_head));
	assert_true(fx->init_data_ok);
}

/* rw_job_head: one head-only request, the module's head as it came. */
static void ckt_job_head(void **state)
{
	struct ckt_fx *fx = *state;
	struct rw_ckpt_head h;

	assert_int_equal(rw_job_head(NULL, &h), -EINVAL);
	assert_int_equal(rw_job_head(fx->ctx, NULL), -EINVAL);
	assert_int_equal(rwm_ncalls(), 0);
	ckt_expect_ckpt(&fx->job);
	assert_int_equal(rw_job_head(fx->ctx, &h), 0);
	assert_true(rwm_done());
	assert_int_equal(rwm_ncalls(), 1);
	assert_int_equal(rwm_call(0)->arg.ckpt.flags, RW_CKPT_HEAD_ONLY);
	assert_int_equal(rwm_call(0)->arg.ckpt.data, 0);
	assert_int_equal(rwm_call(0)->arg.ckpt.len, 0);
	assert_memory_equal(&h, &fx->job.head, sizeof(h));
	/* The module's refusal comes back as it is. */
	rwm_reset();
	rwm_expect(RW_IOC_CHECKPOINT, -ENOTCONN, NULL);
	assert_int_equal(rw_job_head(fx->ctx, &h), -ENOTCONN);
}

/* Restore into a job whose head is @job: refused with @want exactly. */
static void ckt_refuse(struct ckt_fx *fx, struct ckt_run *job,
		       const char *want)
{
	char why[512] = "", full[640];

	rwm_reset();
	ckt_expect_ckpt(job);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -EINVAL);
	snprintf(full, sizeof(full), "%s: %s", fx->path, want);
	assert_string_equal(why, full);
	/* The head was asked for; nothing was loaded. */
	assert_true(rwm_done());
	assert_int_equal(rwm_ncalls(), 1);
	assert_int_equal(rwm_call(0)->req, RW_IOC_CHECKPOINT);
}

static void ckt_restore_layout(void **state)
{
	struct ckt_fx *fx = *state;
	struct ckt_run job = { .image = fx->job.image };

	ckt_save(fx);
	ckt_refuse(fx, &fx->other, "another model layout: the file's 2 tensors in 3 chunks of 64 bytes (layout hash 0x0123456789abcdef), the job's 2 tensors in 4 chunks of 64 bytes (0xfedcba9876543210)");
	/* The same sizes, other tensors: the hash alone tells. */
	job.head = fx->job.head;
	job.head.step = 0;
	job.head.layout_hash ^= 1;
	ckt_refuse(fx, &job, "another model layout: the file's 2 tensors in 3 chunks of 64 bytes (layout hash 0x0123456789abcdef), the job's 2 tensors in 3 chunks of 64 bytes (0x0123456789abcdee)");
	ckt_head(&job.head, 1, CKT_CHUNK * 4, RW_OPTIM_ADAM, CKT_STATE, 0);
	ckt_refuse(fx, &job, "another model layout: the file's 2 tensors in 3 chunks of 64 bytes (layout hash 0x0123456789abcdef), the job's 2 tensors in 1 chunks of 256 bytes (0x0123456789abcdef)");
	job.head = fx->job.head;
	job.head.nr_tensors = 3;
	ckt_refuse(fx, &job, "another model layout: the file's 2 tensors in 3 chunks of 64 bytes (layout hash 0x0123456789abcdef), the job's 3 tensors in 3 chunks of 64 bytes (0x0123456789abcdef)");
}

static void ckt_restore_optim(void **state)
{
	struct ckt_fx *fx = *state;
	struct ckt_run job = { .image = fx->job.image };

	ckt_save(fx);
	ckt_head(&job.head, CKT_CHUNKS, CKT_CHUNK, RW_OPTIM_MOMENTUM, 1, 0);
	ckt_refuse(fx, &job, "another optimizer: the file's adam, the job's momentum");
	ckt_head(&job.head, CKT_CHUNKS, CKT_CHUNK, 9, CKT_STATE, 0);
	ckt_refuse(fx, &job, "another optimizer: the file's adam, the job's optim9");
	/* The same optimizer with another state: a module at odds with this one. */
	ckt_head(&job.head, CKT_CHUNKS, CKT_CHUNK, RW_OPTIM_ADAM, 1, 0);
	ckt_refuse(fx, &job, "another optimizer state: 2 arrays in the file, 1 in the job");
}

static void ckt_restore_hparams(void **state)
{
	struct ckt_fx *fx = *state;
	struct ckt_run job = { .head = fx->job.head, .image = fx->job.image };

	ckt_save(fx);
	job.head.step = 0;
	job.head.hparams[0] = ckt_bits(0.1f);
	ckt_refuse(fx, &job, "other hyper-parameters: lr 0.01 in the file, 0.1 in the job");
	job.head.hparams[4] = ckt_bits(0.99f);
	job.head.hparams[5] = ckt_bits(1e-6f);
	ckt_refuse(fx, &job, "other hyper-parameters: lr 0.01 in the file, 0.1 in the job; beta2 0.999 in the file, 0.99 in the job; eps 1e-08 in the file, 1e-06 in the job");
	job.head = fx->job.head;
	/* -0 and 0 differ for the module, which compares bits. */
	job.head.hparams[2] = ckt_bits(-0.0f);
	ckt_refuse(fx, &job, "other hyper-parameters: weight-decay 0 in the file, -0 in the job");
}

/* The module's refusals of the load, and a file refused before any ioctl. */
static void ckt_restore_errors(void **state)
{
	struct ckt_fx *fx = *state;
	char why[512], want[640];
	struct rw_ckpt_head h;
	unsigned char byte;
	FILE *f;

	ckt_save(fx);
	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	rwm_expect(RW_IOC_PARAMS_INIT, -EBUSY, NULL);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -EBUSY);
	snprintf(want, sizeof(want), "%s: not restored: the job's run has begun (a worker pushed) or its state was set already; restore into a new run, before its first push",
		 fx->path);
	assert_string_equal(why, want);
	assert_true(rwm_done());

	rwm_reset();
	rwm_expect(RW_IOC_CHECKPOINT, -ENOTCONN, NULL);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -ENOTCONN);
	snprintf(want, sizeof(want), "%s: not restored: the job has no run yet", fx->path);
	assert_memory_equal(why, want, strlen(want));
	assert_true(rwm_done());

	/* One byte flipped in the file: refused with no ioctl at all. */
	f = fopen(fx->path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 300, SEEK_SET), 0);
	assert_int_equal(fread(&byte, 1, 1, f), 1);
	byte ^= 0x10;
	assert_int_equal(fseek(f, 300, SEEK_SET), 0);
	assert_int_equal(fwrite(&byte, 1, 1, f), 1);
	assert_int_equal(fclose(f), 0);
	rwm_reset();
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -EINVAL);
	assert_int_equal(rwm_ncalls(), 0);
	snprintf(want, sizeof(want), "%s: checksum mismatch: the file is damaged (CRC-32C 0x", fx->path);
	assert_memory_equal(why, want, strlen(want));
	/* rw_checkpoint_head reads no checksum. */
	assert_int_equal(rw_checkpoint_head(fx->path, &h, NULL, why,
					    sizeof(why)), 0);

	/* Cut short: rw_checkpoint_head sees it from the length alone. */
	assert_int_equal(truncate(fx->path, 700), 0);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "%s: truncated in the image: 700 bytes, its head says 728", fx->path);
	assert_string_equal(why, want);
	assert_int_equal(rw_checkpoint_head(fx->path, &h, NULL, why,
					    sizeof(why)), -EINVAL);
	assert_string_equal(why, want);
	assert_int_equal(truncate(fx->path, 50), 0);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "%s: truncated in the header: 50 bytes, the header alone is 120", fx->path);
	assert_string_equal(why, want);
	assert_int_equal(rwm_ncalls(), 0);

	unlink(fx->path);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, why,
					       sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open it: No such file or directory", fx->path);
	assert_string_equal(why, want);
	assert_int_equal(rw_checkpoint_restore(fx->ctx, fx->path, NULL, 0),
			 -ENOENT);
	assert_int_equal(rw_checkpoint_head(fx->path, &h, NULL, why,
					    sizeof(why)), -ENOENT);
	assert_string_equal(why, want);
	assert_int_equal(rwm_ncalls(), 0);
}

static void ckt_read_file(const char *path, unsigned char *buf)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(buf, 1, CKT_FILE + 1, f), CKT_FILE);
	fclose(f);
}

/* A failed save leaves no file, no temporary one, and an old one intact. */
static void ckt_save_fails(void **state)
{
	struct ckt_fx *fx = *state;
	unsigned char *old, *now;
	char why[512], want[640];

	rwm_expect(RW_IOC_CHECKPOINT, -ENOTCONN, NULL);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -ENOTCONN);
	snprintf(want, sizeof(want), "%s: not saved: the job has no run yet", fx->path);
	assert_memory_equal(why, want, strlen(want));
	assert_false(ckt_exists(fx->path));
	assert_false(ckt_exists(fx->tmp));
	assert_true(rwm_done());

	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	rwm_expect(RW_IOC_CHECKPOINT, -ETIMEDOUT, NULL);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 40, why,
					    sizeof(why)), -ETIMEDOUT);
	snprintf(want, sizeof(want), "%s: not saved: the iterations in flight did not finish within 40 ms (the workers went on)",
		 fx->path);
	assert_string_equal(why, want);
	assert_false(ckt_exists(fx->path));
	assert_false(ckt_exists(fx->tmp));
	assert_true(rwm_done());

	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	rwm_expect(RW_IOC_CHECKPOINT, -EBUSY, NULL);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -EBUSY);
	snprintf(want, sizeof(want), "%s: not saved: this worker is inside an iteration (it pulled and has not pushed); save between its push and its next pull, or from an observer",
		 fx->path);
	assert_string_equal(why, want);
	assert_false(ckt_exists(fx->path));
	assert_false(ckt_exists(fx->tmp));
	assert_true(rwm_done());

	/* An older checkpoint stays what it was. */
	rwm_reset();
	ckt_save(fx);
	old = malloc(CKT_FILE + 1);
	now = malloc(CKT_FILE + 1);
	assert_non_null(old);
	assert_non_null(now);
	ckt_read_file(fx->path, old);
	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	rwm_expect(RW_IOC_CHECKPOINT, -EINTR, NULL);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, NULL, 0),
			 -EINTR);
	assert_true(rwm_done());
	ckt_read_file(fx->path, now);
	assert_memory_equal(old, now, CKT_FILE);
	assert_false(ckt_exists(fx->tmp));

	/* A head whose step is not the image's: not written either. */
	rwm_reset();
	fx->job.head.step++;
	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&fx->job);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -EPROTO);
	snprintf(want, sizeof(want), "%s: not saved: the module's checkpoint is inconsistent: bad head: step 72623859790382857, but the largest chunk version is 72623859790382856",
		 fx->path);
	assert_string_equal(why, want);
	ckt_read_file(fx->path, now);
	assert_memory_equal(old, now, CKT_FILE);
	assert_false(ckt_exists(fx->tmp));

	/* A head of zeros: refused before anything is allocated. */
	rwm_reset();
	rwm_expect(RW_IOC_CHECKPOINT, 0, NULL);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -EPROTO);
	snprintf(want, sizeof(want), "%s: not saved: the module's checkpoint head is inconsistent: head magic 0x00000000, not 0x54504b43",
		 fx->path);
	assert_string_equal(why, want);
	assert_true(rwm_done());
	ckt_read_file(fx->path, now);
	assert_memory_equal(old, now, CKT_FILE);
	free(old);
	free(now);
}

/* A directory that cannot be written: the reason names the file. */
static void ckt_save_unwritable(void **state)
{
	struct ckt_fx *fx = *state;
	char why[512], want[640], path[200];
	int fd;

	/* Refused before the module is asked: no worker is held for it. */
	snprintf(path, sizeof(path), "%s/no/such/dir/x.ckpt", fx->dir);
	assert_int_equal(rw_checkpoint_save(fx->ctx, path, 0, why,
					    sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want), "%s: not saved: cannot create %s.tmp: No such file or directory",
		 path, path);
	assert_string_equal(why, want);
	assert_int_equal(rwm_ncalls(), 0);

	/* The rename fails (a directory is in the way): no temporary left. */
	rwm_reset();
	snprintf(path, sizeof(path), "%s/adir", fx->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&fx->job);
	assert_int_equal(rw_checkpoint_save(fx->ctx, path, 0, why,
					    sizeof(why)), -EISDIR);
	snprintf(want, sizeof(want), "%s: not saved: cannot rename %s.tmp over it: Is a directory",
		 path, path);
	assert_string_equal(why, want);
	snprintf(want, sizeof(want), "%s.tmp", path);
	assert_false(ckt_exists(want));
	assert_int_equal(rmdir(path), 0);

	/* The stale temporary file of an interrupted save is replaced. */
	rwm_reset();
	fd = open(fx->tmp, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "half a file", 11), 11);
	close(fd);
	ckt_save(fx);
	assert_false(ckt_exists(fx->tmp));
	assert_int_equal(rw_checkpoint_head(fx->path, &fx->other.head, NULL,
					    why, sizeof(why)), 0);

	/* A symbolic link planted as the temporary file is not followed. */
	rwm_reset();
	assert_int_equal(symlink(path, fx->tmp), 0);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -ELOOP);
	assert_false(ckt_exists(path));
	assert_int_equal(rwm_ncalls(), 0);
}

/* The run changes between the head and the copy: read again, once. */
static void ckt_save_run_changed(void **state)
{
	struct ckt_fx *fx = *state;
	struct ckt_run changed = fx->job;
	struct rw_ckpt_head h;
	char why[512] = "", want[640];

	/* Each copy brings another head of the same length: given up. */
	changed.head.layout_hash ^= 0xff;
	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&changed);
	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&changed);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -EAGAIN);
	snprintf(want, sizeof(want), "%s: not saved: the job's run changed while it was saved, twice; try again",
		 fx->path);
	assert_string_equal(why, want);
	assert_true(rwm_done());
	assert_false(ckt_exists(fx->path));
	assert_false(ckt_exists(fx->tmp));

	/* Changed once, then steady: saved on the second attempt. */
	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&changed);
	ckt_expect_ckpt(&changed);
	ckt_expect_ckpt(&changed);
	if (rw_checkpoint_save(fx->ctx, fx->path, 0, why, sizeof(why)))
		fail_msg("save: %s", why);
	assert_true(rwm_done());
	assert_int_equal(rw_checkpoint_head(fx->path, &h, NULL, NULL, 0), 0);
	assert_memory_equal(&h, &changed.head, sizeof(h));

	/*
	 * Deleted and created again with another image length: the copy
	 * says EINVAL, the head says another run, and the new run is saved.
	 */
	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	ckt_expect_ckpt(&fx->other);
	ckt_expect_ckpt(&fx->other);
	ckt_expect_ckpt(&fx->other);
	ckt_expect_ckpt(&fx->other);
	if (rw_checkpoint_save(fx->ctx, fx->path, 0, why, sizeof(why)))
		fail_msg("save: %s", why);
	assert_true(rwm_done());
	assert_int_equal(rw_checkpoint_head(fx->path, &h, NULL, NULL, 0), 0);
	assert_memory_equal(&h, &fx->other.head, sizeof(h));

	/* An EINVAL of a run that did not change is the module's answer. */
	rwm_reset();
	ckt_expect_ckpt(&fx->job);
	rwm_expect(RW_IOC_CHECKPOINT, -EINVAL, NULL);
	ckt_expect_ckpt(&fx->job);
	assert_int_equal(rw_checkpoint_save(fx->ctx, fx->path, 0, why,
					    sizeof(why)), -EINVAL);
	assert_true(rwm_done());
	snprintf(want, sizeof(want), "%s: not saved: ", fx->path);
	assert_memory_equal(why, want, strlen(want));
	assert_memory_equal(&h, &fx->other.head, sizeof(h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, ckt_fx_setup, ckt_fx_teardown)
		T(ckt_save_restore),
		T(ckt_job_head),
		T(ckt_restore_layout),
		T(ckt_restore_optim),
		T(ckt_restore_hparams),
		T(ckt_restore_errors),
		T(ckt_save_fails),
		T(ckt_save_unwritable),
		T(ckt_save_run_changed),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

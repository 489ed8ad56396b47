// SPDX-License-Identifier: GPL-2.0
/*
 * rw_map(), rw_tensor(), rw_versions() and rw_setup_get(): the setup
 * request, the mappings made from the module's reply (and only from it),
 * replies the library must refuse, unwinding when a mapping fails, and
 * where every tensor lies under the 64-byte layout rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

static const uint8_t rwt_token[RW_JOB_TOKEN_LEN];

/* The softmax example's model: weights 10x64 and bias 10, f32. */
static const struct rw_tensor_desc rwt_softmax[] = {
	{ .key = 1, .nelems = 640, .dtype = RW_DTYPE_F32 },
	{ .key = 2, .nelems = 10, .dtype = RW_DTYPE_F32 },
};

static void rwt_join(struct rw_ctx *ctx, uint32_t flags,
		     const struct rw_tensor_desc *t, uint32_t n)
{
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, "job", rwt_token, 0, flags), 0);
	if (!(flags & RW_ATTACH_OBSERVER))
		rwm_expect(RW_IOC_DECLARE, 0, NULL);
	assert_int_equal(rw_declare(ctx, t, n, 0), 0);
}

static void rwt_map_request(void **state)
{
	struct rw_ctx *ctx = *state;
	const struct rwm_call *c;
	struct rw_setup s;
	unsigned int i;

	rwt_join(ctx, 0, rwt_softmax, 2);
	rwm_fill_setup(&s, 4096, 1, 2, 2600);
	/* Offsets unlike RW_MMAP_*: the library must use the reply's. */
	s.grad_offset = 0x7000;
	s.params_offset = 0x3000000;
	s.versions_offset = 0x5000000000ULL;
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);
	assert_true(rwm_done());

	c = rwm_call(2);
	assert_int_equal(c->req, RW_IOC_SETUP);
	assert_int_equal(c->fd, rw_ctx_fd(ctx));
	assert_int_equal(c->arg.setup.size, RW_SETUP_SIZE);
	assert_int_equal(c->arg.setup.flags, 0);
	assert_true(rwm_zero(c->arg.setup.reserved, sizeof(c->arg.setup.reserved)));
	assert_true(rwm_zero(&c->arg.setup.rank,
			     offsetof(struct rw_setup, reserved) -
			     offsetof(struct rw_setup, rank)));

	assert_int_equal(rwm.nmaps, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rwm.maps[i].fd, rw_ctx_fd(ctx));
		assert_int_equal(rwm.maps[i].flags, MAP_SHARED);
	}
	assert_int_equal(rwm.maps[0].off, 0x7000);
	assert_int_equal(rwm.maps[0].len, 4096);
	assert_int_equal(rwm.maps[0].prot, PROT_READ | PROT_WRITE);
	assert_int_equal(rwm.maps[1].off, 0x3000000);
	assert_int_equal(rwm.maps[1].len, 4096);
	assert_int_equal(rwm.maps[1].prot, PROT_READ);
	assert_int_equal(rwm.maps[2].off, 0x5000000000LL);
	assert_int_equal(rwm.maps[2].len, 4096);
	assert_int_equal(rwm.maps[2].prot, PROT_READ);
}

static void rwt_map_observer(void **state)
{
	struct rw_tensor_view v;
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwt_join(ctx, RW_ATTACH_OBSERVER, rwt_softmax, 2);
	rwm_fill_setup(&s, 4096, 1, 2, 2600);
	s.grad_len = 0;		/* observers have no gradient buffer */
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);
	assert_true(rwm_done());
	assert_int_equal(rwm.nmaps, 2);
	assert_int_equal(rwm.maps[0].off, RW_MMAP_PARAMS);
	assert_int_equal(rwm.maps[0].prot, PROT_READ);
	assert_int_equal(rwm.maps[1].off, RW_MMAP_VERSIONS);

	assert_int_equal(rw_tensor(ctx, 2, &v), 0);
	assert_null(v.grad);
	assert_ptr_equal(v.params, (char *)rwm.maps[0].addr + 2560);
}

/* Replies that break the uapi's promises: refused, nothing mapped. */
static void rwt_map_bad_setup(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s[9];
	unsigned int i;

	rwt_join(ctx, 0, rwt_softmax, 2);
	for (i = 0; i < 9; i++)
		rwm_fill_setup(&s[i], 4096, 1, 2, 2600);
	s[0].chunk_size = 3000;
	s[1].chunk_size = 0;
	s[2].nr_chunks = 0;
	s[3].model_bytes = 4097;		/* past the buffer */
	s[4].nr_chunks = 2;			/* a chunk beyond the model */
	s[4].grad_len = s[4].params_len = 8192;
	s[5].grad_len = 8192;
	s[6].params_len = 2600;
	s[7].versions_len = 0;
	s[8].params_offset = RW_MMAP_PARAMS + 8;
	for (i = 0; i < 9; i++) {
		rwm_expect(RW_IOC_SETUP, 0, &s[i]);
		if (rw_map(ctx) != -EPROTO)
			fail_msg("reply %u accepted", i);
	}
	assert_int_equal(rwm.nmaps, 0);
	assert_null(rw_versions(ctx));
	assert_true(rwm_done());
}

/* The module's layout is not the one this process declared. */
static void rwt_map_mismatch(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwt_join(ctx, 0, rwt_softmax, 2);
	rwm_fill_setup(&s, 4096, 1, 2, 2604);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), -EEXIST);
	rwm_fill_setup(&s, 4096, 1, 3, 2600);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), -EEXIST);
	assert_int_equal(rwm.nmaps, 0);
	assert_true(rwm_done());
}

static void rwt_map_errors(void **state)
{
	struct rw_ctx *ctx = *state;

	assert_int_equal(rw_map(NULL), -EINVAL);
	assert_int_equal(rw_map(ctx), -ENOTCONN);	/* not attached */
	assert_int_equal(rwm_ncalls(), 0);
	rwt_join(ctx, 0, rwt_softmax, 2);
	rwm_expect(RW_IOC_SETUP, -ENOTCONN, NULL);
	assert_int_equal(rw_map(ctx), -ENOTCONN);
	rwm_expect(RW_IOC_SETUP, -ENODEV, NULL);
	assert_int_equal(rw_map(ctx), -ENODEV);
	assert_int_equal(rwm.nmaps, 0);
	assert_true(rwm_done());
}

/* A failed mmap unmaps what was mapped; a later rw_map starts over. */
static void rwt_map_unwind(void **state)
{
	struct rw_tensor_view v;
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwt_join(ctx, 0, rwt_softmax, 2);
	rwm_fill_setup(&s, 4096, 1, 2, 2600);

	rwm.mmap_fail_at = 1;
	rwm.mmap_fail_err = ENOMEM;
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), -ENOMEM);
	assert_int_equal(rwm.nmaps, 2);
	assert_true(rwm.maps[0].unmapped);
	assert_int_equal(rw_tensor(ctx, 1, &v), -ENOTCONN);

	rwm.mmap_fail_at = 4;
	rwm.mmap_fail_err = EACCES;
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), -EACCES);
	assert_int_equal(rwm.nmaps, 5);
	assert_true(rwm.maps[2].unmapped);
	assert_true(rwm.maps[3].unmapped);
	assert_null(rw_versions(ctx));

	rwm.mmap_fail_at = -1;
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);
	assert_int_equal(rwm.nmaps, 8);
	assert_int_equal(rw_tensor(ctx, 1, &v), 0);
	assert_ptr_equal(v.grad, rwm.maps[5].addr);
	assert_true(rwm_done());
}

/* Mapping twice does nothing; closing unmaps all three buffers. */
static void rwt_map_twice_and_close(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;
	unsigned int i;

	rwt_join(ctx, 0, rwt_softmax, 2);
	rwm_fill_setup(&s, 4096, 1, 2, 2600);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);
	assert_int_equal(rw_map(ctx), 0);
	assert_int_equal(rwm.nmaps, 3);
	assert_int_equal(rwm_ncalls(), 3);
	for (i = 0; i < 3; i++)
		assert_false(rwm.maps[i].unmapped);

	rw_ctx_close(ctx);
	*state = NULL;
	for (i = 0; i < 3; i++)
		assert_true(rwm.maps[i].unmapped);
	assert_int_equal(rwm.nunmaps, 3);
	assert_true(rwm_done());
}

/* Where each tensor lies: the 64-byte rule across dtypes and chunks. */
static void rwt_tensor_layout(void **state)
{
	static const struct rw_tensor_desc t[] = {
		{ .key = 10, .nelems = 10, .dtype = RW_DTYPE_F32 },
		{ .key = 20, .nelems = 3, .dtype = RW_DTYPE_F16 },
		{ .key = 5, .nelems = 1, .dtype = RW_DTYPE_BF16 },
		{ .key = 30, .nelems = 2000, .dtype = RW_DTYPE_F32 },
		{ .key = 40, .nelems = 1, .dtype = RW_DTYPE_F32 },
		{ .key = 1, .nelems = 3072, .dtype = RW_DTYPE_F32 },
		{ .key = 2, .nelems = 16, .dtype = RW_DTYPE_F32 },
	};
	static const struct {
		uint64_t key, offset;
		uint32_t first, nr;
	} want[] = {
		{ 10, 0, 0, 1 },	/* 40 bytes */
		{ 20, 64, 0, 1 },	/* 6 bytes, ends at 70 */
		{ 5, 128, 0, 1 },	/* 2 bytes, ends at 130 */
		{ 30, 192, 0, 2 },	/* 8000 bytes, ends at 8192 exactly */
		{ 40, 8192, 2, 1 },	/* already aligned: no gap */
		{ 1, 8256, 2, 4 },	/* 12288 bytes, ends at 20544 */
		{ 2, 20544, 5, 1 },	/* 64 bytes, ends at 20608 */
	};
	struct rw_ctx *ctx = *state;
	struct rw_tensor_view v;
	struct rw_setup s;
	size_t i;

	rwt_join(ctx, 0, t, 7);
	rwm_fill_setup(&s, 4096, 6, 7, 20608);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		memset(&v, 0xee, sizeof(v));
		assert_int_equal(rw_tensor(ctx, want[i].key, &v), 0);
		assert_int_equal(v.key, want[i].key);
		assert_int_equal(v.nelems, t[i].nelems);
		assert_int_equal(v.dtype, t[i].dtype);
		if (v.offset != want[i].offset || v.first_chunk != want[i].first ||
		    v.nr_chunks != want[i].nr)
			fail_msg("key %llu: offset %llu chunks %u+%u, want %llu %u+%u",
				 (unsigned long long)want[i].key,
				 (unsigned long long)v.offset, v.first_chunk,
				 v.nr_chunks, (unsigned long long)want[i].offset,
				 want[i].first, want[i].nr);
		assert_ptr_equal(v.grad, (char *)rwm.maps[0].addr + want[i].offset);
		assert_ptr_equal(v.params, (char *)rwm.maps[1].addr + want[i].offset);
	}
	assert_int_equal(rw_tensor(ctx, 3, &v), -ENOENT);
	assert_int_equal(rw_tensor(ctx, UINT64_MAX, &v), -ENOENT);
	assert_int_equal(rw_tensor(ctx, 0, &v), -ENOENT);
	assert_true(rwm_done());
}

/* The views read and write the mapped pages themselves. */
static void rwt_tensor_memory(void **state)
{
	struct rw_tensor_view w, b;
	struct rw_ctx *ctx = *state;
	const volatile uint64_t *ver;
	struct rw_setup s;
	float *params;
	uint64_t *vmem;
	int i;

	rwt_join(ctx, 0, rwt_softmax, 2);
	rwm_fill_setup(&s, 4096, 1, 2, 2600);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);
	params = rwm.maps[1].addr;
	vmem = rwm.maps[2].addr;
	for (i = 0; i < 650; i++)
		params[i] = (float)i;
	vmem[0] = 42;

	assert_int_equal(rw_tensor(ctx, 1, &w), 0);
	assert_int_equal(rw_tensor(ctx, 2, &b), 0);
	assert_true(((const float *)w.params)[639] == 639.0f);
	assert_true(((const float *)b.params)[0] == 640.0f);
	((float *)b.grad)[9] = 2.5f;
	assert_true(((float *)rwm.maps[0].addr)[649] == 2.5f);

	ver = rw_versions(ctx);
	assert_ptr_equal(ver, vmem);
	assert_int_equal(ver[0], 42);
	vmem[0] = 43;
	assert_int_equal(ver[0], 43);
}

static void rwt_tensor_errors(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_tensor_view v;
	struct rw_setup s;

	assert_int_equal(rw_tensor(NULL, 1, &v), -EINVAL);
	assert_int_equal(rw_tensor(ctx, 1, NULL), -EINVAL);
	assert_int_equal(rw_tensor(ctx, 1, &v), -ENOTCONN);
	assert_null(rw_versions(NULL));
	assert_null(rw_versions(ctx));

	/* Mapped without a declaration in this context: nothing to look up. */
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, "job", rwt_token, 1, 0), 0);
	rwm_fill_setup(&s, 4096, 1, 2, 2600);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_map(ctx), 0);
	assert_int_equal(rw_tensor(ctx, 1, &v), -ENOTCONN);
	assert_non_null(rw_versions(ctx));

	/* Declaring after the mapping: checked against the module's layout. */
	assert_int_equal(rw_declare(ctx, rwt_softmax, 1, 0), -EEXIST);
	rwm_expect(RW_IOC_DECLARE, 0, NULL);
	assert_int_equal(rw_declare(ctx, rwt_softmax, 2, RW_DECLARE_VERIFY), 0);
	assert_int_equal(rw_tensor(ctx, 2, &v), 0);
	assert_int_equal(v.offset, 2560);
	assert_true(rwm_done());
}

static void rwt_setup_get(void **state)
{
	struct rw_setup s, out, before;
	struct rw_ctx *ctx = *state;

	rwm_fill_setup(&s, 32768, 3, 2, 70000);
	s.node = 1;
	s.epoch = 7;
	memset(&out, 0x5a, sizeof(out));
	rwm_expect(RW_IOC_SETUP, 0, &s);
	assert_int_equal(rw_setup_get(ctx, &out), 0);
	assert_memory_equal(&out, &s, sizeof(s));
	/* The request was clean even though @out was not. */
	assert_int_equal(rwm_call(0)->arg.setup.size, RW_SETUP_SIZE);
	assert_true(rwm_zero((const char *)&rwm_call(0)->arg.setup + 4,
			     sizeof(s) - 4));

	before = out;
	rwm_expect(RW_IOC_SETUP, -ENOTCONN, NULL);
	assert_int_equal(rw_setup_get(ctx, &out), -ENOTCONN);
	assert_memory_equal(&out, &before, sizeof(out));
	assert_int_equal(rw_setup_get(NULL, &out), -EINVAL);
	assert_int_equal(rw_setup_get(ctx, NULL), -EINVAL);
	assert_int_equal(rwm.nmaps, 0);
	assert_true(rwm_done());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) \
	cmocka_unit_test_setup_teardown(f, rwm_ctx_setup, rwm_ctx_teardown)
		T(rwt_map_request),
		T(rwt_map_observer),
		T(rwt_map_bad_setup),
		T(rwt_map_mismatch),
		T(rwt_map_errors),
		T(rwt_map_unwind),
		T(rwt_map_twice_and_close),
		T(rwt_tensor_layout),
		T(rwt_tensor_memory),
		T(rwt_tensor_errors),
		T(rwt_setup_get),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave mappings", tests,
					   NULL, NULL);
}

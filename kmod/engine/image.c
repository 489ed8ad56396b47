// SPDX-License-Identifier: GPL-2.0
/*
 * A run's parameters set or saved outside the fast path. Initial
 * parameters go in before the run's first push: init_lock serialises them
 * against that push (rw_engine_start() in path.c), which ends the time
 * they may be set. The checkpoint image (uapi RW_IOC_CHECKPOINT) is the
 * parameters, each optimizer state array, then the chunk versions, with a
 * hash of the layout it fits; it is read while the engine is quiet and
 * written like initial parameters, so no step runs under either.
 *
 * A model with a 16-bit tensor keeps the f32 master copy in the image, its
 * arrays two chunk sizes per chunk (rw_layout_image_chunk()); the
 * published parameters follow from it (half.c).
 *
 * A box of a job over several boxes keeps the same image, whole-model in
 * shape: its own chunks as they are, every other chunk zeros with version
 * 0 on the way out and left alone on the way in, so the boxes' images of
 * one moment put together by owner are the job's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine.h"
#include "engine/engine_priv.h"

int rw_engine_init_begin(struct rw_engine *e)
{
	mutex_lock(&e->init_lock);
	if (e->started || e->initialized) {
		mutex_unlock(&e->init_lock);
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_begin);

int rw_engine_init_chunk(struct rw_engine *e, u32 chunk,
			 const void __user *src)
{
	struct rw_chunk *ch;
	int ret = 0;

	lockdep_assert_held(&e->init_lock);
	if (!rw_engine_has(e, chunk))
		return -EINVAL;
	ch = &e->chunks[chunk];
	/* No step runs before the first push; observers read whole chunks. */
	raw_write_seqcount_begin(&ch->seq);
	if (copy_from_user(ch->params, src, ch->len))
		ret = -EFAULT;
	else
		rw_engine_half_widen(e, chunk);
	raw_write_seqcount_end(&ch->seq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_chunk);

void rw_engine_init_open(struct rw_engine *e, u32 chunk)
{
	lockdep_assert_held(&e->init_lock);
	raw_write_seqcount_begin(&e->chunks[chunk].seq);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_open);

void rw_engine_init_close(struct rw_engine *e, u32 chunk, bool ok)
{
	struct rw_chunk *ch = &e->chunks[chunk];

	lockdep_assert_held(&e->init_lock);
	/* Before any initial parameters the run's are zeros (the arena's). */
	if (!ok && ch->params) {
		memset(ch->params, 0, ch->len);
		if (e->half)
			memset(ch->master, 0, e->ics);
	} else if (ok) {
		rw_engine_half_widen(e, chunk);
	}
	raw_write_seqcount_end(&ch->seq);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_close);

void rw_engine_init_end(struct rw_engine *e, bool set)
{
	lockdep_assert_held(&e->init_lock);
	if (set) {
		/* The parameters before the flag (rw_engine_params_set()). */
		smp_store_release(&e->initialized, true);
	}
	mutex_unlock(&e->init_lock);
	/* Even if not set: a pull may wait for a chunk's section to end. */
	if (wq_has_sleeper(&e->wq))
		wake_up_all(&e->wq);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_end);

u32 rw_engine_nr_state(const struct rw_engine *e)
{
	return e->nr_state;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_nr_state);

/* Bytes of each array of the image: rw_layout_image_chunk() per chunk. */
static u64 rw_engine_image_array_len(const struct rw_engine *e)
{
	return (u64)e->nr_chunks * e->ics;
}

u32 rw_engine_image_chunk(const struct rw_engine *e)
{
	return e->ics;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_chunk);

u64 rw_engine_image_len(const struct rw_engine *e)
{
	return (1 + (u64)e->nr_state) * rw_engine_image_array_len(e) +
	       (u64)e->nr_chunks * sizeof(u64);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_len);

static u64 rw_engine_fnv(u64 h, u64 v)
{
	u32 i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* FNV-1a 64 over the chunk size and each tensor's key, size and type. */
u64 rw_engine_layout_hash(const struct rw_engine *e)
{
	u64 h = rw_engine_fnv(0xcbf29ce484222325ULL,
			      e->layout.geom.chunk_size);
	u32 i;

	for (i = 0; i < e->layout.nr_tensors; i++) {
		h = rw_engine_fnv(h, e->tensors[i].key);
		h = rw_engine_fnv(h, e->tensors[i].nelems);
		h = rw_engine_fnv(h, e->tensors[i].dtype);
	}
	return h;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_layout_hash);

u64 rw_engine_max_version(const struct rw_engine *e)
{
	u64 v = 0;
	u32 c;

	for (c = 0; c < e->nr_chunks; c++)
		v = max(v, rw_engine_version(e, c));
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_max_version);

bool rw_engine_quiet(const struct rw_engine *e)
{
	u32 c;

	for (c = 0; c < e->nr_chunks; c++) {
		const struct rw_chunk *ch = &e->chunks[c];

		/* Pairs with the releases of done in the owner's paths. */
		if (smp_load_acquire(&ch->done) != (u64)atomic64_read(&ch->posted))
			return false;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_quiet);

/*
 * The image offset of array @a (0: params, 1..nr_state: state, then the
 * versions: nr_state + 1) for chunk @c.
 */
static u64 rw_engine_image_at(const struct rw_engine *e, u32 a, u32 c)
{
	u64 base = (u64)a * rw_engine_image_array_len(e);

	if (a > e->nr_state)
		return base + (u64)c * sizeof(u64);
	return base + (u64)c * e->ics;
}

/* Array @a of chunk @ch in the image: 0 the (master) parameters. */
static float *rw_engine_image_array(struct rw_chunk *ch, u32 a)
{
	return a ? ch->state[a - 1] : ch->master;
}

/* Bytes of chunk @ch's arrays that hold its elements; zeros after. */
static u32 rw_engine_image_used(const struct rw_engine *e,
				const struct rw_chunk *ch)
{
	return e->half ? 2 * ch->len : ch->len;
}

int rw_engine_image_read(struct rw_engine *e, void __user *dst)
{
	u32 cs = e->ics, c, a;

	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];
		u64 v = rw_engine_version(e, c);

		for (a = 0; a <= e->nr_state; a++) {
			void __user *to = dst + rw_engine_image_at(e, a, c);

			/* Another box's chunk: zeros here (the header). */
			if (!rw_engine_has(e, c) ? clear_user(to, cs) :
			    copy_to_user(to, rw_engine_image_array(ch, a), cs))
				return -EFAULT;
		}
		if (copy_to_user(dst + rw_engine_image_at(e, e->nr_state + 1, c),
				 &v, sizeof(v)))
			return -EFAULT;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_read);

int rw_engine_image_get(struct rw_engine *e, u64 off, u64 len, void *dst)
{
	u64 blen = rw_engine_image_array_len(e), end = off + len;
	u32 cs = e->ics, a, c, in, n;
	u8 *p = dst;

	if (off % 8 || len % 8 || off > rw_engine_image_len(e) ||
	    len > rw_engine_image_len(e) - off)
		return -EINVAL;
	while (off < end) {
		struct rw_chunk *ch;

		a = (u32)(off / blen);
		if (a > e->nr_state) {
			u64 v;

			c = (u32)((off - (u64)a * blen) / sizeof(v));
			v = rw_engine_version(e, c);
			memcpy(p, &v, sizeof(v));
			n = sizeof(v);
		} else {
			c = (u32)((off % blen) / cs);
			in = (u32)(off & (cs - 1));
			n = (u32)min_t(u64, cs - in, end - off);
			ch = &e->chunks[c];
			if (!rw_engine_has(e, c))
				memset(p, 0, n);
			else
				memcpy(p, (const u8 *)rw_engine_image_array(ch, a) +
				       in, n);
		}
		off += n;
		p += n;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_get);

int rw_engine_image_write(struct rw_engine *e, const void __user *src)
{
	u32 cs = e->ics, c, a, used;

	lockdep_assert_held(&e->init_lock);
	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];
		u64 v, at = rw_engine_image_at(e, e->nr_state + 1, c);

		if (!rw_engine_has(e, c))
			continue;
		if (copy_from_user(&v, src + at, sizeof(v)))
			return -EFAULT;
		used = rw_engine_image_used(e, ch);
		/* No step runs before the first push (rw_engine_init_chunk). */
		raw_write_seqcount_begin(&ch->seq);
		for (a = 0; a <= e->nr_state; a++) {
			float *to = rw_engine_image_array(ch, a);

			if (copy_from_user(to, src + rw_engine_image_at(e, a, c),
					   used)) {
				raw_write_seqcount_end(&ch->seq);
				return -EFAULT;
			}
			memset((u8 *)to + used, 0, cs - used);
		}
		rw_engine_half_publish(e, c);
		ch->version = v;
		WRITE_ONCE(e->versions[c], v);
		raw_write_seqcount_end(&ch->seq);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_write);

/*
 * Bytes [@off, @off + @len) of an image, from kernel memory at @src:
 * each piece into its chunk's array (the tail past the chunk's length
 * zeroed, as rw_engine_image_write() does) or a whole version. @off and
 * @len are multiples of 8, so a version never straddles two calls.
 */
int rw_engine_image_put(struct rw_engine *e, u64 off, u64 len,
			const void *src)
{
	u64 blen = rw_engine_image_array_len(e), end = off + len;
	u32 cs = e->ics, a, c, in, n, used;
	const u8 *p = src;

	lockdep_assert_held(&e->init_lock);
	if (off % 8 || len % 8 || off > rw_engine_image_len(e) ||
	    len > rw_engine_image_len(e) - off)
		return -EINVAL;
	while (off < end) {
		struct rw_chunk *ch;

		a = (u32)(off / blen);
		if (a > e->nr_state) {
			u64 v;

			c = (u32)((off - (u64)a * blen) / sizeof(v));
			ch = &e->chunks[c];
			n = sizeof(v);
			if (!rw_engine_has(e, c))
				goto next;
			memcpy(&v, p, sizeof(v));
			raw_write_seqcount_begin(&ch->seq);
			ch->version = v;
			WRITE_ONCE(e->versions[c], v);
			raw_write_seqcount_end(&ch->seq);
		} else {
			u8 *to;

			c = (u32)((off % blen) / cs);
			in = (u32)(off & (cs - 1));
			n = (u32)min_t(u64, cs - in, end - off);
			ch = &e->chunks[c];
			if (!rw_engine_has(e, c))
				goto next;
			to = (u8 *)rw_engine_image_array(ch, a);
			used = rw_engine_image_used(e, ch);
			raw_write_seqcount_begin(&ch->seq);
			if (in < used)
				memcpy(to + in, p, min(n, used - in));
			if (in + n > used)
				memset(to + max(in, used), 0,
				       in + n - max(in, used));
			/* The parameters follow their master, piece by piece. */
			if (!a)
				rw_engine_half_publish(e, c);
			raw_write_seqcount_end(&ch->seq);
		}
next:
		off += n;
		p += n;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_put);

void rw_engine_image_clear(struct rw_engine *e)
{
	u32 cs = e->ics, c, a;

	lockdep_assert_held(&e->init_lock);
	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];

		if (!rw_engine_has(e, c))
			continue;
		raw_write_seqcount_begin(&ch->seq);
		for (a = 0; a <= e->nr_state; a++)
			memset(rw_engine_image_array(ch, a), 0, cs);
		if (e->half)
			memset(ch->params, 0, ch->len);
		ch->version = 0;
		WRITE_ONCE(e->versions[c], 0);
		raw_write_seqcount_end(&ch->seq);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_clear);

bool rw_engine_params_set(const struct rw_engine *e)
{
	/* Pairs with the release in rw_engine_init_end(). */
	return smp_load_acquire(&e->initialized);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_params_set);

bool rw_engine_init_settled(const struct rw_engine *e)
{
	/* Pairs with the release in rw_engine_start(). */
	return READ_ONCE(e->initialized) || smp_load_acquire(&e->started);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_settled);

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Softmax regression, the model of the RackWeave example trainer: 64
 * inputs (an 8x8 digit, pixels scaled to [0, 1]), 10 classes, weights W
 * (10x64, row-major: W[k][j] at k * 64 + j) and bias b (10).
 *
 *	z_k = b_k + sum_j W[k][j] x_j,  p = softmax(z),
 *	loss = -log p_y,  dL/dz_k = p_k - [k == y]
 *
 * Everything here is deterministic: plain float loops in a fixed order,
 * no libm on the gradient path (exp is our own), and the file is built
 * with -ffp-contract=off so no compiler fuses a multiply and an add. The
 * trainer on the box and tests/vm/softmax-ref therefore compute the same
 * bits from the same parameters, which is what lets the reference check
 * the box's aggregation bit for bit.
 *
 * The data file (examples/digits-export.py writes it), little-endian:
 *
 *	offset 0   char  magic[8]      "RWDIGIT1"
 *	       8   u32   version       1
 *	      12   u32   n             samples
 *	      16   u32   features      64
 *	      20   u32   classes       10
 *	      24   u32   reserved[2]   0
 *	      32   f32   x[n][64]      pixel / 16, in [0, 1]
 *	32+256n    u8    y[n]          label, 0..9
 */
#ifndef RW_EXAMPLES_SOFTMAX_H
#define RW_EXAMPLES_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

#define SOFTMAX_INPUTS		64
#define SOFTMAX_CLASSES		10
#define SOFTMAX_NW		(SOFTMAX_CLASSES * SOFTMAX_INPUTS)
#define SOFTMAX_NB		SOFTMAX_CLASSES

/* The two tensors as the trainer declares them (both f32). */
#define SOFTMAX_KEY_W		1
#define SOFTMAX_KEY_B		2

#define SOFTMAX_DATA_MAGIC	"RWDIGIT1"
#define SOFTMAX_DATA_VERSION	1
#define SOFTMAX_DATA_HEADER	32

struct softmax_data {
	uint32_t n;		/* samples */
	float *x;		/* n * SOFTMAX_INPUTS */
	uint8_t *y;		/* n */
};

/*
 * Load a data file. 0, or -errno from the file system, or -EINVAL with
 * *@why saying what is wrong with the content.
 */
int softmax_data_load(const char *path, struct softmax_data *d,
		      const char **why);
void softmax_data_free(struct softmax_data *d);

/*
 * Write the parameters to @path: W then b, raw f32 in host order, as the
 * trainers and the reference leave them for comparison bit for bit.
 * 0 or -errno (-EIO for a short write).
 */
int softmax_params_write(const char *path, const float *w, const float *b);

/*
 * Initial parameters from @seed: W uniform in [-0.05, 0.05), b zero, the
 * same bits on every host (integer generator, exact conversions).
 */
void softmax_params_init(float *w, float *b, uint64_t seed);

/* Class probabilities of one sample. */
void softmax_forward(const float *w, const float *b, const float *x,
		     float p[SOFTMAX_CLASSES]);

/* Mean cross-entropy over samples [first, first + n); n >= 1. */
double softmax_loss(const float *w, const float *b,
		    const struct softmax_data *d, uint32_t first, uint32_t n);

/* Fraction of samples [first, first + n) classified right. */
double softmax_accuracy(const float *w, const float *b,
			const struct softmax_data *d, uint32_t first,
			uint32_t n);

/*
 * Mean gradient over samples [first, first + n) (n >= 1) into @gw
 * (SOFTMAX_NW) and @gb (SOFTMAX_NB), which are overwritten.
 */
void softmax_grad(const float *w, const float *b,
		  const struct softmax_data *d, uint32_t first, uint32_t n,
		  float *gw, float *gb);

/*
 * Data parallelism. An epoch is nsamples / batch steps (a partial batch
 * at the end is dropped); step s uses the global batch of samples
 * [(s % steps_per_epoch) * batch, + batch), split into @workers equal
 * contiguous shards; rank r's is its r-th. -EINVAL unless 1 <= workers,
 * batch % workers == 0 and workers <= batch <= nsamples.
 */
struct softmax_plan {
	uint32_t batch;
	uint32_t workers;
	uint32_t shard;			/* batch / workers */
	uint32_t steps_per_epoch;
};

int softmax_plan_init(struct softmax_plan *p, uint32_t nsamples,
		      uint32_t batch, uint32_t workers);

/* First sample of @rank's shard at global step @step. */
uint32_t softmax_shard_first(const struct softmax_plan *p, uint64_t step,
			     uint32_t rank);

#endif /* RW_EXAMPLES_SOFTMAX_H */

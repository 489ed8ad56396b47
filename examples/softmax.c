// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Softmax regression: data loading, forward pass, loss and gradient. See
 * softmax.h for the model, the file format and why every loop here is
 * written the way it is (bit-for-bit reproducibility across processes).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "softmax.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the data file is little-endian; add byte swapping here");

static uint32_t softmax_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int softmax_read_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int softmax_data_load(const char *path, struct softmax_data *d,
		      const char **why)
{
	unsigned char hdr[SOFTMAX_DATA_HEADER];
	struct softmax_data nd = { 0 };
	struct stat st;
	uint32_t i;
	int fd, err;

	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : softmax_read_all(fd, hdr, sizeof(hdr));
	if (err) {
		*why = err == -EINVAL ? "shorter than its header" : NULL;
		goto out;
	}

	err = -EINVAL;
	if (memcmp(hdr, SOFTMAX_DATA_MAGIC, 8)) {
		*why = "not a RackWeave digits file (bad magic)";
		goto out;
	}
	if (softmax_le32(hdr + 8) != SOFTMAX_DATA_VERSION) {
		*why = "unknown format version";
		goto out;
	}
	nd.n = softmax_le32(hdr + 12);
	if (softmax_le32(hdr + 16) != SOFTMAX_INPUTS ||
	    softmax_le32(hdr + 20) != SOFTMAX_CLASSES) {
		*why = "not 64 features and 10 classes";
		goto out;
	}
	if (!nd.n || (uint64_t)st.st_size != SOFTMAX_DATA_HEADER +
	    (uint64_t)nd.n * (SOFTMAX_INPUTS * sizeof(float) + 1)) {
		*why = "size does not match the sample count";
		goto out;
	}

	nd.x = malloc((size_t)nd.n * SOFTMAX_INPUTS * sizeof(float));
	nd.y = malloc(nd.n);
	err = -ENOMEM;
	if (!nd.x || !nd.y)
		goto out;
	err = softmax_read_all(fd, nd.x, (size_t)nd.n * SOFTMAX_INPUTS * sizeof(float));
	if (!err)
		err = softmax_read_all(fd, nd.y, nd.n);
	if (err)
		goto out;
	err = -EINVAL;
	for (i = 0; i < nd.n; i++) {
		if (nd.y[i] >= SOFTMAX_CLASSES) {
			*why = "a label is not 0..9";
			goto out;
		}
	}
	for (i = 0; i < nd.n * SOFTMAX_INPUTS; i++) {
		if (!(nd.x[i] >= 0.0f && nd.x[i] <= 1.0f)) {
			*why = "a feature is outside [0, 1]";
			goto out;
		}
	}
	*d = nd;
	nd.x = NULL;
	nd.y = NULL;
	err = 0;
out:
	free(nd.x);
	free(nd.y);
	close(fd);
	return err;
}

void softmax_data_free(struct softmax_data *d)
{
	free(d->x);
	free(d->y);
	memset(d, 0, sizeof(*d));
}

void softmax_params_init(float *w, float *b, uint64_t seed)
{
	uint64_t x = seed ^ 0x9e3779b97f4a7c15ULL;
	uint32_t i;

	for (i = 0; i < SOFTMAX_NW; i++) {
		/* splitmix64; 24 bits, an exact float in [0, 1). */
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		w[i] = ((float)(z >> 40) * 0x1.0p-24f - 0.5f) * 0.1f;
	}
	for (i = 0; i < SOFTMAX_NB; i++)
		b[i] = 0.0f;
}

int softmax_params_write(const char *path, const float *w, const float *b)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -errno;
	if (fwrite(w, sizeof(*w), SOFTMAX_NW, f) != SOFTMAX_NW ||
	    fwrite(b, sizeof(*b), SOFTMAX_NB, f) != SOFTMAX_NB)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * e^x for x <= 0 (a softmax subtracts the maximum first), without libm:
 * libm may pick a different code path per CPU, and the trainer and the
 * reference may not run on the same one. x = k ln2 + r with 0 <= r < ln2,
 * e^r by its Taylor series to the 12th power in double (error below
 * 1e-13, far under a float's ulp), then 2^k put in the exponent bits.
 */
static float softmax_exp(float x)
{
	const double ln2 = 0.69314718055994530942;
	double t, r, p, scale;
	union { double d; uint64_t u; } two_k;
	int k, i;

	if (x < -87.0f)		/* below FLT_MIN: the result rounds to 0 */
		return 0.0f;
	t = (double)x / ln2;
	k = (int)t;
	if ((double)k > t)
		k--;
	r = (double)x - (double)k * ln2;
	p = 1.0;
	for (i = 12; i >= 1; i--)
		p = 1.0 + p * r / (double)i;
	two_k.u = (uint64_t)(k + 1023) << 52;
	scale = two_k.d;
	return (float)(p * scale);
}

/* z = W x + b, then the softmax of z in place; returns log sum exp(z - max). */
static float softmax_logits(const float *w, const float *b, const float *x,
			    float z[SOFTMAX_CLASSES], float *zmax)
{
	float m, s, acc;
	int k, j;

	for (k = 0; k < SOFTMAX_CLASSES; k++) {
		acc = b[k];
		for (j = 0; j < SOFTMAX_INPUTS; j++)
			acc += w[k * SOFTMAX_INPUTS + j] * x[j];
		z[k] = acc;
	}
	m = z[0];
	for (k = 1; k < SOFTMAX_CLASSES; k++)
		if (z[k] > m)
			m = z[k];
	*zmax = m;
	s = 0.0f;
	for (k = 0; k < SOFTMAX_CLASSES; k++)
		s += softmax_exp(z[k] - m);
	return s;
}

void softmax_forward(const float *w, const float *b, const float *x,
		     float p[SOFTMAX_CLASSES])
{
	float z[SOFTMAX_CLASSES], m, s;
	int k;

	s = softmax_logits(w, b, x, z, &m);
	for (k = 0; k < SOFTMAX_CLASSES; k++)
		p[k] = softmax_exp(z[k] - m) / s;
}

/* Only for reporting: the gradient never depends on libm's log. */
double softmax_loss(const float *w, const float *b,
		    const struct softmax_data *d, uint32_t first, uint32_t n)
{
	float z[SOFTMAX_CLASSES], m, s;
	double sum = 0.0;
	uint32_t i;

	for (i = first; i < first + n; i++) {
		s = softmax_logits(w, b, d->x + (size_t)i * SOFTMAX_INPUTS, z, &m);
		sum += log((double)s) - (double)(z[d->y[i]] - m);
	}
	return sum / n;
}

double softmax_accuracy(const float *w, const float *b,
			const struct softmax_data *d, uint32_t first,
			uint32_t n)
{
	float p[SOFTMAX_CLASSES];
	uint32_t i, right = 0;
	int k, best;

	for (i = first; i < first + n; i++) {
		softmax_forward(w, b, d->x + (size_t)i * SOFTMAX_INPUTS, p);
		best = 0;
		for (k = 1; k < SOFTMAX_CLASSES; k++)
			if (p[k] > p[best])
				best = k;
		right += best == d->y[i];
	}
	return (double)right / n;
}

void softmax_grad(const float *w, const float *b,
		  const struct softmax_data *d, uint32_t first, uint32_t n,
		  float *gw, float *gb)
{
	float p[SOFTMAX_CLASSES], dz;
	const float *x;
	uint32_t i;
	int k, j;

	memset(gw, 0, SOFTMAX_NW * sizeof(float));
	memset(gb, 0, SOFTMAX_NB * sizeof(float));
	for (i = first; i < first + n; i++) {
		x = d->x + (size_t)i * SOFTMAX_INPUTS;
		softmax_forward(w, b, x, p);
		for (k = 0; k < SOFTMAX_CLASSES; k++) {
			dz = p[k] - (k == d->y[i] ? 1.0f : 0.0f);
			for (j = 0; j < SOFTMAX_INPUTS; j++)
				gw[k * SOFTMAX_INPUTS + j] += dz * x[j];
			gb[k] += dz;
		}
	}
	for (j = 0; j < SOFTMAX_NW; j++)
		gw[j] = gw[j] / (float)n;
	for (k = 0; k < SOFTMAX_NB; k++)
		gb[k] = gb[k] / (float)n;
}

int softmax_plan_init(struct softmax_plan *p, uint32_t nsamples,
		      uint32_t batch, uint32_t workers)
{
	if (!workers || !batch || batch % workers || batch > nsamples)
		return -EINVAL;
	p->batch = batch;
	p->workers = workers;
	p->shard = batch / workers;
	p->steps_per_epoch = nsamples / batch;
	return 0;
}

uint32_t softmax_shard_first(const struct softmax_plan *p, uint64_t step,
			     uint32_t rank)
{
	return (uint32_t)(step % p->steps_per_epoch) * p->batch +
	       rank * p->shard;
}

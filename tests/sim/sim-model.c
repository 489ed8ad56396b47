// SPDX-License-Identifier: GPL-2.0
/*
 * The model the simulated workers train: multinomial logistic (softmax)
 * regression on scikit-learn's digits (1797 8x8 images, pixel values
 * 0..16, 10 classes), which scripts/sim-staleness exports once to
 * build/sim/digits.csv: one line per sample, the label then 64 pixels.
 * Features are pixel / 16 plus a constant 1 (the bias), so the model has
 * 65 x 10 parameters. Convex, so any stale schedule converges for a small
 * enough step; with the step fixed, staleness shows as slower progress.
 *
 * Data parallelism: a seeded permutation of the samples is cut into W
 * contiguous shards, one per worker; worker p's k-th minibatch draws
 * batch samples of its shard, with replacement, from (seed, p, k).
 *
 * The update is plain SGD (rw_sim_step); sim-run.c decides what it is
 * given and how it is scaled, as the engine does: a synchronous round
 * steps once on the sum of its gradients scaled by 1/(number summed), an
 * asynchronous push steps on its gradient alone scaled by 1/W.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

#define RW_SIM_F	64
#define RW_SIM_C	10
#define RW_SIM_MAX_N	4096

int rw_sim_data_load(struct rw_sim_data *d, const char *path)
{
	FILE *f = fopen(path, "r");
	u32 i, j;
	int v;

	memset(d, 0, sizeof(*d));
	if (!f)
		return -errno;
	d->f = RW_SIM_F;
	d->c = RW_SIM_C;
	d->x = calloc((size_t)RW_SIM_MAX_N * (RW_SIM_F + 1), sizeof(double));
	d->y = calloc(RW_SIM_MAX_N, 1);
	if (!d->x || !d->y)
		goto bad;
	for (i = 0; i < RW_SIM_MAX_N && fscanf(f, "%d", &v) == 1; i++) {
		if (v < 0 || v >= RW_SIM_C)
			goto bad;
		d->y[i] = (u8)v;
		for (j = 0; j < RW_SIM_F; j++) {
			if (fscanf(f, " ,%d", &v) != 1 || v < 0 || v > 16)
				goto bad;
			d->x[i * (RW_SIM_F + 1) + j] = v / 16.0;
		}
		d->x[i * (RW_SIM_F + 1) + RW_SIM_F] = 1.0;
	}
	if (!feof(f) && fscanf(f, " %*s") != EOF)
		goto bad;
	fclose(f);
	d->n = i;
	return d->n >= 100 ? 0 : -EINVAL;
bad:
	fclose(f);
	rw_sim_data_free(d);
	return -EINVAL;
}

void rw_sim_data_free(struct rw_sim_data *d)
{
	free(d->x);
	free(d->y);
	memset(d, 0, sizeof(*d));
}

void rw_sim_shuffle(const struct rw_sim_data *d, u64 seed, u32 *order)
{
	u32 i, j, t;

	for (i = 0; i < d->n; i++)
		order[i] = i;
	for (i = d->n - 1; i > 0; i--) {
		j = (u32)(rw_sim_hash(seed, i, 0, 77) % (i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

void rw_sim_shard(const struct rw_sim_data *d, u32 workers, u32 p,
		  u32 *first, u32 *len)
{
	*first = (u32)((u64)d->n * p / workers);
	*len = (u32)((u64)d->n * (p + 1) / workers) - *first;
}

u32 rw_sim_model_size(const struct rw_sim_data *d)
{
	return (d->f + 1) * d->c;
}

void rw_sim_step(const struct rw_sim_data *d, double *w, const double *g,
		 double scale)
{
	u32 i, n = rw_sim_model_size(d);

	for (i = 0; i < n; i++)
		w[i] -= scale * g[i];
}

/* Logits of sample @i under @w into @z; returns their log-sum-exp. */
static double rw_sim_logits(const struct rw_sim_data *d, const double *w,
			    u32 i, double *z)
{
	const double *x = d->x + (size_t)i * (d->f + 1);
	double top = -INFINITY, sum = 0;
	u32 j, c;

	for (c = 0; c < d->c; c++)
		z[c] = 0;
	for (j = 0; j <= d->f; j++) {
		if (x[j] == 0)
			continue;
		for (c = 0; c < d->c; c++)
			z[c] += x[j] * w[j * d->c + c];
	}
	for (c = 0; c < d->c; c++)
		top = fmax(top, z[c]);
	for (c = 0; c < d->c; c++)
		sum += exp(z[c] - top);
	return top + log(sum);
}

double rw_sim_loss(const struct rw_sim_data *d, const double *w)
{
	double z[RW_SIM_C], total = 0;
	u32 i;

	for (i = 0; i < d->n; i++)
		total += rw_sim_logits(d, w, i, z) - z[d->y[i]];
	return total / d->n;
}

void rw_sim_grad(const struct rw_sim_data *d, const double *w,
		 const u32 *idx, u32 b, double *g, double *scratch)
{
	const u32 fc = d->f + 1;
	double *pr = scratch;
	u32 k, j, c;

	memset(g, 0, sizeof(*g) * fc * d->c);
	for (k = 0; k < b; k++) {
		const double *x = d->x + (size_t)idx[k] * fc;

		double lse = rw_sim_logits(d, w, idx[k], pr);

		for (c = 0; c < d->c; c++)
			pr[c] = exp(pr[c] - lse);
		pr[d->y[idx[k]]] -= 1.0;
		for (j = 0; j < fc; j++) {
			if (x[j] == 0)
				continue;
			for (c = 0; c < d->c; c++)
				g[j * d->c + c] += x[j] * pr[c] / b;
		}
	}
}

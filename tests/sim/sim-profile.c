// SPDX-License-Identifier: GPL-2.0
/*
 * Iteration times of simulated workers, by profile. Base time T
 * (base_ns), every iteration jittered uniformly by +-10%; then:
 *
 *   homogeneous    nothing else
 *   heterogeneous  workers W/2..W-1 take 2.5 T (the source document's
 *                  mixed GTX 1060 / 1080 Ti cluster, 2.5x apart)
 *   bursty         each iteration of every worker is 5x slower with
 *                  probability 1/20 (a transient stall: GC, a noisy
 *                  neighbour, a retransmit), independently
 *   degrading      worker W-1 slows down from a quarter of its run: its
 *                  factor ramps linearly from 1 at iteration N/4 to 4 at
 *                  N/2 and stays there (thermal throttling, a failing
 *                  disk, a co-tenant that arrives)
 *   dying          worker W-1 stops in its iteration N/3: it never pushes
 *                  or heartbeats again, and the gate's timeout evicts it
 *
 * Times depend only on (seed, worker, iteration): every policy is run on
 * the very same workers.
 */
#include "sim.h"

const char *const rw_sim_profile_names[RW_SIM_PROFILES] = {
	"homogeneous", "heterogeneous", "bursty", "degrading", "dying",
};

/* splitmix64 over the mixed inputs. */
u64 rw_sim_hash(u64 seed, u64 a, u64 b, u64 c)
{
	u64 z = seed * 0x9E3779B97F4A7C15ULL ^ a * 0xD1B54A32D192ED03ULL ^
		b * 0xABC98388FB8FAC03ULL ^ c * 0x8CB92BA72F3D8DD7ULL;

	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) from (seed, p, k, salt). */
static double rw_sim_unif(const struct rw_sim_params *sp, u32 p, u32 k,
			  u32 salt)
{
	return (double)(rw_sim_hash(sp->seed, p, k, salt) >> 11) /
	       (double)(1ULL << 53);
}

u64 rw_sim_iter_ns(u32 profile, const struct rw_sim_params *sp, u32 p, u32 k)
{
	double f = 1.0 + 0.2 * (rw_sim_unif(sp, p, k, 1) - 0.5);
	u32 n = sp->iters, last = sp->workers - 1;

	switch (profile) {
	case RW_SIM_HETEROGENEOUS:
		if (p >= sp->workers / 2)
			f *= 2.5;
		break;
	case RW_SIM_BURSTY:
		if (rw_sim_unif(sp, p, k, 2) < 0.05)
			f *= 5.0;
		break;
	case RW_SIM_DEGRADING:
		if (p == last && k >= n / 2)
			f *= 4.0;
		else if (p == last && k > n / 4)
			f *= 1.0 + 3.0 * (double)(k - n / 4) / (double)(n / 2 - n / 4);
		break;
	default:
		break;
	}
	return (u64)(f * (double)sp->base_ns);
}

u32 rw_sim_dies_at(u32 profile, const struct rw_sim_params *sp, u32 p)
{
	if (profile == RW_SIM_DYING && p == sp->workers - 1)
		return sp->iters / 3;
	return U32_MAX;
}

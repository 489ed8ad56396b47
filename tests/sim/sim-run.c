// SPDX-License-Identifier: GPL-2.0
/*
 * One simulated run: W workers, a parameter server and the gate, in
 * simulated time, driven by a heap of timed events.
 *
 * A worker loops: request (rw_gate_request; if parked, it waits for
 * rw_gate_release) -> pull the server's current parameters -> compute for
 * its iteration time -> push a gradient computed on the parameters it
 * pulled. The server checks the push with rw_gate_push (a refused push is
 * dropped) and applies it at once with the same fixed step for every
 * policy (SSP-style parameter server: one update per push, no barrier
 * averaging). The staleness of an applied gradient is the number of
 * updates the server applied between its pull and its push.
 *
 * Live workers heartbeat every hb_ns, also while computing or parked; a
 * timer calls rw_gate_expire every timeout / 4, as kmod/sync/sync.c does.
 * A dead worker falls silent, so only the timeout removes it. A worker
 * that completes its iterations leaves (rw_gate_evict): it no longer
 * holds the others back and is no longer a candidate for slowest.
 *
 * The training loss of the server's parameters is evaluated over the whole
 * data set on a grid of eval_ns; time to target is interpolated linearly
 * between the two grid points around the crossing. Simultaneous events
 * run in the order they were scheduled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

enum { EV_PUSH, EV_HB, EV_EXPIRE, EV_EVAL };

struct rw_sim_ev {
	u64 t, seq;
	u32 type, p;
};

struct rw_sim_worker {
	double *w;		/* parameters it pulled */
	u64 version;		/* server version it pulled */
	u64 end;		/* ns: finished, died or was evicted */
	u32 k;			/* iterations pushed */
	u32 epoch;
	bool dead, done, parked;
};

struct rw_sim_state {
	const struct rw_sim_params *sp;
	const struct rw_sim_data *d;
	u32 profile;
	struct rw_gate g;
	struct rw_gate_worker gw[RW_SIM_MAX_W];
	u64 ts[RW_SIM_MAX_W * RW_GATE_DEFAULT_WINDOW];
	struct rw_sim_worker wk[RW_SIM_MAX_W];
	double *server, *grad, scratch[16];
	u64 version, seq;
	u32 *idx, *order;
	struct rw_sim_ev *heap;
	u32 nr_ev, cap_ev;
	u32 active;		/* workers neither done nor gone */
	double prev_loss;
	struct rw_sim_result *res;
};

static void rw_sim_ev_add(struct rw_sim_state *s, u64 t, u32 type, u32 p)
{
	struct rw_sim_ev e = { t, s->seq++, type, p };
	u32 i;

	if (s->nr_ev == s->cap_ev) {
		s->cap_ev = s->cap_ev ? 2 * s->cap_ev : 256;
		s->heap = realloc(s->heap, s->cap_ev * sizeof(*s->heap));
		if (!s->heap)
			abort();
	}
	for (i = s->nr_ev++; i; i = (i - 1) / 2) {
		struct rw_sim_ev *up = &s->heap[(i - 1) / 2];

		if (up->t < e.t || (up->t == e.t && up->seq < e.seq))
			break;
		s->heap[i] = *up;
	}
	s->heap[i] = e;
}

static bool rw_sim_ev_before(const struct rw_sim_ev *a, const struct rw_sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct rw_sim_ev rw_sim_ev_pop(struct rw_sim_state *s)
{
	struct rw_sim_ev top = s->heap[0], last = s->heap[--s->nr_ev];
	u32 i = 0, c;

	while ((c = 2 * i + 1) < s->nr_ev) {
		if (c + 1 < s->nr_ev && rw_sim_ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!rw_sim_ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return top;
}

/* Worker @p was admitted at @t: pull, then compute (or die). */
static void rw_sim_start(struct rw_sim_state *s, u32 p, u64 t)
{
	struct rw_sim_worker *w = &s->wk[p];
	u32 n = rw_sim_model_size(s->d);

	w->parked = false;
	memcpy(w->w, s->server, n * sizeof(double));
	w->version = s->version;
	if (w->k == rw_sim_dies_at(s->profile, s->sp, p)) {
		w->dead = true;
		w->end = t;
		return;
	}
	rw_sim_ev_add(s, t + rw_sim_iter_ns(s->profile, s->sp, p, w->k),
		      EV_PUSH, p);
}

static void rw_sim_release(struct rw_sim_state *s, u64 t)
{
	u32 out[RW_SIM_MAX_W], n, i;

	n = rw_gate_release(&s->g, t, out, RW_SIM_MAX_W);
	for (i = 0; i < n; i++)
		rw_sim_start(s, out[i], t);
}

static void rw_sim_request(struct rw_sim_state *s, u32 p, u64 t)
{
	int ret = rw_gate_request(&s->g, p, s->wk[p].epoch, t);

	if (ret == RW_GATE_ADMIT)
		rw_sim_start(s, p, t);
	else if (ret == RW_GATE_PARK)
		s->wk[p].parked = true;
	else
		s->res->gate_errors++;
}

/* A worker leaves the job at @t (finished, or evicted). */
static void rw_sim_leave(struct rw_sim_state *s, u32 p, u64 t)
{
	s->wk[p].end = t;
	s->active--;
}

static void rw_sim_push(struct rw_sim_state *s, u32 p, u64 t)
{
	struct rw_sim_worker *w = &s->wk[p];
	u32 n = rw_sim_model_size(s->d), first, len, i;
	u64 stale, bin;
	bool adv = false;

	if (rw_gate_push(&s->g, p, w->epoch, t, &adv)) {
		s->res->gate_errors++;
		return;
	}
	rw_sim_shard(s->d, s->sp->workers, p, &first, &len);
	for (i = 0; i < s->sp->batch; i++)
		s->idx[i] = s->order[first +
			rw_sim_hash(s->sp->seed, p, w->k, 1000 + i) % len];
	rw_sim_grad(s->d, w->w, s->idx, s->sp->batch, s->grad, s->scratch);
	for (i = 0; i < n; i++)
		s->server[i] -= s->sp->lr * s->grad[i];
	stale = s->version - w->version;
	for (bin = 0; bin + 1 < RW_SIM_HIST && stale >= (1ULL << bin); bin++)
		;
	s->res->hist[bin]++;
	s->res->stale_mean += (double)stale;
	s->res->applied++;
	s->version++;
	w->k++;
	if (w->k == s->sp->iters) {
		w->done = true;
		rw_gate_evict(&s->g, p, t);
		rw_sim_leave(s, p, t);
		adv = true;
	}
	if (adv)
		rw_sim_release(s, t);
	if (!w->done)
		rw_sim_request(s, p, t);
}

static void rw_sim_expire(struct rw_sim_state *s, u64 t)
{
	u32 out[RW_SIM_MAX_W], n, i;

	n = rw_gate_expire(&s->g, t, out, RW_SIM_MAX_W);
	for (i = 0; i < n; i++) {
		struct rw_sim_worker *w = &s->wk[out[i]];

		s->res->evicted++;
		if (w->dead) {
			rw_sim_leave(s, out[i], w->end);
			continue;
		}
		/* A live worker evicted by mistake: it rejoins and goes on. */
		rw_gate_join(&s->g, out[i], t, &w->epoch);
		rw_sim_request(s, out[i], t);
	}
	if (n)
		rw_sim_release(s, t);
}

static void rw_sim_eval(struct rw_sim_state *s, u64 t)
{
	struct rw_sim_result *r = s->res;
	double loss = rw_sim_loss(s->d, s->server);

	r->curve = realloc(r->curve, (r->curve_len + 1) * sizeof(double));
	if (!r->curve)
		abort();
	r->curve[r->curve_len++] = loss;
	if (r->time_to_target < 0 && loss <= s->sp->target) {
		double t1 = (double)t / RW_SIM_NS, dt = (double)s->sp->eval_ns / RW_SIM_NS;

		r->time_to_target = t1;
		if (r->curve_len > 1 && s->prev_loss > loss)
			r->time_to_target = t1 - dt * (s->sp->target - loss) /
						(s->prev_loss - loss);
	}
	s->prev_loss = loss;
}

static int rw_sim_loop(struct rw_sim_state *s)
{
	u64 guard = 0;

	while (s->active && s->nr_ev && guard++ < 100000000ULL) {
		struct rw_sim_ev e = rw_sim_ev_pop(s);
		struct rw_sim_worker *w = &s->wk[e.p];

		switch (e.type) {
		case EV_PUSH:
			rw_sim_push(s, e.p, e.t);
			break;
		case EV_HB:
			if (w->dead || w->done)
				break;
			if (rw_gate_heartbeat(&s->g, e.p, w->epoch, e.t))
				s->res->gate_errors++;
			rw_sim_ev_add(s, e.t + s->sp->hb_ns, EV_HB, e.p);
			break;
		case EV_EXPIRE:
			rw_sim_expire(s, e.t);
			rw_sim_ev_add(s, e.t + s->sp->timeout_ns / 4, EV_EXPIRE, 0);
			break;
		case EV_EVAL:
			rw_sim_eval(s, e.t);
			rw_sim_ev_add(s, e.t + s->sp->eval_ns, EV_EVAL, 0);
			break;
		}
		if (rw_gate_check(&s->g))
			s->res->gate_errors++;
	}
	return s->active ? -EDEADLK : 0;
}

int rw_sim_run(u32 profile, const struct rw_sim_policy *pol,
	       const struct rw_sim_params *sp, const struct rw_sim_data *d,
	       struct rw_sim_result *res)
{
	struct rw_gate_config cfg = {
		.policy = pol->policy, .nr_workers = sp->workers, .s = pol->s,
		.s_lo = pol->lo, .s_hi = pol->hi,
		.evict_timeout_ns = sp->timeout_ns,
	};
	struct rw_sim_state *s = calloc(1, sizeof(*s));
	u32 n = rw_sim_model_size(d), p;
	double work = 0, parked = 0;
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	res->time_to_target = -1;
	if (!s)
		return ret;
	s->sp = sp;
	s->d = d;
	s->profile = profile;
	s->res = res;
	s->server = calloc(n, sizeof(double));
	s->grad = calloc(n, sizeof(double));
	s->idx = calloc(sp->batch, sizeof(u32));
	s->order = calloc(d->n, sizeof(u32));
	if (!s->server || !s->grad || !s->idx || !s->order)
		goto out;
	rw_sim_shuffle(d, sp->seed, s->order);
	ret = -EINVAL;
	if (sp->workers > RW_SIM_MAX_W ||
	    rw_gate_init(&s->g, &cfg, s->gw, s->ts, 0))
		goto out;
	s->active = sp->workers;
	for (p = 0; p < sp->workers; p++) {
		s->wk[p].w = calloc(n, sizeof(double));
		if (!s->wk[p].w)
			abort();
		rw_sim_ev_add(s, sp->hb_ns, EV_HB, p);
	}
	rw_sim_ev_add(s, 0, EV_EVAL, 0);
	rw_sim_ev_add(s, sp->timeout_ns / 4, EV_EXPIRE, 0);
	for (p = 0; p < sp->workers; p++)
		rw_sim_request(s, p, 0);
	ret = rw_sim_loop(s);

	res->final_loss = rw_sim_loss(d, s->server);
	res->max_skew = s->g.max_skew;
	res->stale_mean = res->applied ? res->stale_mean / res->applied : 0;
	for (p = 0; p < sp->workers; p++) {
		bool meant = rw_sim_dies_at(profile, sp, p) == U32_MAX;

		res->granted += s->gw[p].stats.granted;
		res->expected += meant;
		res->finished += s->wk[p].done;
		if (!meant)
			continue;
		res->total_time = fmax(res->total_time,
				       (double)s->wk[p].end / RW_SIM_NS);
		work += (double)s->wk[p].end;
		parked += (double)s->gw[p].stats.parked_ns;
	}
	res->wait_fraction = work > 0 ? parked / work : 0;
	res->iters_per_sec = res->total_time > 0 ? res->applied / res->total_time : 0;
out:
	for (p = 0; p < RW_SIM_MAX_W; p++)
		free(s->wk[p].w);
	free(s->server);
	free(s->grad);
	free(s->idx);
	free(s->order);
	free(s->heap);
	free(s);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * One simulated run: W workers, a parameter server and the gate, in
 * simulated time, driven by a heap of timed events.
 *
 * A worker loops: request (rw_gate_request; if parked, it waits for
 * rw_gate_release) -> pull the server's current parameters -> compute for
 * its iteration time -> push a gradient computed on the parameters it
 * pulled. The server checks the push with rw_gate_push (a refused push is
 * dropped), holds the gradient tagged with the iteration it belongs to
 * (the worker's gate clock at admission) and asks kmod/sync/round.c, the
 * engine's own step rule for a chunk, what to do; the model is one chunk.
 *
 *   BSP       one averaged step per round: the sum of the round's
 *             gradients, in rank order, scaled by 1/(number summed). The
 *             round needs every member's gradient; a member evicted by
 *             the liveness path stops being waited for, and its gradient
 *             is never summed.
 *   bspq<K>   BSP with backup workers (gate quorum K): a worker may start
 *             iteration i + 1 once K workers have finished iteration i,
 *             and round i takes the first K gradients of iteration i to
 *             arrive (min(K, members) after an eviction). A later gradient
 *             of that iteration is dropped and counted; its worker skips
 *             ahead to the current iteration at its next request (the gate
 *             does it) and pulls the fresh parameters.
 *   ASP, SSP, adaptive   a step per push, the gradient alone scaled by
 *             1/W (the engine's asynchronous SGD).
 *
 * The staleness of an applied gradient is the number of steps the server
 * took between its pull and the step that applies it (0 for every BSP
 * gradient: rounds are the only steps).
 *
 * Live workers heartbeat every hb_ns, also while computing or parked; a
 * timer calls rw_gate_expire every timeout / 4, as kmod/sync/sync.c does.
 * A dead worker falls silent, so only the timeout removes it (from the
 * gate and from the round's members). Under ASP, SSP and adaptive a
 * worker that completes its iterations leaves the gate (rw_gate_evict):
 * it no longer holds the others back and is no longer a candidate for
 * slowest. A synchronous job ends when its last round steps: a worker
 * that has pushed its last gradient waits for that step (counted as
 * waiting, as it would be parked), and then every live worker leaves at
 * once, a backup worker still computing a gradient that could only be
 * late included. Leaving one by one would shrink the live workers below
 * the quorum while a straggler is still behind, which turns the backup
 * workers off in the gate (rw_gate_check then sees a spread above 1).
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
#include "sync/round.h"

enum { EV_PUSH, EV_HB, EV_EXPIRE, EV_EVAL };

struct rw_sim_ev {
	u64 t, seq;
	u32 type, p;
};

struct rw_sim_worker {
	double *w;		/* parameters it pulled */
	u64 version;		/* server version it pulled */
	u64 end;		/* ns: finished, died or was evicted */
	u64 last_push;		/* ns: waiting for the job's last round since */
	u32 k;			/* its gate clock: the iteration it is at */
	u32 epoch;
	bool dead, done, parked;
	bool last;		/* synchronous: pushed its last iteration */
	bool evicted;		/* by the liveness path, not rejoined */
};

struct rw_sim_state {
	const struct rw_sim_params *sp;
	const struct rw_sim_data *d;
	u32 profile;
	struct rw_gate g;
	struct rw_gate_worker gw[RW_SIM_MAX_W];
	u64 ts[RW_SIM_MAX_W * RW_GATE_DEFAULT_WINDOW];
	struct rw_sim_worker wk[RW_SIM_MAX_W];
	/* The server: one chunk's round state and a gradient slot per rank. */
	struct rw_round_view view;
	struct rw_round round;
	struct rw_round_tag tags[RW_SIM_MAX_W];
	u64 slot_version[RW_SIM_MAX_W];	/* server version its pusher pulled */
	double *slots;			/* W gradients */
	bool sync;			/* BSP: rounds, not a step per push */
	u64 end_wait;			/* ns waited for the last round */
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
	/* With backup workers the gate may have skipped it ahead. */
	w->k = (u32)s->g.w[p].clock;
	memcpy(w->w, s->server, n * sizeof(double));
	w->version = s->version;
	if (w->k >= rw_sim_dies_at(s->profile, s->sp, p)) {
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

/* Gradient of rank @p in a step: staleness and the evicted check. */
static void rw_sim_account(struct rw_sim_state *s, u32 p)
{
	u64 stale = s->version - s->slot_version[p], bin;

	for (bin = 0; bin + 1 < RW_SIM_HIST && stale >= (1ULL << bin); bin++)
		;
	s->res->hist[bin]++;
	s->res->stale_mean += (double)stale;
	s->res->applied++;
	if (s->wk[p].evicted)
		s->res->evicted_summed++;
}

/* One step on the ranks in @o: alone (scaled 1/W) or a round's sum. */
static void rw_sim_apply(struct rw_sim_state *s, const struct rw_round_out *o)
{
	u32 n = rw_sim_model_size(s->d), p, i;
	const double *g = s->slots + (size_t)o->rank * n;
	double scale = s->sp->lr / s->sp->workers;

	if (o->act == RW_ROUND_ONE) {
		rw_sim_account(s, o->rank);
	} else {
		memset(s->grad, 0, n * sizeof(double));
		for (p = 0; p < s->sp->workers; p++) {
			if (!rw_round_test(o->sum, p))
				continue;
			for (i = 0; i < n; i++)
				s->grad[i] += s->slots[(size_t)p * n + i];
			rw_sim_account(s, p);
		}
		g = s->grad;
		scale = s->sp->lr / o->nsum;
		s->res->rounds++;
	}
	rw_sim_step(s->d, s->server, g, scale);
	s->res->updates++;
	s->version++;
}

/* Do what the held gradients call for, as the engine's chunk owner does. */
static void rw_sim_settle(struct rw_sim_state *s)
{
	struct rw_round_out o;

	do {
		rw_round_decide(&s->view, &s->round, s->tags, &o);
		switch (o.act) {
		case RW_ROUND_LATE:
		case RW_ROUND_DROP:
			s->res->dropped++;
			break;
		case RW_ROUND_ONE:
		case RW_ROUND_STEP:
			rw_sim_apply(s, &o);
			break;
		}
		rw_round_apply(&s->round, &o);
	} while (o.act != RW_ROUND_WAIT);
}

/* A synchronous job whose last round has stepped ends: everyone leaves. */
static void rw_sim_end(struct rw_sim_state *s, u64 t)
{
	u32 p;

	if (!s->sync || s->round.iter < s->sp->iters)
		return;
	for (p = 0; p < s->sp->workers; p++) {
		struct rw_sim_worker *w = &s->wk[p];

		if (w->dead || w->done || !s->g.w[p].live)
			continue;
		if (w->last)
			s->end_wait += t - w->last_push;
		w->done = true;
		rw_gate_evict(&s->g, p, t);
		rw_sim_leave(s, p, t);
	}
}

static void rw_sim_push(struct rw_sim_state *s, u32 p, u64 t)
{
	struct rw_sim_worker *w = &s->wk[p];
	u32 n = rw_sim_model_size(s->d), first, len, i;
	bool adv = false;

	if (rw_gate_push(&s->g, p, w->epoch, t, &adv)) {
		s->res->gate_errors++;
		return;
	}
	rw_sim_shard(s->d, s->sp->workers, p, &first, &len);
	for (i = 0; i < s->sp->batch; i++)
		s->idx[i] = s->order[first +
			rw_sim_hash(s->sp->seed, p, w->k, 1000 + i) % len];
	rw_sim_grad(s->d, w->w, s->idx, s->sp->batch,
		    s->slots + (size_t)p * n, s->scratch);
	s->slot_version[p] = w->version;
	s->tags[p] = (struct rw_round_tag){ .iter = w->k, .gen = w->epoch + 1 };
	if (rw_round_hold(&s->round, s->sp->workers, p))
		s->res->round_errors++;
	/* The step comes first: whoever the gate lets go pulls its result. */
	rw_sim_settle(s);
	w->k = (u32)s->g.w[p].clock;
	if (w->k >= s->sp->iters && s->sync) {
		w->last = true;
		w->last_push = t;
	} else if (w->k >= s->sp->iters) {
		w->done = true;
		rw_gate_evict(&s->g, p, t);
		rw_sim_leave(s, p, t);
		adv = true;
	}
	rw_sim_end(s, t);
	if (adv)
		rw_sim_release(s, t);
	if (!w->done && !w->last)
		rw_sim_request(s, p, t);
}

/*
 * Silent workers leave the gate and the rounds' members; a round that was
 * waiting for them steps before anyone is released into the next one.
 */
static void rw_sim_expire(struct rw_sim_state *s, u64 t)
{
	u32 out[RW_SIM_MAX_W], n, i;

	n = rw_gate_expire(&s->g, t, out, RW_SIM_MAX_W);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		s->res->evicted++;
		s->wk[out[i]].evicted = true;
		rw_round_view_member(&s->view, out[i], 0, 0);
	}
	rw_sim_settle(s);
	rw_sim_end(s, t);
	for (i = 0; i < n; i++) {
		struct rw_sim_worker *w = &s->wk[out[i]];

		if (w->dead) {
			rw_sim_leave(s, out[i], w->end);
			continue;
		}
		if (s->sync && s->round.iter >= s->sp->iters) {
			w->done = true;		/* the job is over */
			rw_sim_leave(s, out[i], t);
			continue;
		}
		/* A live worker evicted by mistake: it rejoins and goes on. */
		rw_gate_join(&s->g, out[i], t, &w->epoch);
		w->evicted = false;
		rw_round_view_member(&s->view, out[i], w->epoch + 1,
				     s->g.w[out[i]].clock);
		rw_sim_request(s, out[i], t);
	}
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

/*
 * Until every worker has left; -EDEADLK if the job is stuck (say, a round
 * waiting for a member that will never push): past 20 times a normal
 * run's length, several times the slowest profile's.
 */
static int rw_sim_loop(struct rw_sim_state *s)
{
	const u64 deadline = 20ULL * s->sp->iters * s->sp->base_ns;
	u64 guard = 0;

	while (s->active && s->nr_ev && guard++ < 100000000ULL) {
		struct rw_sim_ev e = rw_sim_ev_pop(s);
		struct rw_sim_worker *w = &s->wk[e.p];

		if (e.t > deadline)
			break;

		switch (e.type) {
		case EV_PUSH:
			if (!w->done)	/* not stopped by the job's end */
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
		.s_lo = pol->lo, .s_hi = pol->hi, .quorum = pol->quorum,
		.evict_timeout_ns = sp->timeout_ns,
	};
	struct rw_round_rule rule = {
		.quorum = pol->quorum, .each = pol->policy != RW_GATE_BSP,
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
	s->slots = calloc((size_t)RW_SIM_MAX_W * n, sizeof(double));
	if (!s->server || !s->grad || !s->idx || !s->order || !s->slots)
		goto out;
	rw_sim_shuffle(d, sp->seed, s->order);
	ret = -EINVAL;
	if (sp->workers > RW_SIM_MAX_W ||
	    rw_gate_init(&s->g, &cfg, s->gw, s->ts, 0) ||
	    rw_round_view_init(&s->view, sp->workers, &rule))
		goto out;
	s->sync = !rule.each;
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
	parked += (double)s->end_wait;
	res->wait_fraction = work > 0 ? parked / work : 0;
	res->iters_per_sec = res->total_time > 0 ? res->applied / res->total_time : 0;
out:
	for (p = 0; p < RW_SIM_MAX_W; p++)
		free(s->wk[p].w);
	free(s->slots);
	free(s->server);
	free(s->grad);
	free(s->idx);
	free(s->order);
	free(s->heap);
	free(s);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgload run: -j threads, each driving its share of the -c clients with the
 * libpq asynchronous API and one epoll set over their sockets.
 * All connections are made first (timed), then every thread starts at the
 * same moment, so "excluding connections" is exact and "including
 * connections" is what a short run (-t 10) really delivers.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pgload/client.h"
#include "pgload/lag_sampler.h"
#include "pgload/pgconn.h"
#include "pgload/servstat_pg.h"
#include "pgload/session.h"

/*
 * The start gate: each thread connects its clients, counts itself in and
 * waits for go; main waits until every thread is in, then opens the gate.
 * Unlike a barrier sized for every thread it can be called off (abort) when
 * a thread could not even be created, so the started ones end cleanly.
 */
struct run_shared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned connected;             /* lock */
	bool go, abort;                 /* lock */
	unsigned done;                  /* threads finished (atomic) */
};

/* A thread is connected; waits for the gate.  false: the run was called off. */
static bool gate_enter(struct run_shared *sh)
{
	bool go;

	pthread_mutex_lock(&sh->lock);
	sh->connected++;
	pthread_cond_broadcast(&sh->cond);
	while (!sh->go && !sh->abort)
		pthread_cond_wait(&sh->cond, &sh->lock);
	go = sh->go;
	pthread_mutex_unlock(&sh->lock);
	return go;
}

/* Main: until n threads are connected. */
static void gate_wait_connected(struct run_shared *sh, unsigned n)
{
	pthread_mutex_lock(&sh->lock);
	while (sh->connected < n)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
}

static void gate_open(struct run_shared *sh, bool go)
{
	pthread_mutex_lock(&sh->lock);
	if (go)
		sh->go = true;
	else
		sh->abort = true;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

struct thread_arg {
	struct pgl_thread th;
	struct run_shared *sh;
	uint64_t *bench_start_ns;       /* written by main between the barriers */
};

/*
 * Keep c's socket registered for what its state needs: readable while a
 * round is in flight (plus writable while libpq holds unsent data), nothing
 * otherwise.  The registration persists across waits, so the steady state
 * costs no epoll_ctl at all; ppoll() would re-arm every socket on every wait.
 */
static bool in_round(const struct pgl_client *c)
{
	return c->state == CS_BUSY || c->state == CS_ROLLBACK;
}

static int ep_sync(int ep, struct pgl_client *c, unsigned idx)
{
	uint32_t want = 0;
	struct epoll_event ev = { .data.u32 = idx };

	if (in_round(c))
		want = EPOLLIN | (c->want_write ? EPOLLOUT : 0);
	if (want == c->ep_events)
		return 0;
	ev.events = want;
	if (!want) {
		/* libpq may have closed a broken socket already: nothing to remove. */
		if (epoll_ctl(ep, EPOLL_CTL_DEL, c->sock, &ev) < 0 && errno != ENOENT &&
		    errno != EBADF)
			return -errno;
	} else if (epoll_ctl(ep, c->ep_events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->sock, &ev) < 0) {
		return -errno;
	}
	c->ep_events = want;
	return 0;
}

/*
 * Poll one socket for up to budget_ns without sleeping (spin.h says why).
 * True when there is something to read, or an end or error to take.
 * Each turn yields the CPU, so a spinning client never delays a server
 * process (WAL writer, autovacuum, a backend woken on this CPU) that is
 * ready to run here.
 */
static bool spin_readable(int sock, uint64_t budget_ns)
{
	uint64_t t0 = pgl_now_ns();
	char b;

	do {
		ssize_t r = recv(sock, &b, 1, MSG_PEEK | MSG_DONTWAIT);

		if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return true;
		sched_yield();
	} while (pgl_now_ns() - t0 < budget_ns);
	return false;
}

/*
 * The thread's only client has a round in flight: spin for its answer if
 * its script's statements all usually answer within the budget.  True when
 * the answer came in the spin and was taken.
 */
static bool spin_one(struct pgl_thread *th, struct pgl_client *c)
{
	struct pgl_spin_slot slot = pgl_client_spin_slot(th, c);

	if (c->want_write || !pgl_spin_worth(&th->spin, slot))
		return false;
	if (!spin_readable(c->sock, th->spin.budget_ns)) {
		th->spin.misses++;
		return false;
	}
	th->spin.hits++;
	pgl_spin_note(&th->spin, slot, pgl_now_ns() - c->sent_ns);
	pgl_client_input(th, c);
	return true;
}

static void thread_loop(struct pgl_thread *th)
{
	bool spinning = th->spin.budget_ns && th->nclients == 1;
	struct epoll_event *evs = calloc(th->nclients ? th->nclients : 1, sizeof(*evs));
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (!evs || ep < 0) {
		snprintf(th->res->first_error, sizeof(th->res->first_error), "%s",
			 !evs ? "out of memory" : "epoll_create1 failed");
		goto out;
	}
	for (;;) {
		uint64_t now = pgl_now_ns(), wait_ns = 100000000ull; /* re-check the stop flag */
		unsigned n = 0, throttled = 0;
		struct timespec ts;
		int nev, r;

		for (unsigned i = 0; i < th->nclients; i++) {
			struct pgl_client *c = &th->clients[i];

			if (c->state == CS_CHOOSE || c->state == CS_THROTTLE)
				pgl_client_kick(th, c, now);
			if (c->state == CS_THROTTLE) {
				throttled++;
				if (c->sched_ns - now < wait_ns)
					wait_ns = c->sched_ns - now;
			} else if (in_round(c)) {
				n++;
			}
			if ((r = ep_sync(ep, c, i)) < 0) {
				snprintf(th->res->first_error, sizeof(th->res->first_error),
					 "epoll_ctl: %s", strerror(-r));
				goto out;
			}
		}
		if (n == 0 && throttled == 0)
			break;
		if (!th->cfg->txns_per_client && th->deadline_ns > now &&
		    th->deadline_ns - now < wait_ns && throttled)
			wait_ns = th->deadline_ns - now;
		if (spinning && n == 1 && spin_one(th, &th->clients[0]))
			continue;
		ts.tv_sec = (time_t)(wait_ns / 1000000000ull);
		ts.tv_nsec = (long)(wait_ns % 1000000000ull);
		nev = epoll_pwait2(ep, evs, (int)th->nclients, &ts, NULL);
		if (nev < 0 && errno != EINTR) {
			snprintf(th->res->first_error, sizeof(th->res->first_error), "epoll_wait: %s",
				 strerror(errno));
			break;
		}
		for (int k = 0; k < nev; k++) {
			struct pgl_client *c = &th->clients[evs[k].data.u32];

			if (evs[k].events & EPOLLOUT)
				pgl_client_output(th, c);
			if (!(evs[k].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
				continue;
			if (spinning)
				pgl_spin_note(&th->spin, pgl_client_spin_slot(th, c),
					      pgl_now_ns() - c->sent_ns);
			pgl_client_input(th, c);
		}
	}
out:
	th->res->spin_hits = th->spin.hits;
	th->res->spin_misses = th->spin.misses;
	th->res->spin_skips = th->spin.skips;
	if (ep >= 0)
		close(ep);
	free(evs);
}

static void *thread_main(void *arg)
{
	struct thread_arg *ta = arg;
	struct pgl_thread *th = &ta->th;

	for (unsigned i = 0; i < th->nclients; i++)
		pgl_client_connect(th, &th->clients[i]);
	if (!gate_enter(ta->sh)) {
		for (unsigned i = 0; i < th->nclients; i++)
			pgl_client_close(&th->clients[i]);
		return NULL;
	}
	th->bench_start_ns = *ta->bench_start_ns;
	th->deadline_ns = th->bench_start_ns + (uint64_t)(th->cfg->duration_s * 1e9);
	if (th->cfg->rate > 0)
		pgl_sched_init(&th->sched, th->cfg->rate / th->cfg->threads, th->bench_start_ns,
			       &th->rng);
	thread_loop(th);
	th->end_ns = pgl_now_ns();
	for (unsigned i = 0; i < th->nclients; i++)
		pgl_client_close(&th->clients[i]);
	__atomic_add_fetch(&ta->sh->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* One -P interval's figures, to the caller's progress op. */
static void progress(const struct pgl_run_opts *o, struct thread_arg *ta, unsigned n, double t_s,
		     uint64_t *prev_c, uint64_t *prev_lat, uint64_t *prev_f)
{
	uint64_t c = 0, lat = 0, f = 0;
	double interval_s = o->progress_s;

	for (unsigned i = 0; i < n; i++) {
		c += __atomic_load_n(&ta[i].th.live_committed, __ATOMIC_RELAXED);
		lat += __atomic_load_n(&ta[i].th.live_lat_sum_ns, __ATOMIC_RELAXED);
		f += __atomic_load_n(&ta[i].th.live_failed, __ATOMIC_RELAXED);
	}
	o->progress(&(struct pgl_progress){
		.t_s = t_s,
		.tps = (double)(c - *prev_c) / interval_s,
		.lat_ms = c > *prev_c ? (double)(lat - *prev_lat) / (double)(c - *prev_c) / 1e6 : 0.0,
		.failed = f - *prev_f,
	});
	*prev_c = c;
	*prev_lat = lat;
	*prev_f = f;
}

/* Wait for the threads, giving -P progress to o->progress; the run stops on pgl_stop_requested. */
static void supervise(struct thread_arg *ta, unsigned n, struct run_shared *sh,
		      uint64_t start_ns, const struct pgl_run_opts *o)
{
	unsigned progress_s = o->progress ? o->progress_s : 0;
	uint64_t next = start_ns + (uint64_t)progress_s * 1000000000ull;
	uint64_t pc = 0, pl = 0, pf = 0;

	while (__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE) < n) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		uint64_t now;

		nanosleep(&ts, NULL);
		now = pgl_now_ns();
		if (progress_s && now >= next) {
			progress(o, ta, n, (double)(now - start_ns) / 1e9, &pc, &pl, &pf);
			next += (uint64_t)progress_s * 1000000000ull;
		}
	}
}

static int setup_threads(struct thread_arg *ta, struct pgl_run_result *res, struct pgl_session *s,
			 const struct pgl_run_opts *o, struct run_shared *sh, uint64_t *start)
{
	const struct pgl_run_config *cfg = &res->cfg;
	unsigned nt = cfg->threads, nc = cfg->clients;

	for (unsigned t = 0; t < nt; t++) {
		struct pgl_thread *th = &ta[t].th;
		unsigned first = nc * t / nt, last = nc * (t + 1) / nt;

		ta[t].sh = sh;
		ta[t].bench_start_ns = start;
		th->cfg = cfg;
		th->conninfo = s->conninfo;
		th->res = &res->th[t];
		th->res->id = t;
		th->res->nclients = last - first;
		th->res->lat = dut_hist_new();
		th->res->lagh = dut_hist_new();
		th->nclients = last - first;
		th->clients = calloc(th->nclients ? th->nclients : 1, sizeof(*th->clients));
		if (!th->clients || !th->res->lat || !th->res->lagh)
			return -ENOMEM;
		for (unsigned i = 0; i < th->nclients; i++) {
			th->clients[i].id = first + i;
			th->clients[i].state = CS_ABORTED; /* until connected */
		}
		pgl_rng_seed(&th->rng, cfg->seed * 1000003ull + t);
		pgl_thread_name_stmts(th);
		pgl_spin_init(&th->spin, cfg->spin_ns);
	}
	(void)o;
	return 0;
}

/*
 * The replay lag sampler, when the target has streaming standbys (or
 * --standby-lag).  Its failure is noted in the result, not fatal: the load
 * is what the run is about.
 */
static struct pgl_lag_sampler *open_lag_sampler(struct pgl_session *s, struct pgl_run_result *res)
{
	struct pgl_lag_sampler *lag = NULL;
	struct dut_error e = { "" };

	if (pgl_lag_sampler_open(s->conninfo, s->admin, res->cfg.standby_lag, &res->replica,
				 &lag, &e) < 0)
		snprintf(res->replica.note, sizeof(res->replica.note), "%s", e.msg);
	return lag;
}

int pgl_oltp_run(struct pgl_session *s, const struct pgl_run_opts *o,
		 struct pgl_run_result *res, struct dut_error *err)
{
	unsigned nt = o->cfg.threads;
	struct run_shared sh = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct thread_arg *ta;
	pthread_t *tids;
	struct pgl_lag_sampler *lag = NULL;
	struct pgl_servstat_collector *srv = NULL;
	sigset_t block, old;
	unsigned started = 0;
	uint64_t start = 0;
	int r;

	memset(res, 0, sizeof(*res));
	res->cfg = o->cfg;
	res->settings = s->settings;
	snprintf(res->cfg.target, sizeof(res->cfg.target), "%s", s->target);
	if (res->cfg.scale <= 0 && (r = pgl_pq_scale(s->admin, &res->cfg.scale, err)) < 0)
		return r;
	res->nthreads = nt;
	res->th = calloc(nt, sizeof(*res->th));
	ta = calloc(nt, sizeof(*ta));
	tids = calloc(nt, sizeof(*tids));
	if (!res->th || !ta || !tids || setup_threads(ta, res, s, o, &sh, &start) < 0) {
		r = -ENOMEM;
		dut_error_set(err, "out of memory for %u clients", o->cfg.clients);
		goto out;
	}
	/* Signals go to the main thread only: it sets the stop flag. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	res->t0_ns = pgl_now_ns();
	for (; started < nt; started++) {
		if ((r = pthread_create(&tids[started], NULL, thread_main, &ta[started])) != 0)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started < nt) {
		/* the started threads close their clients and end */
		gate_open(&sh, false);
		for (unsigned t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
		dut_error_set(err, "cannot start client thread %u of %u: %s (fewer --threads, or raise the "
			      "process limits)", started + 1, nt, strerror(r));
		r = -r;
		goto out;
	}
	gate_wait_connected(&sh, nt);
	/* Every client is connected and idle: their backends' pids go to the relmap. */
	pgl_session_note_backends(s);
	lag = open_lag_sampler(s, res);
	if (!o->cfg.no_server_stats)
		srv = pgl_servstat_open(s->conninfo, s->admin, &res->server);
	else
		snprintf(res->server.note, sizeof(res->server.note), "not collected (--no-server-stats)");
	pgl_phase_begin(s, "run");
	pgl_servstat_start(srv, pgl_now_ns());
	start = res->bench_start_ns = pgl_now_ns();
	if (lag && pgl_lag_sampler_start(lag, start) < 0) {
		pgl_lag_sampler_stop(lag);
		lag = NULL;
	}
	gate_open(&sh, true);
	supervise(ta, nt, &sh, start, o);
	for (unsigned t = 0; t < started; t++) {
		pthread_join(tids[t], NULL);
		if (ta[t].th.end_ns > res->end_ns)
			res->end_ns = ta[t].th.end_ns;
	}
	pgl_servstat_end_cpu(srv);
	pgl_lag_sampler_stop(lag);
	pgl_servstat_finish(srv);
	pgl_phase_end(s, "run");
	res->interrupted = pgl_stop_requested != 0;
	if ((r = pgl_run_result_finish(res)) < 0)
		dut_error_set(err, "out of memory merging the results");
out:
	for (unsigned t = 0; ta && t < o->cfg.threads; t++)
		free(ta[t].th.clients);
	free(ta);
	free(tids);
	return r;
}

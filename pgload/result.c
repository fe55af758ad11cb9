/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/result.h"

const char *pgl_protocol_name(enum pgl_protocol p)
{
	switch (p) {
	case PGL_PROTO_SIMPLE: return "simple";
	case PGL_PROTO_EXTENDED: return "extended";
	case PGL_PROTO_PREPARED: return "prepared";
	}
	return "?";
}

int pgl_protocol_parse(const char *s, enum pgl_protocol *ret)
{
	static const enum pgl_protocol all[] = { PGL_PROTO_SIMPLE, PGL_PROTO_EXTENDED,
						 PGL_PROTO_PREPARED };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcmp(s, pgl_protocol_name(all[i])) == 0) {
			*ret = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

int pgl_thread_sec_add(struct pgl_thread_result *t, uint64_t sec, bool committed,
		       uint64_t lat_ns, uint64_t lag_ns, unsigned retries)
{
	struct pgl_sec *s;

	if (sec >= t->secs_cap) {
		size_t ncap = t->secs_cap ? t->secs_cap : 64;
		struct pgl_sec *n;

		while (ncap <= sec)
			ncap *= 2;
		n = realloc(t->secs, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + t->secs_cap, 0, (ncap - t->secs_cap) * sizeof(*n));
		t->secs = n;
		t->secs_cap = ncap;
	}
	if (sec >= t->nsecs)
		t->nsecs = sec + 1;
	s = &t->secs[sec];
	s->retries += retries;
	if (!committed) {
		s->failed++;
		return 0;
	}
	s->committed++;
	s->lat_sum_ns += lat_ns;
	if (lat_ns > s->lat_max_ns)
		s->lat_max_ns = lat_ns;
	s->lag_sum_ns += lag_ns;
	return 0;
}

int pgl_run_result_finish(struct pgl_run_result *r)
{
	size_t nsecs = 0;

	r->lat = dut_hist_new();
	r->lagh = dut_hist_new();
	if (!r->lat || !r->lagh)
		return -ENOMEM;
	r->committed = r->failed = r->conn_ns_total = 0;
	r->nconns = r->aborted_clients = 0;
	r->spin_hits = r->spin_misses = r->spin_skips = 0;
	memset(&r->retry, 0, sizeof(r->retry));
	memset(&r->lag, 0, sizeof(r->lag));
	for (unsigned i = 0; i < r->nthreads; i++) {
		const struct pgl_thread_result *t = &r->th[i];

		r->committed += t->committed;
		r->failed += t->failed;
		r->conn_ns_total += t->conn_ns_total;
		r->nconns += t->nconns;
		r->aborted_clients += t->aborted_clients;
		r->spin_hits += t->spin_hits;
		r->spin_misses += t->spin_misses;
		r->spin_skips += t->spin_skips;
		pgl_retry_merge(&r->retry, &t->retry);
		pgl_lag_merge(&r->lag, &t->lag);
		if (t->lat)
			dut_hist_merge(r->lat, t->lat);
		if (t->lagh)
			dut_hist_merge(r->lagh, t->lagh);
		if (t->nsecs > nsecs)
			nsecs = t->nsecs;
	}
	free(r->secs);
	r->secs = calloc(nsecs ? nsecs : 1, sizeof(*r->secs));
	if (!r->secs)
		return -ENOMEM;
	r->nsecs = nsecs;
	for (unsigned i = 0; i < r->nthreads; i++) {
		const struct pgl_thread_result *t = &r->th[i];

		for (size_t s = 0; s < t->nsecs; s++) {
			struct pgl_sec *d = &r->secs[s];
			const struct pgl_sec *x = &t->secs[s];

			d->committed += x->committed;
			d->failed += x->failed;
			d->retries += x->retries;
			d->lat_sum_ns += x->lat_sum_ns;
			d->lag_sum_ns += x->lag_sum_ns;
			if (x->lat_max_ns > d->lat_max_ns)
				d->lat_max_ns = x->lat_max_ns;
		}
	}
	dut_hist_summarize(r->lat, &r->lat_sum);
	dut_hist_summarize(r->lagh, &r->lag_sum);
	r->tps_incl = r->tps_excl = 0;
	if (r->end_ns > r->t0_ns)
		r->tps_incl = (double)r->committed * 1e9 / (double)(r->end_ns - r->t0_ns);
	if (r->end_ns > r->bench_start_ns)
		r->tps_excl = (double)r->committed * 1e9 / (double)(r->end_ns - r->bench_start_ns);
	return 0;
}

void pgl_run_result_free(struct pgl_run_result *r)
{
	for (unsigned i = 0; r->th && i < r->nthreads; i++) {
		dut_hist_free(r->th[i].lat);
		dut_hist_free(r->th[i].lagh);
		free(r->th[i].secs);
	}
	free(r->th);
	dut_hist_free(r->lat);
	dut_hist_free(r->lagh);
	free(r->secs);
	pgl_replica_lag_free(&r->replica);
	pgl_servstat_free(&r->server);
	memset(r, 0, sizeof(*r));
}

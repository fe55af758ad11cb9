/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "lib/run_manifest.h"
#include "lib/units.h"
#include "pgload/report.h"

static double ms(double ns)
{
	return ns / 1e6;
}

static void print_mix(const struct pgl_mix *m, FILE *out)
{
	if (m->n == 1) {
		fprintf(out, "transaction type: %s\n", m->e[0].script->description);
		return;
	}
	fprintf(out, "transaction type: mix of %u scripts\n", m->n);
}

/* MB here is 10^6 bytes. */
static void print_replica(const struct pgl_replica_lag *rl, bool forced, FILE *out)
{
	for (unsigned i = 0; i < rl->nstandbys; i++) {
		const struct pgl_standby_lag *l = &rl->sb[i];
		struct pgl_lag_summary s;

		if (pgl_standby_lag_summarize(l, &s) < 0)
			continue;
		fprintf(out, "standby %s (%s): ", l->name, pgl_standby_lag_mode(l));
		if (s.n_times)
			fprintf(out, "replay lag p50 %.1f ms, max %.1f ms", s.replay_p50_ms, s.replay_max_ms);
		else
			fprintf(out, "no replay lag reported (idle: caught up, no WAL)");
		if (s.n_bytes)
			fprintf(out, ", max %.2f MB behind", s.replay_bytes_max / 1e6);
		if (l->catchup_measured && l->caught_up)
			fprintf(out, "; caught up %.0f ms after the load", l->catchup_ms);
		else if (l->catchup_measured)
			fprintf(out, "; not caught up %d s after the load", PGL_LAG_CATCHUP_MAX_S);
		fprintf(out, "\n");
	}
	if (rl->note[0] && (forced || rl->sampled))
		fprintf(out, "standby lag: %s\n", rl->note);
	else if (forced && rl->sampled && rl->nstandbys == 0)
		fprintf(out, "standby lag: no streaming standby seen\n");
}

static const char *spin_mode_name(enum pgl_spin_mode m)
{
	return m == PGL_SPIN_AUTO ? "auto" : m == PGL_SPIN_OFF ? "off" : "fixed";
}

/* How the clients waited for the server: spin.h. */
static void print_spin(const struct pgl_run_result *r, FILE *out)
{
	const struct pgl_run_config *c = &r->cfg;
	uint64_t waits = r->spin_hits + r->spin_misses + r->spin_skips;

	if (!c->spin_ns) {
		fprintf(out, "client wait: sleep%s\n", c->spin_mode == PGL_SPIN_AUTO
			? " (--spin auto spins only with one client per thread and 2 x clients <= CPUs)"
			: "");
		return;
	}
	fprintf(out, "client wait: spin up to %.0f us before sleeping (--spin %s%s)",
		(double)c->spin_ns / 1e3, spin_mode_name(c->spin_mode),
		c->threads < c->clients ? "; only threads that drive one client spin" : "");
	if (waits)
		fprintf(out, "; of %llu waits %.1f%% answered in the spin, %.1f%% spun then slept, "
			"%.1f%% not spun (a statement of the script is slow)", (unsigned long long)waits,
			100.0 * (double)r->spin_hits / (double)waits,
			100.0 * (double)r->spin_misses / (double)waits,
			100.0 * (double)r->spin_skips / (double)waits);
	fprintf(out, "\n");
}

void pgl_run_print(const struct pgl_run_result *r, FILE *out)
{
	const struct pgl_run_config *c = &r->cfg;
	const struct dut_hist_summary *l = &r->lat_sum;
	uint64_t processed = r->committed + r->failed;
	double run_s = (double)(r->end_ns - r->bench_start_ns) / 1e9;

	print_mix(&c->mix, out);
	fprintf(out, "target: %s\n", c->target);
	fprintf(out, "scaling factor: %lld\n", (long long)c->scale);
	fprintf(out, "query mode: %s%s\n", pgl_protocol_name(c->protocol),
		c->pipeline ? " (pipelined transactions)" : "");
	fprintf(out, "number of clients: %u\n", c->clients);
	fprintf(out, "number of threads: %u\n", c->threads);
	print_spin(r, out);
	fprintf(out, "maximum number of tries: %u\n", c->max_tries);
	if (c->txns_per_client)
		fprintf(out, "number of transactions per client: %llu\n",
			(unsigned long long)c->txns_per_client);
	else
		fprintf(out, "duration: %g s\n", c->duration_s);
	if (r->interrupted)
		fprintf(out, "run interrupted after %.1f s: partial results\n", run_s);
	fprintf(out, "number of transactions actually processed: %llu\n",
		(unsigned long long)r->committed);
	fprintf(out, "number of failed transactions: %llu (%.3f%%)\n",
		(unsigned long long)r->failed,
		processed ? 100.0 * (double)r->failed / (double)processed : 0.0);
	if (c->max_tries > 1) {
		fprintf(out, "number of transactions retried: %llu\n",
			(unsigned long long)r->retry.retried_txns);
		fprintf(out, "total number of retries: %llu\n",
			(unsigned long long)r->retry.retries);
	}
	fprintf(out, "serialization failures: %llu, deadlocks: %llu\n",
		(unsigned long long)r->retry.serialization_errors,
		(unsigned long long)r->retry.deadlock_errors);
	if (r->aborted_clients)
		fprintf(out, "clients aborted: %u of %u\n", r->aborted_clients, c->clients);
	if (l->count) {
		fprintf(out, "latency average = %.3f ms, stddev = %.3f ms\n", ms(l->mean),
			ms(l->stddev));
		fprintf(out, "latency p50 = %.3f ms, p90 = %.3f ms, p99 = %.3f ms, "
			"p99.9 = %.3f ms, max = %.3f ms\n", ms((double)l->p50), ms((double)l->p90),
			ms((double)l->p99), ms((double)l->p999), ms((double)l->max));
	}
	if (c->rate > 0)
		fprintf(out, "rate limit %.1f tps: schedule lag avg %.3f ms, p99 %.3f ms, max %.3f ms "
			"(latency is measured from the scheduled start)\n", c->rate,
			ms(pgl_lag_mean_ns(&r->lag)), ms((double)r->lag_sum.p99),
			ms((double)r->lag.max_ns));
	fprintf(out, "initial connection time = %.3f ms (%u connections, avg %.3f ms each)\n",
		ms((double)(r->bench_start_ns - r->t0_ns)), r->nconns,
		r->nconns ? ms((double)r->conn_ns_total / r->nconns) : 0.0);
	fprintf(out, "tps = %.3f (including connections)\n", r->tps_incl);
	fprintf(out, "tps = %.3f (excluding connections)\n", r->tps_excl);
	if (c->mix.n > 1) {
		for (unsigned i = 0; i < c->mix.n; i++) {
			uint64_t n = 0, f = 0;

			for (unsigned t = 0; t < r->nthreads; t++) {
				n += r->th[t].script_committed[i];
				f += r->th[t].script_failed[i];
			}
			fprintf(out, "script %u: %s, weight %u: %llu committed (%.1f%%), %llu failed\n",
				i + 1, c->mix.e[i].script->name, c->mix.e[i].weight,
				(unsigned long long)n,
				r->committed ? 100.0 * (double)n / (double)r->committed : 0.0,
				(unsigned long long)f);
		}
	}
	print_replica(&r->replica, c->standby_lag, out);
	pgl_servstat_print(&r->server, r->committed, out);
	for (unsigned t = 0; t < r->nthreads; t++)
		if (r->th[t].first_error[0])
			fprintf(out, "thread %u: %s\n", t, r->th[t].first_error);
	pgl_memory_print(&r->mem, out);
	fprintf(out, "server settings:\n");
	pgl_settings_print(&r->settings, out);
}

static json_object *mix_json(const struct pgl_mix *m)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; a && i < m->n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "script", json_object_new_string(m->e[i].script->name));
		json_object_object_add(o, "weight", json_object_new_int64(m->e[i].weight));
		json_object_array_add(a, o);
	}
	return a;
}

static void add_target(struct dut_result *doc, const char *target, const struct pgl_settings *st)
{
	json_object *t = dut_result_target(doc);
	uint32_t bs;

	json_object_object_add(t, "database", json_object_new_string(target));
	if (pgl_settings_block_size(st, &bs) == 0)
		json_object_object_add(t, "block_size", json_object_new_int64(bs));
	json_object_object_add(t, "settings", pgl_settings_to_json(st));
}

/* config.memory and target.database_bytes (null where unknown). */
static void add_memory(struct dut_result *doc, const struct pgl_memory_info *m)
{
	json_object *mem = json_object_new_object();

	/* the run manifest's memory copies these: its names (lib/run_manifest.h) */
	json_object_object_add(dut_result_target(doc), DUT_RM_DATABASE_BYTES,
			       m->database_bytes ? json_object_new_int64((int64_t)m->database_bytes) : NULL);
	json_object_object_add(mem, DUT_RM_BUDGET_BYTES,
			       m->budget_bytes ? json_object_new_int64((int64_t)m->budget_bytes) : NULL);
	json_object_object_add(mem, DUT_RM_PEAK_BYTES,
			       m->peak_bytes ? json_object_new_int64((int64_t)m->peak_bytes) : NULL);
	json_object_object_add(mem, DUT_RM_SHARED_BUFFERS_BYTES, m->shared_buffers_bytes ?
			       json_object_new_int64((int64_t)m->shared_buffers_bytes) : NULL);
	json_object_object_add(mem, DUT_RM_DATABASE_PER_BUDGET, m->budget_bytes && m->database_bytes ?
			       json_object_new_double((double)m->database_bytes / (double)m->budget_bytes) : NULL);
	json_object_object_add(dut_result_config(doc), DUT_RM_MEMORY, mem);
}

void pgl_memory_print(const struct pgl_memory_info *m, FILE *out)
{
	char a[32], b[32], d[32];

	if (m->database_bytes)
		fprintf(out, "database size: %s\n", dut_format_size(m->database_bytes, d, sizeof(d)));
	if (!m->budget_bytes)
		return;
	fprintf(out, "memory budget: %s (peak usage %s)", dut_format_size(m->budget_bytes, a, sizeof(a)),
		m->peak_bytes ? dut_format_size(m->peak_bytes, b, sizeof(b)) : "unknown");
	if (m->database_bytes)
		fprintf(out, ", the database is %.1fx the budget", (double)m->database_bytes / (double)m->budget_bytes);
	fputc('\n', out);
}

static json_object *retry_json(const struct pgl_retry_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "retries", json_object_new_int64((int64_t)s->retries));
	json_object_object_add(o, "retried_transactions", json_object_new_int64((int64_t)s->retried_txns));
	json_object_object_add(o, "serialization_failures", json_object_new_int64((int64_t)s->serialization_errors));
	json_object_object_add(o, "deadlock_failures", json_object_new_int64((int64_t)s->deadlock_errors));
	json_object_object_add(o, "failed_transactions", json_object_new_int64((int64_t)s->failed_txns));
	json_object_object_add(o, "other_errors", json_object_new_int64((int64_t)s->other_errors));
	return o;
}

static json_object *thread_json(const struct pgl_run_result *r, const struct pgl_thread_result *t)
{
	json_object *o = json_object_new_object();
	struct dut_hist_summary s;
	json_object *lat = json_object_new_object();

	dut_hist_summarize(t->lat, &s);
	json_object_object_add(o, "thread", json_object_new_int(t->id));
	json_object_object_add(o, "clients", json_object_new_int(t->nclients));
	json_object_object_add(o, "committed", json_object_new_int64((int64_t)t->committed));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)t->failed));
	json_object_object_add(o, "aborted_clients", json_object_new_int(t->aborted_clients));
	json_object_object_add(o, "connections", json_object_new_int(t->nconns));
	json_object_object_add(o, "connection_time_ns", json_object_new_int64((int64_t)t->conn_ns_total));
	json_object_object_add(o, "tps", json_object_new_double(r->end_ns > r->bench_start_ns ?
		(double)t->committed * 1e9 / (double)(r->end_ns - r->bench_start_ns) : 0.0));
	json_object_object_add(lat, "mean_ns", json_object_new_double(s.mean));
	json_object_object_add(lat, "stddev_ns", json_object_new_double(s.stddev));
	json_object_object_add(lat, "p50_ns", json_object_new_int64((int64_t)s.p50));
	json_object_object_add(lat, "p99_ns", json_object_new_int64((int64_t)s.p99));
	json_object_object_add(lat, "max_ns", json_object_new_int64((int64_t)s.max));
	json_object_object_add(o, "latency", lat);
	json_object_object_add(o, "retry", retry_json(&t->retry));
	if (t->first_error[0])
		json_object_object_add(o, "error", json_object_new_string(t->first_error));
	return o;
}

static int add_series(struct dut_result_phase *ph, const struct pgl_run_result *r)
{
	static const char *const cols[] = { "t_s", "tps", "lat_avg_ms", "lat_max_ms", "failed",
					    "retries", "lag_avg_ms" };
	static const char *const units[] = { "s", "tx/s", "ms", "ms", "tx", "tries", "ms" };
	struct dut_series *s = dut_phase_add_series(ph, "per_second", cols, units, 7);

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < r->nsecs; i++) {
		const struct pgl_sec *x = &r->secs[i];
		double n = (double)x->committed;
		double row[7] = {
			(double)(i + 1), n,
			n ? ms((double)x->lat_sum_ns / n) : 0.0,
			ms((double)x->lat_max_ns), (double)x->failed, (double)x->retries,
			n ? ms((double)x->lag_sum_ns / n) : 0.0,
		};
		int ret = dut_series_append(s, row);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* One standby's samples; rows whose lag times PostgreSQL reported as NULL are left out. */
static int add_lag_series(struct dut_result_phase *ph, const char *name,
			  const struct pgl_standby_lag *l)
{
	static const char *const cols[] = { "t_s", "replay_lag_ms", "replay_lag_bytes",
					    "flush_lag_ms", "write_lag_ms" };
	static const char *const units[] = { "s", "ms", "bytes", "ms", "ms" };
	struct dut_series *s = dut_phase_add_series(ph, name, cols, units, 5);

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		const struct pgl_lag_sample *x = &l->s[i];
		double row[5] = { x->t_s, x->replay_ms, x->replay_bytes, x->flush_ms, x->write_ms };
		int ret;

		if (!x->has_times || !x->has_bytes)
			continue;
		if ((ret = dut_series_append(s, row)) < 0)
			return ret;
	}
	return 0;
}

static json_object *lag_summary_json(const struct pgl_standby_lag *l, const struct pgl_lag_summary *s,
				     const char *series)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "application_name", json_object_new_string(l->name));
	json_object_object_add(o, "mode", json_object_new_string(pgl_standby_lag_mode(l)));
	json_object_object_add(o, "sync_state", json_object_new_string(l->sync_state));
	json_object_object_add(o, "state", json_object_new_string(l->state));
	json_object_object_add(o, "series", json_object_new_string(series));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)l->n));
	json_object_object_add(o, "idle_samples", json_object_new_int64(l->idle_samples));
	if (s->n_times) {
		json_object_object_add(o, "replay_lag_ms_p50", json_object_new_double(s->replay_p50_ms));
		json_object_object_add(o, "replay_lag_ms_p99", json_object_new_double(s->replay_p99_ms));
		json_object_object_add(o, "replay_lag_ms_max", json_object_new_double(s->replay_max_ms));
		json_object_object_add(o, "flush_lag_ms_max", json_object_new_double(s->flush_max_ms));
		json_object_object_add(o, "write_lag_ms_max", json_object_new_double(s->write_max_ms));
	}
	if (s->n_bytes)
		json_object_object_add(o, "replay_lag_bytes_max", json_object_new_double(s->replay_bytes_max));
	if (l->catchup_measured) {
		json_object_object_add(o, "caught_up", json_object_new_boolean(l->caught_up));
		json_object_object_add(o, "catchup_ms", l->caught_up ? json_object_new_double(l->catchup_ms) : NULL);
	}
	return o;
}

/*
 * config.replica = { mode, application_name } always; with a sampler, the
 * main standby (pgl_replica_lag_main) gives series "replica_lag" and the
 * run phase's replay_lag_* metrics; others get "replica_lag.<name>".
 */
static int add_replica(struct dut_result *doc, struct dut_result_phase *ph,
		       const struct pgl_replica_lag *rl)
{
	json_object *cfg = json_object_new_object(), *ex, *arr;
	int m = pgl_replica_lag_main(rl), ret;

	json_object_object_add(cfg, "mode", json_object_new_string(pgl_replica_lag_mode(rl)));
	json_object_object_add(cfg, "application_name", m < 0 ? NULL : json_object_new_string(rl->sb[m].name));
	json_object_object_add(dut_result_config(doc), "replica", cfg);
	if (!rl->sampled && !rl->note[0])
		return 0;
	ex = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(ex, "sampled", json_object_new_boolean(rl->sampled));
	json_object_object_add(ex, "interval_s", json_object_new_double((double)PGL_LAG_INTERVAL_NS / 1e9));
	json_object_object_add(ex, "catchup_max_s", json_object_new_int(PGL_LAG_CATCHUP_MAX_S));
	json_object_object_add(ex, "reads", json_object_new_int64(rl->samples));
	json_object_object_add(ex, "note", rl->note[0] ? json_object_new_string(rl->note) : NULL);
	if (rl->dropped_standbys)
		json_object_object_add(ex, "standbys_not_sampled", json_object_new_int64(rl->dropped_standbys));
	json_object_object_add(ex, "standbys", arr);
	json_object_object_add(dut_phase_extra(ph), "replica", ex);
	for (unsigned i = 0; i < rl->nstandbys; i++) {
		const struct pgl_standby_lag *l = &rl->sb[i];
		struct pgl_lag_summary s;
		char name[96];

		if ((ret = pgl_standby_lag_summarize(l, &s)) < 0)
			return ret;
		if ((int)i == m)
			snprintf(name, sizeof(name), "replica_lag");
		else
			snprintf(name, sizeof(name), "replica_lag.%s", l->name);
		json_object_array_add(arr, lag_summary_json(l, &s, name));
		if ((ret = add_lag_series(ph, name, l)) < 0)
			return ret;
		if ((int)i != m)
			continue;
		if (s.n_times &&
		    ((ret = dut_phase_set_metric(ph, "replay_lag_ms_p50", s.replay_p50_ms, "ms")) < 0 ||
		     (ret = dut_phase_set_metric(ph, "replay_lag_ms_p99", s.replay_p99_ms, "ms")) < 0 ||
		     (ret = dut_phase_set_metric(ph, "replay_lag_ms_max", s.replay_max_ms, "ms")) < 0))
			return ret;
		if (s.n_bytes &&
		    (ret = dut_phase_set_metric(ph, "replay_lag_bytes_max", s.replay_bytes_max, "bytes")) < 0)
			return ret;
		if (l->caught_up && (ret = dut_phase_set_metric(ph, "replay_catchup_ms", l->catchup_ms, "ms")) < 0)
			return ret;
	}
	return 0;
}

/*
 * extra.server (servstat.h), the per-second series of the wait-event
 * samples (the share of them with the checkpointer at work), and the CPU
 * per transaction as metrics.
 */
static int add_server(struct dut_result_phase *ph, const struct pgl_run_result *r)
{
	static const char *const cols[] = { "t_s", "samples", "checkpointer_busy" };
	static const char *const units[] = { "s", "samples", "share" };
	const struct pgl_servstat *sv = &r->server;
	const struct pgl_waits *w = &sv->waits;
	json_object *o = pgl_servstat_to_json(sv, r->committed);
	struct dut_series *ser;
	int ret;

	if (!o)
		return -ENOMEM;
	json_object_object_add(dut_phase_extra(ph), "server", o);
	if (!sv->collected || !r->committed)
		return 0;
	if (sv->have_server_cpu &&
	    (ret = dut_phase_set_metric(ph, "server_cpu_s_per_txn", sv->server_cpu_s / (double)r->committed, "s")) < 0)
		return ret;
	if ((ret = dut_phase_set_metric(ph, "client_cpu_s_per_txn", sv->client_cpu_s / (double)r->committed, "s")) < 0)
		return ret;
	if (!w->nsecs)
		return 0;
	if (!(ser = dut_phase_add_series(ph, "server_per_second", cols, units, 3)))
		return -ENOMEM;
	for (size_t i = 0; i < w->nsecs; i++) {
		double row[3] = { (double)(i + 1), w->sec_samples[i],
				  w->sec_samples[i] ? (double)w->sec_ckpt_busy[i] / w->sec_samples[i] : 0.0 };

		if ((ret = dut_series_append(ser, row)) < 0)
			return ret;
	}
	return 0;
}

int pgl_run_to_doc(const struct pgl_run_result *r, struct dut_result *doc)
{
	const struct pgl_run_config *c = &r->cfg;
	json_object *cfg = dut_result_config(doc), *extra, *threads, *spin;
	struct dut_result_phase *ph;
	int ret;

	add_target(doc, c->target, &r->settings);
	add_memory(doc, &r->mem);
	json_object_object_add(cfg, "workload", json_object_new_string("oltp"));
	json_object_object_add(cfg, "scripts", mix_json(&c->mix));
	json_object_object_add(cfg, "scale", json_object_new_int64(c->scale));
	json_object_object_add(cfg, "clients", json_object_new_int(c->clients));
	json_object_object_add(cfg, "threads", json_object_new_int(c->threads));
	if (c->txns_per_client)
		json_object_object_add(cfg, "transactions_per_client",
				       json_object_new_int64((int64_t)c->txns_per_client));
	else
		json_object_object_add(cfg, "duration_s", json_object_new_double(c->duration_s));
	json_object_object_add(cfg, "rate_tps", c->rate > 0 ? json_object_new_double(c->rate) : NULL);
	json_object_object_add(cfg, "protocol", json_object_new_string(pgl_protocol_name(c->protocol)));
	json_object_object_add(cfg, "pipeline", json_object_new_boolean(c->pipeline));
	json_object_object_add(cfg, "max_tries", json_object_new_int(c->max_tries));
	json_object_object_add(cfg, "seed", json_object_new_int64((int64_t)c->seed));
	json_object_object_add(cfg, "spin", json_object_new_string(spin_mode_name(c->spin_mode)));
	json_object_object_add(cfg, "spin_us", json_object_new_double((double)c->spin_ns / 1e3));

	ph = dut_result_add_phase(doc, "run");
	if (!ph)
		return -ENOMEM;
	if ((ret = dut_phase_set_duration(ph, r->end_ns - r->bench_start_ns)) < 0 ||
	    (ret = dut_phase_set_metric(ph, "tps", r->tps_excl, "tx/s")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "tps_excluding_connections", r->tps_excl, "tx/s")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "tps_including_connections", r->tps_incl, "tx/s")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "committed", (double)r->committed, "tx")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "failed", (double)r->failed, "tx")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "retries", (double)r->retry.retries, "tries")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "connection_time_total",
					(double)(r->bench_start_ns - r->t0_ns), "ns")) < 0 ||
	    (ret = dut_phase_set_metric(ph, "connection_time_avg",
					r->nconns ? (double)r->conn_ns_total / r->nconns : 0.0, "ns")) < 0 ||
	    (ret = dut_phase_set_latency(ph, "txn", &r->lat_sum)) < 0)
		return ret;
	if (c->rate > 0 && (ret = dut_phase_set_latency(ph, "schedule_lag", &r->lag_sum)) < 0)
		return ret;
	if ((ret = add_series(ph, r)) < 0 || (ret = add_replica(doc, ph, &r->replica)) < 0 ||
	    (ret = add_server(ph, r)) < 0)
		return ret;
	extra = dut_phase_extra(ph);
	json_object_object_add(extra, "interrupted", json_object_new_boolean(r->interrupted));
	json_object_object_add(extra, "aborted_clients", json_object_new_int(r->aborted_clients));
	json_object_object_add(extra, "retry", retry_json(&r->retry));
	spin = json_object_new_object();
	json_object_object_add(spin, "answered_in_spin", json_object_new_int64((int64_t)r->spin_hits));
	json_object_object_add(spin, "spun_then_slept", json_object_new_int64((int64_t)r->spin_misses));
	json_object_object_add(spin, "not_spun", json_object_new_int64((int64_t)r->spin_skips));
	json_object_object_add(extra, "spin", spin);
	threads = json_object_new_array();
	for (unsigned t = 0; t < r->nthreads; t++)
		json_object_array_add(threads, thread_json(r, &r->th[t]));
	json_object_object_add(extra, "threads", threads);
	return 0;
}

void pgl_init_print(const struct pgl_init_result *r, FILE *out)
{
	fprintf(out, "target: %s\n", r->target);
	fprintf(out, "scaling factor: %lld (%llu rows), fillfactor %u, %u load job%s%s\n",
		(long long)r->scale, (unsigned long long)r->rows, r->fillfactor, r->jobs,
		r->jobs == 1 ? "" : "s", r->freeze ? ", COPY FREEZE" : "");
	if (r->tables_on[0] || r->indexes_on[0])
		fprintf(out, "tables on %s, indexes on %s\n",
			r->tables_on[0] ? r->tables_on : "(default)",
			r->indexes_on[0] ? r->indexes_on : "(default)");
	for (unsigned i = 0; i < r->nphases; i++)
		fprintf(out, "%-14s %8.3f s\n", r->phases[i].name,
			(double)r->phases[i].duration_ns / 1e9);
	fprintf(out, "%-14s %8.3f s\n", "total", (double)r->total_ns / 1e9);
	pgl_memory_print(&r->mem, out);
	fprintf(out, "server settings:\n");
	pgl_settings_print(&r->settings, out);
}

int pgl_init_to_doc(const struct pgl_init_result *r, struct dut_result *doc)
{
	json_object *cfg = dut_result_config(doc);
	int ret;

	add_target(doc, r->target, &r->settings);
	add_memory(doc, &r->mem);
	json_object_object_add(cfg, "workload", json_object_new_string("oltp-init"));
	json_object_object_add(cfg, "scale", json_object_new_int64(r->scale));
	json_object_object_add(cfg, "jobs", json_object_new_int(r->jobs));
	json_object_object_add(cfg, "fillfactor", json_object_new_int(r->fillfactor));
	json_object_object_add(cfg, "copy_freeze", json_object_new_boolean(r->freeze));
	json_object_object_add(cfg, "tables_on", r->tables_on[0] ? json_object_new_string(r->tables_on) : NULL);
	json_object_object_add(cfg, "indexes_on", r->indexes_on[0] ? json_object_new_string(r->indexes_on) : NULL);
	for (unsigned i = 0; i < r->nphases; i++) {
		struct dut_result_phase *ph = dut_result_add_phase(doc, r->phases[i].name);

		if (!ph)
			return -ENOMEM;
		if ((ret = dut_phase_set_duration(ph, r->phases[i].duration_ns)) < 0)
			return ret;
		if (strcmp(r->phases[i].name, "init/load") == 0 && r->phases[i].duration_ns &&
		    ((ret = dut_phase_set_metric(ph, "rows_per_s", (double)r->rows * 1e9 /
						 (double)r->phases[i].duration_ns, "rows/s")) < 0 ||
		     (ret = dut_phase_set_metric(ph, "rows", (double)r->rows, "rows")) < 0))
			return ret;
	}
	return 0;
}

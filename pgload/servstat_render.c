/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server-side evidence of a run: human lines and the JSON member (pure). */
#include <string.h>

#include "pgload/servstat.h"

static bool have(const struct pgl_servstat *s, enum pgl_ctr c)
{
	return s->have_counters && s->delta.have[c];
}

static double val(const struct pgl_servstat *s, enum pgl_ctr c)
{
	return s->delta.v[c];
}

static void print_absent(const struct pgl_servstat *s, FILE *out)
{
	const char *last = NULL;

	for (int c = 0; c < PGL_CTR_COUNT; c++) {
		const char *why = s->absent_why[c];

		if (!why)
			continue;
		if (last && strcmp(last, why) == 0) {
			fprintf(out, ", %s", pgl_ctr_info[c].name);
			continue;
		}
		if (last)
			fprintf(out, ")\n");
		fprintf(out, "absent (%s): %s", why, pgl_ctr_info[c].name);
		last = why;
	}
	if (last)
		fprintf(out, "\n");
}

static void print_waits(const struct pgl_waits *w, FILE *out)
{
	const char *proc = NULL;
	unsigned shown = 0;

	if (!w->samples)
		return;
	fprintf(out, "wait events (%llu samples of pg_stat_activity, every %.0f ms):",
		(unsigned long long)w->samples, PGL_WAIT_INTERVAL_NS / 1e6);
	for (size_t i = 0; i < w->n; i++) {
		const struct pgl_wait_entry *e = &w->e[i];
		double share = pgl_wait_share(w, e);

		if (!proc || strcmp(proc, e->proc) != 0) {
			fprintf(out, "%s %s", proc ? ";" : "", e->proc);
			proc = e->proc;
			shown = 0;
		} else if (shown >= 5 || share < 0.01) {
			continue;
		} else {
			fputc(',', out);
		}
		fprintf(out, " %s:%s %.1f%%", e->type, e->event, 100.0 * share);
		shown++;
	}
	fputc('\n', out);
}

void pgl_servstat_print(const struct pgl_servstat *s, uint64_t committed, FILE *out)
{
	if (!s->collected) {
		if (s->note[0])
			fprintf(out, "server statistics: %s\n", s->note);
		return;
	}
	if (s->have_counters) {
		fprintf(out, "server counters over %.1f s:", s->interval_s);
		if (have(s, PGL_CTR_XACT_COMMIT))
			fprintf(out, " %.0f commits, %.0f rollbacks;", val(s, PGL_CTR_XACT_COMMIT),
				val(s, PGL_CTR_XACT_ROLLBACK));
		if (have(s, PGL_CTR_BLKS_READ) && have(s, PGL_CTR_BLKS_HIT)) {
			double r = val(s, PGL_CTR_BLKS_READ), h = val(s, PGL_CTR_BLKS_HIT);

			fprintf(out, " %.0f blocks read, %.2f%% hit", r, r + h > 0 ? 100.0 * h / (r + h) : 0.0);
		}
		if (have(s, PGL_CTR_BLK_READ_TIME) && val(s, PGL_CTR_BLKS_READ) > 0)
			fprintf(out, ", %.3f ms per read", val(s, PGL_CTR_BLK_READ_TIME) / val(s, PGL_CTR_BLKS_READ));
		fputc('\n', out);
		if (have(s, PGL_CTR_WAL_SYNC)) {
			fprintf(out, "WAL: %.0f records, %.1f MB, %.0f writes, %.0f syncs", val(s, PGL_CTR_WAL_RECORDS),
				val(s, PGL_CTR_WAL_BYTES) / 1e6, val(s, PGL_CTR_WAL_WRITE), val(s, PGL_CTR_WAL_SYNC));
			if (committed)
				fprintf(out, " (%.2f per commit of pgload)", val(s, PGL_CTR_WAL_SYNC) / (double)committed);
			if (have(s, PGL_CTR_WAL_SYNC_TIME) && val(s, PGL_CTR_WAL_SYNC) > 0)
				fprintf(out, ", %.3f ms per sync", val(s, PGL_CTR_WAL_SYNC_TIME) / val(s, PGL_CTR_WAL_SYNC));
			fputc('\n', out);
		}
		if (have(s, PGL_CTR_CKPT_TIMED))
			fprintf(out, "checkpoints: %.0f (%.0f timed, %.0f requested), %.0f buffers written, "
				"write %.2f s, sync %.2f s; background writer %.0f buffers\n",
				val(s, PGL_CTR_CKPT_TIMED) + val(s, PGL_CTR_CKPT_REQ), val(s, PGL_CTR_CKPT_TIMED),
				val(s, PGL_CTR_CKPT_REQ), val(s, PGL_CTR_BUF_CHECKPOINT),
				val(s, PGL_CTR_CKPT_WRITE_TIME) / 1e3, val(s, PGL_CTR_CKPT_SYNC_TIME) / 1e3,
				val(s, PGL_CTR_BUF_CLEAN));
	}
	print_absent(s, out);
	print_waits(&s->waits, out);
	if (committed) {
		fprintf(out, "CPU per transaction: server ");
		if (s->have_server_cpu)
			fprintf(out, "%.3f ms", s->server_cpu_s * 1e3 / (double)committed);
		else
			fprintf(out, "unknown (%s)", s->cpu_note);
		fprintf(out, ", client (pgload) %.3f ms", s->client_cpu_s * 1e3 / (double)committed);
		if (s->have_server_cpu && s->cpu_wall_s > 0 && s->ncpus)
			fprintf(out, "; together %.0f%% of %u CPUs over %.1f s", 100.0 *
				(s->server_cpu_s + s->client_cpu_s) / (s->cpu_wall_s * s->ncpus), s->ncpus,
				s->cpu_wall_s);
		fputc('\n', out);
	}
	if (s->have_server_cpu && s->have_host_cpu && s->cpu_wall_s > 0 && s->ncpus) {
		double cap = s->cpu_wall_s * s->ncpus;

		fprintf(out, "the machine: %.0f%% of its CPUs busy (the server and pgload %.0f%%, the rest "
			"other processes, dutfs among them), %.0f%% stolen by the hypervisor",
			100.0 * s->host_busy_s / cap, 100.0 * (s->server_cpu_s + s->client_cpu_s) / cap,
			100.0 * s->host_steal_s / cap);
		if (s->psi_cpu_some >= 0)
			fprintf(out, "; some task waited for a CPU %.0f%% of the time", 100.0 * s->psi_cpu_some);
		fputc('\n', out);
	}
}

static json_object *num_or_null(bool ok, double v)
{
	return ok ? json_object_new_double(v) : NULL;
}

static json_object *waits_json(const struct pgl_waits *w)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "interval_ms", json_object_new_double(PGL_WAIT_INTERVAL_NS / 1e6));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)w->samples));
	json_object_object_add(o, "backend_samples", json_object_new_int64((int64_t)w->backend_samples));
	json_object_object_add(o, "rows_not_counted", json_object_new_int64((int64_t)w->dropped));
	json_object_object_add(o, "sampled", json_object_new_string(w->own_role_only ?
		"client backends of pgload's role only (no pg_read_all_stats)" :
		"client backends, checkpointer, walwriter, background writer"));
	for (size_t i = 0; i < w->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "process", json_object_new_string(w->e[i].proc));
		json_object_object_add(e, "type", json_object_new_string(w->e[i].type));
		json_object_object_add(e, "event", json_object_new_string(w->e[i].event));
		json_object_object_add(e, "count", json_object_new_int64((int64_t)w->e[i].count));
		json_object_object_add(e, "share", json_object_new_double(pgl_wait_share(w, &w->e[i])));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "events", a);
	return o;
}

static json_object *cpu_json(const struct pgl_servstat *s, uint64_t committed)
{
	json_object *o = json_object_new_object();
	bool per = committed > 0;

	json_object_object_add(o, "wall_s", json_object_new_double(s->cpu_wall_s));
	json_object_object_add(o, "cpus", json_object_new_int((int)s->ncpus));
	json_object_object_add(o, "server_s", num_or_null(s->have_server_cpu, s->server_cpu_s));
	json_object_object_add(o, "client_s", json_object_new_double(s->client_cpu_s));
	json_object_object_add(o, "server_s_per_txn", num_or_null(s->have_server_cpu && per,
				per ? s->server_cpu_s / (double)committed : 0));
	json_object_object_add(o, "client_s_per_txn", num_or_null(per, per ? s->client_cpu_s / (double)committed : 0));
	if (!s->have_server_cpu) {
		json_object_object_add(o, "note", json_object_new_string(s->cpu_note));
		return o;
	}
	if (s->have_host_cpu) {
		json_object *h = json_object_new_object();

		json_object_object_add(h, "busy_s", json_object_new_double(s->host_busy_s));
		json_object_object_add(h, "steal_s", json_object_new_double(s->host_steal_s));
		json_object_object_add(h, "iowait_s", json_object_new_double(s->host_iowait_s));
		json_object_object_add(h, "psi_cpu_some", num_or_null(s->psi_cpu_some >= 0, s->psi_cpu_some));
		json_object_object_add(o, "host", h);
	}
	json_object_object_add(o, "server_processes_at_start", json_object_new_int((int)s->cpu.kids_start));
	json_object_object_add(o, "server_processes_at_end", json_object_new_int((int)s->cpu.kids_end));
	json_object_object_add(o, "server_processes_started", json_object_new_int((int)s->cpu.started));
	json_object_object_add(o, "server_processes_exited", json_object_new_int((int)s->cpu.exited));
	json_object_object_add(o, "counted", json_object_new_string(
		"server: utime+stime of the postmaster and its children (backends, auxiliary processes, "
		"autovacuum and parallel workers) over the interval; children that exited in it count "
		"through the postmaster's cutime/cstime; client: getrusage of pgload, all its threads"));
	return o;
}

json_object *pgl_servstat_to_json(const struct pgl_servstat *s, uint64_t committed)
{
	json_object *o = json_object_new_object(), *ctr, *absent;

	if (!o)
		return NULL;
	json_object_object_add(o, "collected", json_object_new_boolean(s->collected));
	json_object_object_add(o, "note", s->note[0] ? json_object_new_string(s->note) : NULL);
	if (!s->collected)
		return o;
	json_object_object_add(o, "server_version_num", json_object_new_int(s->version_num));
	json_object_object_add(o, "database", json_object_new_string(s->dbname));
	json_object_object_add(o, "track_io_timing", s->track_io_timing[0] ?
			       json_object_new_string(s->track_io_timing) : NULL);
	json_object_object_add(o, "track_wal_io_timing", s->track_wal_io_timing[0] ?
			       json_object_new_string(s->track_wal_io_timing) : NULL);
	json_object_object_add(o, "interval_s", num_or_null(s->have_counters, s->interval_s));
	ctr = json_object_new_object();
	absent = json_object_new_object();
	for (int c = 0; c < PGL_CTR_COUNT; c++) {
		json_object_object_add(ctr, pgl_ctr_info[c].name, num_or_null(have(s, c), val(s, c)));
		if (s->absent_why[c])
			json_object_object_add(absent, pgl_ctr_info[c].name,
					       json_object_new_string(s->absent_why[c]));
	}
	json_object_object_add(o, "counters", ctr);
	json_object_object_add(o, "absent", absent);
	json_object_object_add(o, "waits", waits_json(&s->waits));
	json_object_object_add(o, "cpu", cpu_json(s, committed));
	return o;
}

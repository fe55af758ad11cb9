/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pgload restore`, the pure part: the result, its verdicts and its renderers (see restore.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pgload/restore.h"

/* --- the result --------------------------------------------------------- */

void pgl_restore_total(const struct pgl_restore_result *r, struct pgl_restore_phase_result *ret)
{
	struct pgl_restore_phase_result t = { .ran = true, .entries = 0, .server_cpu_known = true };
	bool first = true;

	for (unsigned p = 0; p < PGL_RS_NPHASES; p++) {
		const struct pgl_restore_phase_result *ph = &r->ph[p];

		if (!ph->ran)
			continue;
		t.wall_ns += ph->wall_ns;
		t.client_cpu_ns += ph->client_cpu_ns;
		t.server_cpu_ns += ph->server_cpu_ns;
		t.server_cpu_known &= ph->server_cpu_known;
		pgl_pressure_add(&t.pr, &ph->pr, first);
		first = false;
		if (ph->usable_cpus > t.usable_cpus)
			t.usable_cpus = ph->usable_cpus;
	}
	t.entries = -1;
	*ret = t;
}

double pgl_restore_cores_busy(const struct pgl_restore_phase_result *p)
{
	return p->wall_ns ? (double)(p->client_cpu_ns + p->server_cpu_ns) / (double)p->wall_ns : 0;
}

/*
 * CPU-bound when the processes kept at least 80% of the CPUs they could
 * use busy.  Phases under 50 ms are too short for clock-tick CPU times
 * (10 ms resolution) to say anything.
 */
const char *pgl_restore_verdict(const struct pgl_restore_phase_result *p)
{
	if (!p->ran || !p->server_cpu_known || p->wall_ns < 50000000u || !p->usable_cpus)
		return "unknown";
	return pgl_restore_cores_busy(p) >= 0.8 * p->usable_cpus ? "cpu-bound" : "waiting";
}

enum pgl_bound pgl_restore_bound(const struct pgl_restore_phase_result *p, char *reason, size_t len)
{
	struct pgl_bound_in in = {
		.ran = p->ran, .wall_ns = p->wall_ns, .cpu_known = p->server_cpu_known,
		.cores_busy = pgl_restore_cores_busy(p), .usable_cpus = p->usable_cpus, .pr = &p->pr,
	};

	return pgl_bound_classify(&in, reason, len);
}

/* "12%", or "?" when unknown */
static const char *pct(double share, char *buf, size_t len)
{
	if (share < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.0f%%", share * 100);
	return buf;
}

static void print_row(FILE *out, const char *name, const struct pgl_restore_phase_result *p)
{
	char entries[16], server[16], cpu[8], io[8], full[8], rq[16], rd[16], wr[16], reason[256];
	const struct pgl_pressure *pr = &p->pr;
	enum pgl_bound b = pgl_restore_bound(p, reason, sizeof(reason));

	if (p->entries < 0)
		snprintf(entries, sizeof(entries), "all");
	else
		snprintf(entries, sizeof(entries), "%d", p->entries);
	if (p->server_cpu_known)
		snprintf(server, sizeof(server), "%.2f", (double)p->server_cpu_ns / 1e9);
	else
		snprintf(server, sizeof(server), "-");
	if (pr->runq_samples)
		snprintf(rq, sizeof(rq), "%.1f/%.1f", pgl_pressure_runq_mean(pr), pgl_pressure_blocked_mean(pr));
	else
		snprintf(rq, sizeof(rq), "?");
	if (pr->server_io_known) {
		snprintf(rd, sizeof(rd), "%.1f", (double)pr->server_io.read_bytes / 1e6);
		snprintf(wr, sizeof(wr), "%.1f", (double)pr->server_io.write_bytes / 1e6);
	} else {
		snprintf(rd, sizeof(rd), "?");
		snprintf(wr, sizeof(wr), "?");
	}
	fprintf(out, "  %-16s %7s %9.3f %10s %10.2f %6.2f/%-3u %5s %5s %5s %9s %8s %8s %s (%s)\n", name, entries,
		(double)p->wall_ns / 1e9, server, (double)p->client_cpu_ns / 1e9, pgl_restore_cores_busy(p),
		p->usable_cpus, pct(pgl_pressure_cpu_some(pr), cpu, sizeof(cpu)),
		pct(pgl_pressure_io_some(pr), io, sizeof(io)),
		pct(pgl_pressure_io_full(pr), full, sizeof(full)), rq, rd, wr, pgl_bound_name(b),
		reason);
}

void pgl_restore_print(const struct pgl_restore_result *r, FILE *out)
{
	struct pgl_restore_phase_result t;
	const struct pgl_restore_phase_result *data = &r->ph[PGL_RS_DATA];

	fprintf(out, "pgload restore: %s -> database %s (%s), pg_restore -j %u, %u CPUs\n",
		r->dump, r->dbname, r->target, r->jobs, r->cpus);
	fprintf(out, "dump: %.1f MB", (double)r->dump_bytes / 1e6);
	if (r->rows >= 0)
		fprintf(out, ", %" PRId64 " rows", r->rows);
	fprintf(out, "; server %s, block size %u\n", r->server_version, r->block_size);
	fprintf(out, "  %-16s %7s %9s %10s %10s %10s %5s %5s %5s %9s %8s %8s %s\n", "phase", "entries", "wall s",
		"server CPU", "restore CPU", "cores busy", "cpu%", "io%", "iofull", "runq/blk", "read MB",
		"write MB", "verdict (evidence)");
	for (unsigned p = 0; p < PGL_RS_NPHASES; p++)
		if (r->ph[p].ran)
			print_row(out, pgl_restore_phase_name(p), &r->ph[p]);
	pgl_restore_total(r, &t);
	print_row(out, "total", &t);
	if (data->ran && data->wall_ns && r->rows >= 0)
		fprintf(out, "data: %.0f rows/s, %.1f MB/s of dump\n",
			(double)r->rows * 1e9 / (double)data->wall_ns,
			(double)r->dump_bytes * 1e3 / (double)data->wall_ns);
	if (t.wall_ns)
		fprintf(out, "whole restore: %.1f MB/s of dump\n", (double)r->dump_bytes * 1e3 / (double)t.wall_ns);
	fprintf(out, "CPU: server = postmaster and its children (/proc), restore = pg_restore and its workers (rusage);\n"
		     "cores busy = (server + restore CPU) / wall, of the CPUs the phase could use (min of -j, entries, CPUs).\n"
		     "cpu%% = share of the wall time some runnable task waited for a CPU, io%% = some task waited on I/O,\n"
		     "iofull = all non-idle tasks did (PSI, /proc/pressure, whole host; ? = unknown); runq/blk = runnable\n"
		     "and blocked tasks (/proc/stat, every 100 ms, mean); read/write MB = the server's block I/O (/proc/PID/io).\n"
		     "verdict: cpu-bound = cores busy >= 80%% of usable; cpu-starved = cpu%% >= 20%% (waiting for a CPU);\n"
		     "io-bound = io%% >= 20%%; lock-or-other-wait = neither (locks, client, network).\n");
	if (t.pr.psi_note[0])
		fprintf(out, "PSI unknown: %s\n", t.pr.psi_note);
	if (r->server_io_note[0])
		fprintf(out, "server I/O not measured: %s\n", r->server_io_note);
	if (r->server_cpu_note[0])
		fprintf(out, "server CPU not measured: %s\n", r->server_cpu_note);
	if (r->checked)
		fprintf(out, r->differences ? "check: %u differences from the source:\n%s" :
			"check: row counts, constraints and indexes identical to the source%.0u%s\n",
			r->differences, r->differences ? r->diff : "");
	else
		fprintf(out, "check: skipped\n");
}

/* PSI shares, run queue and server I/O: a metric only where known (absent = unknown, never 0). */
static void pressure_to_doc(struct dut_result_phase *ph, const struct pgl_restore_phase_result *p)
{
	const struct pgl_pressure *pr = &p->pr;
	const struct { const char *name; double v; const char *unit; } m[] = {
		{ "psi_cpu_some", pgl_pressure_cpu_some(pr), "share" },
		{ "psi_io_some", pgl_pressure_io_some(pr), "share" },
		{ "psi_io_full", pgl_pressure_io_full(pr), "share" },
		{ "runq_mean", pgl_pressure_runq_mean(pr), "tasks" },
		{ "blocked_mean", pgl_pressure_blocked_mean(pr), "tasks" },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i].v >= 0)
			dut_phase_set_metric(ph, m[i].name, m[i].v, m[i].unit);
	if (!pr->server_io_known)
		return;
	dut_phase_set_metric(ph, "server_read_bytes", (double)pr->server_io.read_bytes, "B");
	dut_phase_set_metric(ph, "server_write_bytes", (double)pr->server_io.write_bytes, "B");
	dut_phase_set_metric(ph, "server_rchar_bytes", (double)pr->server_io.rchar, "B");
	dut_phase_set_metric(ph, "server_wchar_bytes", (double)pr->server_io.wchar, "B");
	dut_phase_set_metric(ph, "server_cancelled_write_bytes", (double)pr->server_io.cancelled_write_bytes, "B");
}

/* rows/s for the data phase; dump bytes/s for the data phase and the total */
static void phase_to_doc(struct dut_result_phase *ph, const struct pgl_restore_phase_result *p,
			 const struct pgl_restore_result *r, bool data, bool total)
{
	json_object *x = dut_phase_extra(ph);

	dut_phase_set_duration(ph, p->wall_ns);
	dut_phase_set_metric(ph, "restore_cpu_s", (double)p->client_cpu_ns / 1e9, "s");
	if (p->server_cpu_known)
		dut_phase_set_metric(ph, "server_cpu_s", (double)p->server_cpu_ns / 1e9, "s");
	if (p->server_cpu_known && p->wall_ns)
		dut_phase_set_metric(ph, "cores_busy", pgl_restore_cores_busy(p), "CPUs");
	if (data && p->wall_ns && r->rows >= 0)
		dut_phase_set_metric(ph, "rows_per_s", (double)r->rows * 1e9 / (double)p->wall_ns, "rows/s");
	if ((data || total) && p->wall_ns)
		dut_phase_set_metric(ph, "dump_bytes_per_s", (double)r->dump_bytes * 1e9 / (double)p->wall_ns,
				     "B/s");
	pressure_to_doc(ph, p);
	if (x) {
		char reason[256];
		enum pgl_bound b = pgl_restore_bound(p, reason, sizeof(reason));

		json_object_object_add(x, "entries", json_object_new_int(p->entries));
		json_object_object_add(x, "usable_cpus", json_object_new_int((int)p->usable_cpus));
		json_object_object_add(x, "verdict", json_object_new_string(pgl_restore_verdict(p)));
		json_object_object_add(x, "bound", json_object_new_string(pgl_bound_name(b)));
		json_object_object_add(x, "bound_reason", json_object_new_string(reason));
		json_object_object_add(x, "psi_known", json_object_new_boolean(p->pr.cpu_known && p->pr.io_known));
		if (p->pr.psi_note[0])
			json_object_object_add(x, "psi_note", json_object_new_string(p->pr.psi_note));
	}
}

int pgl_restore_to_doc(const struct pgl_restore_result *r, struct dut_result *doc)
{
	json_object *t = dut_result_target(doc), *c = dut_result_config(doc);
	struct pgl_restore_phase_result total;
	struct dut_result_phase *ph;

	if (!t || !c)
		return -ENOMEM;
	json_object_object_add(t, "database", json_object_new_string(r->target));
	json_object_object_add(t, "dbname", json_object_new_string(r->dbname));
	json_object_object_add(t, "server_version", json_object_new_string(r->server_version));
	json_object_object_add(t, "data_directory", json_object_new_string(r->data_directory));
	json_object_object_add(t, "block_size", json_object_new_int64(r->block_size));
	json_object_object_add(c, "workload", json_object_new_string("restore"));
	json_object_object_add(c, "dump", json_object_new_string(r->dump));
	json_object_object_add(c, "dump_bytes", json_object_new_int64((int64_t)r->dump_bytes));
	json_object_object_add(c, "rows", json_object_new_int64(r->rows));
	json_object_object_add(c, "jobs", json_object_new_int((int)r->jobs));
	json_object_object_add(c, "cpus", json_object_new_int((int)r->cpus));
	json_object_object_add(c, "cpu_method", json_object_new_string(
		"server: utime+stime of the postmaster's live children plus the postmaster's "
		"utime+stime+cutime+cstime (/proc), difference over the phase; restore: wait4() "
		"rusage of pg_restore"));
	json_object_object_add(c, "pressure_method", json_object_new_string(
		"psi_*: difference of the total= microseconds of /proc/pressure/{cpu,io} ('some', 'full') "
		"over the phase / wall time, whole host, absent when the kernel has no PSI; runq_mean, "
		"blocked_mean: procs_running (less the sampler) and procs_blocked of /proc/stat every 100 ms; "
		"server_*_bytes: /proc/PID/io of the postmaster (which holds its reaped children's) plus its "
		"live children, difference over the phase"));
	if (r->server_cpu_note[0])
		json_object_object_add(c, "server_cpu_note", json_object_new_string(r->server_cpu_note));
	if (r->server_io_note[0])
		json_object_object_add(c, "server_io_note", json_object_new_string(r->server_io_note));
	json_object_object_add(c, "checked", json_object_new_boolean(r->checked));
	json_object_object_add(c, "differences", json_object_new_int((int)r->differences));
	for (unsigned p = 0; p < PGL_RS_NPHASES; p++) {
		if (!r->ph[p].ran)
			continue;
		if (!(ph = dut_result_add_phase(doc, pgl_restore_phase_name(p))))
			return -ENOMEM;
		phase_to_doc(ph, &r->ph[p], r, p == PGL_RS_DATA, false);
	}
	pgl_restore_total(r, &total);
	if (!(ph = dut_result_add_phase(doc, "total")))
		return -ENOMEM;
	phase_to_doc(ph, &total, r, false, true);
	return 0;
}

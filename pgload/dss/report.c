/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The DSS result struct and its two renderers (see report.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/dss/report.h"

static const char *const phase_names[DSS_NPHASES] = {
	"load", "keys", "analyze", "queries", "rf",
};

const char *dss_phase_name(enum dss_phase p)
{
	return p < DSS_NPHASES ? phase_names[p] : "?";
}

const char *dss_status_name(enum dss_status s)
{
	return s == DSS_OK ? "ok" : s == DSS_TIMEOUT ? "timeout" : "failed";
}

struct dss_step *dss_report_step(struct dss_report *r, enum dss_phase p, const char *name,
				 const char *kind)
{
	struct dss_step *s;

	if (r->nsteps[p] >= DSS_MAX_STEPS)
		return NULL;
	s = &r->steps[p][r->nsteps[p]++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->kind = kind;
	return s;
}

struct dss_query_run *dss_report_query(struct dss_report *r)
{
	if (r->nruns == r->cap_runs) {
		unsigned cap = r->cap_runs ? 2 * r->cap_runs : 32;
		struct dss_query_run *p = realloc(r->runs, cap * sizeof(*p));
		if (!p)
			return NULL;
		r->runs = p;
		r->cap_runs = cap;
	}
	struct dss_query_run *q = &r->runs[r->nruns++];
	memset(q, 0, sizeof(*q));
	return q;
}

void dss_report_free(struct dss_report *r)
{
	for (unsigned i = 0; i < r->nruns; i++) {
		free(r->runs[i].shape);
		free(r->runs[i].plan_json);
	}
	free(r->runs);
	r->runs = NULL;
	r->nruns = r->cap_runs = 0;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* ---- human ---- */

static void human_load(const struct dss_report *r, FILE *out)
{
	const struct dss_gen_stats *g = &r->gen;
	uint64_t rows = 0, bytes = 0;

	for (unsigned j = 0; j < r->njobs; j++) {
		rows += g->job[j].rows;
		bytes += g->job[j].bytes;
	}
	fprintf(out, "load: %.2f s, %" PRIu64 " rows, %.1f MB (%s, %u threads):"
		" %.0f rows/s, %.1f MB/s\n", secs(r->phase_ns[DSS_PH_LOAD]), rows, bytes / 1e6,
		r->sink, g->threads, rows / fmax(secs(g->wall_ns), 1e-9),
		bytes / 1e6 / fmax(secs(g->wall_ns), 1e-9));
	fprintf(out, "  %-10s %12s %12s\n", "table", "rows", "MB");
	for (unsigned j = 0; j < r->njobs; j++)
		fprintf(out, "  %-10s %12" PRIu64 " %12.1f\n", dss_table_name(r->jobs[j].t),
			g->job[j].rows, g->job[j].bytes / 1e6);
	/* Per CPU second of generation, which a loaded machine does not distort. */
	fprintf(out, "  %-6s %12s %10s %9s %9s %9s %14s %12s\n", "thread", "rows", "MB",
		"gen s", "gen cpu s", "sink s", "rows/cpu s", "MB/cpu s");
	for (unsigned t = 0; t < g->threads; t++) {
		const struct dss_gen_thread_stats *s = &g->thread[t];
		double cs = fmax(secs(s->gen_cpu_ns), 1e-9);
		fprintf(out, "  %-6u %12" PRIu64 " %10.1f %9.2f %9.2f %9.2f %14.0f %12.1f\n", t,
			s->rows, s->bytes / 1e6, secs(s->gen_ns), secs(s->gen_cpu_ns),
			secs(s->sink_ns), s->rows / cs, s->bytes / 1e6 / cs);
	}
}

static void human_steps(const struct dss_report *r, enum dss_phase p, FILE *out)
{
	for (unsigned i = 0; i < r->nsteps[p]; i++) {
		const struct dss_step *s = &r->steps[p][i];
		fprintf(out, "  %-12s %-30s %9.3f s", s->kind, s->name, secs(s->ns));
		if (p == DSS_PH_RF)
			fprintf(out, " %10" PRIu64 " rows", s->rows);
		if (s->status != DSS_OK)
			fprintf(out, "  %s: %s", dss_status_name(s->status), s->error);
		fputc('\n', out);
	}
}

static void human_queries(const struct dss_report *r, FILE *out)
{
	fprintf(out, "  %-4s %-4s %-8s %12s %10s  %-16s  %s\n", "query", "rep", "status",
		"time ms", "rows", "plan", "");
	for (unsigned i = 0; i < r->nruns; i++) {
		const struct dss_query_run *q = &r->runs[i];
		fprintf(out, "  Q%-4u %-4u %-8s %12.1f %10" PRIu64 "  %016" PRIx64 "  %s\n", q->q,
			q->rep, dss_status_name(q->status), q->ns / 1e6, q->rows, q->fingerprint,
			q->status == DSS_OK ? dss_query_title(q->q) : q->error);
	}
}

void dss_report_human(const struct dss_report *r, FILE *out)
{
	fprintf(out, "TPC-H-derived decision-support workload (not a TPC-H result):"
		" scale factor %g, data seed %" PRIu64 "\n", r->sf, r->data_seed);
	if (r->server_version[0]) {
		fprintf(out, "server: PostgreSQL %s", r->server_version);
		if (r->block_size)
			fprintf(out, ", block size %" PRIu32 " bytes", r->block_size);
		if (r->wal_block_size)
			fprintf(out, ", WAL block size %" PRIu32 " bytes", r->wal_block_size);
		fprintf(out, "\n");
	}
	for (unsigned p = 0; p < DSS_NPHASES; p++) {
		if (!r->ran[p])
			continue;
		switch (p) {
		case DSS_PH_LOAD:
			human_load(r, out);
			break;
		case DSS_PH_ANALYZE:
			fprintf(out, "analyze: %.2f s (default_statistics_target %u)\n",
				secs(r->phase_ns[p]), r->stats_target);
			human_steps(r, p, out);
			break;
		case DSS_PH_QUERIES:
			fprintf(out, "queries: %.2f s (%s parameters", secs(r->phase_ns[p]),
				r->random_params ? "random" : "default");
			if (r->random_params)
				fprintf(out, ", seed %" PRIu64, r->param_seed);
			fprintf(out, ", %u repetition%s)\n", r->reps, r->reps == 1 ? "" : "s");
			human_queries(r, out);
			break;
		default:
			fprintf(out, "%s: %.2f s\n", dss_phase_name(p), secs(r->phase_ns[p]));
			human_steps(r, p, out);
			break;
		}
	}
}

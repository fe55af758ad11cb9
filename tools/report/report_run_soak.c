/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run directory's report of long (soak) runs (pure): a partial report
 * written while the run runs says so; a step stopped by Ctrl-C says what of
 * it is in the tables; a trace kept within [dutfs] trace-max (rotated by
 * dutfs) says what was removed, what the tables cover, and gives the whole
 * run's per-second series from its side file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/report/report.h"
#include "tools/report/report_doc.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/report_seconds.h"
#include "tools/report/rundir_stats.h"

#define NS_PER_S 1e9

void report_run_partial_head(struct rdoc *d, const struct rundir_model *m)
{
	if (strcmp(m->status, "running") == 0)
		rdoc_item(d, "**partial report**: written while the run was still running (with report-every, "
			  "dutlab run rewrites it while a step runs and writes the complete one at the end; a run "
			  "killed with kill -9 stays \"running\"); a step still running has no results of its own "
			  "yet: its trace is in the tables up to the time of writing");
}

void report_run_interrupted_steps(struct rdoc *d, const struct rundir_model *m)
{
	char a[32];

	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct rundir_rep *rp = &m->configs[i].reps[r];

			for (size_t k = 0; k < rp->nsteps; k++) {
				const struct rundir_step *st = &rp->steps[k];
				size_t used = 0;

				if (strcmp(st->status, "interrupted") != 0)
					continue;
				for (size_t j = 0; j < st->ndocs; j++)
					used += st->docs[j].doc != NULL;
				if (used)
					rdoc_item(d, "%s rep %u: step %s was stopped by the interrupt after %s s; its "
						  "result%s (%s) cover%s the time it ran and %s in the tables below",
						  m->configs[i].name, rp->rep, st->name,
						  rundir_fmt_num((double)st->wall_ns / NS_PER_S, 1, a, sizeof(a)),
						  used == 1 ? "" : "s", st->docs[0].file, used == 1 ? "s" : "",
						  used == 1 ? "is" : "are");
				else
					rdoc_item(d, "%s rep %u: step %s was stopped by the interrupt after %s s and left "
						  "no result document", m->configs[i].name, rp->rep, st->name,
						  rundir_fmt_num((double)st->wall_ns / NS_PER_S, 1, a, sizeof(a)));
			}
		}
}

static double rel_s(const struct rep_rotation *rot, uint64_t ts)
{
	return ts > rot->start_monotonic_ns ? (double)(ts - rot->start_monotonic_ns) / NS_PER_S : 0.0;
}

static void rotation_para(struct rdoc *d, const struct rundir_config *c, const struct rundir_rep *rp,
			  const char *trace, const struct report *io)
{
	const struct rep_rotation *rot = io->rot;
	char a[32], b[32], n1[32], n2[32];

	rdoc_para(d, "%s rep %u, %s: dutfs kept it within %s MiB in %u segments (trace-max); it reached "
		  "segment %" PRIu32 ".", c->name, rp->rep, trace,
		  rundir_fmt_num((double)rot->seg.max_bytes / (1024.0 * 1024.0), 1, a, sizeof(a)), rot->seg.keep,
		  rot->seg.seq);
	if (rot->records_gone)
		rdoc_para(d, "Removed: segments 1 to %" PRIu32 ", with their %s records. Kept and read: segments "
			  "%" PRIu32 " to %" PRIu32 ", %s records from %s s to %s s of the run. Every table of "
			  "this report that comes from the trace (the I/O mix, phases, request sizes, findings) "
			  "covers only the kept records; the Answer's trace figures per transaction (device reads, "
			  "fsyncs per commit) divide them by all of a step's transactions, so they are too low for a "
			  "step whose records were partly removed.", rot->first_seq - 1,
			  rundir_fmt_num((double)rot->records_gone, 0, n1, sizeof(n1)), rot->first_seq, rot->seg.seq,
			  rundir_fmt_num((double)io->nrecs, 0, n2, sizeof(n2)),
			  rundir_fmt_num(rel_s(rot, rot->kept_first_ns), 1, a, sizeof(a)),
			  rundir_fmt_num(rel_s(rot, rot->kept_last_ns), 1, b, sizeof(b)));
	else
		rdoc_para(d, "No segment was removed: the tables cover the whole trace (%s records).",
			  rundir_fmt_num((double)io->nrecs, 0, n2, sizeof(n2)));
	if (!rot->have_seconds) {
		rdoc_para(d, "The side file %s.seconds could not be read: there is no per-second series of the "
			  "whole run.", trace);
		return;
	}
	rdoc_para(d, "The per-second series below comes from the side file %s.seconds, which dutfs keeps for "
		  "every second of the whole run, also of the removed segments: %s seconds, %s read, write and "
		  "sync records (%s).", trace, rundir_fmt_num((double)rot->sec.end_sec, 0, a, sizeof(a)),
		  rundir_fmt_num((double)rot->sec.records, 0, n1, sizeof(n1)),
		  rot->sec.complete ? "closed by dutfs at its unmount" : "not closed: dutfs was still writing it");
}

static void series_row(void *ctx, uint64_t from, uint64_t len, const struct rep_sec_agg *x)
{
	struct rdoc *d = ctx;
	char v[32];
	double l = (double)len;

	rdoc_cell(d, "%" PRIu64, from);
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->ops[DUT_SEC_READ] / l, 1, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->bytes[DUT_SEC_READ] / l / 1e6, 2, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->p99[DUT_SEC_READ] / 1e6, 3, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->ops[DUT_SEC_WRITE] / l, 1, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->bytes[DUT_SEC_WRITE] / l / 1e6, 2, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->p99[DUT_SEC_WRITE] / 1e6, 3, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->ops[DUT_SEC_SYNC] / l, 1, v, sizeof(v)));
	rdoc_cell(d, "%s", rundir_fmt_num((double)x->p99[DUT_SEC_SYNC] / 1e6, 3, v, sizeof(v)));
}

static void rotation_of(struct rdoc *d, const struct rundir_config *c, const struct rundir_rep *rp,
			const char *trace, const struct report *io, bool *any)
{
	char cap[256];

	if (!io || !io->rot)
		return;
	if (!*any)
		rdoc_heading(d, 2, "Traces kept within trace-max (rotated)");
	*any = true;
	rotation_para(d, c, rp, trace, io);
	if (!io->rot->have_seconds)
		return;
	snprintf(cap, sizeof(cap), "%s rep %u, whole run per %" PRIu64 " s (from %s.seconds; %s)", c->name,
		 rp->rep, rep_rotation_interval_s(io->rot), trace,
		 io->rot->sec.has_hist ? "p99 of each interval, from its histograms" :
		 "p99 = the worst second's: a format-1 side file keeps no histograms");
	rdoc_table(d, cap, ">from s|>reads/s|>read MB/s|>read p99 ms|>writes/s|>write MB/s|>write p99 ms|"
		   ">syncs/s|>sync p99 ms");
	rep_rotation_walk(io->rot, series_row, d);
}

void report_run_rotation_section(struct rdoc *d, const struct rundir_model *m)
{
	bool any = false;

	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct rundir_rep *rp = &m->configs[i].reps[r];

			if (rp->trace)
				rotation_of(d, &m->configs[i], rp, rp->trace, rp->io, &any);
			for (size_t k = 0; k < rp->nmore; k++)
				rotation_of(d, &m->configs[i], rp, rp->more_traces[k], rp->more_io[k], &any);
		}
}

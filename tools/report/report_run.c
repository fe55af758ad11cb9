/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of a run directory as a document (pure): facts, findings, tables, charts. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/hist.h"
#include "tools/compare/compare.h"
#include "tools/report/report_answer.h"
#include "tools/report/report_buf.h"
#include "tools/report/report_doc.h"
#include "tools/report/report_run_reads.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)

static void charts_of(struct rdoc *d, const struct charts *cs, const char *step)
{
	char p[320];

	for (size_t i = 0; cs && i < cs->n; i++) {
		const struct chart *c = &cs->v[i];

		if (strcmp(c->step, step) != 0)
			continue;
		if (c->rendered) {
			snprintf(p, sizeof(p), "charts/%s.png", c->name);
			rdoc_image(d, p, c->title);
		} else {
			rdoc_para(d, "Chart not rendered: %s (%s).", c->title,
				  c->why_not ? c->why_not : "charts were not drawn");
		}
	}
}

/* ---- the head: what ran ---- */

/* A step status that produced what the step measures ("ok"; "complete" in older manifests). */
static bool step_done(const struct rundir_step *s)
{
	return strcmp(s->status, "ok") == 0 || strcmp(s->status, "complete") == 0;
}

/*
 * A run that did not complete (interrupted, failed, still running): which
 * steps of each repetition completed and which did not, so the partial
 * report says what its tables hold.
 */
static void steps_done(struct rdoc *d, const struct rundir_model *m)
{
	report_run_partial_head(d, m);
	if (strcmp(m->status, "interrupted") == 0)
		rdoc_item(d, "the run was interrupted (Ctrl-C or a signal) and torn down; this report holds what "
			  "completed before that");
	report_run_interrupted_steps(d, m);
	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct rundir_rep *rp = &m->configs[i].reps[r];
			struct rbuf ok = { 0 }, not = { 0 };

			for (size_t k = 0; k < rp->nsteps; k++) {
				const struct rundir_step *st = &rp->steps[k];
				struct rbuf *b = step_done(st) ? &ok : &not;

				rbuf_printf(b, "%s%s", b->len ? ", " : "", st->name);
				if (!step_done(st))
					rbuf_printf(b, " (%s)", st->status[0] ? st->status : "?");
			}
			rdoc_item(d, "%s rep %u (%s): steps completed: %s; not completed: %s", m->configs[i].name,
				  rp->rep, rp->status, ok.len ? ok.s : "none", not.len ? not.s : "none");
			d->oom |= ok.oom || not.oom;
			rbuf_free(&ok);
			rbuf_free(&not);
		}
}

/*
 * The view of a configuration: its dutfs view where a repetition had a
 * dutfs mount, "no dutfs" where none had (a run of dutprobe steps only, or
 * view off).  Older manifests do not record the mounts: then the view as
 * configured.
 */
static const char *config_view(const struct rundir_config *c)
{
	bool known = false;

	for (size_t r = 0; r < c->nreps; r++) {
		if (c->reps[r].dutfs_mounts > 0)
			return c->view[0] ? c->view : "-";
		known |= c->reps[r].dutfs_mounts == 0;
	}
	return known ? "no dutfs" : c->view[0] ? c->view : "-";
}

/*
 * The filesystem the data went on: the one the run made ("ext4-ordered
 * (ext4)"), or with filesystem none the one the target already had ("ext4,
 * the target's own"), as the manifest recorded it from mountinfo; "none
 * (raw)" for an image or device used without one.  A manifest from before
 * the record says "the target's own (not recorded)", not "none".
 */
static void config_filesystem(const struct rundir_config *c, char *buf, size_t n)
{
	const char *seen = "";
	bool none = !c->filesystem[0] || strcmp(c->filesystem, "none") == 0, recorded = false;

	for (size_t r = 0; r < c->nreps; r++) {
		recorded |= c->reps[r].dutfs_mounts >= 0;
		if (!*seen && c->reps[r].filesystems && c->reps[r].filesystems[0])
			seen = c->reps[r].filesystems;
	}
	if (!c->filesystem[0] && !*seen)
		snprintf(buf, n, "-");          /* the manifest says nothing */
	else if (none && *seen)
		snprintf(buf, n, "%s, the target's own", seen);
	else if (none && recorded)
		snprintf(buf, n, "none (raw)");
	else if (none)
		snprintf(buf, n, "the target's own (not recorded)");
	else if (*seen)
		snprintf(buf, n, "%s (%s)", c->filesystem, seen);
	else
		snprintf(buf, n, "%s", c->filesystem);
}

/* Under the Configurations table: the PostgreSQL of the configurations that had
 * a cluster (manifest "postgres"), one line when they all ran the same. */
/* ", 16 kB blocks" when not PostgreSQL's default 8 kB (and the WAL's likewise),
 * and ", io_method worker" where the server has one (18 and later: its reads
 * are synchronous, by I/O workers or through io_uring, which changes what the
 * trace shows); "" */
static void blocks_text(const struct rundir_config *c, char *buf, size_t n)
{
	const char *meth = report_config_io_method(c);
	size_t used = 0;

	buf[0] = 0;
	if (c->pg_block_kb && c->pg_block_kb != 8)
		used = (size_t)snprintf(buf, n, ", %u kB blocks", c->pg_block_kb);
	if (c->pg_wal_block_kb && c->pg_wal_block_kb != 8 && used < n)
		used += (size_t)snprintf(buf + used, n - used, ", %u kB WAL blocks", c->pg_wal_block_kb);
	if (meth && used < n)
		snprintf(buf + used, n - used, ", io_method %s", meth);
}

static void postgres_line(struct rdoc *d, const struct rundir_model *m)
{
	char bl[128];
	const struct rundir_config *first = NULL;
	bool same = true;

	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];

		if (!c->pg_version || !c->pg_version[0])
			continue;
		if (!first)
			first = c;
		same &= strcmp(c->pg_version, first->pg_version) == 0 && strcmp(c->pg_bindir, first->pg_bindir) == 0 &&
			c->pg_block_kb == first->pg_block_kb && c->pg_wal_block_kb == first->pg_wal_block_kb &&
			!strcmp(report_config_io_method(c) ? report_config_io_method(c) : "",
				report_config_io_method(first) ? report_config_io_method(first) : "");
	}
	if (!first)
		return;
	if (same) {
		blocks_text(first, bl, sizeof(bl));
		rdoc_para(d, "PostgreSQL: %s, from %s%s.", first->pg_version, first->pg_bindir, bl);
		return;
	}
	rdoc_para(d, "PostgreSQL per configuration:");
	rdoc_list(d);
	for (size_t i = 0; i < m->nconfigs; i++) {
		if (!m->configs[i].pg_version || !m->configs[i].pg_version[0])
			continue;
		blocks_text(&m->configs[i], bl, sizeof(bl));
		rdoc_item(d, "%u %s: %s, from %s%s", m->configs[i].index, m->configs[i].name,
			  m->configs[i].pg_version, m->configs[i].pg_bindir, bl);
	}
}

static void facts(struct rdoc *d, const struct rundir_model *m)
{
	char mem[32];

	rdoc_heading(d, 2, "Run");
	rdoc_list(d);
	rdoc_item(d, "run directory: %s", m->dir[0] ? m->dir : "(not given)");
	rdoc_item(d, "status: %s; started %s, finished %s", m->status,
		  m->started_at[0] ? m->started_at : "?", m->finished_at[0] ? m->finished_at : "not yet");
	rdoc_item(d, "experiment: %s; %u repetition%s per configuration",
		  m->source[0] ? m->source : "?", m->repetitions, m->repetitions == 1 ? "" : "s");
	if (strcmp(m->status, "complete") != 0)
		steps_done(d, m);
	if (m->have_host)
		rdoc_item(d, "host: %s, %s, %u CPUs, %s GiB memory, %s", m->host.hostname,
			  m->host.cpu_model, m->host.cpus,
			  rundir_fmt_num((double)m->host.mem_bytes / (MIB * 1024), 1, mem, sizeof(mem)), m->host.kernel);

	rdoc_heading(d, 2, "Configurations");
	rdoc_table(d, "", "#|configuration|status|>repetitions|view|filesystem|replica|reason");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		char fsbuf[160];
		unsigned ok = 0;

		for (size_t r = 0; r < c->nreps; r++)
			ok += strcmp(c->reps[r].status, "complete") == 0 || strcmp(c->reps[r].status, "ok") == 0;
		rdoc_cell(d, "%u", c->index);
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%s", c->status);
		rdoc_cell(d, "%u of %zu complete", ok, c->nreps);
		rdoc_cell(d, "%s", config_view(c));
		config_filesystem(c, fsbuf, sizeof(fsbuf));
		rdoc_cell(d, "%s", fsbuf);
		rdoc_cell(d, "%s", c->replica[0] ? c->replica : "-");
		rdoc_cell(d, "%s", c->reason[0] ? c->reason : "");
	}
	postgres_line(d, m);
}

static void findings_section(struct rdoc *d, const struct rundir_model *m, const struct findings *f)
{
	rdoc_heading(d, 2, "Findings");
	if (!f->n) {
		rdoc_para(d, "No finding: the run has no data a finding is computed from "
			  "(OLTP TPS of two configurations, DSS plans, dutprobe rows, traces).");
	} else {
		rdoc_list(d);
		for (size_t i = 0; i < f->n; i++)
			rdoc_item(d, "%s.", f->v[i].text);
	}
	if (m->nnotes) {
		rdoc_para(d, "Not used in this report:");
		rdoc_list(d);
		for (size_t i = 0; i < m->nnotes; i++)
			rdoc_item(d, "%s", m->notes[i]);
	}
}

static bool iomix_table(struct rdoc *d, const struct rundir_config *c, const char *step);

static void step_section(struct rdoc *d, const struct rundir_model *m, const struct charts *cs,
			 const struct rundir_stepinfo *s)
{
	const struct rundir_kind_ops *ops = rundir_kind_ops_of(s->kind);

	rdoc_heading(d, 2, "Step %s (%s)", s->name, rundir_doc_kind_name(s->kind));
	if (ops && ops->table)
		ops->table(d, m, s->name);
	else
		rdoc_para(d, "No table for this step: its documents are of a kind the report does not "
			  "summarise (or none could be read); `dutlab compare` puts any result documents "
			  "side by side.");
	for (size_t i = 0; i < m->nconfigs; i++)
		iomix_table(d, &m->configs[i], s->name);
	charts_of(d, cs, s->name);
}

/* Fewer requests than this of a class in one direction get no pattern sentence. */
#define PATTERN_MIN_OPS 100

/* The access pattern of each class and direction with enough requests, in words. */
static void iomix_patterns(struct rdoc *d, const struct rundir_io_mix *mix)
{
	char p[200];
	bool any = false;

	for (int k = 0; k < RC_COUNT; k++)
		for (int dir = 0; dir < 2; dir++) {
			if (mix->cls[k].ops[dir] < PATTERN_MIN_OPS ||
			    !rundir_io_pattern(&mix->cls[k], dir, p, sizeof(p)))
				continue;
			if (!any)
				rdoc_list(d);
			any = true;
			rdoc_item(d, "%s %s: %s", rep_class_name((enum rep_class)k),
				  dir == REP_WRITE ? "writes" : "reads", p);
		}
}

/* One configuration's I/O mix table (whole traces, or the phase of a step); false when there is none. */
static bool iomix_table(struct rdoc *d, const struct rundir_config *c, const char *step)
{
	const char *mark = step ? rundir_step_mark(c, step) : NULL;
	struct rundir_io_mix mix;
	char cap[640], a[32], b[32], c1[32], c2[32];

	if (step && !mark)
		return false;
	rundir_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !(mix.total.ops[0] + mix.total.ops[1]))
		return false;
	snprintf(cap, sizeof(cap), "%s%s%s: requests and bytes of %u trace%s summed%s; sequential = "
		 "starts where the previous request on the file ended, or at most one page (%u KiB "
		 "in WAL, %u KiB in other files) before (a tail rewrite: PostgreSQL rewrites the current "
		 "WAL page at each commit); random = the rest%s", c->name, step ? ", step " : "",
		 step ? step : "", mix.ntraced, mix.ntraced == 1 ? "" : "s",
		 step ? " (the trace between the step's markers)" : "",
		 c->pg_wal_block_kb ? c->pg_wal_block_kb : REP_TAIL_PAGE_BYTES / 1024,
		 c->pg_block_kb ? c->pg_block_kb : REP_TAIL_PAGE_BYTES / 1024,
		 mix.nrelmap < mix.ntraced ? "; unknown relation kind: no relmap, so relation "
		 "files count as heap" : "");
	rdoc_table(d, cap, "class|>reads|>% random|>read (MiB)|>writes|>% random|>written (MiB)");
	for (int k = 0; k <= RC_COUNT; k++) {
		const struct rundir_io_class *x = k < RC_COUNT ? &mix.cls[k] : &mix.total;

		if (k < RC_COUNT && !x->ops[0] && !x->ops[1])
			continue;
		rdoc_cell(d, "%s", k < RC_COUNT ? rep_class_name((enum rep_class)k) : "total");
		rdoc_cell(d, "%s", rundir_fmt_count(x->ops[0], a, sizeof(a)));
		rdoc_cell(d, "%.1f", rep_pct(x->ops[0] - x->seq_ops[0], x->ops[0]));
		rdoc_cell(d, "%s", rundir_fmt_num((double)x->bytes[0] / MIB, 2, b, sizeof(b)));
		rdoc_cell(d, "%s", rundir_fmt_count(x->ops[1], c1, sizeof(c1)));
		rdoc_cell(d, "%.1f", rep_pct(x->ops[1] - x->seq_ops[1], x->ops[1]));
		rdoc_cell(d, "%s", rundir_fmt_num((double)x->bytes[1] / MIB, 2, c2, sizeof(c2)));
	}
	iomix_patterns(d, &mix);
	return true;
}

static void iomix_section(struct rdoc *d, const struct rundir_model *m, const struct charts *cs)
{
	bool any = false;

	for (size_t i = 0; i < m->nconfigs; i++) {
		struct rundir_io_mix mix;

		rundir_io_mix_of(&m->configs[i], NULL, &mix);
		if (!mix.ntraced)
			continue;
		if (!any)
			rdoc_heading(d, 2, "I/O mix per class, whole traces (dutfs)");
		any = true;
		iomix_table(d, &m->configs[i], NULL);
	}
	if (any)
		charts_of(d, cs, "");
}

int report_run_build(const struct rundir_model *m, const struct findings *f, const struct charts *cs,
		     struct rdoc **ret)
{
	_cleanup_free_ struct rundir_stepinfo *steps = NULL;
	struct rdoc *d = calloc(1, sizeof(*d));
	size_t nsteps = 0;
	int r;

	if (!d)
		return -ENOMEM;
	r = rundir_steps(m, &steps, &nsteps);
	if (r < 0) {
		free(d);
		return r;
	}
	rdoc_heading(d, 1, "dutlab report: %s", m->name);
	if (m->description && m->description[0])
		rdoc_para(d, "%s", m->description);
	report_answer_section(d, m, f, steps, nsteps);
	facts(d, m);
	findings_section(d, m, f);
	for (size_t s = 0; s < nsteps; s++)
		step_section(d, m, cs, &steps[s]);
	iomix_section(d, m, cs);
	report_run_rotation_section(d, m);
	if (d->oom) {
		rdoc_free(d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}

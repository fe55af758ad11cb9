/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dutlab run --dry-run FILE`: the plan as text, its order, then one block
 * per configuration (whose items may be anywhere in the plan: interleaved).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/units.h"
#include "tools/run/experiment.h"

#define NS_PER_S 1000000000ull

/* "25s", "4m10s", "1h02m": an ETA, not a measurement. */
static const char *eta(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + NS_PER_S / 2) / NS_PER_S;

	if (s < 60)
		snprintf(buf, len, "%llus", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60));
	return buf;
}

static void print_fs(const struct dut_filesystem *f, FILE *out)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };

	fprintf(out, "filesystem %s", f->name);
	if (f->type == DUT_FS_NONE)
		return;
	fprintf(out, " (%s", dut_fs_type_name(f->type));
	if (f->type == DUT_FS_EXT4)
		fprintf(out, ", data=%s", modes[f->data]);
	if (f->block_size)
		fprintf(out, ", block size %u", f->block_size);
	if (f->mkfs_options)
		fprintf(out, ", mkfs %s", f->mkfs_options);
	if (f->mount_options)
		fprintf(out, ", -o %s", f->mount_options);
	fputc(')', out);
}

static void print_target(const struct dut_config_target *ct, FILE *out)
{
	const struct dut_target *t = ct->target;
	char sz[DUT_FMT_LEN];
	const char *sep = "";

	fprintf(out, "    target %s: %s %s", t->name, dut_target_type_name(t->type), t->path);
	if (t->type == DUT_TARGET_IMAGE)
		fprintf(out, " (%s, through a loop device)", dut_format_size(t->size_bytes, sz, sizeof(sz)));
	fputs("; ", out);
	print_fs(ct->fs, out);
	if (ct->shape)
		fprintf(out, "; shape %s", ct->shape);
	fprintf(out, "; needs about %s", dut_format_size(ct->space_bytes, sz, sizeof(sz)));
	if (ct->holds_pgdata || ct->holds_wal || ct->holds_replica) {
		fputs(" (", out);
		if (ct->holds_pgdata)
			fprintf(out, "%sdata directory", sep), sep = ", ";
		if (ct->holds_wal)
			fprintf(out, "%sWAL", sep), sep = ", ";
		if (ct->holds_replica)
			fprintf(out, "%sstandby", sep);
		fputc(')', out);
	}
	fputc('\n', out);
}

static void print_step(const struct dut_step *st, size_t i, uint64_t est_ns, FILE *out)
{
	char e[24];

	fprintf(out, "    %2zu. %-16s %-10s ~%-7s", i + 1, st->name, st->type->name, eta(est_ns, e, sizeof(e)));
	if (st->target)
		fprintf(out, " target=%s", st->target);
	if (st->raw)
		fputs(" raw", out);
	for (size_t k = 0; k < st->type->nparams; k++)
		if (st->values[k].set)
			fprintf(out, " %s=%s", st->type->params[k].key, st->values[k].text);
	if (st->repeat > 1)
		fprintf(out, "  (x%u in a row)", st->repeat);
	fputc('\n', out);
}

static void print_config(const struct dut_plan *p, const struct dut_config *c, FILE *out)
{
	const struct dut_experiment *e = p->exp;
	char a[24], b[24], sz[DUT_FMT_LEN];
	uint64_t step_ns[DUT_EXP_MAX_STEPS] = { 0 };

	fprintf(out, "\n[%u/%zu] %s: about %s", c->index + 1, p->nconfigs, c->name, eta(c->est_ns, a, sizeof(a)));
	if (e->repetitions > 1)
		fprintf(out, " for %u repetitions", e->repetitions);
	fprintf(out, ", about %s of space\n", dut_format_size(c->space_bytes, sz, sizeof(sz)));
	for (size_t i = 0; i < c->ntargets; i++)
		print_target(&c->targets[i], out);
	/* the run mounts its own dutfs only under a cluster it starts (rep_setup) */
	if (!c->needs_cluster)
		fputs("    dutfs: no mount of the run's own (no step runs PostgreSQL on it)", out);
	else
		fprintf(out, "    dutfs: %s%s", c->view == DUT_VIEW_OFF ? "off (no dutfs mount)" : "view ",
			c->view == DUT_VIEW_OFF ? "" : dut_view_name(c->view));
	if (c->needs_cluster && c->view != DUT_VIEW_OFF)
		fprintf(out, ", tracing %s", c->trace ? "on" : "off");
	for (size_t i = 0; i < e->nsteps; i++)
		if (e->steps[i].type->own_clusters)
			fprintf(out, "; step %s mounts dutfs itself for each of its states (view syscall, the state's "
				"fault rules, no trace)", e->steps[i].name);
	if (c->needs_cluster && c->view != DUT_VIEW_OFF && c->trace && e->trace_max_bytes)
		fprintf(out, " (each trace kept within %s in %u segments, --trace-max)",
			dut_format_size(e->trace_max_bytes, sz, sizeof(sz)),
			e->trace_segments ? e->trace_segments : DUT_TRACE_SEGMENTS_DEFAULT);
	if (c->needs_cluster) {
		if (c->pg_bindir)
			fprintf(out, "; PostgreSQL from %s", c->pg_bindir);
		else if (c->pg_major)
			fprintf(out, "; PostgreSQL %u", c->pg_major);
		else
			fputs("; PostgreSQL: the newest installed", out);
		if (c->pg_block_kb || c->pg_wal_block_kb)   /* a build of dutlab pg build */
			fprintf(out, " built with %u kB blocks, %u kB WAL blocks",
				c->pg_block_kb ? c->pg_block_kb : 8, c->pg_wal_block_kb ? c->pg_wal_block_kb : 8);
		fprintf(out, "; replica %s", dut_replica_mode_name(c->replica));
		if (e->pg_memory_bytes)
			fprintf(out, "; memory budget %s", dut_format_size(e->pg_memory_bytes, sz, sizeof(sz)));
		else
			fputs("; no memory budget", out);
		if (c->tables_on || c->indexes_on)
			fprintf(out, "; tables on %s, indexes on %s", c->tables_on ? c->tables_on : "default",
				c->indexes_on ? c->indexes_on : "default");
	}
	fputc('\n', out);
	if (c->nsettings) {
		fputs("    postgres:", out);
		for (size_t i = 0; i < c->nsettings; i++)
			fprintf(out, " %s=%s", c->settings[i].name, c->settings[i].value);
		fputc('\n', out);
	}
	/* the first repetition's items (the others repeat it), wherever the
	 * order put them: one pass over the plan */
	for (size_t k = 0; k < p->nitems; k++) {
		const struct dut_plan_item *it = &p->items[k];

		if (it->kind == DUT_PLAN_STEP && it->config == c->index && it->rep == 0 && it->step < DUT_EXP_MAX_STEPS)
			step_ns[it->step] += it->est_ns;
	}
	fprintf(out, "        %-16s %-10s ~%-7s %s\n", "setup", "", eta(c->setup_ns, b, sizeof(b)),
		c->needs_cluster ? "create filesystems, mount, initdb, teardown" : "create filesystems, mount, teardown");
	for (size_t si = 0; si < e->nsteps && si < DUT_EXP_MAX_STEPS; si++)
		print_step(&e->steps[si], si, step_ns[si], out);
}

/* "order: interleaved (rep 1 of each configuration, then rep 2 ...)" */
static void print_order(const struct dut_plan *p, FILE *out)
{
	const struct dut_experiment *e = p->exp;
	const char *why = e->order_line ? "" : e->repetitions > 1 ? ", the default with repetitions" :
		", the default with one repetition";

	if (e->order == DUT_ORDER_INTERLEAVED)
		fprintf(out, "  order: interleaved (rep 1 of each configuration, then rep 2 of each ...%s)\n", why);
	else if (e->repetitions > 1 && p->nconfigs > 1)
		fprintf(out, "  order: sequential (all repetitions of configuration 1, then of configuration 2 ...%s); "
			"a drift over the run looks like a difference between configurations\n", why);
	else if (e->repetitions > 1)
		fprintf(out, "  order: sequential (all repetitions of the configuration%s)\n", why);
	else
		fprintf(out, "  order: sequential (one repetition of each configuration in turn%s)\n", why);
}

int dutlab_run_print_plan(const struct dut_plan *p, FILE *out)
{
	const struct dut_experiment *e = p->exp;
	char a[24];
	size_t runs = 0;

	for (size_t i = 0; i < p->nitems; i++)
		runs += p->items[i].kind == DUT_PLAN_STEP;
	fprintf(out, "experiment %s (%s): %zu configuration%s x %u repetition%s, %zu step runs, about %s\n",
		e->name, e->source, p->nconfigs, p->nconfigs == 1 ? "" : "s", e->repetitions,
		e->repetitions == 1 ? "" : "s", runs, eta(p->est_ns, a, sizeof(a)));
	if (e->description)
		fprintf(out, "  %s\n", e->description);
	print_order(p, out);
	if (e->progress_ns || e->report_every_ns) {
		char b[24];

		fputs("  while a step runs:", out);
		if (e->progress_ns)
			fprintf(out, " a progress line every %s", eta(e->progress_ns, a, sizeof(a)));
		if (e->report_every_ns)
			fprintf(out, "%s report.md rewritten (a partial report) every %s", e->progress_ns ? ";" : "",
				eta(e->report_every_ns, b, sizeof(b)));
		fputc('\n', out);
	}
	for (size_t i = 0; i < e->ndims; i++) {
		fprintf(out, "  matrix %s:", e->dims[i].key);
		for (size_t j = 0; j < e->dims[i].nvalues; j++)
			fprintf(out, "%s %s", j ? "," : "", e->dims[i].values[j]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < p->nconfigs; i++)
		print_config(p, &p->configs[i], out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

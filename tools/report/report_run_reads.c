/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device reads per configuration in a step, for io_method comparisons (report_run_reads.h).  Pure. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "tools/report/report_run_reads.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)

/* Bins of tools/report/report.h: bin k holds [2^k, 2^(k+1)); two blocks or more is bin log2(block) + 1 up. */
static unsigned multi_bin(uint32_t block_bytes)
{
	uint32_t b = block_bytes ? block_bytes : REP_TAIL_PAGE_BYTES;

	return 32u - (unsigned)__builtin_clz(b); /* floor(log2(b)) + 1 */
}

static void add_rows(struct report_reads *x, const struct report *io)
{
	for (size_t i = 0; i < io->nprocesses; i++) {
		const struct rep_row *p = &io->processes[i];
		const struct rep_dirstats *rd = &p->st.dir[REP_READ];

		x->all_ops += rd->ops;
		x->all_bytes += rd->bytes;
		if (strcmp(p->detail, REPORT_READS_WORKER_ROLE) == 0) {
			x->worker_ops += rd->ops;
			x->worker_bytes += rd->bytes;
		}
	}
}

void report_reads_of(const struct rundir_config *c, const char *phase, uint32_t block_bytes, struct report_reads *ret,
		     struct dut_hist *lat)
{
	unsigned mb = multi_bin(block_bytes);
	struct report_reads x = { 0 };

	for (size_t r = 0; r < c->nreps; r++) {
		const struct rundir_rep *rp = &c->reps[r];
		bool found = false;

		for (size_t t = 0; t <= rp->nmore; t++) {
			const struct report *io = t == 0 ? rp->io : rp->more_io[t - 1];

			if (!io)
				continue;
			for (size_t p = 1; p < io->nphases; p++) {
				const struct rep_dirstats *rd = &io->phases[p].total.dir[REP_READ];

				if (strcmp(io->phases[p].name, phase) != 0)
					continue;
				found = true;
				x.ops += rd->ops;
				x.bytes += rd->bytes;
				for (unsigned b = mb; b < REP_SIZE_BINS; b++)
					x.multi_ops += rd->size_bins[b];
				if (lat && rd->lat)
					dut_hist_merge_sparse(lat, rd->lat);
			}
		}
		/* the processes of every mount's trace of a repetition that ran the phase */
		for (size_t t = 0; found && t <= rp->nmore; t++) {
			const struct report *io = t == 0 ? rp->io : rp->more_io[t - 1];

			if (io)
				add_rows(&x, io);
		}
		x.ntraced += found;
	}
	*ret = x;
}

const char *report_config_io_method(const struct rundir_config *c)
{
	for (size_t r = 0; r < c->nreps; r++)
		for (size_t s = 0; s < c->reps[r].nsteps; s++)
			for (size_t d = 0; d < c->reps[r].steps[s].ndocs; d++) {
				struct dut_result *doc = c->reps[r].steps[s].docs[d].doc;
				/* reads only: dut_result_target hands out the document's own object */
				json_object *v = rundir_jget(rundir_jget(rundir_jget(dut_result_target(doc), "settings"),
								   "io_method"), "setting");

				if (v && json_object_is_type(v, json_type_string))
					return json_object_get_string(v);
			}
	return NULL;
}

/* Do at least two configurations name different io_method values? */
static bool io_methods_differ(const struct rundir_model *m)
{
	const char *first = NULL;

	for (size_t i = 0; i < m->nconfigs; i++) {
		const char *v = report_config_io_method(&m->configs[i]);

		if (!v)
			continue;
		if (first && strcmp(first, v) != 0)
			return true;
		first = first ? first : v;
	}
	return false;
}

static const char *pct_text(uint64_t a, uint64_t b, char *buf, size_t n)
{
	if (!b)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f", rep_pct(a, b));
	return buf;
}

void report_reads_table(struct rdoc *d, const struct rundir_model *m, const char *step, bool dss)
{
	bool any = false;

	if (!io_methods_differ(m))
		return;
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		const char *mark = rundir_step_mark(c, step);
		const char *phase = dss ? RUNDIR_DSS_PHASE("queries") : mark;
		const char *meth = report_config_io_method(c);
		struct dut_hist *lat;
		struct report_reads x;
		char a[32], b[32], e[32], f[32], g[32], h[32];
		uint64_t txs;

		if (!mark)
			continue;
		if (!(lat = dut_hist_new())) {
			d->oom = true;
			return;
		}
		report_reads_of(c, phase, c->pg_block_kb * 1024u, &x, lat);
		if (!x.ntraced || !x.ops) {
			dut_hist_free(lat);
			continue;
		}
		if (!any) {
			char cap[700];

			snprintf(cap, sizeof(cap), "Device reads per configuration, step %s%s (dutfs traces, "
				 "every repetition summed): what reached the device below the page cache; "
				 "multi-block = reads of two blocks or more (combined by the read stream, or "
				 "the kernel's readahead); latency = time in the backing file system; io "
				 "workers = the share of the bytes read in the whole traces, every step, that "
				 "PostgreSQL's I/O worker processes read (role %s in the relation map; the "
				 "report keeps processes per trace, not per step)", step,
				 dss ? " (its query phase)" : "", REPORT_READS_WORKER_ROLE);
			rdoc_table(d, cap, dss ? "configuration|io_method|>reads|>read (MiB)|>mean read (KiB)|"
				   ">% multi-block|>p50 (ms)|>p99 (ms)|>% of the traces' bytes by io workers"
				   : "configuration|io_method|>reads|>per transaction|>read (MiB)|>mean read (KiB)|"
				   ">% multi-block|>p50 (ms)|>p99 (ms)|>% of the traces' bytes by io workers");
			any = true;
		}
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%s", meth ? meth : "?");
		rdoc_cell(d, "%s", rundir_fmt_count(x.ops, a, sizeof(a)));
		if (!dss) {
			txs = rundir_traced_transactions(c, step, mark);
			rdoc_cell(d, "%s", txs ? rundir_fmt_num((double)x.ops / (double)txs, 2, b, sizeof(b)) : "-");
		}
		rdoc_cell(d, "%s", rundir_fmt_num((double)x.bytes / MIB, 1, e, sizeof(e)));
		rdoc_cell(d, "%s", rundir_fmt_num((double)x.bytes / (double)x.ops / 1024.0, 1, f, sizeof(f)));
		rdoc_cell(d, "%s", pct_text(x.multi_ops, x.ops, g, sizeof(g)));
		rdoc_cell(d, "%.3f", (double)dut_hist_percentile(lat, 50) / 1e6);
		rdoc_cell(d, "%.3f", (double)dut_hist_percentile(lat, 99) / 1e6);
		rdoc_cell(d, "%s", pct_text(x.worker_bytes, x.all_bytes, h, sizeof(h)));
		dut_hist_free(lat);
	}
}

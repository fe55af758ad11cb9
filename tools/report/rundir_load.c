/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a run directory: the manifest, then the documents and traces it names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/trace.h"
#include "lib/relmap.h"
#include "tools/report/rundir_model.h"

DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)
DUT_DEFINE_FREEP(struct relmap *, relmap_free)

bool rundir_dir_detect(const char *path)
{
	char p[4096];
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	snprintf(p, sizeof(p), "%s/manifest.json", path);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void load_docs(struct rundir_model *m, const struct rundir_rep *rp)
{
	struct dut_error err = { { 0 } };
	char p[4096];

	for (size_t s = 0; s < rp->nsteps; s++) {
		struct rundir_step *st = &rp->steps[s];

		for (size_t d = 0; d < st->ndocs; d++) {
			snprintf(p, sizeof(p), "%s/%s/%s", m->dir, rp->dir, st->docs[d].file);
			if (dut_result_read_file(p, &st->docs[d].doc, &err) < 0)
				rundir_model_note(m, "%s (step %s) not used: %s", p, st->name, err.msg);
		}
	}
}

/* One trace file of a rep, summarised into *ret (NULL when it cannot be read). */
static void load_one_trace(struct rundir_model *m, const struct rundir_rep *rp, const char *name,
			   const struct relmap *rm, const struct rep_pages *pages, struct report **ret)
{
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *ts = NULL;
	struct dut_error err = { { 0 } };
	char p[4096];
	int r;

	snprintf(p, sizeof(p), "%s/%s/%s", m->dir, rp->dir, name);
	/* one pass in time order: memory does not grow with the trace (docs/report.md) */
	if (dut_trace_stream_open(p, &ts, &err) < 0) {
		rundir_model_note(m, "%s not used: %s", p, err.msg);
		return;
	}
	if (dut_trace_stream_meta(ts)->truncated)
		rundir_model_note(m, "%s: %s (the report uses what was written)", p, err.msg);
	r = report_build_stream_pages(ts, rm, pages, ret);
	if (r < 0) {
		dut_trace_stream_error(ts, &err); /* a damaged frame the merge met: the loader's words */
		rundir_model_note(m, "%s not used: %s", p, err.msg[0] ? err.msg : strerror(-r));
	}
}

/* The traces of one rep (the data directory's mount and the others),
 * summarised with the rep's relation map when it has one. */
static void load_trace(struct rundir_model *m, const struct rundir_config *c, struct rundir_rep *rp)
{
	/* the configuration's block sizes (manifest; 0 before #26): tail rewrites in its pages */
	const struct rep_pages pages = { c->pg_block_kb * 1024u, c->pg_wal_block_kb * 1024u };
	_cleanup_(relmap_freep) struct relmap *rm = NULL;
	struct dut_error err = { { 0 } };
	char p[4096];

	if (!rp->trace && rp->nmore == 0)
		return;
	if (rp->relmap) {
		snprintf(p, sizeof(p), "%s/%s/%s", m->dir, rp->dir, rp->relmap);
		if (relmap_load(p, &rm, &err) < 0)
			rundir_model_note(m, "%s not used (relation kinds unknown): %s", p, err.msg);
	}
	if (rp->trace)
		load_one_trace(m, rp, rp->trace, rm, &pages, &rp->io);
	for (size_t i = 0; i < rp->nmore; i++)
		load_one_trace(m, rp, rp->more_traces[i], rm, &pages, &rp->more_io[i]);
	rp->io_has_relmap = rm != NULL;
}

int rundir_model_load(const char *rundir, unsigned flags, struct rundir_model **ret,
		   struct dut_error *err)
{
	_cleanup_free_ char *text = NULL;
	struct rundir_model *m = NULL;
	char path[4096];
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	r = dut_read_small_file(path, RUNDIR_MANIFEST_MAX_BYTES, &text, &len);
	if (r < 0) {
		dut_error_set(err, "%s: %s%s", path, strerror(-r),
			      r == -ENOENT ? " (not a run directory of dutlab run?)" : "");
		return r == -ENOMEM ? r : -EINVAL;
	}
	r = rundir_manifest_parse(text, len, path, &m, err);
	if (r < 0)
		return r;
	free(m->dir);
	m->dir = strdup(rundir);
	if (!m->dir) {
		rundir_model_free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t k = 0; k < m->configs[i].nreps; k++) {
			if (flags & RUNDIR_LOAD_DOCS)
				load_docs(m, &m->configs[i].reps[k]);
			if (flags & RUNDIR_LOAD_TRACES)
				load_trace(m, &m->configs[i], &m->configs[i].reps[k]);
		}
	*ret = m;
	return 0;
}

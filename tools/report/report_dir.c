/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing the report of a run directory: report.md, report.html, charts/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "tools/report/chart.h"
#include "tools/report/findings.h"
#include "tools/report/report_dir.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct findings *, findings_free)
DUT_DEFINE_FREEP(struct charts *, charts_free)
DUT_DEFINE_FREEP(struct rdoc *, rdoc_free)

/* Write text to dir/name through a temporary file and rename: a reader never sees half a report. */
static int write_atomic(const char *dir, const char *name, const char *text)
{
	char p[4096];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return -ENAMETOOLONG;
	return dut_write_file_atomic(p, text, strlen(text), 0644);
}

void report_dir_summary_clear(struct report_dir_summary *s)
{
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	s->warnings = NULL;
	s->nwarnings = 0;
}

int report_dir_write(const char *rundir, struct report_dir_summary *ret, struct dut_error *err)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(charts_freep) struct charts *cs = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL, *html = NULL;
	struct report_dir_summary sum = { 0 };
	char chartdir[4096], title[512];
	int r;

	r = rundir_model_load(rundir, RUNDIR_LOAD_DOCS | RUNDIR_LOAD_TRACES, &m, err);
	if (r < 0)
		return r;
	if ((r = findings_build(m, &f)) < 0 || (r = charts_build(m, &cs)) < 0) {
		dut_error_set(err, "cannot build the report: %s", strerror(-r));
		return r;
	}
	snprintf(chartdir, sizeof(chartdir), "%s/charts", rundir);
	if (cs->n && (r = charts_render(cs, chartdir)) < 0) {
		if (r == -ELOOP)
			dut_error_set(err, "%s is a symbolic link; refusing to write the charts through it "
				      "(remove it, then run dutlab report again)", chartdir);
		else
			dut_error_set(err, "cannot write the charts into %s: %s", chartdir, strerror(-r));
		return r;
	}
	snprintf(title, sizeof(title), "dutlab report: %s", m->name);
	if ((r = report_run_build(m, f, cs, &d)) < 0 || (r = render_md(d, &md)) < 0 ||
	    (r = render_html(d, title, &html)) < 0) {
		dut_error_set(err, "cannot build the report: %s", strerror(-r));
		return r;
	}
	if ((r = write_atomic(rundir, "report.md", md)) < 0 ||
	    (r = write_atomic(rundir, "report.html", html)) < 0) {
		dut_error_set(err, "cannot write the report into %s: %s", rundir, strerror(-r));
		return r;
	}
	sum.nfindings = f->n;
	sum.ncharts = cs->n;
	sum.nnotes = m->nnotes;
	for (size_t i = 0; i < cs->n; i++) {
		if (cs->v[i].rendered)
			sum.nrendered++;
		else if (!sum.first_why_not[0])
			snprintf(sum.first_why_not, sizeof(sum.first_why_not), "%s",
				 cs->v[i].why_not ? cs->v[i].why_not : "?");
	}
	sum.warnings = TAKE_PTR(cs->warnings);
	sum.nwarnings = cs->nwarnings;
	cs->nwarnings = 0;
	*ret = sum;
	return 0;
}

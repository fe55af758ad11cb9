/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dutlab run [EXPERIMENT] [--out DIR] [--dry-run] [--yes]`: parse the
 * experiment (or take the built-in default), hand it to the runner
 * (tools/run/runner.h), and after the built-in default print the main job's
 * I/O report (per class, per phase, request sizes, top-10 relations) from
 * the trace and relation map it wrote.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/result.h"
#include "lib/trace.h"
#include "lib/relmap.h"
#include "tools/report/report.h"
#include "tools/run/experiment.h"
#include "tools/run/runner.h"
#include "tools/run/runner_sys.h"
#include "tools/dutlab/run_cmd.h"

const char dutlab_run_usage[] =
	"usage: dutlab run [EXPERIMENT.ini] [--out DIR] [--dry-run] [--yes]\n"
	"  Runs an experiment (docs/experiment-format.md): for every configuration and\n"
	"  repetition, stage the targets, mount dutfs, create a PostgreSQL cluster, run\n"
	"  the steps, tear everything down.  Without a file: the built-in default (pgbench\n"
	"  scale 10 through dutfs over /var/tmp/dutlab/default; its I/O report at the end).\n"
	"  --out DIR    the run directory (default /var/tmp/dutlab/runs/NAME-YYYYmmdd-HHMMSS)\n"
	"  --dry-run    print the plan, the estimates and the checks; do nothing\n"
	"  --yes        run the configurations that can run (the others are recorded as\n"
	"               skipped); confirm that device targets are erased\n"
	"  Ctrl-C stops the run and tears everything down (exit 130).  Needs root.\n"
	"  docs/dutlab-run.md describes the run directory and manifest.json.\n";

DUT_DEFINE_FREEP(struct dut_experiment *, dut_experiment_free)
DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)
DUT_DEFINE_FREEP(struct relmap *, relmap_free)
DUT_DEFINE_FREEP(struct report *, report_free)
DUT_DEFINE_FREEP(struct dut_result *, dut_result_free)

/* One line per pgload step of the default experiment: what it measured. */
static void print_step_figures(const struct dut_experiment *e, const char *repdir)
{
	for (size_t i = 0; i < e->nsteps; i++) {
		_cleanup_(dut_result_freep) struct dut_result *doc = NULL;
		struct dut_result_phase *ph;
		char path[PATH_MAX];
		double tps;
		uint64_t ns, total_ns = 0;

		if (snprintf(path, sizeof(path), "%s/%s.json", repdir, e->steps[i].name) >= (int)sizeof(path) ||
		    dut_result_read_file(path, &doc, NULL) < 0)
			continue;
		ph = dut_result_find_phase(doc, "run");
		if (ph && dut_phase_get_metric(ph, "tps", &tps, NULL) == 0) {
			printf("  %-14s %.1f tps\n", e->steps[i].name, tps);
			continue;
		}
		for (size_t p = 0; p < dut_result_phase_count(doc); p++)
			if (dut_phase_get_duration(dut_result_phase_at(doc, p), &ns) == 0)
				total_ns += ns;
		printf("  %-14s %.1f s, all phases\n", e->steps[i].name, (double)total_ns / 1e9);
	}
}

/* The main job's report: dutlab report TRACE --relmap RELMAP --by relation --top 10. */
static int print_default_report(const struct dut_experiment *e, const char *rundir)
{
	char repdir[PATH_MAX], trace[PATH_MAX + 16], relmap[PATH_MAX + 16];
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *ts = NULL;
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	_cleanup_(report_freep) struct report *rep = NULL;
	struct report_opts o = { .by = REP_BY_RELATION, .top = 10 };
	struct dut_error err = { "" };
	char name[256];
	int r;

	if (run_config_dirname(0, "default", name, sizeof(name)) < 0 ||
	    snprintf(repdir, sizeof(repdir), "%s/%s/rep1", rundir, name) >= (int)sizeof(repdir))
		return -ENAMETOOLONG;
	snprintf(trace, sizeof(trace), "%s/trace.dtr", repdir);
	snprintf(relmap, sizeof(relmap), "%s/relmap.json", repdir);
	printf("\n");
	print_step_figures(e, repdir);
	r = dut_trace_stream_open(trace, &ts, &err);
	if (r < 0) {
		dut_err("no report: %s", err.msg);
		return r;
	}
	if (access(relmap, F_OK) == 0) {
		if (relmap_load(relmap, &m, &err) < 0)
			dut_warn("%s (the report has no relation names)", err.msg);
		else
			o.relmap_path = relmap;
	}
	r = report_build_stream(ts, m, &rep);
	if (r < 0) {
		dut_trace_stream_error(ts, &err); /* a damaged frame the merge met: the loader's words */
		dut_err("cannot build the report: %s", err.msg[0] ? err.msg : strerror(-r));
		return r;
	}
	o.trace_path = trace;
	printf("\n");
	r = report_render_human.render(rep, &o, stdout, NULL);
	fflush(stdout);
	return r;
}

/*
 * `dutlab report RUNDIR`: report.md, report.html and the charts; true when
 * it wrote them.  It runs after the teardown, also after a Ctrl-C: the
 * report of an interrupted run says so and which steps completed.
 */
static bool write_run_report(const char *rundir)
{
	char self[PATH_MAX];
	char *argv[] = { self, "report", (char *)rundir, NULL };
	struct run_cmd_opts o = { .inherit_output = true, .timeout_ns = 600 * UINT64_C(1000000000),
				  .grace_ns = UINT64_C(5000000000) };
	int status = 0, r = run_self_exe(self, sizeof(self));

	if (r < 0) {
		dut_warn("cannot find this program to run dutlab report %s: %s; the run directory is "
			 "complete without it (run dutlab report RUNDIR)", rundir, strerror(-r));
		return false;
	}
	printf("\n");
	fflush(stdout);
	r = run_command(argv, &o, &status);
	if (r < 0 && r != -EINTR && r != -ETIMEDOUT) {
		dut_warn("cannot start dutlab report %s (%s): %s; the run directory is complete without it "
			 "(run dutlab report RUNDIR)", rundir, self, strerror(-r));
		return false;
	}
	if (r < 0 || status != 0) {
		dut_warn("dutlab report %s failed (%s %d); the run directory is complete without it", rundir,
			 status > 128 ? "signal" : "exit", status > 128 ? status - 128 : status);
		return false;
	}
	return true;
}

int dutlab_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' }, { "dry-run", no_argument, NULL, 'n' },
		{ "yes", no_argument, NULL, 'y' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_(dut_experiment_freep) struct dut_experiment *e = NULL;
	_cleanup_free_ char *rundir = NULL;
	struct run_opts ro = { 0 };
	struct dut_error err = { "" };
	int c, r, code;

	while ((c = getopt_long(argc, argv, "hy", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			ro.out = optarg;
			break;
		case 'n':
			ro.dry_run = true;
			break;
		case 'y':
			ro.yes = true;
			break;
		case 'h':
			fputs(dutlab_run_usage, stdout);
			return 0;
		default:
			fprintf(stderr, "try dutlab run --help\n");
			return 2;
		}
	}
	if (argc - optind > 1) {
		dut_err("run takes one experiment file, not %d arguments (try dutlab run --help)", argc - optind);
		return 2;
	}
	if (optind < argc) {
		ro.source = argv[optind];
		r = dut_experiment_load(ro.source, &e, &err);
	} else {
		r = dut_experiment_parse(dut_experiment_default_text, strlen(dut_experiment_default_text),
					 DUT_EXPERIMENT_DEFAULT_NAME, &e, &err);
	}
	if (r < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	code = run_experiment(e, &ro, &rundir);
	if (code == 0 && !ro.source && rundir)
		print_default_report(e, rundir);
	/* a run that started has a run directory: complete, failed (1) or interrupted (130) */
	if (rundir && !ro.dry_run) {
		bool report = write_run_report(rundir);

		printf("\nrun directory: %s%s%s%s\n", rundir, report ? " (report: " : "",
		       report ? rundir : "", report ? "/report.md)" : " (no report)");
	}
	return code;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab: reports and exports of dutfs traces, and the experiment runner. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/result.h"
#include "lib/trace.h"
#include "tools/compare/compare.h"
#include "tools/compare/compare_run.h"
#include "tools/crash/crash.h"
#include "tools/report/export.h"
#include "tools/dutlab/pg_cmd.h"
#include "tools/report/report_out.h"
#include "lib/relmap.h"
#include "tools/report/report.h"
#include "tools/report/report_dir.h"
#include "tools/results/results_cmd.h"
#include "tools/dutlab/run_cmd.h"
#include "tools/report/rundir_model.h"

DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)
DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)
DUT_DEFINE_FREEP(struct relmap *, relmap_free)
DUT_DEFINE_FREEP(struct report *, report_free)
DUT_DEFINE_FREEP(struct cmp *, cmp_free)

#define EXIT_USAGE 2

struct command {
	const char *name;
	const char *summary;
	const char *usage;
	int (*run)(int argc, char **argv);
};

static const struct command commands[];

static const char report_usage[] =
	"usage: dutlab report RUNDIR\n"
	"       dutlab report TRACE [--relmap FILE] [--json FILE] [--by class|file|relation|phase|process] [--top N]\n"
	"                           [--wal-block-size SIZE]\n"
	"  RUNDIR (a run directory of dutlab run, with manifest.json): writes RUNDIR/report.md,\n"
	"  RUNDIR/report.html and the charts in RUNDIR/charts/ (drawn by gnuplot): per configuration\n"
	"  the medians and min-max spread over the repetitions, findings with the numbers they\n"
	"  rest on, TPS and latency over time, the SLC knee, IOPS against fill level, the I/O mix\n"
	"  per class from the traces, DSS phase and query times.\n"
	"  TRACE (a dutfs trace):\n"
	"  Per class, file, relation, phase and process: ops and bytes read and written,\n"
	"  % sequential, request sizes, latency p50/p99/max, fsyncs.\n"
	"  --relmap FILE  relation map (from pgload or tools/relmap.sh): names relations, splits heap/index/toast\n"
	"  --json FILE    also write the result document to FILE (\"-\" = stdout, then no table)\n"
	"  --by WHAT      the breakdown table to print after the per-class table (default class)\n"
	"  --top N        rows per breakdown table (default 20, 0 = all)\n"
	"  --wal-block-size SIZE  the server's WAL page (XLOG_BLCKSZ, 1 to 64 kB, e.g. 16kB), in which\n"
	"                 tail rewrites of WAL files are measured; default: 16, 32 or 64 kB when 95 %\n"
	"                 of the trace's WAL writes (32 or more) are aligned to it, else 8 kB (the\n"
	"                 relation map gives the data files' page)\n";

static const char export_usage[] =
	"usage: dutlab export TRACE --format fio|csv [-o FILE] [--ops read,write,...] [--phase LABEL] [--prefix DIR]\n"
	"  fio: a fio version 3 iolog; replay with fio --read_iolog=FILE (--prefix DIR puts the\n"
	"       traced files under DIR, which must hold files at least as large as the traced ones)\n"
	"  csv: one row per record, with a header row\n"
	"  --ops LIST     only these ops (fio default: read,write,mmap_write,fsync,fdatasync; csv: all)\n"
	"  --phase LABEL  only the records between marker LABEL and the next marker\n"
	"  -o FILE        output file (default stdout)\n";

static const char compare_usage[] =
	"usage: dutlab compare RESULT.json|RUNDIR... [--step NAME] [--baseline N] [--json FILE] [--force]\n"
	"  Puts the results of several configurations side by side, with ratios against the\n"
	"  baseline (default: the first).  Results are dutlab result documents of one tool and\n"
	"  workload (pgload dss, pgload oltp, dutprobe bench, ...).\n"
	"  A RUNDIR (a run directory of dutlab run) gives one column per configuration, the\n"
	"  median over its repetitions; one RUNDIR alone compares its configurations with the\n"
	"  first.  Without --step every step the configurations share is compared (with result\n"
	"  documents given too: the step whose documents are of their kind).\n"
	"  pgload dss: per-phase and per-query times (median of the repetitions, with spread),\n"
	"    plan changes marked, m-time and m-score over the queries whose plan fingerprint\n"
	"    is the same in every result, and the plain totals.\n"
	"  others: every phase metric present in all results (tps, latency, IOPS, B/s, ...).\n"
	"  --step NAME    compare this step of the run directories\n"
	"  --baseline N   the Nth column is the baseline (1-based; default 1)\n"
	"  --json FILE    also write the comparison as a result document (\"-\" = stdout, then no\n"
	"                 table); with run directories, for one step only\n"
	"  --force        compare DSS results despite a different scale factor, query set,\n"
	"                 parameters or data seed (the differences are printed as warnings)\n";

static void usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dutlab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'dutlab %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
}

static int report_rundir(const char *dir)
{
	struct report_dir_summary sum;
	struct dut_error err = { { 0 } };

	if (report_dir_write(dir, &sum, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	for (size_t i = 0; i < sum.nwarnings; i++)
		dut_warn("%s", sum.warnings[i]);
	report_dir_summary_clear(&sum);
	printf("%s/report.md, %s/report.html: %zu finding%s, %zu of %zu chart%s drawn\n", dir, dir,
	       sum.nfindings, sum.nfindings == 1 ? "" : "s", sum.nrendered, sum.ncharts,
	       sum.ncharts == 1 ? "" : "s");
	if (sum.nrendered < sum.ncharts)
		dut_warn("charts not drawn: %s", sum.first_why_not);
	if (sum.nnotes)
		dut_warn("%zu file%s of the run could not be used; the report lists them", sum.nnotes,
			 sum.nnotes == 1 ? "" : "s");
	return 0;
}

/*
 * The report could not be built from stream ts: a damaged frame the merge
 * met (2.1 traces) in the loader's words, else the error.
 */
static void report_failed(const struct dut_trace_stream *ts, int r)
{
	struct dut_error err = { { 0 } };

	dut_trace_stream_error(ts, &err);
	if (err.msg[0])
		dut_err("%s", err.msg);
	else
		dut_err("cannot build the report: %s", strerror(-r));
}

/*
 * No manifest says the WAL page of a trace alone: the alignment of its WAL
 * writes does (rep_wal_guess_page), counted in the report's own pass, which
 * assumes the default page.  Only when they say another page is the
 * report built again with it, from a new stream (a server built with
 * --with-wal-blocksize).  0, or the exit status.
 */
static int report_trace_guessing_wal(const char *path, struct dut_trace_stream **ts,
				     const struct relmap *m, struct report **ret)
{
	struct rep_wal_guess g = { 0 };
	struct rep_pages pages = { 0 };
	struct dut_error err = { { 0 } };
	int r;

	if ((r = report_build_stream_watch(*ts, m, NULL, &g, ret)) < 0) {
		report_failed(*ts, r);
		return 1;
	}
	pages.wal_block_bytes = rep_wal_guess_page(&g);
	/* 8 KiB, the default, is what reports said before: no note then */
	if (!pages.wal_block_bytes || pages.wal_block_bytes == REP_TAIL_PAGE_BYTES)
		return 0;
	dut_info("WAL page %u KiB, from the trace: %" PRIu64 " of its %" PRIu64 " WAL writes are "
		 "aligned to it (--wal-block-size says otherwise)", pages.wal_block_bytes / 1024,
		 g.aligned[__builtin_ctz(pages.wal_block_bytes / 1024)], g.writes);
	report_free(*ret);
	*ret = NULL;
	dut_trace_stream_close(*ts);
	*ts = NULL;
	if (dut_trace_stream_open(path, ts, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	r = report_build_stream_pages(*ts, m, &pages, ret);
	if (r < 0) {
		report_failed(*ts, r);
		return 1;
	}
	return 0;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "relmap", required_argument, NULL, 'r' }, { "json", required_argument, NULL, 'j' },
		{ "by", required_argument, NULL, 'b' }, { "top", required_argument, NULL, 'n' },
		{ "wal-block-size", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .by = REP_BY_CLASS, .top = 20, .argc = argc, .argv = argv };
	struct rep_pages pages = { 0 };
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *ts = NULL;
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	_cleanup_(report_freep) struct report *rep = NULL;
	const char *json = NULL;
	struct dut_error err = { { 0 } };
	char *end;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.relmap_path = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'b':
			if (rep_by_parse(optarg, &o.by) < 0) {
				usage_error("report", "--by \"%s\": expected class, file, relation, phase or process", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || v > UINT_MAX) {
				usage_error("report", "--top \"%s\": expected a number of rows", optarg);
				return EXIT_USAGE;
			}
			o.top = (unsigned)v;
			break;
		}
		case 'w':
			if (rep_wal_block_parse(optarg, &pages.wal_block_bytes) < 0) {
				usage_error("report", "--wal-block-size \"%s\": expected a WAL page PostgreSQL "
					    "accepts: 1, 2, 4, 8, 16, 32 or 64 kB (e.g. 16kB)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default:
			usage_error("report", "%s", "unknown or incomplete option");
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage_error("report", "%s", optind >= argc ? "missing TRACE" : "one TRACE only");
		return EXIT_USAGE;
	}
	o.trace_path = argv[optind];
	if (rundir_dir_detect(o.trace_path)) {
		if (o.relmap_path || json || o.by != REP_BY_CLASS || o.top != 20 || pages.wal_block_bytes) {
			usage_error("report", "%s is a run directory: --relmap, --json, --by, --top and "
				    "--wal-block-size apply to a TRACE only (the run's relation maps and page "
				    "sizes are in its manifest)", o.trace_path);
			return EXIT_USAGE;
		}
		return report_rundir(o.trace_path);
	}
	/* one pass in time order: memory does not grow with the trace (docs/report.md) */
	r = dut_trace_stream_open(o.trace_path, &ts, &err);
	if (r < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (dut_trace_stream_meta(ts)->truncated)
		dut_warn("%s: %s", o.trace_path, err.msg);
	if (o.relmap_path && relmap_load(o.relmap_path, &m, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (!pages.wal_block_bytes) {
		r = report_trace_guessing_wal(o.trace_path, &ts, m, &rep);
		if (r != 0)
			return r;
	} else if ((r = report_build_stream_pages(ts, m, &pages, &rep)) < 0) {
		report_failed(ts, r);
		return 1;
	}
	if (!json || strcmp(json, "-") != 0) {
		r = report_render_human.render(rep, &o, stdout, NULL);
		if (r < 0) {
			dut_err("cannot write the report: %s", strerror(-r));
			return 1;
		}
	}
	if (json) {
		r = report_render_json.render(rep, &o, NULL, json);
		if (r < 0) {
			dut_err("cannot write the result document %s: %s", json, strerror(-r));
			return 1;
		}
	}
	return 0;
}

DUT_DEFINE_FREEP(struct export_src *, export_src_close)

static int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "ops", required_argument, NULL, 'O' }, { "phase", required_argument, NULL, 'p' },
		{ "prefix", required_argument, NULL, 'P' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_opts eo = { .format = EXPORT_CSV };
	_cleanup_(export_src_closep) struct export_src *src = NULL;
	struct dut_error err = { { 0 } };
	const char *outpath = NULL;
	bool have_format = false;
	struct out_file out;
	uint64_t n = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (export_format_parse(optarg, &eo.format) < 0) {
				usage_error("export", "--format \"%s\": expected fio or csv", optarg);
				return EXIT_USAGE;
			}
			have_format = true;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'O':
			if (export_ops_parse(optarg, &eo.ops_mask, &err) < 0) {
				usage_error("export", "--ops: %s", err.msg);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			eo.phase = optarg;
			break;
		case 'P':
			eo.prefix = optarg;
			break;
		case 'h':
			fputs(export_usage, stdout);
			return 0;
		default:
			usage_error("export", "%s", "unknown or incomplete option");
			return EXIT_USAGE;
		}
	}
	if (!have_format) {
		usage_error("export", "%s", "--format fio|csv is required");
		return EXIT_USAGE;
	}
	if (optind + 1 != argc) {
		usage_error("export", "%s", optind >= argc ? "missing TRACE" : "one TRACE only");
		return EXIT_USAGE;
	}
	/* streamed: memory does not grow with the trace; a rotated trace's segments read as one */
	if (export_src_open(argv[optind], &src, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (export_src_meta(src)->truncated)
		dut_warn("%s: %s", argv[optind], err.msg);
	/* refuse what can be refused before the output is touched (a FIFO would block in open) */
	if (export_src_check(src, &eo, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	/* -o FILE: a temporary file renamed over FILE when complete; a device or FIFO in place */
	if ((r = out_file_open(outpath ? outpath : "-", &out)) < 0) {
		dut_err("cannot create %s: %s", outpath, strerror(-r));
		return 1;
	}
	if (export_src_write(src, &eo, out.f, &n, &err) < 0) {
		out_file_abort(&out);
		dut_err("%s", err.msg);
		return 1;
	}
	if ((r = out_file_commit(&out)) < 0) {
		dut_err("cannot write %s: %s", outpath ? outpath : "stdout", strerror(-r));
		return 1;
	}
	if (outpath)
		dut_info("%s: %" PRIu64 " records exported", outpath, n);
	return 0;
}

struct compare_args {
	struct cmp_opts co;
	struct cmp_render_opts ro;
	const char *json;
	const char *step;
};

/* Build, print and (once) write one comparison; 0 or -1 (the error is printed). */
static int compare_one(const struct cmp_input *in, size_t n, const struct compare_args *a,
		       const char *heading)
{
	_cleanup_(cmp_freep) struct cmp *cmp = NULL;
	struct dut_error err = { { 0 } };
	int r;

	if (a->co.baseline >= n) {
		dut_err("--baseline %zu: there are only %zu columns to compare%s%s", a->co.baseline + 1, n,
			heading ? " in " : "", heading ? heading : "");
		return -1;
	}
	r = cmp_build(in, n, &a->co, &cmp, &err);
	if (r < 0) {
		dut_err("%s%s%s", heading ? heading : "", heading ? ": " : "",
			r == -EINVAL ? err.msg : strerror(-r));
		return -1;
	}
	if (!a->json || strcmp(a->json, "-") != 0) {
		if (heading)
			printf("== %s ==\n", heading);
		if ((r = cmp_render_human.render(cmp, &a->ro, stdout, NULL)) < 0) {
			dut_err("cannot write the comparison: %s", strerror(-r));
			return -1;
		}
	}
	if (a->json && (r = cmp_render_json.render(cmp, &a->ro, NULL, a->json)) < 0) {
		dut_err("cannot write the result document %s: %s", a->json, strerror(-r));
		return -1;
	}
	return 0;
}

/* The step names to compare: --step, or every step whose documents are of a known kind. */
static int compare_steps(struct rundir_model **models, size_t n, const struct compare_args *a,
			 const char ***ret, size_t *ret_n)
{
	const char **names = NULL;
	size_t nn = 0;

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ struct rundir_stepinfo *st = NULL;
		size_t ns;

		if (!models[i])
			continue;
		if (rundir_steps(models[i], &st, &ns) < 0)
			goto oom;
		for (size_t k = 0; k < ns; k++) {
			bool seen = false;
			const char **v;

			if (a->step ? strcmp(st[k].name, a->step) != 0 : st[k].kind == DOC_OTHER)
				continue;
			for (size_t j = 0; j < nn && !seen; j++)
				seen = strcmp(names[j], st[k].name) == 0;
			if (seen)
				continue;
			if (!(v = realloc(names, (nn + 1) * sizeof(*v))))
				goto oom;
			names = v;
			names[nn++] = st[k].name;
		}
	}
	*ret = names;
	*ret_n = nn;
	return 0;
oom:
	free(names);
	return -ENOMEM;
}

/* The inputs of one comparison, in the order of the command line. */
static int compare_set(struct rundir_model **models, struct dut_result **docs, char **paths, size_t n,
		       const char *step, bool by_kind, struct cmp_run_set *set)
{
	enum rundir_doc_kind kind = DOC_OTHER;
	struct dut_error err = { { 0 } };
	int r = 0;

	for (size_t i = 0; i < n && by_kind; i++)
		if (docs[i]) {
			kind = rundir_doc_kind_of(docs[i]);
			break;
		}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (docs[i]) {
			r = cmp_run_add_doc(set, paths[i], docs[i], &err);
			continue;
		}
		const char *s = by_kind ? cmp_run_step_of_kind(models[i], kind) : step;

		if (s)
			r = cmp_run_add_step(set, models[i], s, &err);
	}
	if (r == -E2BIG)
		dut_err("%s", err.msg);
	else if (r < 0)
		dut_err("cannot compare: %s", strerror(-r));
	return r;
}

static int compare_runs(struct rundir_model **models, struct dut_result **docs, char **paths, size_t n,
			const struct compare_args *a)
{
	bool any_doc = false, by_kind;
	_cleanup_free_ const char **steps = NULL;
	size_t nsteps = 0, done = 0;
	int failed = 0;

	for (size_t i = 0; i < n; i++)
		any_doc |= docs[i] != NULL;
	by_kind = any_doc && !a->step;
	if (!by_kind && compare_steps(models, n, a, &steps, &nsteps) < 0) {
		dut_err("out of memory");
		return 1;
	}
	if (by_kind)
		nsteps = 1;
	if (!nsteps) {
		dut_err(a->step ? "no run directory has a step \"%s\"" :
			"the run directories have no result documents to compare%s", a->step ? a->step : "");
		return 1;
	}
	if (a->json && nsteps > 1) {
		usage_error("compare", "--json writes one comparison: choose the step with --step (steps: %s, ...)",
			    steps[0]);
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < nsteps; k++) {
		struct cmp_run_set set = { 0 };
		char heading[300];

		if (compare_set(models, docs, paths, n, by_kind ? NULL : steps[k], by_kind, &set) < 0) {
			cmp_run_set_clear(&set);
			return 1;
		}
		snprintf(heading, sizeof(heading), "step %s", by_kind ? "(by document kind)" : steps[k]);
		if (set.n < 2) {
			dut_warn("%s: only %zu configuration%s or document%s of it, nothing to compare", heading,
				 set.n, set.n == 1 ? "" : "s", set.n == 1 ? "" : "s");
		} else {
			if (done && (!a->json || strcmp(a->json, "-") != 0))
				putchar('\n');
			failed |= compare_one(set.in, set.n, a, nsteps > 1 ? heading : NULL) < 0;
			done++;
		}
		cmp_run_set_clear(&set);
	}
	if (!done && !failed)
		dut_err("nothing to compare: every step has fewer than 2 configurations");
	return failed || !done ? 1 : 0;
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' }, { "baseline", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' }, { "step", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct compare_args a = { .ro = { .argc = argc, .argv = argv } };
	struct rundir_model **models = NULL;
	struct dut_result **docs = NULL;
	struct dut_error err = { { 0 } };
	bool any_run = false;
	size_t n;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a.json = optarg;
			break;
		case 'b': {
			unsigned long v;
			char *end;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || v < 1 || v > CMP_MAX_INPUTS) {
				usage_error("compare", "--baseline \"%s\": expected the number of a result (1 = the first)",
					    optarg);
				return EXIT_USAGE;
			}
			a.co.baseline = v - 1;
			break;
		}
		case 'f':
			a.co.force = true;
			break;
		case 's':
			a.step = optarg;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return 0;
		default:
			usage_error("compare", "%s", "unknown or incomplete option");
			return EXIT_USAGE;
		}
	}
	n = (size_t)(argc - optind);
	for (size_t i = 0; i < n; i++)
		any_run |= rundir_dir_detect(argv[optind + i]);
	if (n < (any_run ? 1u : 2u)) {
		usage_error("compare", "need at least 2 result documents to compare, got %zu (or one run directory)", n);
		return EXIT_USAGE;
	}
	if (n > CMP_MAX_INPUTS) {
		usage_error("compare", "at most %d result documents, got %zu", CMP_MAX_INPUTS, n);
		return EXIT_USAGE;
	}
	if (!any_run && a.co.baseline >= n) {
		usage_error("compare", "--baseline %zu: there are only %zu results", a.co.baseline + 1, n);
		return EXIT_USAGE;
	}
	if (!any_run && a.step) {
		usage_error("compare", "%s", "--step applies to run directories; none was given");
		return EXIT_USAGE;
	}
	docs = calloc(n, sizeof(*docs));
	models = calloc(n, sizeof(*models));
	if (!docs || !models) {
		dut_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *p = argv[optind + i];
		int r;

		struct stat st;

		if (rundir_dir_detect(p)) {
			r = rundir_model_load(p, RUNDIR_LOAD_DOCS, &models[i], &err);
		} else if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			dut_err("%s is a directory without manifest.json: not a run directory of dutlab run "
				"(give a run directory or result documents)", p);
			goto out;
		}
		else {
			r = dut_result_read_file(p, &docs[i], &err);
		}
		if (r < 0) {
			dut_err("%s", r == -ENOMEM ? "out of memory" : err.msg);
			goto out;
		}
		for (size_t k = 0; models[i] && k < models[i]->nnotes; k++)
			dut_warn("%s", models[i]->notes[k]);
	}
	if (any_run) {
		ret = compare_runs(models, docs, argv + optind, n, &a);
	} else {
		struct cmp_input *in = calloc(n, sizeof(*in));

		if (!in) {
			dut_err("out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			in[i] = (struct cmp_input){ .source = argv[optind + i], .docs = &docs[i], .ndocs = 1 };
		ret = compare_one(in, n, &a, NULL) < 0 ? 1 : 0;
		free(in);
	}
out:
	for (size_t i = 0; docs && models && i < n; i++) {
		dut_result_free(docs[i]);
		rundir_model_free(models[i]);
	}
	free(docs);
	free(models);
	return ret;
}

static const struct command commands[] = {
	{ "report", "a run directory's report (report.md, report.html, charts), or a dutfs trace's I/O facts", report_usage, cmd_report },
	{ "export", "a dutfs trace as a fio iolog (replayable) or CSV", export_usage, cmd_export },
	{ "compare", "configurations side by side: run directories or result documents (DSS: m-time)", compare_usage, cmd_compare },
	{ "run", "run an experiment (the built-in default without a file)", dutlab_run_usage, dutlab_cmd_run },
	{ "results", "run directories into PostgreSQL: init, push, compare over runs and hosts", dutlab_results_usage, dutlab_cmd_results },
	{ "crash", "crash-consistency campaign: PostgreSQL crashed on dutfs, recovered and checked", dutlab_crash_usage, dutlab_cmd_crash },
	{ "pg", "PostgreSQL built with other block sizes (and majors): build, list the cache", dutlab_pg_usage, dutlab_cmd_pg },
	{ NULL, NULL, NULL, NULL },
};

static void main_usage(FILE *f)
{
	fprintf(f, "usage: dutlab COMMAND [ARGS]   (dutlab COMMAND --help for its options)\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\n  --help     this text\n  --version  print the version\n");
}

int main(int argc, char **argv)
{
	dut_log_init("dutlab", DUT_LOG_INFO);
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		main_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("dutlab %s\n", DUT_VERSION);
		return 0;
	}
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c->run(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		usage_error(NULL, "unknown option \"%s\"", argv[1]);
	else
		usage_error(NULL, "unknown command \"%s\" (commands: report, export, compare, run, results, crash, pg)", argv[1]);
	return EXIT_USAGE;
}

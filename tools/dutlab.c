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
#include "tools/compare.h"
#include "tools/export.h"
#include "tools/relmap.h"
#include "tools/report.h"
#include "tools/report_dir.h"
#include "tools/run_cmd.h"
#include "tools/run_model.h"

DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)
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
	"  --top N        rows per breakdown table (default 20, 0 = all)\n";

static const char export_usage[] =
	"usage: dutlab export TRACE --format fio|csv [-o FILE] [--ops read,write,...] [--phase LABEL] [--prefix DIR]\n"
	"  fio: a fio version 3 iolog; replay with fio --read_iolog=FILE (--prefix DIR puts the\n"
	"       traced files under DIR, which must hold files at least as large as the traced ones)\n"
	"  csv: one row per record, with a header row\n"
	"  --ops LIST     only these ops (fio default: read,write,mmap_write,fsync,fdatasync; csv: all)\n"
	"  --phase LABEL  only the records between marker LABEL and the next marker\n"
	"  -o FILE        output file (default stdout)\n";

static const char compare_usage[] =
	"usage: dutlab compare RESULT.json RESULT.json... [--baseline N] [--json FILE] [--force]\n"
	"  Puts the results of several configurations side by side, with ratios against the\n"
	"  baseline (default: the first).  Results are dutlab result documents of one tool and\n"
	"  workload (pgload dss, pgload oltp, dutprobe bench, ...).\n"
	"  pgload dss: per-phase and per-query times (median of the repetitions, with spread),\n"
	"    plan changes marked, m-time and m-score over the queries whose plan fingerprint\n"
	"    is the same in every result, and the plain totals.\n"
	"  others: every phase metric present in all results (tps, latency, IOPS, B/s, ...).\n"
	"  --baseline N   the Nth result is the baseline (1-based; default 1)\n"
	"  --json FILE    also write the comparison as a result document (\"-\" = stdout, then no table)\n"
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

static int load_trace(const char *path, struct dut_trace **ret)
{
	struct dut_error err = { { 0 } };
	struct dut_trace *t = NULL;
	int r = dut_trace_load(path, &t, &err);

	if (r < 0) {
		dut_err("%s", err.msg);
		return r;
	}
	if (t->truncated)
		dut_warn("%s: %s", path, err.msg);
	*ret = t;
	return 0;
}

static int report_rundir(const char *dir)
{
	struct report_dir_summary sum;
	struct dut_error err = { { 0 } };

	if (report_dir_write(dir, &sum, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
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

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "relmap", required_argument, NULL, 'r' }, { "json", required_argument, NULL, 'j' },
		{ "by", required_argument, NULL, 'b' }, { "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .by = REP_BY_CLASS, .top = 20, .argc = argc, .argv = argv };
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
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
	if (run_dir_detect(o.trace_path)) {
		if (o.relmap_path || json || o.by != REP_BY_CLASS || o.top != 20) {
			usage_error("report", "%s is a run directory: --relmap, --json, --by and --top apply "
				    "to a TRACE only (the run's relation maps are in its manifest)", o.trace_path);
			return EXIT_USAGE;
		}
		return report_rundir(o.trace_path);
	}
	if (load_trace(o.trace_path, &t) < 0)
		return 1;
	if (o.relmap_path && relmap_load(o.relmap_path, &m, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	r = report_build(t, m, &rep);
	if (r < 0) {
		dut_err("cannot build the report: %s", strerror(-r));
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

static int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "ops", required_argument, NULL, 'O' }, { "phase", required_argument, NULL, 'p' },
		{ "prefix", required_argument, NULL, 'P' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_opts eo = { .format = EXPORT_CSV };
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	const char *outpath = NULL;
	bool have_format = false;
	FILE *out = stdout;
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
	if (load_trace(argv[optind], &t) < 0)
		return 1;
	if (outpath && strcmp(outpath, "-") != 0) {
		out = fopen(outpath, "we");
		if (!out) {
			dut_err("cannot create %s: %s", outpath, strerror(errno));
			return 1;
		}
	}
	r = export_write(t, &eo, out, &n, &err);
	if (out != stdout && fclose(out) != 0 && r == 0) {
		dut_err("cannot write %s: %s", outpath, strerror(errno));
		return 1;
	}
	if (r < 0) {
		dut_err("%s", err.msg);
		if (outpath)
			unlink(outpath);
		return 1;
	}
	if (outpath)
		dut_info("%s: %" PRIu64 " records exported", outpath, n);
	return 0;
}

static void free_docs(struct dut_result **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dut_result_free(docs[i]);
	free(docs);
}

/*
 * One input per argument: a result document.  (A run directory will give
 * one input per configuration; until then it is refused with what to do.)
 */
static int load_inputs(char **paths, size_t n, struct dut_result **docs, struct cmp_input *in)
{
	struct dut_error err = { { 0 } };
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			dut_err("%s is a directory: comparing run directories is not supported yet; "
				"give the result documents (*.json) to compare", paths[i]);
			return -EINVAL;
		}
		if (dut_result_read_file(paths[i], &docs[i], &err) < 0) {
			dut_err("%s", err.msg);
			return -EINVAL;
		}
		in[i] = (struct cmp_input){ .source = paths[i], .docs = &docs[i], .ndocs = 1 };
	}
	return 0;
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' }, { "baseline", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmp_render_opts ro = { .argc = argc, .argv = argv };
	struct cmp_opts co = { 0 };
	_cleanup_(cmp_freep) struct cmp *cmp = NULL;
	_cleanup_free_ struct cmp_input *in = NULL;
	struct dut_result **docs = NULL;
	struct dut_error err = { { 0 } };
	const char *json = NULL;
	size_t n;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = optarg;
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
			co.baseline = v - 1;
			break;
		}
		case 'f':
			co.force = true;
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
	if (n < 2) {
		usage_error("compare", "need at least 2 result documents to compare, got %zu", n);
		return EXIT_USAGE;
	}
	if (n > CMP_MAX_INPUTS) {
		usage_error("compare", "at most %d result documents, got %zu", CMP_MAX_INPUTS, n);
		return EXIT_USAGE;
	}
	if (co.baseline >= n) {
		usage_error("compare", "--baseline %zu: there are only %zu results", co.baseline + 1, n);
		return EXIT_USAGE;
	}
	docs = calloc(n, sizeof(*docs));
	in = calloc(n, sizeof(*in));
	if (!docs || !in) {
		free(docs);
		dut_err("out of memory");
		return 1;
	}
	r = load_inputs(argv + optind, n, docs, in);
	if (r == 0) {
		r = cmp_build(in, n, &co, &cmp, &err);
		if (r == -EINVAL)
			dut_err("%s", err.msg);
		else if (r < 0)
			dut_err("cannot compare: %s", strerror(-r));
	}
	if (r == 0 && (!json || strcmp(json, "-") != 0) &&
	    (r = cmp_render_human.render(cmp, &ro, stdout, NULL)) < 0)
		dut_err("cannot write the comparison: %s", strerror(-r));
	if (r == 0 && json && (r = cmp_render_json.render(cmp, &ro, NULL, json)) < 0)
		dut_err("cannot write the result document %s: %s", json, strerror(-r));
	cmp_free(cmp);
	cmp = NULL;
	free_docs(docs, n);
	return r < 0 ? 1 : 0;
}

static const struct command commands[] = {
	{ "report", "per class/file/relation/phase/process I/O facts from a dutfs trace", report_usage, cmd_report },
	{ "export", "a dutfs trace as a fio iolog (replayable) or CSV", export_usage, cmd_export },
	{ "compare", "results of several configurations side by side (DSS: m-time, m-score)", compare_usage, cmd_compare },
	{ "run", "run an experiment (the built-in default without a file)", dutlab_run_usage, dutlab_cmd_run },
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
		usage_error(NULL, "unknown command \"%s\" (commands: report, export, compare, run)", argv[1]);
	return EXIT_USAGE;
}

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
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/trace.h"
#include "tools/export.h"
#include "tools/relmap.h"
#include "tools/report.h"

#ifndef DUT_TOOLS_DIR
#define DUT_TOOLS_DIR "tools"
#endif

DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)
DUT_DEFINE_FREEP(struct relmap *, relmap_free)
DUT_DEFINE_FREEP(struct report *, report_free)

#define EXIT_USAGE 2

struct command {
	const char *name;
	const char *summary;
	const char *usage;
	int (*run)(int argc, char **argv);
};

static const struct command commands[];

static const char report_usage[] =
	"usage: dutlab report TRACE [--relmap FILE] [--json FILE] [--by class|file|relation|phase|process] [--top N]\n"
	"  Per class, file, relation, phase and process: ops and bytes read and written,\n"
	"  %% sequential, request sizes, latency p50/p99/max, fsyncs.\n"
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

static const char run_usage[] =
	"usage: dutlab run [ARGS...]\n"
	"  Runs an experiment: executes DUT_TOOLS_DIR/main-job.sh with ARGS\n"
	"  (DUT_TOOLS_DIR defaults to " DUT_TOOLS_DIR ").\n";

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

static int cmd_run(int argc, char **argv)
{
	const char *dir = getenv("DUT_TOOLS_DIR");
	char script[PATH_MAX];

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(run_usage, stdout);
		return 0;
	}
	if (!dir || !*dir)
		dir = DUT_TOOLS_DIR;
	snprintf(script, sizeof(script), "%s/main-job.sh", dir);
	if (access(script, F_OK) < 0) {
		dut_err("cannot run experiments: %s is missing (set DUT_TOOLS_DIR to the dutlab tools directory)",
			script);
		return 1;
	}
	argv[0] = script;
	execv(script, argv);
	dut_err("cannot execute %s: %s", script, strerror(errno));
	return 1;
}

static const struct command commands[] = {
	{ "report", "per class/file/relation/phase/process I/O facts from a dutfs trace", report_usage, cmd_report },
	{ "export", "a dutfs trace as a fio iolog (replayable) or CSV", export_usage, cmd_export },
	{ "run", "run an experiment (tools/main-job.sh)", run_usage, cmd_run },
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
		usage_error(NULL, "unknown command \"%s\" (commands: report, export, run)", argv[1]);
	return EXIT_USAGE;
}

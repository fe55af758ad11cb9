/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results: init, push, compare (arguments and messages only). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "tools/report/chart.h"
#include "tools/report/report_doc.h"
#include "tools/results/results.h"
#include "tools/results/results_cmd.h"
#include "tools/results/results_db.h"
#include "tools/results/results_render.h"

#define EXIT_USAGE 2

const char dutlab_results_usage[] =
	"usage: dutlab results init --db CONNINFO\n"
	"       dutlab results push RUNDIR... --db CONNINFO\n"
	"       dutlab results compare --db CONNINFO [--where KEY=VALUE]... [--json FILE] [--report DIR]\n"
	"  Run directories of dutlab run in a PostgreSQL schema \"dutlab\" (docs/results.md).\n"
	"  init     create the schema, or upgrade it to this dutlab's version\n"
	"  push     load each RUNDIR (manifest, result documents, devices, host, findings) in one\n"
	"           transaction per run; a run already there is left as it is; a run that is not\n"
	"           complete or has a file that cannot be read is refused and nothing of it loaded\n"
	"  compare  per device model, firmware, filesystem and host the median and min-max of each\n"
	"           metric per step over runs, the newest run per host, and regressions\n"
	"  --db CONNINFO      a libpq connection string or URI (host=db dbname=dutlab user=...)\n"
	"  --where KEY=VALUE  compare: only the runs and metrics where KEY is VALUE; KEY is experiment,\n"
	"                     config, step, phase, metric, unit, host, model, firmware, filesystem or run\n"
	"                     (given again: any of the values), since or until (a date or timestamp:\n"
	"                     started_at >= since, < until); the keys given must all match\n"
	"  --experiment NAME  compare: --where experiment=NAME\n"
	"  --metric NAME      compare: --where metric=NAME (tps, txn.p99, ...)\n"
	"  --json FILE        compare: also write the answer as JSON (\"-\" = stdout, then no table)\n"
	"  --report DIR       compare: also write DIR/results.md, DIR/results.html and DIR/charts/\n"
	"                     (the renderers of dutlab report; charts drawn by gnuplot)\n";

DUT_DEFINE_FREEP(PGconn *, PQfinish)

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dutlab results: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'dutlab results --help'.\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_db(const char *db, PGconn **ret)
{
	struct dut_error err = { { 0 } };

	if (results_db_connect(db, ret, &err) < 0) {
		dut_err("%s (is the server running, and does the connection string name it?)", err.msg);
		return -1;
	}
	return 0;
}

static int cmd_init(const char *db)
{
	_cleanup_(PQfinishp) PGconn *c = NULL;
	struct dut_error err = { { 0 } };
	int from;

	if (connect_db(db, &c) < 0)
		return 1;
	if (results_db_init(c, &from, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (from == RESULTS_SCHEMA_VERSION)
		printf("schema dutlab is at version %d already\n", from);
	else if (from == 0)
		printf("schema dutlab created at version %d\n", RESULTS_SCHEMA_VERSION);
	else
		printf("schema dutlab upgraded from version %d to %d\n", from, RESULTS_SCHEMA_VERSION);
	return 0;
}

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct findings *, findings_free)

/* Load and check one run directory; 0: pushed or present, -1: refused or failed. */
static int push_one(PGconn *c, const char *dir, size_t *runs, size_t *rows, double *db_s)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_free_ char *manifest = NULL;
	struct dut_error err = { { 0 } };
	char path[4096], run_id[1024];
	struct results_push pu;
	bool present;
	double t0;
	size_t n, len;
	int r;

	if (rundir_model_load(dir, RUNDIR_LOAD_DOCS | RUNDIR_LOAD_TRACES, &m, &err) < 0) {
		dut_err("%s: refused: %s", dir, err.msg);
		return -1;
	}
	if (strcmp(m->status, "complete") != 0) {
		dut_err("%s: refused: the run's status is \"%s\", not complete (interrupted, or still running); "
			"nothing of it was pushed", dir, m->status);
		return -1;
	}
	if (m->nnotes) {
		dut_err("%s: refused: %s%s; nothing of it was pushed", dir, m->notes[0],
			m->nnotes > 1 ? " (and more files)" : "");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	if ((r = dut_read_small_file(path, RUNDIR_MANIFEST_MAX_BYTES, &manifest, &len)) < 0) {
		dut_err("%s: %s", path, strerror(-r));
		return -1;
	}
	if ((r = findings_build(m, &f)) < 0) {
		dut_err("%s: the findings could not be built: %s", dir, strerror(-r));
		return -1;
	}
	pu = (struct results_push){ .m = m, .manifest_json = manifest, .findings = f,
				    .pushed_by = "dutlab " DUT_VERSION };
	t0 = now_s();
	r = results_db_push(c, &pu, &n, &present, run_id, sizeof(run_id), &err);
	*db_s += now_s() - t0;
	if (r < 0) {
		dut_err("%s: not pushed (rolled back): %s", dir, err.msg);
		return -1;
	}
	if (present) {
		printf("%s: run %s is in the database already; nothing changed\n", dir, run_id);
		return 0;
	}
	printf("%s: pushed run %s: %zu rows\n", dir, run_id, n);
	(*runs)++;
	*rows += n;
	return 0;
}

static int cmd_push(const char *db, int n, char **dirs)
{
	_cleanup_(PQfinishp) PGconn *c = NULL;
	struct dut_error err = { { 0 } };
	size_t runs = 0, rows = 0, bad = 0;
	double t0, dt, db_s = 0;

	if (connect_db(db, &c) < 0)
		return 1;
	if (results_db_check(c, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	t0 = now_s();
	for (int i = 0; i < n; i++)
		if (push_one(c, dirs[i], &runs, &rows, &db_s) < 0)
			bad++;
	dt = now_s() - t0;
	/* reading the run directories (traces, findings) and the database apart */
	printf("pushed %zu run%s, %zu rows in %.3f s (%.1f runs/s, %.0f rows/s; %.3f s of it in the database)%s\n",
	       runs, runs == 1 ? "" : "s", rows, dt, dt > 0 ? (double)runs / dt : 0.0,
	       dt > 0 ? (double)rows / dt : 0.0, db_s, bad ? "; some run directories were refused" : "");
	return bad ? 1 : 0;
}

static int write_json(const char *path, const char *text)
{
	if (strcmp(path, "-") == 0)
		return fputs(text, stdout) < 0 || fputc('\n', stdout) < 0 ? -EIO : 0;
	return dut_write_file_atomic(path, text, strlen(text), 0644);
}

DUT_DEFINE_FREEP(struct charts *, charts_free)
DUT_DEFINE_FREEP(struct rdoc *, rdoc_free)

static int write_in(const char *dir, const char *name, const char *text)
{
	char p[4096];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return -ENAMETOOLONG;
	return dut_write_file_atomic(p, text, strlen(text), 0644);
}

/* DIR/results.md, DIR/results.html and DIR/charts/ from the report renderers. */
static int write_report(const char *dir, const struct results_cmp *cmp, const char *filter_text)
{
	_cleanup_(charts_freep) struct charts *cs = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL, *html = NULL;
	char chartdir[4096];
	size_t left, drawn = 0;
	const char *why = NULL;
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		dut_err("--report %s: cannot create the directory: %s", dir, strerror(errno));
		return -1;
	}
	if ((r = results_charts_build(cmp, &cs, &left)) < 0) {
		dut_err("--report %s: cannot build the charts: %s", dir, strerror(-r));
		return -1;
	}
	snprintf(chartdir, sizeof(chartdir), "%s/charts", dir);
	if (cs->n && (r = charts_render(cs, chartdir)) < 0) {
		dut_err("--report %s: cannot write the charts into %s: %s%s", dir, chartdir, strerror(-r),
			r == -ELOOP ? " (it is a symbolic link; remove it)" : "");
		return -1;
	}
	for (size_t i = 0; i < cs->n; i++) {
		drawn += cs->v[i].rendered;
		if (!cs->v[i].rendered && !why)
			why = cs->v[i].why_not;
	}
	if ((r = results_report_build(cmp, filter_text, cs, left, &d)) < 0 || (r = render_md(d, &md)) < 0 ||
	    (r = render_html(d, "dutlab results compare", &html)) < 0) {
		dut_err("--report %s: cannot build the report: %s", dir, strerror(-r));
		return -1;
	}
	if ((r = write_in(dir, "results.md", md)) < 0 || (r = write_in(dir, "results.html", html)) < 0) {
		dut_err("--report %s: cannot write the report: %s", dir, strerror(-r));
		return -1;
	}
	fprintf(stderr, "report: %s/results.md, %s/results.html; %zu of %zu charts drawn%s%s%s\n", dir, dir,
		drawn, cs->n, why ? " (" : "", why ? why : "", why ? ")" : "");
	for (size_t i = 0; i < cs->nwarnings; i++)
		fprintf(stderr, "report: %s\n", cs->warnings[i]);
	return 0;
}

static int cmd_compare(const char *db, json_object *filter, const char *json, const char *report)
{
	_cleanup_(PQfinishp) PGconn *c = NULL;
	struct dut_error err = { { 0 } };
	struct results_cmp cmp;
	_cleanup_free_ char *text = NULL;
	char ftext[1024];
	int r, rc = 0;

	results_where_text(filter, ftext, sizeof(ftext));
	if (connect_db(db, &c) < 0)
		return 1;
	for (size_t i = 0; i < 2; i++) {
		static const char *const keys[2] = { "since", "until" };
		json_object *v;

		if (json_object_object_get_ex(filter, keys[i], &v) &&
		    results_db_timestamp_ok(c, json_object_get_string(v), &err) < 0) {
			dut_err("--where %s=%s: %s", keys[i], json_object_get_string(v), err.msg);
			return 1;
		}
	}
	if (results_db_compare(c, json_object_to_json_string_ext(filter, JSON_C_TO_STRING_PLAIN), &cmp, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (json) {
		if ((r = results_render_json(&cmp, filter, &text)) < 0 || (r = write_json(json, text)) < 0) {
			dut_err("%s: %s", json, strerror(-r));
			results_cmp_clear(&cmp);
			return 1;
		}
	}
	if (report && write_report(report, &cmp, ftext) < 0)
		rc = 1;
	if (!json || strcmp(json, "-") != 0) {
		printf("Runs: %s\n\n", ftext);
		results_render_human(stdout, &cmp);
	}
	results_cmp_clear(&cmp);
	return rc;
}

DUT_DEFINE_FREEP(json_object *, json_object_put)

int dutlab_cmd_results(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' }, { "experiment", required_argument, NULL, 'e' },
		{ "metric", required_argument, NULL, 'm' }, { "json", required_argument, NULL, 'j' },
		{ "where", required_argument, NULL, 'w' }, { "report", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	_cleanup_(json_object_putp) json_object *filter = json_object_new_object();
	const char *db = NULL, *json = NULL, *report = NULL, *sub;
	struct dut_error err = { { 0 } };
	bool compare_opt = false;
	char arg[1024];
	int c;

	if (argc < 2) {
		usage_error("%s", "missing init, push or compare");
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(dutlab_results_usage, stdout);
		return 0;
	}
	sub = argv[1];
	if (strcmp(sub, "init") != 0 && strcmp(sub, "push") != 0 && strcmp(sub, "compare") != 0) {
		usage_error("unknown command \"%s\" (init, push or compare)", sub);
		return EXIT_USAGE;
	}
	argc--;
	argv++;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'e':
		case 'm':
		case 'w':
			if (c == 'w')
				snprintf(arg, sizeof(arg), "%s", optarg);
			else
				snprintf(arg, sizeof(arg), "%s=%s", c == 'e' ? "experiment" : "metric", optarg);
			if (!filter || results_where_add(filter, arg, &err) < 0) {
				usage_error("%s", filter ? err.msg : "out of memory");
				return EXIT_USAGE;
			}
			compare_opt = true;
			break;
		case 'j': json = optarg; compare_opt = true; break;
		case 'r': report = optarg; compare_opt = true; break;
		case 'h':
			fputs(dutlab_results_usage, stdout);
			return 0;
		default:
			usage_error("%s", "unknown or incomplete option");
			return EXIT_USAGE;
		}
	}
	if (!db) {
		usage_error("%s: missing --db CONNINFO", sub);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "compare") != 0 && compare_opt) {
		usage_error("%s: --where, --experiment, --metric, --json and --report are options of compare", sub);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "push") == 0) {
		if (optind >= argc) {
			usage_error("%s", "push: missing RUNDIR");
			return EXIT_USAGE;
		}
		return cmd_push(db, argc - optind, argv + optind);
	}
	if (optind < argc) {
		usage_error("unexpected argument \"%s\"", argv[optind]);
		return EXIT_USAGE;
	}
	return strcmp(sub, "init") == 0 ? cmd_init(db) : cmd_compare(db, filter, json, report);
}

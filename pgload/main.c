/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgload: throwaway PostgreSQL clusters and pgbench-compatible OLTP load.
 * main only parses arguments and wires the parts together.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/result.h"
#include "pgload/cluster.h"
#include "pgload/dss/dss.h"
#include "pgload/main.h"
#include "pgload/pgconn.h"
#include "lib/redact.h"
#include "pgload/report.h"
#include "pgload/session.h"

static const char usage[] =
	"usage: pgload cluster init|standby|start|stop|status|destroy --pgdata DIR ... (pgload cluster --help)\n"
	"       pgload init [TARGET] [-s SCALE] [--jobs N] [--fillfactor N]\n"
	"                   (--jobs: parallel COPY connections; default 1 on <= 2 CPUs, else CPUs/2 up to 4)\n"
	"                   [--tables-on TS] [--indexes-on TS] [--ack-log FILE] [COMMON]\n"
	"                   (--ack-log: a line per statement the server acknowledged, fdatasynced:\n"
	"                   dutlab crash's record of a load it crashes)\n"
	"       pgload run  [TARGET] [-b SCRIPT[@WEIGHT]]... [-S] [-N] [-c CLIENTS] [-j THREADS]\n"
	"                   [-T SECONDS | -t TXNS] [-R TPS] [-M simple|extended|prepared]\n"
	"                   [--pipeline] [--max-tries N] [-P SECONDS] [--seed N] [--standby-lag]\n"
	"                   [--spin auto|off|USEC] [--no-server-stats] [COMMON]\n"
	"                   (--spin: a thread driving one client polls its socket up to USEC before\n"
	"                   sleeping; auto: 150 us when -j equals -c and 2 x clients <= CPUs)\n"
	"                   (replay lag of streaming standbys is sampled when the target has any;\n"
	"                   --standby-lag samples even when none is seen: docs/pgload-standby.md)\n"
	"                   (--no-server-stats: no pg_stat_* counters, wait-event samples or\n"
	"                   server CPU: docs/pgload.md, \"Server-side evidence\")\n"
	"TARGET: --pgdata DIR (a cluster made by pgload cluster init) or -d CONNINFO\n"
	"COMMON: --json FILE (result document), --relmap FILE (relation map),\n"
	"        --dutfs-control FILE (default: found above the data directory),\n"
	"        --workload oltp, -q (no summary), --debug\n"
	"       pgload dss ...  (TPC-H-derived decision support: pgload dss --help)\n"
	"       pgload restore dump|run ...  (timed pg_restore of a reference dump: pgload restore --help)\n"
	"       pgload ledger init|run|check ...  (crash-consistency ledger: pgload ledger --help)\n"
	"scripts: tpcb-like (default), simple-update (-N), select-only (-S)\n"
	"exit status: 0 done, 1 error, 2 clients aborted (partial results), 130 interrupted\n";

enum {
	OPT_PGDATA = 256, OPT_JSON, OPT_RELMAP, OPT_DUTFS, OPT_JOBS, OPT_FILLFACTOR, OPT_TABLES_ON,
	OPT_INDEXES_ON, OPT_PIPELINE, OPT_MAX_TRIES, OPT_SEED, OPT_WORKLOAD, OPT_DEBUG,
	OPT_STANDBY_LAG, OPT_SPIN, OPT_NO_SERVER_STATS, OPT_ACK_LOG,
};

struct common {
	const char *pgdata, *conninfo, *json, *relmap, *dutfs, *workload;
	bool quiet;
	char conninfo_buf[PATH_MAX + 128];
	struct pgl_cluster cluster;     /* with --pgdata */
};

static const struct pgl_workload_ops *const workloads[] = { &pgl_oltp_workload };

static const struct pgl_workload_ops *find_workload(const char *name)
{
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	if (pgl_stop_requested) /* second Ctrl-C: stop now */
		_exit(130);
	pgl_stop_requested = 1;
}

static int parse_u(const char *what, const char *s, long long lo, long long hi, long long *ret)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		dut_err("%s \"%s\": expected a whole number from %lld to %lld", what, s, lo, hi);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_d(const char *what, const char *s, double lo, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > lo)) {
		dut_err("%s \"%s\": expected a number above %g", what, s, lo);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* Resolve the target and open the session (markers, relmap, settings). */
static int open_session(struct common *cm, struct pgl_session *s)
{
	struct dut_error err = { "" };

	if (cm->pgdata && cm->conninfo) {
		dut_err("give either --pgdata or -d/--conninfo, not both");
		return -EINVAL;
	}
	if (cm->pgdata) {
		struct pgl_cluster *c = &cm->cluster;

		if (pgl_cluster_load(cm->pgdata, c, &err) < 0) {
			dut_err("%s (or give -d CONNINFO for a server pgload did not make)", err.msg);
			return -EINVAL;
		}
		pgl_cluster_conninfo(c, cm->conninfo_buf, sizeof(cm->conninfo_buf));
		cm->conninfo = cm->conninfo_buf;
	}
	if (!cm->conninfo) {
		dut_err("no target: give --pgdata DIR or -d CONNINFO");
		return -EINVAL;
	}
	if (pgl_session_open(s, cm->conninfo, cm->pgdata, cm->dutfs, cm->relmap != NULL, &err) < 0) {
		dut_err("%s", err.msg);
		return -EIO;
	}
	pgl_main_session_notes(s);
	/* Reports name the target without a password. */
	if (cm->pgdata)
		snprintf(s->target, sizeof(s->target), "pgdata=%s", cm->pgdata);
	else
		dut_redact_conninfo(cm->conninfo, s->target, sizeof(s->target));
	return 0;
}

/* The budget of a pgload cluster (--pgdata) and the database's size, now. */
static void memory_info(const struct common *cm, struct pgl_session *s, struct pgl_memory_info *m)
{
	char buf[32];
	uint64_t cur;

	memset(m, 0, sizeof(*m));
	if (s->admin && PQstatus(s->admin) == CONNECTION_OK &&
	    pgl_pq_value(s->admin, "SELECT pg_database_size(current_database())", buf, sizeof(buf), NULL) == 0)
		m->database_bytes = strtoull(buf, NULL, 10);
	if (!cm->pgdata || !cm->cluster.memory_bytes)
		return;
	m->budget_bytes = cm->cluster.memory_bytes;
	m->shared_buffers_bytes = cm->cluster.shared_buffers_bytes;
	if (pgl_cluster_memory(&cm->cluster, &cur, &m->peak_bytes) != 1)
		m->peak_bytes = 0;
}

static int write_doc(const char *path, int argc, char **argv, bool run,
		     const struct pgl_run_result *rr, const struct pgl_init_result *ir)
{
	struct dut_result *doc = dut_result_new("pgload", DUT_VERSION);
	char **safe_argv = dut_redact_argv(argc, argv);   /* the document is 0644 */
	struct dut_host host;
	int r;

	if (!doc || !safe_argv) {
		dut_result_free(doc);
		dut_redact_argv_free(safe_argv);
		return -ENOMEM;
	}
	dut_result_set_command(doc, argc, safe_argv);
	dut_redact_argv_free(safe_argv);
	if (dut_host_probe(&host) == 0)
		dut_result_set_host(doc, &host);
	r = run ? pgl_run_to_doc(rr, doc) : pgl_init_to_doc(ir, doc);
	if (r == 0)
		r = dut_result_write_file(doc, path);
	dut_result_free(doc);
	if (r < 0)
		dut_err("cannot write the result document %s: %s", path, strerror(-r));
	return r;
}

/* Options shared by init and run; returns 1 if handled. */
static int common_opt(struct common *cm, int opt)
{
	switch (opt) {
	case OPT_PGDATA: cm->pgdata = optarg; return 1;
	case 'd': cm->conninfo = optarg; return 1;
	case OPT_JSON: cm->json = optarg; return 1;
	case OPT_RELMAP: cm->relmap = optarg; return 1;
	case OPT_DUTFS: cm->dutfs = optarg; return 1;
	case OPT_WORKLOAD: cm->workload = optarg; return 1;
	case 'q': cm->quiet = true; return 1;
	case OPT_DEBUG: dut_log_set_level(DUT_LOG_DEBUG); return 1;
	}
	return 0;
}

#define COMMON_LONGOPTS \
	{ "pgdata", required_argument, NULL, OPT_PGDATA }, \
	{ "conninfo", required_argument, NULL, 'd' }, \
	{ "json", required_argument, NULL, OPT_JSON }, \
	{ "relmap", required_argument, NULL, OPT_RELMAP }, \
	{ "dutfs-control", required_argument, NULL, OPT_DUTFS }, \
	{ "workload", required_argument, NULL, OPT_WORKLOAD }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "debug", no_argument, NULL, OPT_DEBUG }, \
	{ "help", no_argument, NULL, 'h' }

static int finish_session(struct common *cm, struct pgl_session *s)
{
	struct dut_error err = { "" };
	int r = 0;

	if (cm->relmap && pgl_session_write_relmap(s, cm->relmap, &err) < 0) {
		dut_err("%s", err.msg);
		r = -EIO;
	}
	pgl_main_session_notes(s);
	pgl_session_close(s);
	return r;
}

static int main_init(int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_LONGOPTS,
		{ "scale", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "fillfactor", required_argument, NULL, OPT_FILLFACTOR },
		{ "tables-on", required_argument, NULL, OPT_TABLES_ON },
		{ "indexes-on", required_argument, NULL, OPT_INDEXES_ON },
		{ "ack-log", required_argument, NULL, OPT_ACK_LOG },
		{ NULL, 0, NULL, 0 },
	};
	struct common cm = { .workload = "oltp" };
	/*
	 * One loader uses COPY FREEZE (pgbench's way), so VACUUM finds the table
	 * frozen and all-visible; parallel loaders cannot, and the VACUUM that then
	 * sets hint bits rewrites the table.  On 2 CPUs that costs more than a
	 * second loader gains (docs/bench-pgload.md), so parallel loading is the
	 * default only where there are CPUs to spare.
	 */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pgl_init_opts io = { .scale = 1, .jobs = ncpu > 2 ? (unsigned)(ncpu / 2 > 4 ? 4 : ncpu / 2) : 1,
				    .fillfactor = 100 };
	struct pgl_init_result res;
	struct pgl_session s;
	struct dut_error err = { "" };
	const struct pgl_workload_ops *w;
	long long v;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "d:s:qh", opts, NULL)) != -1) {
		if (common_opt(&cm, opt))
			continue;
		switch (opt) {
		case 's':
			if (parse_u("scale", optarg, LLONG_MIN, LLONG_MAX, &v) < 0)
				return 1;
			if (v <= 0) {
				dut_err("scale %lld: the scale must be at least 1 (100,000 accounts per unit)", v);
				return 1;
			}
			io.scale = v;
			break;
		case OPT_JOBS:
			if (parse_u("--jobs", optarg, 1, 64, &v) < 0)
				return 1;
			io.jobs = (unsigned)v;
			break;
		case OPT_FILLFACTOR:
			if (parse_u("--fillfactor", optarg, 10, 100, &v) < 0)
				return 1;
			io.fillfactor = (unsigned)v;
			break;
		case OPT_TABLES_ON: io.tables_on = optarg; break;
		case OPT_INDEXES_ON: io.indexes_on = optarg; break;
		case OPT_ACK_LOG: io.ack_log = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 1;
		}
	}
	if (optind < argc) {
		dut_err("unexpected argument \"%s\"", argv[optind]);
		return 1;
	}
	if (!(w = find_workload(cm.workload))) {
		dut_err("unknown workload \"%s\" (expected oltp)", cm.workload);
		return 1;
	}
	if (open_session(&cm, &s) < 0)
		return 1;
	memset(&res, 0, sizeof(res));
	r = w->init(&s, &io, &res, &err);
	if (r < 0) {
		dut_err("init: %s", err.msg);
		finish_session(&cm, &s);
		return 1;
	}
	memory_info(&cm, &s, &res.mem);
	if (!cm.quiet)
		pgl_init_print(&res, stdout);
	if (cm.json && write_doc(cm.json, argc, argv, false, NULL, &res) < 0)
		r = -EIO;
	if (finish_session(&cm, &s) < 0)
		r = -EIO;
	return r < 0 ? 1 : 0;
}

static int add_script(struct pgl_mix *mix, const char *spec)
{
	struct dut_error err = { "" };

	if (pgl_mix_add(mix, spec, &err) < 0) {
		dut_err("-b %s: %s", spec, err.msg);
		return -EINVAL;
	}
	return 0;
}

/* -P: pgbench's progress line, on stderr while the run goes on. */
static void print_progress(const struct pgl_progress *p)
{
	fprintf(stderr, "progress: %.1f s, %.1f tps, lat %.3f ms, %llu failed\n", p->t_s, p->tps, p->lat_ms,
		(unsigned long long)p->failed);
}

static int main_run(int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_LONGOPTS,
		{ "builtin", required_argument, NULL, 'b' },
		{ "select-only", no_argument, NULL, 'S' },
		{ "skip-some-updates", no_argument, NULL, 'N' },
		{ "client", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "time", required_argument, NULL, 'T' },
		{ "transactions", required_argument, NULL, 't' },
		{ "rate", required_argument, NULL, 'R' },
		{ "protocol", required_argument, NULL, 'M' },
		{ "pipeline", no_argument, NULL, OPT_PIPELINE },
		{ "max-tries", required_argument, NULL, OPT_MAX_TRIES },
		{ "progress", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "scale", required_argument, NULL, 's' },
		{ "standby-lag", no_argument, NULL, OPT_STANDBY_LAG },
		{ "spin", required_argument, NULL, OPT_SPIN },
		{ "no-server-stats", no_argument, NULL, OPT_NO_SERVER_STATS },
		{ NULL, 0, NULL, 0 },
	};
	struct common cm = { .workload = "oltp" };
	struct pgl_run_opts ro = { .progress = print_progress };
	struct pgl_run_config *cfg = &ro.cfg;
	struct pgl_run_result res;
	struct pgl_session s;
	struct dut_error err = { "" };
	const struct pgl_workload_ops *w;
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t spin_fixed_ns = 0;
	long long v;
	int opt, r;

	pgl_mix_init(&cfg->mix);
	cfg->clients = cfg->threads = cfg->max_tries = 1;
	cfg->protocol = PGL_PROTO_SIMPLE;
	cfg->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	while ((opt = getopt_long(argc, argv, "d:b:SNc:j:T:t:R:M:P:s:qh", opts, NULL)) != -1) {
		if (common_opt(&cm, opt))
			continue;
		switch (opt) {
		case 'b': if (add_script(&cfg->mix, optarg) < 0) return 1; break;
		case 'S': if (add_script(&cfg->mix, "select-only") < 0) return 1; break;
		case 'N': if (add_script(&cfg->mix, "simple-update") < 0) return 1; break;
		case 'c':
			if (parse_u("clients (-c)", optarg, 1, 10000, &v) < 0) return 1;
			cfg->clients = (unsigned)v;
			break;
		case 'j':
			if (parse_u("threads (-j)", optarg, 1, 256, &v) < 0) return 1;
			cfg->threads = (unsigned)v;
			break;
		case 'T':
			if (parse_d("duration (-T)", optarg, 0, &cfg->duration_s) < 0) return 1;
			break;
		case 't':
			if (parse_u("transactions per client (-t)", optarg, 1, LLONG_MAX, &v) < 0) return 1;
			cfg->txns_per_client = (uint64_t)v;
			break;
		case 'R':
			if (parse_d("rate (-R)", optarg, 0, &cfg->rate) < 0) return 1;
			break;
		case 'M':
			if (pgl_protocol_parse(optarg, &cfg->protocol) < 0) {
				dut_err("-M %s: expected simple, extended or prepared", optarg);
				return 1;
			}
			break;
		case OPT_PIPELINE: cfg->pipeline = true; break;
		case OPT_STANDBY_LAG: cfg->standby_lag = true; break;
		case OPT_NO_SERVER_STATS: cfg->no_server_stats = true; break;
		case OPT_SPIN:
			if (pgl_spin_parse(optarg, &cfg->spin_mode, &spin_fixed_ns) < 0) {
				dut_err("--spin %s: expected auto, off or microseconds (1..%d)", optarg,
					PGL_SPIN_MAX_US);
				return 1;
			}
			break;
		case OPT_MAX_TRIES:
			if (parse_u("--max-tries", optarg, 1, 1000000, &v) < 0) return 1;
			cfg->max_tries = (unsigned)v;
			break;
		case 'P':
			if (parse_u("progress (-P)", optarg, 1, 3600, &v) < 0) return 1;
			ro.progress_s = (unsigned)v;
			break;
		case OPT_SEED:
			if (parse_u("--seed", optarg, 0, LLONG_MAX, &v) < 0) return 1;
			cfg->seed = (uint64_t)v;
			break;
		case 's':
			if (parse_u("scale", optarg, 1, LLONG_MAX, &v) < 0) return 1;
			cfg->scale = v;
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 1;
		}
	}
	if (optind < argc) {
		dut_err("unexpected argument \"%s\"", argv[optind]);
		return 1;
	}
	if (cfg->mix.n == 0 && add_script(&cfg->mix, "tpcb-like") < 0)
		return 1;
	if (pgl_mix_validate(&cfg->mix, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (cfg->duration_s > 0 && cfg->txns_per_client) {
		dut_err("give either -T SECONDS or -t TRANSACTIONS, not both");
		return 1;
	}
	if (cfg->duration_s <= 0 && !cfg->txns_per_client)
		cfg->txns_per_client = 10; /* pgbench's default */
	if (cfg->threads > cfg->clients) {
		dut_err("%u threads for %u clients: use at most as many threads (-j) as clients (-c)",
			cfg->threads, cfg->clients);
		return 1;
	}
	if (cfg->pipeline && cfg->protocol == PGL_PROTO_SIMPLE) {
		dut_err("--pipeline needs -M extended or -M prepared (the simple protocol cannot pipeline)");
		return 1;
	}
	if (!(w = find_workload(cm.workload))) {
		dut_err("unknown workload \"%s\" (expected oltp)", cm.workload);
		return 1;
	}
	cfg->spin_ns = pgl_spin_budget(cfg->spin_mode, spin_fixed_ns, cfg->clients, cfg->threads,
				       sysconf(_SC_NPROCESSORS_ONLN));
	if (open_session(&cm, &s) < 0)
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r = w->run(&s, &ro, &res, &err);
	if (r < 0) {
		dut_err("run: %s", err.msg);
		pgl_run_result_free(&res);
		finish_session(&cm, &s);
		return 1;
	}
	memory_info(&cm, &s, &res.mem);
	if (!cm.quiet)
		pgl_run_print(&res, stdout);
	fflush(stdout);
	if (cm.json && write_doc(cm.json, argc, argv, true, &res, NULL) < 0)
		r = -EIO;
	if (finish_session(&cm, &s) < 0)
		r = -EIO;
	if (r == 0 && res.aborted_clients)
		dut_err("%u of %u clients aborted: %s", res.aborted_clients, cfg->clients,
			res.th[0].first_error[0] ? res.th[0].first_error : "see above");
	opt = r < 0 ? 1 : res.aborted_clients ? 2 : res.interrupted ? 130 : 0;
	pgl_run_result_free(&res);
	return opt;
}

int main(int argc, char **argv)
{
	dut_log_init("pgload", DUT_LOG_INFO);
	if (argc < 2) {
		fputs(usage, stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("pgload %s\n", DUT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "cluster"))
		return pgl_main_cluster(argc - 1, argv + 1);
	if (!strcmp(argv[1], "init"))
		return main_init(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return main_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dss"))
		return pgload_dss_main(argc - 1, argv + 1, &pgl_dss_relmap_ops);
	if (!strcmp(argv[1], "restore"))
		return pgl_main_restore(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ledger"))
		return pgl_main_ledger(argc - 1, argv + 1);
	dut_err("unknown command \"%s\" (expected cluster, init, run, dss, restore or ledger; see pgload --help)", argv[1]);
	return 1;
}

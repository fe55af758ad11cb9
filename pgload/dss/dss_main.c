/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pgload dss`: options, phase sequencing, dutfs markers, output (see dss.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/result.h"
#include "lib/units.h"
#include "pgload/dss/dss.h"
#include "pgload/mark.h"
#include "lib/redact.h"
#include "pgload/dss/dss_priv.h"

static void usage(FILE *out)
{
	fprintf(out,
"usage: pgload dss [connection] [options]\n"
"TPC-H-derived decision-support workload (its results are not TPC-H results).\n"
"connection:\n"
"  -d, --conninfo STR      libpq connection string or database name\n"
"  -h, --host HOST  -p, --port PORT  -U, --user USER\n"
"options:\n"
"  -s, --scale SF          scale factor (default 1; fractions such as 0.01 work)\n"
"  -j, --jobs N            generator threads, each with its own connection (default 2)\n"
"      --phases LIST       of load,keys,analyze,queries,rf or all\n"
"                          (default load,keys,analyze,queries)\n"
"      --rf                also run the refresh functions RF1 and RF2\n"
"      --queries LIST      queries to run, e.g. 1,3-5,22 (default all 22)\n"
"      --params default|random  substitution parameters (default: the validation ones)\n"
"      --seed N            seed of the random parameters (default 1)\n"
"      --data-seed N       seed of the generated data (default 2)\n"
"      --reps N            run the query set N times (default 1)\n"
"      --timeout DURATION  statement_timeout per query, e.g. 300s (default none)\n"
"      --stats-target N    default_statistics_target for ANALYZE (default 1000)\n"
"      --dutfs-control FILE  write phase markers (mark dss/<phase> start|end) to FILE\n"
"                          (default: the .dutfs/control found walking up from the\n"
"                          server's data directory, as the OLTP workload does)\n"
"      --pgdata DIR        the server's data directory, where to start looking for\n"
"                          .dutfs/control (default: SHOW data_directory, superuser only)\n"
"      --json FILE         write the result document to FILE (- for stdout)\n"
"      --relmap FILE       write the relation map (every relation's file, kind and\n"
"                          parent, snapshotted after each phase) to FILE\n"
"      --quiet             no human-readable table\n"
"      --to-files DIR      generate DIR/<table>.tbl files instead of loading\n"
"      --gen-only          generate and discard the rows (generator benchmark)\n"
"      --debug             say where the phase markers go, and more\n");
}

enum { O_PHASES = 256, O_RF, O_QUERIES, O_PARAMS, O_SEED, O_DATA_SEED, O_REPS, O_TIMEOUT,
       O_STATS, O_DUTFS, O_PGDATA, O_JSON, O_QUIET, O_TO_FILES, O_GEN_ONLY, O_DEBUG, O_RELMAP, O_HELP };

static const struct option long_opts[] = {
	{ "conninfo", required_argument, NULL, 'd' },
	{ "host", required_argument, NULL, 'h' },
	{ "port", required_argument, NULL, 'p' },
	{ "user", required_argument, NULL, 'U' },
	{ "scale", required_argument, NULL, 's' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "phases", required_argument, NULL, O_PHASES },
	{ "rf", no_argument, NULL, O_RF },
	{ "queries", required_argument, NULL, O_QUERIES },
	{ "params", required_argument, NULL, O_PARAMS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "data-seed", required_argument, NULL, O_DATA_SEED },
	{ "reps", required_argument, NULL, O_REPS },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "stats-target", required_argument, NULL, O_STATS },
	{ "dutfs-control", required_argument, NULL, O_DUTFS },
	{ "pgdata", required_argument, NULL, O_PGDATA },
	{ "debug", no_argument, NULL, O_DEBUG },
	{ "json", required_argument, NULL, O_JSON },
	{ "relmap", required_argument, NULL, O_RELMAP },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "to-files", required_argument, NULL, O_TO_FILES },
	{ "gen-only", no_argument, NULL, O_GEN_ONLY },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "load,keys" or "all" */
static int parse_phases(const char *s, bool *phase)
{
	char buf[256], *save = NULL;

	if (strcmp(s, "all") == 0) {
		for (unsigned p = 0; p < DSS_NPHASES; p++)
			phase[p] = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (unsigned p = 0; p < DSS_NPHASES; p++)
		phase[p] = false;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned p = 0;
		while (p < DSS_NPHASES && strcmp(t, dss_phase_name(p)) != 0)
			p++;
		if (p == DSS_NPHASES)
			return -EINVAL;
		phase[p] = true;
	}
	return 0;
}

/* "1,3-5,22" */
static int parse_queries(const char *s, bool *query)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	memset(query, 0, sizeof(bool) * (DSS_NQUERIES + 1));
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t a, b;
		char *dash = strchr(t, '-');
		if (dash)
			*dash = '\0';
		if (parse_u64(t, 1, DSS_NQUERIES, &a) < 0 ||
		    parse_u64(dash ? dash + 1 : t, a, DSS_NQUERIES, &b) < 0)
			return -EINVAL;
		for (uint64_t q = a; q <= b; q++)
			query[q] = true;
	}
	return 0;
}

/* Returns 0, or 2 after printing a usage error. */
static int parse_args(int argc, char **argv, struct dss_opts *o)
{
	struct dut_error e = { "" };
	uint64_t v;
	int c;

	/*
	 * Data seed 2 by default: at SF 0.01 two queries depend on a handful of
	 * rows (Q18 expects 0.57 orders above 300 units, Q20 about 2 Canadian
	 * suppliers of "forest" parts that shipped in 1994), so about one seed in
	 * three leaves one of them empty; with seed 2 all 22 return rows at SF
	 * 0.01 (and the integration test checks that).  From SF 0.1 on any seed does.
	 */
	*o = (struct dss_opts){ .sf = 1, .data_seed = 2, .param_seed = 1, .threads = 2,
				.reps = 1, .stats_target = 1000 };
	o->phase[DSS_PH_LOAD] = o->phase[DSS_PH_KEYS] = true;
	o->phase[DSS_PH_ANALYZE] = o->phase[DSS_PH_QUERIES] = true;
	for (unsigned q = 1; q <= DSS_NQUERIES; q++)
		o->query[q] = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h:p:U:s:j:", long_opts, NULL)) != -1) {
		const char *bad = NULL;
		switch (c) {
		case 'd': o->conninfo = optarg; break;
		case 'h': o->host = optarg; break;
		case 'p': o->port = optarg; break;
		case 'U': o->user = optarg; break;
		case 's': {
			char *end;
			o->sf = strtod(optarg, &end);
			if (end == optarg || *end || !(o->sf >= 0.0004 && o->sf <= 10000))
				bad = "--scale wants a number from 0.0004 to 10000, such as 0.01 or 10";
			break;
		}
		case 'j':
			if (parse_u64(optarg, 1, DSS_GEN_MAX_THREADS, &v) < 0)
				bad = "--jobs wants a thread count from 1 to 256";
			o->threads = (unsigned)v;
			break;
		case O_PHASES:
			if (parse_phases(optarg, o->phase) < 0)
				bad = "--phases wants a list of load, keys, analyze, queries, rf (or all)";
			break;
		case O_RF: o->phase[DSS_PH_RF] = true; break;
		case O_QUERIES:
			if (parse_queries(optarg, o->query) < 0)
				bad = "--queries wants query numbers 1..22 and ranges, such as 1,3-5,22";
			break;
		case O_PARAMS:
			if (strcmp(optarg, "default") && strcmp(optarg, "random"))
				bad = "--params wants default or random";
			o->random_params = strcmp(optarg, "random") == 0;
			break;
		case O_SEED:
		case O_DATA_SEED:
			if (parse_u64(optarg, 0, UINT64_MAX, &v) < 0)
				bad = "seeds are unsigned 64-bit integers";
			*(c == O_SEED ? &o->param_seed : &o->data_seed) = v;
			break;
		case O_REPS:
			if (parse_u64(optarg, 1, 10000, &v) < 0)
				bad = "--reps wants a count from 1 to 10000";
			o->reps = (unsigned)v;
			break;
		case O_TIMEOUT:
			if (dut_parse_duration(optarg, &o->timeout_ns, &e) < 0)
				bad = e.msg;
			break;
		case O_STATS:
			if (parse_u64(optarg, 1, 10000, &v) < 0)
				bad = "--stats-target wants 1 to 10000 (PostgreSQL's range)";
			o->stats_target = (unsigned)v;
			break;
		case O_DUTFS: o->dutfs_control = optarg; break;
		case O_PGDATA: o->pgdata = optarg; break;
		case O_DEBUG: dut_log_set_level(DUT_LOG_DEBUG); break;
		case O_JSON: o->json_path = optarg; break;
		case O_RELMAP: o->relmap_path = optarg; break;
		case O_QUIET: o->quiet = true; break;
		case O_TO_FILES: o->to_files = optarg; break;
		case O_GEN_ONLY: o->gen_only = true; break;
		case O_HELP: usage(stdout); return 1;
		default: usage(stderr); return 2;
		}
		if (bad) {
			dut_err("dss: %s (got \"%s\")", bad, optarg);
			return 2;
		}
	}
	if (optind < argc) {
		dut_err("dss: unexpected argument \"%s\" (see pgload dss --help)", argv[optind]);
		return 2;
	}
	if (o->gen_only && o->to_files) {
		dut_err("dss: --gen-only and --to-files exclude each other");
		return 2;
	}
	if (o->relmap_path && (o->gen_only || o->to_files)) {
		dut_err("dss: --relmap needs a server (not --gen-only or --to-files)");
		return 2;
	}
	return 0;
}

static void mark(struct pgl_marker *m, enum dss_phase p, const char *what)
{
	char label[64];
	struct dut_error e;

	snprintf(label, sizeof(label), "dss/%s %s", dss_phase_name(p), what);
	if (pgl_mark(m, label, &e) < 0)
		dut_warn("dss: %s", e.msg);
}

static int run_phase(const struct dss_opts *o, enum dss_phase p, const struct dss_gen *g,
		     PGconn *c, struct pgl_marker *m, struct dss_report *r)
{
	struct dut_error e = { "" };
	uint64_t t0;
	int ret;

	mark(m, p, "start");
	t0 = dss_now_ns();
	switch (p) {
	case DSS_PH_LOAD: ret = dss_phase_load(o, g, c, r, &e); break;
	case DSS_PH_KEYS: ret = dss_phase_keys(o, c, r, &e); break;
	case DSS_PH_ANALYZE: ret = dss_phase_analyze(o, c, r, &e); break;
	case DSS_PH_QUERIES: ret = dss_phase_queries(o, c, r, &e); break;
	default: ret = dss_phase_rf(o, g, c, r, &e); break;
	}
	r->phase_ns[p] = dss_now_ns() - t0;
	r->ran[p] = true;
	r->phase_status[p] = ret < 0 ? DSS_FAILED : DSS_OK;
	mark(m, p, "end");
	if (ret < 0)
		dut_err("dss: phase %s failed: %s", dss_phase_name(p), e.msg);
	return ret;
}

/*
 * The dutfs control file: --dutfs-control, else found walking up from
 * --pgdata or from the server's data directory (pgload/mark.c).  Asking
 * the server needs a superuser (or pg_read_all_settings); without it and
 * without --pgdata the markers are off, which --debug says.
 */
static int open_marker(const struct dss_opts *o, PGconn *c, struct pgl_marker *m, struct dut_error *err)
{
	char datadir[4096] = "";
	const char *start = o->pgdata;
	int r;

	if (!o->dutfs_control && !start) {
		PGresult *res = PQexec(c, "SHOW data_directory");

		if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
			snprintf(datadir, sizeof(datadir), "%s", PQgetvalue(res, 0, 0));
			start = datadir;
		} else {
			dut_dbg("dss: SHOW data_directory: %s", PQresultErrorMessage(res));
		}
		PQclear(res);
	}
	if ((r = pgl_marker_open(m, o->dutfs_control, start, err)) < 0)
		return r;
	dut_dbg("%s", m->where.msg);
	if (m->refused.msg[0])
		dut_warn("dss: %s", m->refused.msg);
	return 0;
}

/* One conninfo value, quoted as libpq wants it: in single quotes, with ' and backslash escaped. */
static size_t conninfo_add(char *buf, size_t len, size_t at, const char *key, const char *val)
{
	if (!val || !*val || at >= len)
		return at;
	at += (size_t)snprintf(buf + at, len - at, "%s%s='", at ? " " : "", key);
	for (; *val && at + 3 < len; val++) {
		if (*val == '\'' || *val == '\\')
			buf[at++] = '\\';
		buf[at++] = *val;
	}
	if (at + 1 < len)
		buf[at++] = '\'';
	buf[at < len ? at : len - 1] = 0;
	return at;
}

/* A relation snapshot (--relmap); one that fails is said, and the run goes on. */
static void relmap_snapshot(const struct dss_relmap_ops *rops, void *rm, const char *conninfo, PGconn *c,
			    const char *when)
{
	struct dut_error e = { "" };

	if (rops->snapshot(rm, conninfo, c, &e) < 0)
		dut_warn("dss: relation snapshot after %s: %s", when, e.msg);
}

/* How the relation snapshots reach the cluster's other databases: as c does. */
static void conninfo_of(PGconn *c, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	at = conninfo_add(buf, len, at, "host", PQhost(c));
	at = conninfo_add(buf, len, at, "port", PQport(c));
	at = conninfo_add(buf, len, at, "user", PQuser(c));
	conninfo_add(buf, len, at, "dbname", PQdb(c));
}

/* The server's block sizes (SHOW): 0 when it does not say (the result then has none). */
static void server_block_sizes(PGconn *c, struct dss_report *r)
{
	static const char *const sql[] = { "SHOW block_size", "SHOW wal_block_size" };
	uint32_t *dst[] = { &r->block_size, &r->wal_block_size };

	for (int i = 0; i < 2; i++) {
		char *v = NULL, *end;
		unsigned long n;

		if (dss_pg_value(c, sql[i], &v, NULL) < 0)
			continue;
		errno = 0;
		n = strtoul(v, &end, 10);
		if (!errno && end != v && !*end && n && n <= (1ul << 20))
			*dst[i] = (uint32_t)n;
		free(v);
	}
}

static int run_server(const struct dss_opts *o, const struct dss_gen *g, struct dss_report *r,
		      const struct dss_relmap_ops *rops)
{
	struct dut_error e = { "" };
	struct pgl_marker m = { .fd = -1 };
	void *rm = NULL;
	char conninfo[1024];
	PGconn *c;
	int ret = dss_pg_connect(o, &c, &e);

	if (ret < 0) {
		dut_err("dss: %s (give -d CONNINFO or --host/--port)", e.msg);
		return ret;
	}
	if ((ret = open_marker(o, c, &m, &e)) < 0) {
		dut_err("dss: %s (give a --dutfs-control FILE that dutfs serves, or none to find it)", e.msg);
		PQfinish(c);
		return ret;
	}
	snprintf(r->server_version, sizeof(r->server_version), "%s",
		 PQparameterStatus(c, "server_version") ? PQparameterStatus(c, "server_version") : "");
	server_block_sizes(c, r);
	conninfo_of(c, conninfo, sizeof(conninfo));
	if (o->relmap_path && !(rm = rops->open())) {
		pgl_marker_close(&m);
		PQfinish(c);
		return -ENOMEM;
	}
	if (rm)
		relmap_snapshot(rops, rm, conninfo, c, "at the start");
	for (unsigned p = 0; p < DSS_NPHASES && ret == 0; p++)
		if (o->phase[p]) {
			ret = run_phase(o, p, g, c, &m, r);
			/* the tables and indexes a phase made, with their files */
			if (rm)
				relmap_snapshot(rops, rm, conninfo, c, dss_phase_name(p));
		}
	if (rm && rops->save(rm, o->relmap_path, &e) < 0) {
		dut_err("dss: %s", e.msg);
		if (ret == 0)
			ret = -EIO;
	}
	if (rm)
		rops->close(rm);
	pgl_marker_close(&m);
	PQfinish(c);
	return ret;
}

static int write_json(const struct dss_opts *o, const struct dss_report *r, int argc,
		      char **argv)
{
	struct dut_result *res = dut_result_new("pgload", DUT_VERSION);
	char **safe_argv = dut_redact_argv(argc, argv);   /* the document is 0644 */
	struct dut_host host;
	int ret;

	if (!res || !safe_argv) {
		dut_result_free(res);
		dut_redact_argv_free(safe_argv);
		return -ENOMEM;
	}
	ret = dut_result_set_command(res, argc, safe_argv);
	dut_redact_argv_free(safe_argv);
	if (ret == 0 && dut_host_probe(&host) == 0)
		ret = dut_result_set_host(res, &host);
	if (ret == 0)
		ret = dss_report_to_result(r, res);
	if (ret == 0)
		ret = dut_result_write_file(res, o->json_path);
	dut_result_free(res);
	if (ret < 0)
		dut_err("dss: cannot write the result document %s: %s", o->json_path, strerror(-ret));
	return ret;
}

int pgload_dss_main(int argc, char **argv, const struct dss_relmap_ops *relmap)
{
	struct dss_opts o;
	struct dss_report r = { 0 };
	struct dss_gen g;
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (o.relmap_path && !relmap) {
		dut_err("dss: --relmap is not available in this program (run it as pgload dss)");
		return 2;
	}
	ret = dss_gen_init(&g, o.data_seed, o.sf);
	if (ret < 0) {
		dut_err("dss: cannot set up the generator: %s", strerror(-ret));
		return 1;
	}
	r = (struct dss_report){ .sf = o.sf, .data_seed = o.data_seed, .param_seed = o.param_seed,
				 .threads = o.threads, .reps = o.reps, .stats_target = o.stats_target,
				 .random_params = o.random_params, .timeout_ns = o.timeout_ns };
	if (o.gen_only || o.to_files) {
		struct dut_error e = { "" };
		uint64_t t0 = dss_now_ns();
		ret = dss_generate_offline(&o, &g, &r, &e);
		r.phase_ns[DSS_PH_LOAD] = dss_now_ns() - t0;
		r.ran[DSS_PH_LOAD] = true;
		r.phase_status[DSS_PH_LOAD] = ret < 0 ? DSS_FAILED : DSS_OK;
		if (ret < 0)
			dut_err("dss: %s", e.msg);
	} else {
		ret = run_server(&o, &g, &r, relmap);
	}
	bool ran = false;
	for (unsigned p = 0; p < DSS_NPHASES; p++)
		ran |= r.ran[p];
	if (!o.quiet && ran)
		dss_report_human(&r, o.json_path && strcmp(o.json_path, "-") == 0 ? stderr : stdout);
	if (o.json_path && write_json(&o, &r, argc, argv) < 0 && ret == 0)
		ret = -EIO;
	for (unsigned i = 0; ret == 0 && i < r.nruns; i++)
		if (r.runs[i].status == DSS_FAILED)
			ret = -EIO;
	dss_report_free(&r);
	dss_gen_free(&g);
	return ret < 0 ? 1 : 0;
}

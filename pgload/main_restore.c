/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgload restore dump|run: argument parsing and messages (see restore.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/result.h"
#include "lib/pgbin.h"
#include "pgload/cluster.h"
#include "pgload/main.h"
#include "lib/redact.h"
#include "pgload/restore_sys.h"

static const char restore_usage[] =
	"usage: pgload restore dump (--source CONNINFO | --generate oltp:SCALE|dss:SF SERVER)\n"
	"                           --out FILE [--dbname NAME] [--clean] [--bindir DIR]\n"
	"       pgload restore run --dump FILE TARGET [-j N] [--dbname NAME] [--clean]\n"
	"                          [--no-check] [--json FILE] [--dutfs-control FILE] [-q] [--bindir DIR]\n"
	"SERVER, TARGET: --pgdata DIR (a cluster made by pgload cluster init) or -d CONNINFO\n"
	"--bindir DIR: pg_dump and pg_restore (default: with --pgdata those of the cluster's\n"
	"      own major, from its PG_VERSION; with -d the newest installed major)\n"
	"dump: pg_dump -Fc of the source into FILE, and FILE.json with its size, row counts,\n"
	"      constraints and indexes.  --generate makes the source first: database NAME\n"
	"      (default pgload_ref_oltp or pgload_ref_dss) on SERVER, kept afterwards.\n"
	"run:  creates database NAME (default pgload_restore) on TARGET and restores FILE\n"
	"      into it with pg_restore -j N (default 2), timing pre-data, data, indexes,\n"
	"      constraints, foreign-keys and the rest of post-data separately, with the\n"
	"      CPU time of the server and of pg_restore; then compares the database with\n"
	"      FILE.json (--no-check: don't).  Phase markers restore/<phase> start|end go\n"
	"      to the dutfs control file found above the server's data directory.\n";

enum { O_SOURCE = 256, O_GENERATE, O_OUT, O_DBNAME, O_CLEAN, O_BINDIR, O_PGDATA, O_DUMP,
       O_NO_CHECK, O_JSON, O_DUTFS, O_DEBUG, O_HELP };

struct restore_args {
	const char *source, *generate, *out, *dbname, *bindir, *pgdata, *conninfo, *dump;
	const char *json, *dutfs;
	unsigned jobs;
	bool clean, check, quiet;
	char conninfo_buf[PATH_MAX + 128];
};

static int parse_args(int argc, char **argv, struct restore_args *a)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, O_SOURCE },
		{ "generate", required_argument, NULL, O_GENERATE },
		{ "out", required_argument, NULL, O_OUT },
		{ "dbname", required_argument, NULL, O_DBNAME },
		{ "clean", no_argument, NULL, O_CLEAN },
		{ "bindir", required_argument, NULL, O_BINDIR },
		{ "pgdata", required_argument, NULL, O_PGDATA },
		{ "conninfo", required_argument, NULL, 'd' },
		{ "dump", required_argument, NULL, O_DUMP },
		{ "jobs", required_argument, NULL, 'j' },
		{ "no-check", no_argument, NULL, O_NO_CHECK },
		{ "json", required_argument, NULL, O_JSON },
		{ "dutfs-control", required_argument, NULL, O_DUTFS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "debug", no_argument, NULL, O_DEBUG },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:j:q", opts, NULL)) != -1) {
		switch (opt) {
		case O_SOURCE: a->source = optarg; break;
		case O_GENERATE: a->generate = optarg; break;
		case O_OUT: a->out = optarg; break;
		case O_DBNAME: a->dbname = optarg; break;
		case O_CLEAN: a->clean = true; break;
		case O_BINDIR: a->bindir = optarg; break;
		case O_PGDATA: a->pgdata = optarg; break;
		case 'd': a->conninfo = optarg; break;
		case O_DUMP: a->dump = optarg; break;
		case 'j':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 64) {
				dut_err("-j %s: expected a number of pg_restore jobs from 1 to 64", optarg);
				return 1;
			}
			a->jobs = (unsigned)v;
			break;
		case O_NO_CHECK: a->check = false; break;
		case O_JSON: a->json = optarg; break;
		case O_DUTFS: a->dutfs = optarg; break;
		case 'q': a->quiet = true; break;
		case O_DEBUG: dut_log_set_level(DUT_LOG_DEBUG); break;
		case O_HELP: fputs(restore_usage, stdout); return -1;
		default: fputs(restore_usage, stderr); return 1;
		}
	}
	if (optind < argc) {
		dut_err("unexpected argument \"%s\" (see pgload restore --help)", argv[optind]);
		return 1;
	}
	return 0;
}

/* --pgdata DIR or -d CONNINFO -> conninfo; NULL after a message. */
static const char *resolve_server(struct restore_args *a, const char *what)
{
	struct dut_error err = { "" };
	struct pgl_cluster c;

	if (a->pgdata && a->conninfo) {
		dut_err("give either --pgdata or -d/--conninfo for the %s, not both", what);
		return NULL;
	}
	if (a->pgdata) {
		if (pgl_cluster_load(a->pgdata, &c, &err) < 0) {
			dut_err("%s (or give -d CONNINFO for a server pgload did not make)", err.msg);
			return NULL;
		}
		pgl_cluster_conninfo(&c, a->conninfo_buf, sizeof(a->conninfo_buf));
		return a->conninfo_buf;
	}
	if (!a->conninfo)
		dut_err("no %s: give --pgdata DIR or -d CONNINFO", what);
	return a->conninfo;
}

static int main_dump(struct restore_args *a)
{
	struct pgl_restore_dump_opts o = { .source = a->source, .generate = a->generate,
					   .dbname = a->dbname, .clean = a->clean, .out = a->out,
					   .bindir = a->bindir, .self = "/proc/self/exe" };
	struct pgl_restore_sidecar s;
	struct dut_error err = { "" };
	char self[PATH_MAX];
	ssize_t n;

	if (!a->out || (!a->source == !a->generate)) {
		dut_err("restore dump needs --out FILE and one of --source CONNINFO or --generate KIND:SCALE");
		return 1;
	}
	if (a->generate) {
		if (!(o.server = resolve_server(a, "server to generate on")))
			return 1;
		if (!o.dbname)
			o.dbname = !strncmp(a->generate, "dss:", 4) ? "pgload_ref_dss" : "pgload_ref_oltp";
	} else if (a->dbname || a->pgdata || a->conninfo) {
		dut_err("with --source, the database to dump is the one CONNINFO names (no --dbname, -d or --pgdata)");
		return 1;
	}
	/* The child must be this very program, whatever the caller's PATH holds. */
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		o.self = self;
	}
	if (a->generate)
		dut_info("generating %s into database %s", a->generate, o.dbname);
	if (pgl_restore_dump(&o, &s, &err) < 0) {
		dut_err("restore dump: %s", err.msg);
		return 1;
	}
	printf("dump: %s (%.1f MB in %.2f s) from %s, database %s\n"
	       "source: %zu tables, %" PRId64 " rows, %zu constraints, %zu indexes (in %s.json)\n",
	       a->out, (double)s.dump_bytes / 1e6, (double)s.dump_ns / 1e9, s.source, s.dbname,
	       s.cat.ntables, pgl_restore_catalog_rows(&s.cat), s.cat.ncons, s.cat.nindexes, a->out);
	pgl_restore_catalog_free(&s.cat);
	return 0;
}

static int write_doc(const char *path, int argc, char **argv, const struct pgl_restore_result *r)
{
	struct dut_result *doc = dut_result_new("pgload", DUT_VERSION);
	char **safe_argv = dut_redact_argv(argc, argv);   /* the document is 0644 */
	struct dut_host host;
	int ret;

	if (!doc || !safe_argv) {
		dut_result_free(doc);
		dut_redact_argv_free(safe_argv);
		return -ENOMEM;
	}
	dut_result_set_command(doc, argc, safe_argv);
	dut_redact_argv_free(safe_argv);
	if (dut_host_probe(&host) == 0)
		dut_result_set_host(doc, &host);
	ret = pgl_restore_to_doc(r, doc);
	if (ret == 0)
		ret = dut_result_write_file(doc, path);
	dut_result_free(doc);
	if (ret < 0)
		dut_err("cannot write the result document %s: %s", path, strerror(-ret));
	return ret;
}

static int main_run(struct restore_args *a, int argc, char **argv)
{
	struct pgl_restore_run_opts o = { .dump = a->dump, .dbname = a->dbname ? a->dbname : "pgload_restore",
					  .bindir = a->bindir, .dutfs_control = a->dutfs,
					  .jobs = a->jobs, .clean = a->clean, .verify = a->check };
	struct pgl_restore_result *r;
	struct dut_error err = { "" };
	int ret;

	if (!a->dump) {
		dut_err("restore run needs --dump FILE (made by pgload restore dump)");
		return 1;
	}
	if (a->source || a->generate || a->out) {
		dut_err("--source, --generate and --out belong to restore dump, not restore run");
		return 1;
	}
	if (!(o.conninfo = resolve_server(a, "target")))
		return 1;
	if (!(r = calloc(1, sizeof(*r))))
		return 1;
	ret = pgl_restore_run(&o, r, &err);
	pgl_main_notes(&r->notes, &r->markers_where);
	if (ret < 0) {
		dut_err("restore run: %s", err.msg);
		if (ret == -EIO && strstr(err.msg, "pg_restore ("))
			dut_err("database %s is left as the failed restore made it; fix the cause "
				"and rerun with --clean", o.dbname);
		free(r);
		return 1;
	}
	if (!a->quiet)
		pgl_restore_print(r, stdout);
	fflush(stdout);
	if (a->json && write_doc(a->json, argc, argv, r) < 0)
		ret = -EIO;
	if (r->checked && r->differences) {
		dut_err("the restored database differs from the source in %u ways (see above)",
			r->differences);
		ret = -EIO;
	}
	free(r);
	return ret < 0 ? 1 : 0;
}

int pgl_main_restore(int argc, char **argv)
{
	struct restore_args a = { .jobs = 2, .check = true };
	struct dut_error err = { "" };
	char newest[PATH_MAX];
	const char *sub;
	int r;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(restore_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 1 : 0;
	}
	sub = argv[1];
	if ((r = parse_args(argc - 1, argv + 1, &a)) != 0)
		return r < 0 ? 0 : r;
	/* without --bindir: with --pgdata the programs of the cluster's own major (its
	 * PG_VERSION: a newer pg_dump writes archives an older pg_restore cannot read),
	 * with -d the newest installed (it reads older servers) */
	if (!a.bindir) {
		unsigned major = 0;

		if (a.pgdata && dut_pgbin_cluster_major(a.pgdata, &major, &err) < 0) {
			dut_err("%s", err.msg);
			return 1;
		}
		if (dut_pgbin_find(dut_pgbin_root(), major, newest, sizeof(newest), NULL, &err) < 0) {
			if (major)
				dut_err("the cluster in %s is PostgreSQL %u (its PG_VERSION), whose pg_dump and "
					"pg_restore restore uses: %s", a.pgdata, major, err.msg);
			else
				dut_err("%s", err.msg);
			return 1;
		}
		a.bindir = newest;
	}
	{
		/* root runs them itself: only programs no one but root could have put there */
		static const char *const dump_progs[] = { "pg_dump", NULL }, *const run_progs[] = { "pg_restore", NULL };

		if (dut_pgbin_check_progs(a.bindir, !strcmp(sub, "dump") ? dump_progs : run_progs, &err) < 0) {
			dut_err("restore %s: %s", sub, err.msg);
			return 1;
		}
	}
	if (!strcmp(sub, "dump"))
		return main_dump(&a);
	if (!strcmp(sub, "run"))
		return main_run(&a, argc, argv);
	dut_err("unknown restore command \"%s\" (expected dump or run)", sub);
	return 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgload ledger init|run|check: argument parsing and messages. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file_io.h"
#include "lib/log.h"
#include "pgload/cluster.h"
#include "pgload/ledger_pg.h"
#include "pgload/main.h"
#include "pgload/pgconn.h"
#include "pgload/session.h"

static const char ledger_usage[] =
	"usage: pgload ledger init  TARGET [--relmap FILE]\n"
	"       pgload ledger run   TARGET --ledger DIR [-c CLIENTS] [-T SECONDS] [--seed N]\n"
	"                           [--checkpoint-at MS] [-q]\n"
	"       pgload ledger check TARGET --ledger DIR [--json FILE] [-q]\n"
	"TARGET: --pgdata DIR (a cluster made by pgload cluster init) or -d CONNINFO\n"
	"A crash-consistency workload on the pgbench tables of pgload init.  init adds the\n"
	"tables ledger_txn and ledger_item and a baseline of the balances.  run: each client\n"
	"does tpcb-like transactions that also insert their id into both tables, and appends\n"
	"to DIR/client-NNN.ledger, fdatasync'ed, \"B ID\" before sending COMMIT and \"C ID\"\n"
	"once it was acknowledged; a client stops at its first error.  --checkpoint-at MS\n"
	"issues a CHECKPOINT MS milliseconds into the run.  check (after a crash and a\n"
	"restart): every acknowledged id is in both tables, no id is in one table only, none\n"
	"is there that never reached COMMIT, and the balances moved by the ledger's deltas\n"
	"(docs/crash.md).\n"
	"exit status: run: 0 done, 1 error, 2 clients aborted; check: 0 intact, 1 error,\n"
	"2 damaged (or the tables could not be read)\n";

enum { OPT_PGDATA = 300, OPT_LEDGER, OPT_JSON, OPT_RELMAP, OPT_SEED, OPT_CKPT };

struct ledger_args {
	const char *pgdata, *conninfo, *dir, *json, *relmap;
	unsigned clients;
	double duration_s;
	uint64_t seed, checkpoint_at_ms;
	bool quiet;
	char ci[PATH_MAX + 128];
};

static int parse_num(const char *what, const char *s, double lo, double hi, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		dut_err("%s \"%s\": expected a number from %g to %g", what, s, lo, hi);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct ledger_args *a)
{
	static const struct option opts[] = {
		{ "pgdata", required_argument, NULL, OPT_PGDATA },
		{ "conninfo", required_argument, NULL, 'd' },
		{ "ledger", required_argument, NULL, OPT_LEDGER },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "relmap", required_argument, NULL, OPT_RELMAP },
		{ "client", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "checkpoint-at", required_argument, NULL, OPT_CKPT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double v;
	int opt;

	while ((opt = getopt_long(argc, argv, "d:c:T:qh", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_PGDATA: a->pgdata = optarg; break;
		case 'd': a->conninfo = optarg; break;
		case OPT_LEDGER: a->dir = optarg; break;
		case OPT_JSON: a->json = optarg; break;
		case OPT_RELMAP: a->relmap = optarg; break;
		case 'c':
			if (parse_num("clients (-c)", optarg, 1, 256, &v) < 0) return -EINVAL;
			a->clients = (unsigned)v;
			break;
		case 'T':
			if (parse_num("duration (-T)", optarg, 0.1, 86400, &v) < 0) return -EINVAL;
			a->duration_s = v;
			break;
		case OPT_SEED:
			if (parse_num("--seed", optarg, 0, 9e15, &v) < 0) return -EINVAL;
			a->seed = (uint64_t)v;
			break;
		case OPT_CKPT:
			if (parse_num("--checkpoint-at", optarg, 0, 86400000, &v) < 0) return -EINVAL;
			a->checkpoint_at_ms = (uint64_t)v;
			break;
		case 'q': a->quiet = true; break;
		case 'h': fputs(ledger_usage, stdout); return 1;
		default: fputs(ledger_usage, stderr); return -EINVAL;
		}
	}
	if (optind < argc) {
		dut_err("unexpected argument \"%s\"", argv[optind]);
		return -EINVAL;
	}
	if (a->pgdata && a->conninfo) {
		dut_err("give either --pgdata or -d/--conninfo, not both");
		return -EINVAL;
	}
	if (a->pgdata) {
		struct pgl_cluster c;
		struct dut_error err = { "" };

		if (pgl_cluster_load(a->pgdata, &c, &err) < 0) {
			dut_err("%s (or give -d CONNINFO for a server pgload did not make)", err.msg);
			return -EINVAL;
		}
		pgl_cluster_conninfo(&c, a->ci, sizeof(a->ci));
		a->conninfo = a->ci;
	}
	if (!a->conninfo) {
		dut_err("no target: give --pgdata DIR or -d CONNINFO");
		return -EINVAL;
	}
	return 0;
}

static int cmd_init(struct ledger_args *a)
{
	struct dut_error err = { "" };
	struct pgl_session s;
	int r;

	if (pgl_session_open(&s, a->conninfo, a->pgdata, NULL, a->relmap != NULL, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	pgl_main_session_notes(&s);
	r = pgl_ledger_init_tables(s.admin, &err);
	if (r < 0)
		dut_err("ledger init: %s", err.msg);
	else if (a->relmap && pgl_session_write_relmap(&s, a->relmap, &err) < 0) {
		dut_err("%s", err.msg);
		r = -EIO;
	}
	pgl_main_session_notes(&s);
	pgl_session_close(&s);
	if (r == 0 && !a->quiet)
		printf("ledger tables ready\n");
	return r < 0 ? 1 : 0;
}

static void on_signal(int sig)
{
	(void)sig;
	pgl_stop_requested = 1;
}

static int cmd_run(struct ledger_args *a)
{
	struct pgl_ledger_run_opts o = { .conninfo = a->conninfo, .dir = a->dir,
					 .clients = a->clients ? a->clients : 4,
					 .duration_s = a->duration_s > 0 ? a->duration_s : 10,
					 .seed = a->seed, .checkpoint_at_ms = a->checkpoint_at_ms };
	struct pgl_ledger_run_result res;
	struct sigaction sa = { .sa_handler = on_signal };
	struct dut_error err = { "" };

	if (!a->dir) {
		dut_err("ledger run needs --ledger DIR (where the clients' files go; outside the database's storage)");
		return 1;
	}
	{
		/* ids restart at 1 for each client: a second run into the same files would collide */
		DIR *d = opendir(a->dir);
		struct dirent *e;
		bool used = false;

		if (!d) {
			dut_err("--ledger %s: %s (create the directory first)", a->dir, strerror(errno));
			return 1;
		}
		while ((e = readdir(d)))
			used |= fnmatch("client-*.ledger", e->d_name, 0) == 0;
		closedir(d);
		if (used) {
			dut_err("--ledger %s already holds client-*.ledger files of another run (give an empty directory)",
				a->dir);
			return 1;
		}
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (pgl_ledger_run(&o, &res, &err) < 0) {
		dut_err("ledger run: %s", err.msg);
		return 1;
	}
	if (!a->quiet)
		printf("ledger run: %" PRIu64 " committed, %" PRIu64 " in flight, %u of %u clients aborted, %.2f s\n",
		       res.committed, res.in_flight, res.aborted_clients, o.clients, (double)res.elapsed_ns / 1e9);
	fflush(stdout);
	if (res.aborted_clients) {
		dut_err("%u of %u clients aborted: %s", res.aborted_clients, o.clients, res.first_error);
		return 2;
	}
	return 0;
}

/* Every DIR/client-*.ledger file into l. */
static int read_ledger_dir(const char *dir, struct pgl_ledger *l, unsigned *ret_files)
{
	struct dut_error err = { "" };
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned files = 0;
	int r = 0;

	if (!d) {
		dut_err("--ledger %s: %s", dir, strerror(errno));
		return -errno;
	}
	while (r == 0 && (e = readdir(d))) {
		char path[PATH_MAX], *buf = NULL;
		size_t len = 0;

		if (fnmatch("client-*.ledger", e->d_name, 0) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		r = dut_read_small_file(path, 256u << 20, &buf, &len);
		if (r < 0) {
			dut_err("%s: %s", path, strerror(-r));
			break;
		}
		r = pgl_ledger_parse(l, buf, len, path, &err);
		if (r < 0)
			dut_err("%s", err.msg);
		free(buf);
		files++;
	}
	closedir(d);
	*ret_files = files;
	return r;
}

static int cmd_check(struct ledger_args *a)
{
	struct pgl_ledger l = { 0 };
	struct pgl_ledger_db db;
	struct pgl_ledger_verdict v;
	struct dut_error err = { "" };
	struct json_object *o = NULL;
	PGconn *c = NULL;
	unsigned files = 0;
	char read_error[400] = "";
	int rc = 1;

	if (!a->dir) {
		dut_err("ledger check needs --ledger DIR (the directory of ledger run)");
		return 1;
	}
	if (read_ledger_dir(a->dir, &l, &files) < 0)
		goto out;
	if (files == 0) {
		dut_err("--ledger %s: no client-*.ledger files (give the directory of pgload ledger run)", a->dir);
		goto out;
	}
	if (pgl_pq_connect(a->conninfo, &c, &err) < 0) {
		dut_err("ledger check: %s", err.msg);
		goto out;
	}
	if (pgl_ledger_read_db(c, &db, &err) < 0) {
		/* unreadable tables after a crash are damage, not a harness error */
		snprintf(read_error, sizeof(read_error), "%s", err.msg);
		pgl_ledger_db_free(&db);
		memset(&db, 0, sizeof(db));
	}
	pgl_ledger_check(&l, &db, &v);
	if (read_error[0])
		v.ok = false;
	if (!a->quiet) {
		if (read_error[0])
			printf("the ledger tables could not be read: %s\n", read_error);
		pgl_ledger_verdict_print(&v, stdout);
	}
	if (a->json) {
		o = pgl_ledger_verdict_json(&v);
		if (o)
			json_object_object_add(o, "read_error", read_error[0] ? json_object_new_string(read_error) : NULL);
		if (!o || json_object_to_file_ext(a->json, o, JSON_C_TO_STRING_PRETTY) < 0) {
			dut_err("cannot write %s", a->json);
			json_object_put(o);
			pgl_ledger_db_free(&db);
			goto out;
		}
		json_object_put(o);
	}
	rc = v.ok ? 0 : 2;
	pgl_ledger_db_free(&db);
out:
	PQfinish(c);
	pgl_ledger_free(&l);
	return rc;
}

int pgl_main_ledger(int argc, char **argv)
{
	struct ledger_args a = { 0 };
	const char *sub = argc > 1 ? argv[1] : NULL;
	int r;

	if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		fputs(ledger_usage, sub ? stdout : stderr);
		return sub ? 0 : 1;
	}
	if (strcmp(sub, "init") && strcmp(sub, "run") && strcmp(sub, "check")) {
		dut_err("unknown ledger command \"%s\" (expected init, run or check)", sub);
		return 1;
	}
	r = parse_args(argc - 1, argv + 1, &a);
	if (r)
		return r > 0 ? 0 : 1;
	if (!strcmp(sub, "init"))
		return cmd_init(&a);
	if (!strcmp(sub, "run"))
		return cmd_run(&a);
	return cmd_check(&a);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab crash [EXPERIMENT.ini] [--states N] [--seed S] ...: the campaign.
 * Parses the options (and the [crash] section of an experiment file), makes
 * the template cluster once, runs each state (crash_state.c), prints the
 * table and writes the result document (crash_result.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ini.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "lib/log.h"
#include "lib/pgbin.h"
#include "lib/units.h"
#include "tools/crash/crash.h"
#include "tools/crash/crash_sys.h"
#include "tools/run/runner_sys.h"

#define MAX_SETS 16

const char dutlab_crash_usage[] =
	"usage: dutlab crash [EXPERIMENT.ini] [--states N] [--seed S] [--controls N] [--state I]\n"
	"                    [--points LIST] [--losses LIST] [--class-loss CLASS=MODE,...]\n"
	"                    [--sector SIZE] [--duration SECONDS] [--identify FILE] [--clients N]\n"
	"                    [--set NAME=VALUE]... [--workdir DIR] [--bindir DIR] [--scratch DIR]\n"
	"                    [--json FILE] [--keep]\n"
	"  Crash-consistency campaign: for each state, a fresh copy of a PostgreSQL cluster (scale 1,\n"
	"  data checksums) on dutfs with the state's rules; the ledger workload (pgload ledger run);\n"
	"  a crash after the Nth request of a class or at a time; the server killed, dutfs recover,\n"
	"  the restart timed (crash recovery); then pgload ledger check (acknowledged commits,\n"
	"  half-present transactions, balances) and pg_amcheck --heapallindexed.  Needs root.\n"
	"  EXPERIMENT.ini  a [crash] section with the keys seed, states, controls, points, losses,\n"
	"                 class-loss, sector, identify, duration, clients and set (options given too\n"
	"                 override it)\n"
	"  --states N     states with fsync honoured (default 45: any 45 states in a row cover every\n"
	"                 pair of the 9 default points and 5 losses once); each must be undamaged\n"
	"  --seed S       the campaign's seed (default 1): state I is the same for the same seed\n"
	"  --controls N   states per negative control (default 2, 0 = none): full_page_writes=off\n"
	"                 with pages torn at 4 KiB, and fsync=off; each control must see damage\n"
	"  --state I      run only state I (the command printed for a failing state)\n"
	"  --points LIST  crash points: wal-write, wal-fsync, heap-write, index-write, data-fsync\n"
	"                 (the Nth fsync of a data or SLRU file, at the CHECKPOINT), pg_control,\n"
	"                 slru-write, checkpoint, time (the default: all these), and init (a crash\n"
	"                 during pgload init -s 1 and its CHECKPOINT in an empty cluster)\n"
	"  --losses LIST  what a crash loses: lose-all, lose-none, subset, torn, fsync-eio (one mode drawn\n"
	"                 per state, for every class of files --class-loss does not fix)\n"
	"  --class-loss CLASS=MODE,...  fix the loss mode of a class of files for every regular state:\n"
	"                 CLASS wal, data (heap, index, toast, fsm and vm), heap, index, toast, fsm,\n"
	"                 vm, slru, temp or other (pg_control and the rest); MODE a loss mode; e.g.\n"
	"                 wal=lose-none,data=torn.  fsync-eio fails the Nth fsync of its classes\n"
	"                 (wal, data, slru).  The negative controls keep their own loss\n"
	"  --sector SIZE  the atomic write unit for torn writes (default 512; 4k for a 4 KiB device)\n"
	"  --identify FILE  the device's atomicity from `dutprobe identify --json FILE DEVICE`: torn\n"
	"                 writes tear at its power-fail atomic unit (--sector still overrides), and the\n"
	"                 report says whether the server's pages can tear on it (its block size:\n"
	"                 8 KiB, or what a build of `dutlab pg build` was made with)\n"
	"  --duration S   the workload's length before the latest crash (default 4)\n"
	"  --clients N    ledger clients (default 4)\n"
	"  --set NAME=VALUE  a PostgreSQL setting of the cluster (pgload cluster init --set)\n"
	"  --bindir DIR   the PostgreSQL programs of the clusters, pg_amcheck and psql (default: the\n"
	"                 newest major in /usr/lib/postgresql/<major>/bin, or under $DUT_PG_ROOT)\n"
	"  --scratch DIR  where the template clusters and each state's copy go (default: /dev/shm\n"
	"                 when it is a tmpfs with 2 GiB free and --keep is not given, else the\n"
	"                 work directory)\n"
	"  --workdir DIR  where the clusters go (default a new /var/tmp/dutlab/crash.XXXXXX; removed after;\n"
	"                 one that exists must be root's, not writable by others, no symlink)\n"
	"  --json FILE    the result document (\"-\" = stdout, then no table)\n"
	"  --keep         keep every state's files (default: only those of damaged states)\n"
	"  exit status: 0 pass, 1 a state was damaged or a negative control saw nothing, 2 usage,\n"
	"  3 the campaign could not run\n";

struct crash_opts {
	struct crash_campaign c;
	const char *experiment, *workdir, *json, *bindir, *scratch;
	int only_state;
	bool keep;
	const char *sets[MAX_SETS];
	unsigned nsets;
	char *owned[MAX_SETS];        /* set values read from the file */
	struct crash_atomic atomic;   /* identify */
	char *identify;               /* its file (the command that re-runs a state) */
	bool sector_given;
	int argc;                     /* the command line, for the result document */
	char **argv;
};

static int read_identify(struct crash_opts *o, const char *path)
{
	json_object *doc;
	char why[300];
	int r;

	if (!(doc = json_object_from_file(path))) {
		dut_err("crash: identify \"%s\": cannot read it as JSON (%s); make it with "
			"`dutprobe identify --json FILE DEVICE`", path, json_util_get_last_err());
		return -EINVAL;
	}
	r = crash_atomic_from_json(doc, &o->atomic, why, sizeof(why));
	json_object_put(doc);
	if (r < 0)
		dut_err("crash: identify \"%s\": %s", path, why);
	return r;
}

static int bad(const char *what, const char *val, const char *expect)
{
	dut_err("crash: %s \"%s\": expected %s", what, val, expect);
	return -EINVAL;
}

static int set_option(struct crash_opts *o, const char *key, const char *val, bool from_file)
{
	char badname[32];
	uint64_t u;
	char *end;
	double d;

	if (!strcmp(key, "seed")) {
		errno = 0;
		o->c.seed = strtoull(val, &end, 10);
		return errno || !*val || *end ? bad(key, val, "a whole number") : 0;
	}
	if (!strcmp(key, "states") || !strcmp(key, "controls") || !strcmp(key, "clients")) {
		errno = 0;
		u = strtoull(val, &end, 10);
		if (errno || !*val || *end || u > 100000 || (!strcmp(key, "clients") && (u < 1 || u > 64)))
			return bad(key, val, !strcmp(key, "clients") ? "1 to 64" : "a whole number up to 100000");
		if (key[0] == 's')
			o->c.states = (unsigned)u;
		else if (key[1] == 'o')
			o->c.control_states = (unsigned)u;
		else
			o->c.clients = (unsigned)u;
		return 0;
	}
	if (!strcmp(key, "points"))
		return crash_points_parse_list(val, &o->c.points_mask, badname, sizeof(badname)) < 0 ?
		       bad(key, badname, "wal-write, wal-fsync, heap-write, index-write, data-fsync, pg_control, slru-write, "
			   "checkpoint, time or init") : 0;
	if (!strcmp(key, "losses"))
		return crash_losses_parse_list(val, &o->c.losses_mask, badname, sizeof(badname)) < 0 ?
		       bad(key, badname, "lose-all, lose-none, subset, torn or fsync-eio") : 0;
	if (!strcmp(key, "class-loss")) {
		char why[300];

		if (crash_class_loss_parse(val, &o->c.class_loss, why, sizeof(why)) < 0) {
			dut_err("crash: class-loss: %s", why);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "sector")) {
		if (dut_parse_size(val, &u, NULL) < 0 || u < 512 || u > 65536 || (u & (u - 1)))
			return bad(key, val, "a power of two from 512 to 64k");
		o->c.sector = (uint32_t)u;
		o->sector_given = true;
		return 0;
	}
	if (!strcmp(key, "identify")) {
		free(o->identify);
		if (!(o->identify = strdup(val)))
			return -ENOMEM;
		return read_identify(o, val);
	}
	if (!strcmp(key, "duration")) {
		errno = 0;
		d = strtod(val, &end);
		if (errno || !*val || *end || d < 1 || d > 600)
			return bad(key, val, "seconds from 1 to 600");
		o->c.workload_s = d;
		return 0;
	}
	if (!strcmp(key, "set")) {
		if (o->nsets == MAX_SETS || !strchr(val, '=') || val[0] == '=')
			return bad(key, val, "NAME=VALUE (at most 16)");
		if (from_file) {
			if (!(o->owned[o->nsets] = strdup(val)))
				return -ENOMEM;
			val = o->owned[o->nsets];
		}
		o->sets[o->nsets++] = val;
		return 0;
	}
	dut_err("crash: unknown key \"%s\" (expected seed, states, controls, points, losses, class-loss, sector, identify, "
		"duration, clients or set)", key);
	return -ENOENT;
}

struct ini_ctx {
	struct crash_opts *o;
	const char *path;
	bool in_crash, seen;
	int err;
};

static int on_ini(void *arg, const char *section, const char *key, const char *val)
{
	struct ini_ctx *c = arg;

	if (strcmp(section, "crash") != 0) {
		dut_err("%s: section [%s]: expected [crash] (docs/crash.md)", c->path, section);
		c->err = -EINVAL;
		return 0;
	}
	c->seen = true;
	if (!key)
		return 1;
	if (set_option(c->o, key, val, true) < 0) {
		dut_err("%s: in [crash], key %s (see above)", c->path, key);
		c->err = -EINVAL;
		return 0;
	}
	return 1;
}

static int read_experiment(struct crash_opts *o, const char *path)
{
	struct ini_ctx c = { .o = o, .path = path };
	char *buf = NULL;
	size_t len = 0;
	int r = dut_read_small_file(path, 1u << 20, &buf, &len);

	if (r < 0) {
		dut_err("%s: %s", path, strerror(-r));
		return r;
	}
	r = ini_parse_string(buf, on_ini, &c);
	free(buf);
	if (c.err)
		return c.err;
	if (r != 0) {
		dut_err("%s:%d: not an INI line", path, r);
		return -EINVAL;
	}
	if (!c.seen) {
		dut_err("%s: no [crash] section with keys (docs/crash.md)", path);
		return -EINVAL;
	}
	return 0;
}

enum { O_STATES = 300, O_SEED, O_CONTROLS, O_STATE, O_POINTS, O_LOSSES, O_SECTOR, O_DURATION, O_CLIENTS,
       O_SET, O_IDENTIFY, O_CLASS_LOSS, O_WORKDIR, O_JSON, O_KEEP, O_BINDIR, O_SCRATCH };

static int parse_cli(int argc, char **argv, struct crash_opts *o)
{
	static const struct option opts[] = {
		{ "states", required_argument, NULL, O_STATES }, { "seed", required_argument, NULL, O_SEED },
		{ "controls", required_argument, NULL, O_CONTROLS }, { "state", required_argument, NULL, O_STATE },
		{ "points", required_argument, NULL, O_POINTS }, { "losses", required_argument, NULL, O_LOSSES },
		{ "sector", required_argument, NULL, O_SECTOR }, { "duration", required_argument, NULL, O_DURATION },
		{ "clients", required_argument, NULL, O_CLIENTS }, { "set", required_argument, NULL, O_SET },
		{ "identify", required_argument, NULL, O_IDENTIFY }, { "class-loss", required_argument, NULL, O_CLASS_LOSS },
		{ "workdir", required_argument, NULL, O_WORKDIR }, { "json", required_argument, NULL, O_JSON },
		{ "keep", no_argument, NULL, O_KEEP }, { "bindir", required_argument, NULL, O_BINDIR },
		{ "scratch", required_argument, NULL, O_SCRATCH },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const char *const keys[] = { [O_STATES - O_STATES] = "states", "seed", "controls", "state",
					     "points", "losses", "sector", "duration", "clients", "set",
					     "identify", "class-loss" };
	struct { const char *key, *val; } pend[64];
	unsigned npend = 0;
	int opt;

	/* options override the experiment file: read it first, apply them after */
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case O_STATE: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (!*optarg || *end || v < 0 || v > 200000)
				return bad("--state", optarg, "a state index (0 or more)");
			o->only_state = (int)v;
			break;
		}
		case O_WORKDIR: o->workdir = optarg; break;
		case O_JSON: o->json = optarg; break;
		case O_KEEP: o->keep = true; break;
		case O_SCRATCH: o->scratch = optarg; break;
		case O_BINDIR:
			if (optarg[0] != '/')
				return bad("--bindir", optarg, "an absolute directory with initdb, pg_ctl, postgres and pg_amcheck");
			o->bindir = optarg;
			break;
		case 'h': fputs(dutlab_crash_usage, stdout); return 1;
		case '?': return -EINVAL;
		default:
			if (npend == 64) {
				dut_err("crash: too many options");
				return -EINVAL;
			}
			pend[npend].key = keys[opt - O_STATES];
			pend[npend++].val = optarg;
		}
	}
	if (argc - optind > 1) {
		dut_err("crash: unexpected argument \"%s\" (one experiment file at most)", argv[optind + 1]);
		return -EINVAL;
	}
	if (optind < argc) {
		o->experiment = argv[optind];
		if (read_experiment(o, o->experiment) < 0)
			return -EINVAL;
	}
	for (unsigned i = 0; i < npend; i++)
		if (set_option(o, pend[i].key, pend[i].val, false) < 0)
			return -EINVAL;
	if (o->atomic.have && !o->sector_given)
		o->c.sector = crash_atomic_sector(&o->atomic);
	if (o->only_state >= 0 && (unsigned)o->only_state >= crash_campaign_total(&o->c)) {
		dut_err("crash: --state %d: the campaign has states 0 to %u", o->only_state,
			crash_campaign_total(&o->c) - 1);
		return -EINVAL;
	}
	if (!crash_campaign_total(&o->c)) {
		dut_err("crash: no states to run (--states 0 and --controls 0)");
		return -EINVAL;
	}
	return 0;
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

/*
 * The tools, and one PostgreSQL for everything: the clusters (pgload cluster
 * init --bindir), pg_amcheck and psql.  --bindir (a dutlab run step passes
 * its configuration's), else the newest installed, found as pgload finds it
 * (the same root, $DUT_PG_ROOT included).
 */
static int find_tools(struct crash_ctx *x, const char *want_bindir)
{
	struct run_tools t;
	struct dut_error err = { "" };
	unsigned major;

	if (run_find_tools(&t, &err) < 0) {
		dut_err("crash: %s", err.msg);
		return -ENOENT;
	}
	snprintf(x->dutfs, sizeof(x->dutfs), "%s", t.dutfs);
	snprintf(x->pgload, sizeof(x->pgload), "%s", t.pgload);
	if (want_bindir) {
		if (snprintf(x->bindir, sizeof(x->bindir), "%s", want_bindir) >= (int)sizeof(x->bindir)) {
			dut_err("crash: --bindir %.80s...: too long", want_bindir);
			return -ENAMETOOLONG;
		}
		for (size_t n = strlen(x->bindir); n > 1 && x->bindir[n - 1] == '/';)
			x->bindir[--n] = '\0';
	} else if (dut_pgbin_find(dut_pgbin_root(), 0, x->bindir, sizeof(x->bindir), &major, &err) < 0) {
		dut_err("crash: %s", err.msg);
		return -ENOENT;
	}
	snprintf(x->amcheck, sizeof(x->amcheck), "%s/pg_amcheck", x->bindir);
	snprintf(x->psql, sizeof(x->psql), "%s/psql", x->bindir);
	if (access(x->amcheck, X_OK) < 0) {
		dut_err("crash: %s: %s (PostgreSQL 14 or later ships pg_amcheck; --bindir names the "
			"installation)", x->amcheck, strerror(errno));
		return -ENOENT;
	}
	if (access(x->psql, X_OK) < 0) {
		dut_err("crash: %s: %s (the init point's checks and CHECKPOINT use psql)", x->psql, strerror(errno));
		return -ENOENT;
	}
	{
		/* root runs these itself: only what no one but root could have put there */
		static const char *const progs[] = { "pg_amcheck", "psql", "pg_controldata", NULL };
		int r = dut_pgbin_check_progs(x->bindir, progs, &err);

		if (r < 0) {
			dut_err("crash: --bindir: %s", err.msg);
			return r;
		}
	}
	return 0;
}

/*
 * The work and scratch directories are where root mounts dutfs, removes
 * trees and writes files, so nobody else may control them or any directory
 * above them: a directory planted by another user (or a symbolic link to
 * one) would let that user choose what root mounts where (docs/crash.md
 * "Safety").  PostgreSQL runs as postgres and must search the work directory
 * down to the mount, hence 0755, set through a descriptor opened without
 * following links.
 */
static int set_dir_mode(const char *path, mode_t mode)
{
	int fd = dut_open_nofollow(path, O_RDONLY | O_DIRECTORY);
	int r = 0;

	if (fd < 0)
		return fd;
	if (fchmod(fd, mode) < 0)
		r = -errno;
	close(fd);
	return r;
}

static void refuse_dir(const char *what, const char *path, const char *bad, int r)
{
	if (r == -ELOOP || r == -EPERM || r == -EACCES || r == -ENOTDIR || r == -EINVAL)
		dut_err("crash: refusing %s %s (%s: %s): dutlab crash as root mounts, removes and writes there, "
			"so it and every directory above it must be root's and not writable by others (or "
			"sticky, like /tmp), with no symbolic link: remove it, or chown root and chmod go-w it",
			what, path, bad[0] ? bad : path, dut_fs_safe_strerror(r));
	else
		dut_err("crash: cannot create %s %s (%s): %s", what, path, bad[0] ? bad : path, strerror(-r));
}

/* A directory the user named: root's and private if it exists, else made so. */
static int given_dir(const char *what, const char *path, char *buf, size_t len)
{
	char bad[PATH_MAX] = "";
	int r;

	if (snprintf(buf, len, "%s", path) >= (int)len) {
		dut_err("crash: %s %.80s...: too long", what, path);
		return -ENAMETOOLONG;
	}
	r = dut_ensure_private_dir(buf, 0755, bad, sizeof(bad));
	if (r < 0) {
		refuse_dir(what, buf, bad, r);
		return r;
	}
	/* one that existed keeps its mode otherwise: a root 0700 one would shut postgres out */
	if ((r = set_dir_mode(buf, 0755)) < 0)
		dut_err("crash: cannot set the mode of %s: %s", buf, dut_fs_safe_strerror(r));
	return r;
}

/* A new directory prefix.XXXXXX (mkdtemp: never one that existed), 0755. */
static int fresh_dir(const char *prefix, char *buf, size_t len)
{
	int r;

	if (snprintf(buf, len, "%s.XXXXXX", prefix) >= (int)len) {
		dut_err("crash: %.80s...: too long", prefix);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(buf)) {
		r = -errno;
		dut_err("crash: cannot create %s: %s", buf, strerror(-r));
		return r;
	}
	if ((r = set_dir_mode(buf, 0755)) < 0) {
		dut_err("crash: cannot set the mode of %s: %s", buf, dut_fs_safe_strerror(r));
		rmdir(buf);
		return r;
	}
	return 0;
}

/*
 * The work directory: --workdir (see given_dir), else a new one under the
 * var root, which must itself be root's and private as for `dutlab run`
 * (nothing creates /var/tmp/dutlab at install time, so anyone could have).
 */
static int make_work(const struct crash_opts *o, struct crash_ctx *x)
{
	char bad[PATH_MAX] = "", prefix[PATH_MAX];
	int r;

	if (o->workdir)
		return given_dir("--workdir", o->workdir, x->work, sizeof(x->work));
	r = dut_ensure_private_dir(run_var_root(), 0755, bad, sizeof(bad));
	if (r < 0) {
		refuse_dir("the var root", run_var_root(), bad, r);
		return r;
	}
	snprintf(prefix, sizeof(prefix), "%s/crash", run_var_root());
	return fresh_dir(prefix, x->work, sizeof(x->work));
}

/*
 * Where the template clusters and each state's copy go: --scratch, else a
 * tmpfs (/dev/shm) with room, else the work directory.  The copy of a state
 * was a third of its time on a busy disk (docs/crash.md), and the backing
 * filesystem is not what a state tests: dutfs decides what a crash loses,
 * from its own record of what was synced, whatever lies under it.
 */
static int pick_scratch(const struct crash_opts *o, struct crash_ctx *x)
{
	uint64_t free_bytes = 0;
	bool tmpfs = false;

	if (o->scratch)
		return given_dir("--scratch", o->scratch, x->scratch, sizeof(x->scratch));
	if (!o->keep && crash_tmpfs_free("/dev/shm", &tmpfs, &free_bytes) == 0 && tmpfs &&
	    free_bytes >= (2ull << 30))
		return fresh_dir("/dev/shm/dutlab-crash", x->scratch, sizeof(x->scratch));
	snprintf(x->scratch, sizeof(x->scratch), "%s", x->work);
	return 0;
}

/*
 * The server's block size: subset draws its loss per page, and the report
 * says whether the device's atomic unit covers a page.  A build of `dutlab
 * pg build` records it (dutlab-build.conf beside its bin/); the template
 * cluster's pg_control says what the server really uses (pg_controldata),
 * which also covers a build of another origin given with --bindir.  Debian's
 * packages: 8 KiB.
 */
static void decide_page(struct crash_ctx *x, struct crash_report *rep)
{
	char *argv[] = { NULL, "-D", NULL, NULL }, prog[PATH_MAX], pgdata[PATH_MAX + 32], out[PATH_MAX + 32];
	struct run_cmd_opts ro = { .log_path = out, .timeout_ns = 60000000000ull, .no_header = true };
	struct dut_error err = { "" };
	uint32_t built = 0, seen = 0;
	struct dut_pg_build b;
	char *text = NULL;
	size_t len = 0;
	int st = 0, r;

	r = dut_pg_build_of_bindir(x->bindir, &b, &err);
	if (r == 0)
		built = crash_page_from_build(b.block_kb);
	else if (r != -ENOENT)
		dut_warn("crash: %s", err.msg);
	snprintf(prog, sizeof(prog), "%s/pg_controldata", x->bindir);
	snprintf(pgdata, sizeof(pgdata), "%s/pgdata", x->template_dir);
	snprintf(out, sizeof(out), "%s/pg_controldata.txt", x->work);
	argv[0] = prog;
	argv[2] = pgdata;
	unlink(out);
	if (run_command(argv, &ro, &st) == 0 && st == 0 && dut_read_small_file(out, 1u << 20, &text, &len) == 0)
		(void)crash_page_from_controldata(text, &seen);
	free(text);
	unlink(out);
	if (seen) {
		if (built && built != seen)
			dut_warn("crash: %s records %u KiB blocks, but the template cluster has %u KiB ones "
				 "(pg_controldata): the campaign uses %u KiB", x->bindir, built / 1024, seen / 1024,
				 seen / 1024);
		x->page_bytes = seen;
		rep->page_source = "pg_controldata";
	} else if (built) {
		x->page_bytes = built;
		rep->page_source = "dutlab-build.conf";
	} else {
		dut_warn("crash: %s could not read the template cluster's block size: assuming %u KiB (Debian's)",
			 prog, CRASH_PG_DEFAULT_PAGE_BYTES / 1024);
		x->page_bytes = CRASH_PG_DEFAULT_PAGE_BYTES;
		rep->page_source = "default";
	}
	rep->c.page_bytes = x->page_bytes;
}

/* The result document (dutlab-result, docs/result-schema.md "dutlab crash"). */
static int write_result(const struct crash_opts *o, const struct crash_report *rep)
{
	struct dut_result *res = NULL;
	struct dut_host host;
	int r = crash_report_result(rep, DUT_VERSION, &res);

	if (r == 0 && o->argv)
		r = dut_result_set_command(res, o->argc, o->argv);
	if (r == 0 && dut_host_probe(&host) == 0)
		r = dut_result_set_host(res, &host);
	if (r == 0)
		r = dut_result_write_file(res, o->json);
	if (r < 0)
		dut_err("crash: cannot write the result document %s: %s", o->json, strerror(-r));
	dut_result_free(res);
	return r;
}

static int run_campaign(struct crash_opts *o, struct crash_ctx *x)
{
	struct crash_report rep = { .c = o->c, .experiment = o->experiment, .only_state = o->only_state,
				    .atomic = o->atomic, .identify = o->identify, .sets = o->sets,
				    .nsets = o->nsets, .bindir = o->bindir, .pg_bindir = x->bindir };
	unsigned total = crash_campaign_total(&o->c);
	uint64_t t0 = crash_now_ms();
	struct crash_verdict v;
	char why[400];
	bool quiet = o->json && !strcmp(o->json, "-");
	int rc;

	rep.o = calloc(o->only_state >= 0 ? 1 : total, sizeof(*rep.o));
	if (!rep.o)
		return 3;
	if (!quiet)
		fprintf(stderr, "dutlab crash: making the template cluster in %s\n", x->work);
	if (crash_make_template(x, o->sets, o->nsets, why, sizeof(why)) < 0) {
		dut_err("crash: the template cluster could not be made: %s", why);
		free(rep.o);
		return 3;
	}
	rep.template_ms = crash_now_ms() - t0;
	decide_page(x, &rep);
	o->c.page_bytes = x->page_bytes;
	for (unsigned i = 0; i < total && !stop_requested; i++) {
		struct crash_state st;
		struct crash_outcome *out;
		char line[400], fixed[160];

		if (o->only_state >= 0 && i != (unsigned)o->only_state)
			continue;
		crash_plan_state(&o->c, i, &st);
		out = &rep.o[rep.n++];
		crash_run_state(x, &st, out);
		crash_outcome_summary(out, line, sizeof(line));
		crash_class_loss_format(&st.class_loss, fixed, sizeof(fixed));
		if (!quiet)
			fprintf(stderr, "dutlab crash: state %u/%u %s %s%s%s%s%s%s: %s (%.1f s)\n", i + 1, total,
				crash_point_name(st.point), crash_loss_name(st.loss), fixed[0] ? " (" : "", fixed,
				fixed[0] ? ")" : "", st.control ? " " : "", st.control ? crash_control_name(st.control) : "",
				line,
				(double)(out->phase_ms[CRASH_PH_COPY] + out->phase_ms[CRASH_PH_MOUNT] +
					 out->phase_ms[CRASH_PH_START] + out->phase_ms[CRASH_PH_WORKLOAD] +
					 out->phase_ms[CRASH_PH_CRASH] + out->phase_ms[CRASH_PH_RECOVERY] +
					 out->phase_ms[CRASH_PH_LEDGER] + out->phase_ms[CRASH_PH_AMCHECK] +
					 out->phase_ms[CRASH_PH_TEARDOWN]) / 1e3);
	}
	rep.elapsed_ms = crash_now_ms() - t0;
	if (!quiet)
		crash_report_print(&rep, stdout);
	if (o->json && write_result(o, &rep) < 0) {
		free(rep.o);
		return 3;
	}
	crash_report_verdict(&rep, &v);
	rc = stop_requested ? 130 : v.pass ? 0 : 1;
	free(rep.o);
	return rc;
}

int dutlab_cmd_crash(int argc, char **argv)
{
	struct crash_opts o = { .only_state = -1, .argc = argc, .argv = argv };
	struct crash_ctx x = { .c = &o.c };
	struct sigaction sa = { .sa_handler = on_signal };
	bool made_work = false;
	int r;

	crash_campaign_defaults(&o.c);
	r = parse_cli(argc, argv, &o);
	if (r)
		return r > 0 ? 0 : 2;
	if (geteuid() != 0) {
		dut_err("crash: needs root (it mounts dutfs and runs PostgreSQL as user postgres)");
		return 3;
	}
	if (find_tools(&x, o.bindir) < 0)
		return 3;
	/* controls never take the init point: only regular states do */
	x.want_empty = o.c.states && (o.c.points_mask & (1u << CRASH_AT_INIT));
	if (make_work(&o, &x) < 0)
		return 3;
	made_work = !o.workdir;
	if (pick_scratch(&o, &x) < 0)
		return 3;
	snprintf(x.template_dir, sizeof(x.template_dir), "%s/template", x.scratch);
	snprintf(x.empty_dir, sizeof(x.empty_dir), "%s/template-empty", x.scratch);
	snprintf(x.backing, sizeof(x.backing), "%s/backing", x.scratch);
	snprintf(x.mnt, sizeof(x.mnt), "%s/mnt", x.work);
	snprintf(x.pgdata, sizeof(x.pgdata), "%s/pgdata", x.mnt);
	snprintf(x.relmap, sizeof(x.relmap), "%s/relmap.json", x.work);
	x.keep = o.keep;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((r = crash_become_subreaper()) < 0)
		dut_warn("crash: cannot reap the servers it kills itself (%s): each state waits for init to",
			 strerror(-r));
	r = run_campaign(&o, &x);
	crash_teardown(&x);
	if (!o.keep) {
		run_rm_rf(x.template_dir);
		run_rm_rf(x.empty_dir);
		run_rm_rf(x.backing);
		if (strcmp(x.scratch, x.work) != 0)
			rmdir(x.scratch);
		if (made_work && r == 0)
			run_rm_rf(x.work);
	}
	for (unsigned i = 0; i < o.nsets; i++)
		free(o.owned[i]);
	free(o.identify);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgload cluster init|start|stop|status|destroy: argument parsing and messages. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/memcg.h"
#include "lib/units.h"
#include "lib/pgbin.h"
#include "pgload/cluster.h"
#include "pgload/cluster_check.h"
#include "pgload/main.h"
#include "pgload/standby.h"

static const char cluster_usage[] =
	"usage: pgload cluster init --pgdata DIR [--bindir DIR] [--wal-dir DIR]\n"
	"                           [--tablespace NAME=DIR]... [--set NAME=VALUE]...\n"
	"                           [--listen-tcp] [--memory SIZE]\n"
	"       pgload cluster standby --pgdata DIR --primary PRIMARY_PGDATA [--sync]\n"
	"                              [--bindir DIR] [--set NAME=VALUE]...\n"
	"       pgload cluster start --pgdata DIR [--memory SIZE]\n"
	"       pgload cluster status|destroy --pgdata DIR\n"
	"       pgload cluster stop --pgdata DIR [--immediate]\n"
	"init creates the cluster (initdb with data checksums, as user postgres when run\n"
	"as root), starts it on a private socket directory (peer authentication: only OS\n"
	"users root and postgres, as role postgres) and a free port number, creates the\n"
	"tablespaces and leaves it running.  --bindir: the PostgreSQL programs (default: the\n"
	"newest major in " DUT_PG_ROOT "/<major>/bin with initdb and pg_ctl; the\n"
	"environment variable DUT_PG_ROOT names another root).  start, stop and standby use\n"
	"the bindir init recorded.\n"
	"--listen-tcp also listens on 127.0.0.1 (scram-sha-256, a random password in a\n"
	"root-only passfile under " PGL_SECRETS_DIR ", printed as passfile: and in the\n"
	"conninfo; a new password at every start, for that port only; none after stop).\n"
	"stop --immediate simulates a crash.\n"
	"--memory SIZE (64M, 1G) runs the server in a memory cgroup of that limit: its\n"
	"processes, shared memory and the page cache they fault in stay within it, so a\n"
	"database larger than SIZE reads from the device.  It must hold shared_buffers +\n"
	"32 MiB; without --set shared_buffers, init sets min(128MB, SIZE/4).  The budget is\n"
	"kept for later starts (start --memory none drops it); status prints it with the\n"
	"current and peak usage.\n"
	"destroy stops the server and removes the data directory (only clusters made by\n"
	"pgload), the WAL directory it made and what PostgreSQL put in the tablespaces.\n"
	"standby makes a hot standby of the running pgload cluster PRIMARY_PGDATA\n"
	"(pg_basebackup, a replication slot, its own socket directory and port) and waits\n"
	"until the primary shows it streaming; --sync also makes it the primary's\n"
	"synchronous standby.  destroy of a standby drops its slot and clears\n"
	"synchronous_standby_names on the primary (docs/pgload-standby.md).\n";

static void print_conninfo(const struct pgl_cluster *c)
{
	char ci[4200];

	pgl_cluster_conninfo(c, ci, sizeof(ci));
	printf("pgdata: %s\nconninfo: %s\n", c->pgdata, ci);
	if (c->listen_tcp) {
		pgl_cluster_tcp_conninfo(c, ci, sizeof(ci));
		printf("passfile: %s\ntcp_conninfo: %s\n", c->passfile, ci);
	}
}

static void print_standby(const struct pgl_cluster *c)
{
	struct dut_error err = { "" };
	char line[256];

	printf("standby of: %s\napplication_name: %s\nslot: %s\nmode: %s\n", c->sb.primary_pgdata,
	       c->sb.app_name, c->sb.slot[0] ? c->sb.slot : "(none)", c->sb.sync_set ? "sync" : "async");
	if (pgl_standby_describe(c, line, sizeof(line), &err) < 0)
		printf("replication: unknown (%s)\n", err.msg);
	else
		printf("replication: %s\n", line);
}

static void on_cluster_signal(int sig)
{
	(void)sig;
	pgl_cluster_interrupted = 1;
}

/* init and start: an interrupted start stops the server again and removes its cgroup. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_cluster_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* "postgres: PostgreSQL 15.18 ... (bindir ...)" from the cluster's own binaries. */
static void print_postgres(const struct pgl_cluster *c)
{
	struct dut_error err = { "" };
	char ver[256];
	unsigned major = 0;

	if (dut_pgbin_version(c->bindir, ver, sizeof(ver), &major, &err) < 0)
		printf("postgres: unknown (%s; bindir %s)\n", err.msg, c->bindir);
	else
		printf("postgres: %s (major %u, bindir %s)\n", ver, major, c->bindir);
}

static void print_memory(const struct pgl_cluster *c)
{
	char b[32], cur[32], peak[32];
	uint64_t now, top;

	if (!c->memory_bytes) {
		printf("memory budget: none\n");
		return;
	}
	dut_format_size(c->memory_bytes, b, sizeof(b));
	if (pgl_cluster_memory(c, &now, &top) != 1) {
		printf("memory budget: %s (no cgroup now: the server is not running in it)\n", b);
		return;
	}
	printf("memory budget: %s (cgroup %s)\nmemory usage: %s (peak %s)\n", b, c->memcg_dir,
	       dut_format_size(now, cur, sizeof(cur)), top ? dut_format_size(top, peak, sizeof(peak)) : "unknown");
}

/* --memory SIZE: at least DUT_MEMCG_MIN_BYTES; "none": UINT64_MAX (start without a budget). */
static int parse_memory(const char *s, uint64_t *ret)
{
	struct dut_error err = { "" };

	if (strcmp(s, "none") == 0) {
		*ret = UINT64_MAX;
		return 0;
	}
	if (dut_parse_size(s, ret, &err) < 0) {
		dut_err("--memory: %s (give a size such as 96M or 1G)", err.msg);
		return -EINVAL;
	}
	if (*ret < DUT_MEMCG_MIN_BYTES) {
		dut_err("--memory %s: the smallest budget is %llu MiB", s, DUT_MEMCG_MIN_BYTES >> 20);
		return -EINVAL;
	}
	return 0;
}

static void on_standby_signal(int sig)
{
	(void)sig;
	pgl_standby_interrupted = 1;
}

static int main_standby(const struct pgl_cluster_init_opts *io, const char *primary, bool sync)
{
	/* A handler, not SIG_IGN: pg_basebackup must still die of Ctrl-C (exec resets handlers). */
	struct sigaction sa = { .sa_handler = on_standby_signal };
	struct pgl_standby_opts so = { .pgdata = io->pgdata, .primary_pgdata = primary,
				       .bindir = io->bindir, .sync = sync, .nsets = io->nsets };
	struct dut_error err = { "" };
	struct pgl_cluster c;

	if (!primary) {
		dut_err("cluster standby needs --primary PRIMARY_PGDATA (the data directory of a "
			"running cluster made by pgload cluster init)");
		return 1;
	}
	if (io->listen_tcp) {
		dut_err("cluster standby takes no --listen-tcp: it listens on its socket directory only "
			"(its catalog is the primary's, so it cannot have a password of its own)");
		return 1;
	}
	if (io->wal_dir || io->ntablespaces) {
		dut_err("cluster standby takes no --wal-dir or --tablespace (the standby copies the primary)");
		return 1;
	}
	memcpy(so.sets, io->sets, sizeof(so.sets));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (pgl_standby_create(&so, &c, &err) < 0) {
		dut_err("cluster standby: %s", err.msg);
		return pgl_standby_interrupted ? 130 : 1;
	}
	print_conninfo(&c);
	print_standby(&c);
	return 0;
}

int pgl_main_cluster(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pgdata", required_argument, NULL, 'D' },
		{ "bindir", required_argument, NULL, 'B' },
		{ "wal-dir", required_argument, NULL, 'W' },
		{ "tablespace", required_argument, NULL, 'T' },
		{ "set", required_argument, NULL, 'c' },
		{ "immediate", no_argument, NULL, 'i' },
		{ "primary", required_argument, NULL, 'P' },
		{ "sync", no_argument, NULL, 's' },
		{ "listen-tcp", no_argument, NULL, 'L' },
		{ "memory", required_argument, NULL, 'm' },
		{ "debug", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pgl_cluster_init_opts io = { 0 };
	struct pgl_cluster c;
	struct dut_error err = { "" };
	const char *sub, *primary = NULL;
	bool immediate = false, sync = false;
	int opt, r;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(cluster_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 1 : 0;
	}
	sub = argv[1];
	optind = 1;
	while ((opt = getopt_long(argc - 1, argv + 1, "D:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'D': io.pgdata = optarg; break;
		case 'B': io.bindir = optarg; break;
		case 'W': io.wal_dir = optarg; break;
		case 'T':
			if (io.ntablespaces >= PGL_MAX_TABLESPACES) {
				dut_err("at most %d --tablespace options", PGL_MAX_TABLESPACES);
				return 1;
			}
			if (pgl_tablespace_parse(optarg, &io.ts[io.ntablespaces++], &err) < 0) {
				dut_err("%s", err.msg);
				return 1;
			}
			break;
		case 'c': {
			char why[256];

			if (io.nsets >= PGL_MAX_SETS) {
				dut_err("at most %d --set options", PGL_MAX_SETS);
				return 1;
			}
			if (pgl_set_check(optarg, why, sizeof(why)) < 0) {
				dut_err("bad --set \"%.100s\": %s", optarg, why);
				return 1;
			}
			io.sets[io.nsets++] = optarg;
			break;
		}
		case 'L': io.listen_tcp = true; break;
		case 'm':
			if (parse_memory(optarg, &io.memory_bytes) < 0)
				return 1;
			break;
		case 'i': immediate = true; break;
		case 'P': primary = optarg; break;
		case 's': sync = true; break;
		case 'g': dut_log_set_level(DUT_LOG_DEBUG); break;
		case 'h': fputs(cluster_usage, stdout); return 0;
		default: fputs(cluster_usage, stderr); return 1;
		}
	}
	if (optind < argc - 1) {
		dut_err("unexpected argument \"%s\"", argv[optind + 1]);
		return 1;
	}
	if (!io.pgdata) {
		dut_err("cluster %s needs --pgdata DIR", sub);
		return 1;
	}
	if (strcmp(sub, "init") == 0) {
		if (io.memory_bytes == UINT64_MAX)
			io.memory_bytes = 0;
		catch_signals();
		r = pgl_cluster_init(&io, &c, &err);
		if (r < 0) {
			dut_err("cluster init: %s", err.msg);
			return r == -EINTR ? 130 : 1;
		}
		print_conninfo(&c);
		if (c.memory_bytes)
			print_memory(&c);
		return 0;
	}
	if (io.memory_bytes && strcmp(sub, "start") != 0) {
		dut_err("--memory belongs to cluster init and cluster start");
		return 1;
	}
	if (io.listen_tcp && strcmp(sub, "standby") != 0) {
		dut_err("--listen-tcp belongs to cluster init");
		return 1;
	}
	if ((primary || sync) && strcmp(sub, "standby") != 0) {
		dut_err("--primary and --sync belong to cluster standby, not cluster %s", sub);
		return 1;
	}
	if (strcmp(sub, "standby") == 0)
		return main_standby(&io, primary, sync);
	if (strcmp(sub, "destroy") == 0) {
		char note[2048];

		r = pgl_cluster_destroy(io.pgdata, pgl_standby_release, note, sizeof(note), &err);
		if (note[0])
			dut_warn("cluster destroy: %s", note);
		if (r < 0) {
			dut_err("cluster destroy: %s", err.msg);
			return 1;
		}
		return 0;
	}
	if (pgl_cluster_load(io.pgdata, &c, &err) < 0) {
		dut_err("%s", err.msg);
		return 1;
	}
	if (strcmp(sub, "start") == 0) {
		if (io.memory_bytes == UINT64_MAX) {
			c.memory_bytes = 0;
		} else if (io.memory_bytes) {
			uint64_t sb = c.shared_buffers_bytes ? c.shared_buffers_bytes : 128ull << 20;
			char why[400];

			if (pgl_memory_check(io.memory_bytes, sb, why, sizeof(why)) < 0) {
				dut_err("cluster start --memory: %s%s", why, c.shared_buffers_bytes ? "" :
					" (shared_buffers is not recorded for this cluster: PostgreSQL's default "
					"128MB is assumed)");
				return 1;
			}
			c.memory_bytes = io.memory_bytes;
		}
		catch_signals();
		if ((r = pgl_cluster_start(&c, &err)) < 0) {
			dut_err("cluster start: %s", err.msg);
			return r == -EINTR ? 130 : 1;
		}
		print_conninfo(&c);
		if (c.memory_bytes)
			print_memory(&c);
		return 0;
	}
	if (strcmp(sub, "stop") == 0) {
		if (pgl_cluster_stop(&c, immediate, &err) < 0) {
			dut_err("cluster stop: %s", err.msg);
			return 1;
		}
		return 0;
	}
	if (strcmp(sub, "status") == 0) {
		long pid = 0;
		int running = pgl_cluster_running(&c, &pid);

		if (running)
			printf("running (pid %ld)\n", pid);
		else
			printf("stopped\n");
		print_postgres(&c);
		print_conninfo(&c);
		print_memory(&c);
		if (c.sb.is_standby)
			print_standby(&c);
		return running ? 0 : 3; /* as pg_ctl status */
	}
	dut_err("unknown cluster command \"%s\" (expected init, standby, start, stop, status or destroy)", sub);
	return 1;
}

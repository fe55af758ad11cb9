/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks of a recovered state (docs/crash.md, "What one state is", 7):
 * pgload ledger check (or, for the init point, the catalog query judged
 * against pgload's ack log) and pg_amcheck --heapallindexed, at once: both
 * only read, and on this project's 2-CPU machines running them one after
 * the other was a quarter of a state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/file_io.h"
#include "tools/crash/crash_load.h"
#include "tools/crash/crash_state_priv.h"
#include "tools/crash/crash_sys.h"
#include "tools/run/runner_sys.h"

void crash_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Run a command to completion, output into the state's log; its exit status or -errno. */
int crash_st_cmd(struct st_run *s, char *const argv[], unsigned timeout_s)
{
	struct run_cmd_opts o = { .log_path = s->log, .timeout_ns = timeout_s * 1000 * CRASH_MS, .grace_ns = 2000 * CRASH_MS };
	int st = 0, r = run_command(argv, &o, &st);

	return r < 0 && r != -ETIMEDOUT ? r : r == -ETIMEDOUT ? -ETIMEDOUT : st;
}

static void ledger_check(struct st_run *s, struct crash_outcome *o)
{
	char json[PATH_MAX + 64];
	char *argv[] = { s->x->pgload, "ledger", "check", "--pgdata", s->x->pgdata, "--ledger", s->ledger,
			 "--json", json, "-q", NULL };
	struct json_object *j, *v;
	int r;

	snprintf(json, sizeof(json), "%s/ledger-check.json", s->dir);
	unlink(json);
	r = crash_st_cmd(s, argv, 300);
	j = (r == 0 || r == 2) ? json_object_from_file(json) : NULL;
	if (!j) {
		o->balances_ok = false;
		crash_msg(o->ledger_detail, sizeof(o->ledger_detail), "pgload ledger check exited %d (see %s)", r, s->log);
		return;
	}
#define GET(k) (json_object_object_get_ex(j, k, &v) ? json_object_get_int64(v) : 0)
	o->acked = (uint64_t)GET("acked");
	o->in_flight = (uint64_t)GET("in_flight");
	o->lost = (uint64_t)GET("lost");
	o->half = (uint64_t)GET("half");
	o->unexpected = (uint64_t)GET("unexpected");
#undef GET
	o->balances_ok = json_object_object_get_ex(j, "balances_agree", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(j, "read_error", &v) && v) {
		o->balances_ok = false;
		crash_msg(o->ledger_detail, sizeof(o->ledger_detail), "tables unreadable: %s", json_object_get_string(v));
	} else if (json_object_object_get_ex(j, "balance_detail", &v)) {
		crash_msg(o->ledger_detail, sizeof(o->ledger_detail), "%s", json_object_get_string(v));
	}
	json_object_put(j);
}

int crash_conninfo_socket(const char *ci, char *host, size_t host_len, char *port, size_t port_len)
{
	const char *h = strstr(ci, "host="), *p = strstr(ci, "port=");

	if (h)
		snprintf(host, host_len, "%.*s", (int)strcspn(h + 5, " "), h + 5);
	if (p)
		snprintf(port, port_len, "%.*s", (int)strcspn(p + 5, " "), p + 5);
	return h || p ? 0 : -EINVAL;
}

/*
 * The running server's socket directory and port: what its start printed
 * (start_server in crash_state.c), else pgload cluster status (the
 * template's server; a process and 0.1 s at load 10); 0 or -EIO.
 */
static int server_socket(struct st_run *s, char *host, size_t host_len, char *port, size_t port_len)
{
	char status[PATH_MAX + 64], ci[600] = "";
	char *sargv[] = { s->x->pgload, "cluster", "status", "--pgdata", s->x->pgdata, NULL };
	struct run_cmd_opts so = { .log_path = status, .timeout_ns = 60000 * CRASH_MS, .grace_ns = 2000 * CRASH_MS, .no_header = true };
	int st = 0;

	if (s->have_socket) {
		snprintf(host, host_len, "%s", s->host);
		snprintf(port, port_len, "%s", s->port);
		return 0;
	}
	snprintf(status, sizeof(status), "%s/status.txt", s->dir);
	unlink(status);
	if (run_command(sargv, &so, &st) < 0 || st != 0 || crash_read_field(status, "conninfo", ci, sizeof(ci)) < 0)
		return -EIO;
	crash_conninfo_socket(ci, host, host_len, port, port_len);
	return 0;
}
/* pg_amcheck running in the background: its output file, its pid (0: not started) */
struct amcheck_job {
	char out[PATH_MAX + 64];
	pid_t pid;
	uint64_t started_ms;
};

/* Start pg_amcheck; on failure o->amcheck_first says why and j->pid stays 0. */
static void amcheck_start(struct st_run *s, struct crash_outcome *o, bool install, struct amcheck_job *j)
{
	char host[PATH_MAX] = "", port[16] = "", jobs[16];
	/*
	 * The ledger and the pgbench tables are in database postgres; the
	 * template installed amcheck.  One connection per CPU (at most 4):
	 * pgbench_accounts's heap and its index are checked on two
	 * connections at once (the ledger check's one connection beside them).
	 */
	char *aargv[] = { s->x->amcheck, "-h", host, "-p", port, "-U", "postgres", "--heapallindexed",
			  "--jobs", jobs, "--database", "postgres", install ? "--install-missing" : NULL, NULL };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int r;

	o->amcheck_rc = -1;
	j->pid = 0;
	j->started_ms = crash_now_ms();
	snprintf(jobs, sizeof(jobs), "%ld", ncpu < 1 ? 1 : ncpu > 4 ? 4 : ncpu);
	snprintf(j->out, sizeof(j->out), "%s/amcheck.txt", s->dir);
	unlink(j->out);
	if (server_socket(s, host, sizeof(host), port, sizeof(port)) < 0) {
		crash_msg(o->amcheck_first, sizeof(o->amcheck_first), "no conninfo from pgload cluster status");
		return;
	}
	if ((r = crash_spawn(aargv, j->out, &j->pid)) < 0) {
		j->pid = 0;
		crash_msg(o->amcheck_first, sizeof(o->amcheck_first), "pg_amcheck could not run: %s", strerror(-r));
	}
}

/* Wait for pg_amcheck (at most 10 minutes) and count its complaint lines. */
static void amcheck_finish(struct crash_outcome *o, struct amcheck_job *j)
{
	char *buf = NULL, *p;
	size_t len = 0;
	int st = 0, r;

	if (!j->pid)
		return;
	while ((r = crash_poll(j->pid, &st)) == 0) {
		if (crash_now_ms() - j->started_ms > 600000) {
			crash_stop_group(j->pid, 2000);
			crash_msg(o->amcheck_first, sizeof(o->amcheck_first), "pg_amcheck did not end in 10 minutes");
			return;
		}
		crash_sleep_ms(5);
	}
	if (r < 0) {
		crash_msg(o->amcheck_first, sizeof(o->amcheck_first), "waiting for pg_amcheck: %s", strerror(-r));
		return;
	}
	o->amcheck_rc = st;
	if (dut_read_small_file(j->out, 64u << 20, &buf, &len) == 0) {
		for (p = buf; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
			if (!strncmp(p, "NOTICE:", 7))
				continue;   /* "extension amcheck already exists" and the like */
			if (!o->amcheck_lines)
				crash_msg(o->amcheck_first, sizeof(o->amcheck_first), "%.*s", (int)strcspn(p, "\n"), p);
			o->amcheck_lines++;
		}
		free(buf);
	}
}

void crash_st_amcheck(struct st_run *s, struct crash_outcome *o, bool install)
{
	struct amcheck_job j;

	amcheck_start(s, o, install, &j);
	amcheck_finish(o, &j);
}

/* psql -At -c SQL into out (a file); its exit status or -errno. */
int crash_st_psql(struct st_run *s, const char *sql, const char *out, unsigned timeout_s)
{
	char host[PATH_MAX] = "", port[16] = "";
	char *argv[] = { s->x->psql, "-h", host, "-p", port, "-U", "postgres", "-d", "postgres", "-X", "-At",
			 "-v", "ON_ERROR_STOP=1", "-c", (char *)sql, NULL };
	struct run_cmd_opts po = { .log_path = out, .timeout_ns = timeout_s * 1000 * CRASH_MS, .grace_ns = 2000 * CRASH_MS,
				   .no_header = true };
	int st = 0, r;

	if (server_socket(s, host, sizeof(host), port, sizeof(port)) < 0)
		return -EIO;
	unlink(out);
	r = run_command(argv, &po, &st);
	return r < 0 ? r : st;
}

/* The init point: what the load left against what pgload's ack log says was acknowledged (crash_load.h). */
static void load_check(struct st_run *s, struct crash_outcome *o)
{
	char acks_path[PATH_MAX + 64], out[PATH_MAX + 64];
	char *acks_text = NULL, *obs_text = NULL;
	struct crash_load_acks a;
	struct crash_load_obs ob;
	size_t len = 0;
	unsigned bad = 0;
	int r;

	o->load = true;
	snprintf(acks_path, sizeof(acks_path), "%s/ack.log", s->dir);
	snprintf(out, sizeof(out), "%s/load-check.txt", s->dir);
	r = dut_read_small_file(acks_path, 1u << 20, &acks_text, &len);
	if (r == -ENOENT)
		r = (acks_text = strdup("")) ? 0 : -ENOMEM;
	if (r < 0 || crash_load_parse_acks(acks_text, &a, &bad) < 0) {
		o->load_findings = 1;
		crash_msg(o->load_detail, sizeof(o->load_detail), "cannot read the ack log %s (line %u)", acks_path, bad);
		goto out;
	}
	o->load_acked = a.n;
	snprintf(o->load_last_ack, sizeof(o->load_last_ack), "%s", a.last);
	/* a table that cannot be read (a checksum failure) fails the query: damage too */
	if ((r = crash_st_psql(s, crash_load_query, out, 300)) != 0 ||
	    dut_read_small_file(out, 1u << 20, &obs_text, &len) < 0 || crash_load_parse_obs(obs_text, &ob) < 0) {
		o->load_findings = 1;
		crash_msg(o->load_detail, sizeof(o->load_detail), "the catalog query failed (psql exit %d, see %s)", r, out);
		goto out;
	}
	o->load_findings = crash_load_judge(&a, &ob, 1, o->load_detail, sizeof(o->load_detail));
out:
	free(acks_text);
	free(obs_text);
}

void crash_st_checks(struct st_run *s, const struct crash_state *st, struct crash_outcome *o)
{
	struct amcheck_job j;
	uint64_t t = crash_now_ms();

	amcheck_start(s, o, false, &j);
	if (st->point == CRASH_AT_INIT)
		load_check(s, o);
	else
		ledger_check(s, o);
	o->phase_ms[CRASH_PH_LEDGER] = crash_now_ms() - t;
	t = crash_now_ms();
	amcheck_finish(o, &j);
	o->phase_ms[CRASH_PH_AMCHECK] = crash_now_ms() - t;
}

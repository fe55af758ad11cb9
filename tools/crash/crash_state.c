/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One crash state: a fresh copy of the template cluster, dutfs with the
 * state's rules, PostgreSQL, the ledger workload, the crash, the server
 * killed, recover, the restart timed, the checks (crash_check.c).
 * Everything started here is stopped here, whatever happened.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "tools/crash/crash.h"
#include "tools/crash/crash_state_priv.h"
#include "tools/crash/crash_sys.h"
#include "tools/run/runner_sys.h"

static int pgl(struct st_run *s, const char *a1, const char *a2, const char *a3, unsigned timeout_s)
{
	char *argv[] = { s->x->pgload, (char *)a1, (char *)a2, "--pgdata", s->x->pgdata, (char *)a3, NULL };

	if (!a2) {
		argv[2] = "--pgdata";
		argv[3] = s->x->pgdata;
		argv[4] = (char *)a3;
		argv[5] = NULL;
	}
	return crash_st_cmd(s, argv, timeout_s);
}

static int control(struct st_run *s, const char *what, char *why, size_t len)
{
	struct dut_error err = { "" };
	int r = run_dutfs_control(s->x->mnt, what, &err);

	if (r < 0)
		snprintf(why, len, "%s", err.msg);
	return r;
}

static int mount_state(struct st_run *s, const char *rules)
{
	char *argv[] = { s->x->dutfs, s->x->backing, s->x->mnt, "--view", "syscall", "--shape", (char *)rules,
			 "--relmap", s->x->relmap, NULL };
	int r = crash_st_cmd(s, argv, 60);

	if (r == 0)
		s->x->mounted = true;
	return r;
}

static void umount_state(struct st_run *s)
{
	struct dut_error err = { "" };

	if (s->x->mounted && run_umount(s->x->mnt, 30000 * CRASH_MS, &err) == 0)
		s->x->mounted = false;
}

/* Kill the server we started (the crashed mount may not even let pg_ctl read its pid file). */
static void kill_server(struct st_run *s)
{
	if (s->postmaster <= 1)
		s->postmaster = crash_find_postmaster(s->x->pgdata);
	if (s->postmaster > 1) {
		crash_kill_server(s->postmaster, 10000);
		s->postmaster = 0;
	}
	s->have_socket = false;
}

/*
 * pgload cluster start: its exit status or -errno.  Its output goes to the
 * state's log, and the conninfo it prints is kept (s->host, s->port) for
 * the checks, which so need no pgload cluster status.
 */
static int cluster_start(struct st_run *s)
{
	char out[PATH_MAX + 64], ci[600] = "", *buf = NULL;
	char *argv[] = { s->x->pgload, "cluster", "start", "--pgdata", s->x->pgdata, NULL };
	struct run_cmd_opts o = { .log_path = out, .timeout_ns = 600000 * CRASH_MS, .grace_ns = 2000 * CRASH_MS,
				  .no_header = true };
	size_t len = 0;
	int st = 0, r;

	s->have_socket = false;
	snprintf(out, sizeof(out), "%s/start.txt", s->dir);
	unlink(out);
	r = run_command(argv, &o, &st);
	crash_append_file(s->log, "# pgload cluster start\n");
	if (dut_read_small_file(out, 1u << 20, &buf, &len) == 0)
		crash_append_file(s->log, buf);
	free(buf);
	if (r < 0)
		return r;
	if (st == 0 && crash_read_field(out, "conninfo", ci, sizeof(ci)) == 0)
		s->have_socket = crash_conninfo_socket(ci, s->host, sizeof(s->host), s->port, sizeof(s->port)) == 0;
	return st;
}

static int start_server(struct st_run *s, struct crash_outcome *o, bool after_crash)
{
	int r = cluster_start(s);
	pid_t pid;

	if (r != 0 && after_crash) {
		/* the lock file lost its content at the crash: pg_ctl refuses an empty one;
		 * an administrator would remove it, and so do we, to see the data */
		char pidfile[PATH_MAX + 64];

		/* through the mount: dutfs caches entries, a change behind its back is not seen */
		snprintf(pidfile, sizeof(pidfile), "%s/postmaster.pid", s->x->pgdata);
		if (crash_file_size(pidfile) == 0 && access(pidfile, F_OK) == 0) {
			o->pid_file_empty = true;
			unlink(pidfile);
			r = cluster_start(s);
		}
	}
	if (r != 0)
		return r < 0 ? r : -EIO;
	if (crash_read_postmaster_pid(s->x->pgdata, &pid) == 0)
		s->postmaster = pid;
	return 0;
}

/* The last FATAL/PANIC line of the server log since the state began, for a failed start. */
static void start_failure(struct st_run *s, struct crash_outcome *o)
{
	char *buf = NULL, *best = NULL;
	size_t len = 0;

	crash_msg(o->start_failure, sizeof(o->start_failure), "pgload cluster start failed (see %s)", s->log);
	if (crash_read_server_file(s->server_log, 64u << 20, &buf, &len) < 0)
		return;
	for (char *p = buf + (s->log_offset < len ? s->log_offset : len); *p;) {
		size_t n = strcspn(p, "\n");
		char save = p[n];

		p[n] = 0;
		if (strstr(p, "PANIC:") || strstr(p, "FATAL:"))
			best = p;
		p[n] = save;
		p += n + (save ? 1 : 0);
	}
	if (best)
		crash_msg(o->start_failure, sizeof(o->start_failure), "%.*s", (int)strcspn(best, "\n"), best);
	free(buf);
}


static int setup(struct st_run *s, const struct crash_state *st, struct crash_outcome *o)
{
	char *rules_path = s->rules, rules[8192], conf[PATH_MAX + 64];
	/* the init point loads into the cluster as it was before the template's load */
	char *cp[] = { "/bin/cp", "-a", "--reflink=auto",
		       st->point == CRASH_AT_INIT ? s->x->empty_dir : s->x->template_dir, s->x->backing, NULL };
	uint64_t t;
	int r;

	if (run_mkdir_p(s->dir, 0700) < 0 || mkdir(s->ledger, 0700) < 0) {
		crash_msg(o->error, sizeof(o->error), "cannot create %s: %s", s->ledger, strerror(errno));
		return -EIO;
	}
	t = crash_now_ms();
	/* a tree left that cannot be removed would be copied into, or mounted */
	if ((r = run_rm_rf(s->x->backing)) < 0) {
		crash_msg(o->error, sizeof(o->error), "cannot remove %s: %s", s->x->backing, strerror(-r));
		return -EIO;
	}
	if ((r = crash_st_cmd(s, cp, 600)) != 0) {
		crash_msg(o->error, sizeof(o->error), "copying the template cluster failed (see %s)", s->log);
		return -EIO;
	}
	snprintf(conf, sizeof(conf), "%s/pgdata/postgresql.auto.conf", s->x->backing);
	if (st->control && crash_append_file(conf, crash_control_settings(st->control)) < 0) {
		crash_msg(o->error, sizeof(o->error), "cannot append the control's settings to %s", conf);
		return -EIO;
	}
	o->phase_ms[CRASH_PH_COPY] = crash_now_ms() - t;
	t = crash_now_ms();
	snprintf(s->rules, sizeof(s->rules), "%s/dutfs-shape.ini", s->dir);
	snprintf(s->state_rules, sizeof(s->state_rules), "%s/rules.ini", s->dir);
	if (crash_state_rules(st, rules, sizeof(rules)) < 0 ||
	    dut_write_file_nofollow(s->state_rules, rules, strlen(rules), 0600, (uid_t)-1, (gid_t)-1) < 0 ||
	    dut_write_file_nofollow(rules_path, rules, strlen(rules), 0600, (uid_t)-1, (gid_t)-1) < 0) {
		crash_msg(o->error, sizeof(o->error), "cannot write %s", rules_path);
		return -EIO;
	}
	if (mount_state(s, rules_path) != 0) {
		crash_msg(o->error, sizeof(o->error), "dutfs did not mount (see %s)", s->log);
		return -EIO;
	}
	o->phase_ms[CRASH_PH_MOUNT] = crash_now_ms() - t;
	s->log_offset = crash_file_size(s->server_log);
	t = crash_now_ms();
	if (start_server(s, o, false) < 0) {
		char why[300];

		/* a crash point reached while the server started (pg_control, WAL): a state too */
		if (control(s, "crash", why, sizeof(why)) < 0 && strstr(why, "already")) {
			o->fault_fired = true;
			o->crashed_at_start = true;
			o->phase_ms[CRASH_PH_START] = crash_now_ms() - t;
			return 0;
		}
		crash_msg(o->error, sizeof(o->error), "PostgreSQL did not start before the crash (see %s)", s->log);
		return -EIO;
	}
	o->phase_ms[CRASH_PH_START] = crash_now_ms() - t;
	return 0;
}

static const char after_crash_rules[] =
	"; dutlab crash: after the state's crash, recovery runs on a plain device\n"
	"[model passthrough]\ntype = fixed\nread_latency = 0\nwrite_latency = 0\n\n"
	"[rule all]\nmodel = passthrough\n";

/* The workload, with the crash: the fault's, or ours at st->at_ms. */
static int workload_and_crash(struct st_run *s, const struct crash_state *st, struct crash_outcome *o)
{
	char secs[32], seed[32], ckpt[32], clients[16], why[300], acks[PATH_MAX + 64];
	char *argv[] = { s->x->pgload, "ledger", "run", "--pgdata", s->x->pgdata, "--ledger", s->ledger,
			 "-c", clients, "-T", secs, "--seed", seed, "--checkpoint-at", ckpt, NULL };
	/* the init point: pgbench's load as one transaction (one job), then a CHECKPOINT (load_stage_end) */
	char *load[] = { s->x->pgload, "init", "--pgdata", s->x->pgdata, "-s", "1", "--jobs", "1",
			 "--ack-log", acks, "-q", NULL };
	bool is_load = st->point == CRASH_AT_INIT, load_ended = false;
	uint64_t t0 = crash_now_ms(), t = t0;
	bool crashed = false, ckpt_seen = false;
	uint64_t ckpt_ms = 0;
	pid_t pid;
	int status = 0, r;

	snprintf(secs, sizeof(secs), "%.3f", s->x->c->workload_s + 30);   /* the crash ends it */
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)(st->seed & 0xffffffffffffull));
	snprintf(ckpt, sizeof(ckpt), "%llu", (unsigned long long)st->checkpoint_at_ms);
	snprintf(clients, sizeof(clients), "%u", s->x->c->clients);
	if (o->crashed_at_start)
		goto out_crashed;
	snprintf(acks, sizeof(acks), "%s/ack.log", s->dir);
	if ((r = crash_spawn(is_load ? load : argv, s->log, &pid)) < 0) {
		crash_msg(o->error, sizeof(o->error), "cannot start pgload %s: %s", is_load ? "init" : "ledger run",
		    strerror(-r));
		return r;
	}
	for (;;) {
		uint64_t el = crash_now_ms() - t0;

		if (crash_poll(pid, &status) != 0) {
			/* the load acknowledged all it did: its final CHECKPOINT, which the crash may land in */
			if (is_load && !load_ended && status == 0 && !crashed) {
				char out[PATH_MAX + 64];

				load_ended = true;
				snprintf(out, sizeof(out), "%s/checkpoint.txt", s->dir);
				if (crash_st_psql(s, "CHECKPOINT", out, 120) == 0)
					crash_append_file(acks, "checkpoint\n");
			}
			break;
		}
		/* the checkpoint point: the state's CHECKPOINT has started writing (its log line) */
		if (!crashed && st->point == CRASH_AT_CHECKPOINT && !ckpt_seen &&
		    crash_file_mentions(s->server_log, "checkpoint starting: immediate", s->log_offset)) {
			ckpt_seen = true;
			ckpt_ms = crash_now_ms();
		}
		if (!crashed && ckpt_seen && crash_now_ms() - ckpt_ms >= st->ckpt_delay_ms) {
			r = control(s, "crash", why, sizeof(why));
			o->checkpoint_fired = r == 0;
			crashed = true;
			t = crash_now_ms();
		}
		if (!crashed && el >= st->at_ms) {
			/* the time point, or the fallback when the Nth request never came */
			r = control(s, "crash", why, sizeof(why));
			o->fault_fired = r == -EALREADY || (r < 0 && strstr(why, "already"));
			crashed = true;
			t = crash_now_ms();
		}
		if (crashed && crash_now_ms() - t > 30000) {
			crash_stop_group(pid, 2000);
			break;
		}
		crash_sleep_ms(10);
	}
	o->phase_ms[CRASH_PH_WORKLOAD] = crash_now_ms() - t0;
	t = crash_now_ms();   /* the crash phase: what follows the clients' end */
	if (!crashed) {
		/* the clients ended before the crash time: the fault crashed the device */
		r = control(s, "crash", why, sizeof(why));
		o->fault_fired = r < 0;
	}
out_crashed:
	kill_server(s);
	if (control(s, "recover", why, sizeof(why)) < 0) {
		crash_msg(o->error, sizeof(o->error), "recover failed: %s", why);
		o->phase_ms[CRASH_PH_CRASH] = crash_now_ms() - t;
		return -EIO;
	}
	/*
	 * One crash per state: the restart runs without faults.  A crash fault
	 * whose Nth request had not come yet (the timer crashed first) would
	 * otherwise fire during recovery.  reload starts from fresh rules: no
	 * counters, an empty journal.
	 */
	if (dut_write_file_nofollow(s->rules, after_crash_rules, strlen(after_crash_rules), 0600, (uid_t)-1, (gid_t)-1) < 0 ||
	    control(s, "reload", why, sizeof(why)) < 0) {
		crash_msg(o->error, sizeof(o->error), "reload of the fault-free rules failed: %s", why);
		return -EIO;
	}
	o->phase_ms[CRASH_PH_CRASH] = crash_now_ms() - t;
	o->panic_seen = crash_file_mentions(s->server_log, "PANIC:", s->log_offset);
	{
		char *buf = NULL;
		size_t len = 0;

		if (crash_read_server_file(s->server_log, 64u << 20, &buf, &len) == 0 && s->log_offset < len)
			o->in_checkpoint = crash_log_in_checkpoint(buf + s->log_offset, len - s->log_offset);
		free(buf);
	}
	return 0;
}

void crash_run_state(struct crash_ctx *x, const struct crash_state *st, struct crash_outcome *o)
{
	struct st_run s = { .x = x };
	uint64_t t;

	memset(o, 0, sizeof(*o));
	o->st = *st;
	o->amcheck_rc = -1;
	o->balances_ok = true;
	snprintf(s.dir, sizeof(s.dir), "%s/state-%u", x->work, st->index);
	snprintf(s.log, sizeof(s.log), "%s/log.txt", s.dir);
	snprintf(s.ledger, sizeof(s.ledger), "%s/ledger", s.dir);
	snprintf(s.server_log, sizeof(s.server_log), "%s/pgdata/pgload_server.log", x->backing);
	run_rm_rf(s.dir);
	if (setup(&s, st, o) < 0 || workload_and_crash(&s, st, o) < 0) {
		o->harness_error = true;
		goto out_teardown;
	}
	t = crash_now_ms();
	o->started = start_server(&s, o, true) == 0;
	o->phase_ms[CRASH_PH_RECOVERY] = crash_now_ms() - t;
	if (!o->started) {
		start_failure(&s, o);
		goto out_teardown;
	}
	crash_st_checks(&s, st, o);
out_teardown:
	t = crash_now_ms();
	if (x->mounted) {
		char why[300];

		/* the copy is thrown away: no need for a shutdown */
		kill_server(&s);
		control(&s, "recover", why, sizeof(why));   /* harmless when running */
	}
	umount_state(&s);
	if (!x->mounted && !x->keep)
		run_rm_rf(x->backing);
	o->phase_ms[CRASH_PH_TEARDOWN] = crash_now_ms() - t;
	crash_outcome_judge(o);
	crash_reap_orphans();
	if (!x->keep && !o->damaged && !o->harness_error)
		run_rm_rf(s.dir);
}

void crash_teardown(struct crash_ctx *x)
{
	struct dut_error err = { "" };

	if (x->mounted && run_umount(x->mnt, 30000 * CRASH_MS, &err) == 0)
		x->mounted = false;
}

/* ---- the template: made once, copied for every state ---- */

int crash_make_template(struct crash_ctx *x, const char *const *sets, unsigned nsets, char *why, size_t why_len)
{
	struct st_run s = { .x = x };
	char *init[14 + 2 * 16];
	char *mnt[] = { x->dutfs, x->template_dir, x->mnt, "--view", "syscall", NULL };
	char *load[] = { x->pgload, "init", "--pgdata", x->pgdata, "-s", "1", "-q", NULL };
	char *ledger[] = { x->pgload, "ledger", "init", "--pgdata", x->pgdata, "--relmap", x->relmap, "-q", NULL };
	struct crash_outcome o;
	unsigned n = 0;
	int r = -EIO;

	snprintf(s.dir, sizeof(s.dir), "%s/template-logs", x->work);
	snprintf(s.log, sizeof(s.log), "%s/log.txt", s.dir);
	/* what is left of an earlier run in a --workdir: it must go, or be refused */
	if ((r = run_rm_rf(s.dir)) < 0 || (r = run_rm_rf(x->template_dir)) < 0) {
		crash_msg(why, why_len, "cannot remove what an earlier run left in %s or %s: %s", s.dir,
			  x->template_dir, strerror(-r));
		return -EIO;
	}
	r = -EIO;   /* until the template is proven */
	if (run_mkdir_p(s.dir, 0700) < 0 || run_mkdir_p(x->template_dir, 0755) < 0 || run_mkdir_p(x->mnt, 0755) < 0) {
		crash_msg(why, why_len, "cannot create the directories in %s: %s", x->work, strerror(errno));
		return -EIO;
	}
	if (crash_st_cmd(&s, mnt, 60) != 0) {
		crash_msg(why, why_len, "dutfs did not mount %s (see %s)", x->mnt, s.log);
		return -EIO;
	}
	x->mounted = true;
	init[n++] = x->pgload;
	init[n++] = "cluster";
	init[n++] = "init";
	init[n++] = "--pgdata";
	init[n++] = x->pgdata;
	init[n++] = "--bindir";   /* start and stop use the bindir init recorded */
	init[n++] = x->bindir;
	/*
	 * The report tells crashes during a checkpoint from the log
	 * (crash_log_in_checkpoint); before the user's settings, which win.
	 */
	init[n++] = "--set";
	init[n++] = "log_checkpoints=on";
	for (unsigned i = 0; i < nsets && i < 16; i++) {
		init[n++] = "--set";
		init[n++] = (char *)sets[i];
	}
	/*
	 * At the start of crash recovery PostgreSQL fsyncs every file of the
	 * cluster (3 s per state through dutfs here).  In dutfs's model what
	 * survived a crash is the new synced state, so those fsyncs cannot
	 * change the outcome; syncfs (a no-op on FUSE) saves the time.  A
	 * --set recovery_init_sync_method=fsync given by the user wins.
	 */
	{
		bool user_set = false;

		for (unsigned i = 0; i < nsets; i++)
			user_set |= !strncmp(sets[i], "recovery_init_sync_method=", 26);
		if (!user_set) {
			init[n++] = "--set";
			init[n++] = "recovery_init_sync_method=syncfs";
		}
	}
	init[n] = NULL;
	if (crash_st_cmd(&s, init, 300) != 0) {
		crash_msg(why, why_len, "pgload cluster init failed (see %s)", s.log);
		goto out_umount;
	}
	if (crash_read_postmaster_pid(x->pgdata, &s.postmaster) < 0)
		s.postmaster = 0;
	/*
	 * The init point's states load into the cluster as it is now: amcheck
	 * installed, stopped cleanly, copied aside (its pgload_state.json names
	 * the same mount, which every state uses).
	 */
	if (x->want_empty) {
		char *cp[] = { "/bin/cp", "-a", "--reflink=auto", x->template_dir, x->empty_dir, NULL };

		memset(&o, 0, sizeof(o));
		crash_st_amcheck(&s, &o, true);
		if (run_rm_rf(x->empty_dir) < 0) {
			crash_msg(why, why_len, "cannot remove what an earlier run left in %s", x->empty_dir);
			goto out_stop;
		}
		if (o.amcheck_rc != 0 || pgl(&s, "cluster", "stop", NULL, 120) != 0 || crash_st_cmd(&s, cp, 600) != 0 ||
		    pgl(&s, "cluster", "start", NULL, 120) != 0 ||
		    crash_read_postmaster_pid(x->pgdata, &s.postmaster) < 0) {
			crash_msg(why, why_len, "the empty template (amcheck installed, stopped, copied) failed (see %s)", s.log);
			goto out_stop;
		}
	}
	if (crash_st_cmd(&s, load, 600) != 0 || crash_st_cmd(&s, ledger, 300) != 0) {
		crash_msg(why, why_len, "pgload init -s 1 or pgload ledger init failed (see %s)", s.log);
		goto out_stop;
	}
	/* amcheck installed once, and the template proven clean */
	memset(&o, 0, sizeof(o));
	crash_st_amcheck(&s, &o, true);
	if (o.amcheck_rc != 0 || o.amcheck_lines) {
		crash_msg(why, why_len, "pg_amcheck on the fresh template: exit %d: %s", o.amcheck_rc, o.amcheck_first);
		goto out_stop;
	}
	r = 0;
out_stop:
	if (pgl(&s, "cluster", "stop", NULL, 120) != 0) {
		kill_server(&s);
		if (r == 0)
			crash_msg(why, why_len, "the clean stop of the template failed (see %s)", s.log);
		r = -EIO;
	}
out_umount:
	umount_state(&s);
	if (x->mounted) {
		crash_msg(why, why_len, "%s stayed mounted", x->mnt);
		r = -EBUSY;
	}
	if (r == 0)
		run_rm_rf(s.dir);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgload cluster standby: a hot standby of a running pgload cluster, made by
 * pg_basebackup (as postgres), streaming through a physical replication slot
 * over the primary's private socket directory.
 *
 * Invariant kept for destroy: from the end of the base backup on, the
 * standby's state file names its slot, and it says sync_set before
 * synchronous_standby_names is set, so `cluster destroy --pgdata STANDBY` can
 * always undo both, even after a crash of pgload or of the standby.  During
 * the base backup pgload itself drops the slot if the copy fails or is
 * interrupted (SIGINT/SIGTERM reach pg_basebackup; pgload waits it out).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/fs_safe.h"
#include "lib/pgbin.h"
#include "pgload/cluster_check.h"
#include "pgload/pgconn.h"
#include "pgload/standby.h"

#define POLL_MS 200

volatile sig_atomic_t pgl_standby_interrupted;

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Admin connection to the primary.  Bounded: a primary that does not answer
 * must not hang us; synchronous_commit=local so that nothing we do waits for
 * a synchronous standby that is gone.
 */
static int connect_primary(const struct pgl_cluster *p, PGconn **ret, struct dut_error *err)
{
	char ci[PATH_MAX + 256];

	pgl_cluster_conninfo(p, ci, sizeof(ci));
	strncat(ci, " connect_timeout=10 options='-c synchronous_commit=local -c statement_timeout=15000'",
		sizeof(ci) - strlen(ci) - 1);
	return pgl_pq_connect(ci, ret, err);
}

static int query_int(PGconn *c, const char *sql, long *ret, struct dut_error *err)
{
	char buf[64];
	int r = pgl_pq_value(c, sql, buf, sizeof(buf), err);

	if (r == 0)
		*ret = strtol(buf, NULL, 10);
	return r;
}

/* A literal for SQL text; names here are [a-z0-9_] but quote them anyway. */
static void sql_literal(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	if (len < 3)
		return;
	buf[n++] = '\'';
	for (; *s && n + 3 < len; s++) {
		if (*s == '\'')
			buf[n++] = '\'';
		buf[n++] = *s;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
}

/* --- checks on the primary ---------------------------------------------- */

static int check_primary_settings(PGconn *c, bool sync, const char *ssn_ours,
				  struct dut_error *err)
{
	char wal_level[32], ssn[256];
	long senders_free = 0, slots_free = 0;
	int r;

	if ((r = pgl_pq_value(c, "SHOW wal_level", wal_level, sizeof(wal_level), err)) < 0)
		return r;
	if (strcmp(wal_level, "minimal") == 0) {
		dut_error_set(err, "the primary runs with wal_level = minimal, which cannot feed a "
			      "standby (make it with --set wal_level=replica, or ALTER SYSTEM SET "
			      "wal_level = replica and restart it)");
		return -EINVAL;
	}
	/* pg_basebackup -X stream needs two WAL senders at once. */
	if ((r = query_int(c, "SELECT current_setting('max_wal_senders')::int - "
			   "(SELECT count(*) FROM pg_stat_replication)", &senders_free, err)) < 0 ||
	    (r = query_int(c, "SELECT current_setting('max_replication_slots')::int - "
			   "(SELECT count(*) FROM pg_replication_slots)", &slots_free, err)) < 0)
		return r;
	if (senders_free < 2 || slots_free < 1) {
		dut_error_set(err, "the primary has %ld free WAL sender(s) and %ld free replication "
			      "slot(s); a standby needs 2 and 1 (raise max_wal_senders / "
			      "max_replication_slots with --set at init; they need a restart)",
			      senders_free, slots_free);
		return -EBUSY;
	}
	if (!sync)
		return 0;
	if ((r = pgl_pq_value(c, "SHOW synchronous_standby_names", ssn, sizeof(ssn), err)) < 0)
		return r;
	if (ssn[0] && strcmp(ssn, ssn_ours) != 0) {
		dut_error_set(err, "the primary already has synchronous_standby_names = '%s' "
			      "(another synchronous standby); destroy that standby first", ssn);
		return -EBUSY;
	}
	return 0;
}

/*
 * The standby connects over the primary's socket as OS user postgres:
 * pg_hba.conf needs a "local replication" line ("all" does not cover
 * replication).  cluster init writes one; add it (peer, for OS user
 * postgres) when someone removed it, then reload and wait until a new
 * session sees the new configuration.  Only PGDATA/pg_hba.conf is edited,
 * through the directory fd (no links followed).
 */
static int ensure_hba_replication(PGconn *c, const struct pgl_cluster *p, struct dut_error *err)
{
	char hba[PATH_MAX], want[PATH_MAX + 16], before[64], now[64];
	_cleanup_close_ int pgfd = -1;
	long n = 0;
	int r;

	if ((r = query_int(c, "SELECT count(*) FROM pg_hba_file_rules WHERE type = 'local' AND "
			   "error IS NULL AND 'replication' = ANY(database)", &n, err)) < 0)
		return r;
	if (n > 0)
		return 0;
	if ((r = pgl_pq_value(c, "SHOW hba_file", hba, sizeof(hba), err)) < 0 ||
	    (r = pgl_pq_value(c, "SELECT pg_conf_load_time()", before, sizeof(before), err)) < 0)
		return r;
	snprintf(want, sizeof(want), "%s/pg_hba.conf", p->pgdata);
	if (strcmp(hba, want) != 0) {
		dut_error_set(err, "the primary has no \"local replication\" line in its hba_file %s, and "
			      "pgload edits only %s: add \"local replication postgres peer\" yourself", hba, want);
		return -EINVAL;
	}
	if ((pgfd = pgl_sys_open_dir(p->pgdata)) < 0 ||
	    (r = pgl_sys_append_at(pgfd, "pg_hba.conf", "\n# added by pgload cluster standby\n"
				   "local replication postgres peer\n", true)) < 0) {
		r = pgfd < 0 ? pgfd : r;
		dut_error_set(err, "cannot add a replication line to %s: %s", hba, dut_fs_safe_strerror(r));
		return r;
	}
	if ((r = pgl_pq_exec(c, "SELECT pg_reload_conf()", err)) < 0)
		return r;
	for (unsigned i = 0; i < 5000 / POLL_MS; i++) {
		PGconn *fresh;

		sleep_ms(POLL_MS);
		if ((r = connect_primary(p, &fresh, err)) < 0)
			return r;
		r = pgl_pq_value(fresh, "SELECT pg_conf_load_time()", now, sizeof(now), err);
		PQfinish(fresh);
		if (r < 0)
			return r;
		if (strcmp(now, before) != 0)
			return 0;
	}
	dut_error_set(err, "the primary did not reload %s within 5 s", hba);
	return -ETIMEDOUT;
}

/* A name (and slot) no other standby of this primary uses. */
static int unique_name(PGconn *c, const char *base, char *name, size_t nlen, char *slot,
		       size_t slen, struct dut_error *err)
{
	for (unsigned k = 1; k <= 9; k++) {
		char sql[512], lit_slot[160], lit_name[160];
		long used = 0;
		int r;

		if (k == 1)
			snprintf(name, nlen, "%s", base);
		else
			snprintf(name, nlen, "%.40s_%u", base, k);
		snprintf(slot, slen, "pgload_%.48s", name);
		sql_literal(slot, lit_slot, sizeof(lit_slot));
		sql_literal(name, lit_name, sizeof(lit_name));
		snprintf(sql, sizeof(sql), "SELECT (SELECT count(*) FROM pg_replication_slots WHERE "
			 "slot_name = %s) + (SELECT count(*) FROM pg_stat_replication WHERE "
			 "application_name = %s)", lit_slot, lit_name);
		if ((r = query_int(c, sql, &used, err)) < 0)
			return r;
		if (used == 0)
			return 0;
	}
	dut_error_set(err, "standby name %s and 8 variants are taken on the primary "
		      "(give the standby directory another name)", base);
	return -EEXIST;
}

/* --- making the data directory ------------------------------------------ */

static int drop_slot(PGconn *c, const char *slot, struct dut_error *err);
/*
 * standby.signal, primary_conninfo with our application_name, slot, --set.
 * The directory is postgres's (and pg_basebackup ran as postgres): every file
 * is written through the directory fd with dut_write_file_at, so a link
 * planted at standby.signal or postgresql.auto.conf is replaced, never
 * followed, and the new file belongs to postgres.
 */
static int configure_standby(const struct pgl_standby_opts *o, const struct pgl_cluster *p,
			     const struct pgl_cluster *sc, struct dut_error *err)
{
	char ci[PATH_MAX + 128], q[PATH_MAX + 160], text[2 * PATH_MAX + 512];
	_cleanup_close_ int dfd = pgl_sys_open_dir(sc->pgdata);
	const char *what;
	int r;

	if (dfd < 0) {
		dut_error_set(err, "%s: %s", sc->pgdata, dut_fs_safe_strerror(dfd));
		return dfd;
	}
	/* The base backup copied the primary's own pgload files: they are not ours. */
	unlinkat(dfd, PGL_STATE_FILE, 0);
	unlinkat(dfd, PGL_SERVER_LOG, 0);
	what = "standby.signal";
	if ((r = pgl_sys_write_at(dfd, what, "", 0, 0600)) < 0)
		goto fail;
	snprintf(ci, sizeof(ci), "host=%s port=%d user=postgres application_name=%s",
		 p->socket_dir, p->port, sc->sb.app_name);
	sql_literal(ci, q, sizeof(q));
	snprintf(text, sizeof(text), "\n# added by pgload cluster standby\nprimary_conninfo = %s\n"
		 "primary_slot_name = '%s'\n", q, sc->sb.slot);
	what = "postgresql.auto.conf";
	if ((r = pgl_sys_append_at(dfd, what, text, false)) < 0)
		goto fail;
	if (o->nsets > 0) {
		_cleanup_free_ char *sets = pgl_settings_text(o->sets, o->nsets,
							      "\n# added by pgload cluster standby --set\n");

		what = "postgresql.conf";
		if (!sets)
			return -ENOMEM;
		if ((r = pgl_sys_append_at(dfd, what, sets, true)) < 0)
			goto fail;
	}
	return 0;
fail:
	dut_error_set(err, "cannot write %s/%s: %s", sc->pgdata, what, dut_fs_safe_strerror(r));
	return r;
}

static int base_backup(const struct pgl_cluster *p, const struct pgl_cluster *sc,
		       struct dut_error *err)
{
	char prog[PATH_MAX + 32], ci[PATH_MAX + 64], slot[64];
	char *argv[] = { prog, "-D", (char *)sc->pgdata, "-d", ci, "-X", "stream", "-C", "-S",
			 slot, "-c", "fast", "-w", NULL };

	snprintf(prog, sizeof(prog), "%s/pg_basebackup", sc->bindir);
	snprintf(ci, sizeof(ci), "host=%s port=%d user=postgres application_name=pgload_basebackup",
		 p->socket_dir, p->port);
	snprintf(slot, sizeof(slot), "%s", sc->sb.slot);
	return pgl_sys_run(argv, "pg_basebackup", err);
}

/* Make pgdata (absent or empty) owned by postgres; *made says we created it. */
static int prepare_dir(const char *pgdata, bool *made, struct dut_error *err)
{
	int r = pgl_sys_dir_empty(pgdata);

	*made = false;
	if (r == 0) {
		dut_error_set(err, "%s is not empty: refusing to put a standby there "
			      "(give a new or empty directory)", pgdata);
		return -ENOTEMPTY;
	}
	if (r == -ENOENT) {
		if (mkdir(pgdata, 0700) < 0) {
			dut_error_set(err, "cannot create %s: %s", pgdata, strerror(errno));
			return -errno;
		}
		*made = true;
	} else if (r < 0) {
		dut_error_set(err, "%s: %s", pgdata, dut_fs_safe_strerror(r));
		return r;
	}
	{
		_cleanup_close_ int fd = pgl_sys_open_dir(pgdata);

		if (fd < 0 || fchmod(fd, 0700) < 0 || (r = pgl_sys_chown_postgres_fd(fd)) < 0) {
			r = fd < 0 ? fd : r < 0 ? r : -errno;
			dut_error_set(err, "cannot chown %s to postgres: %s", pgdata, dut_fs_safe_strerror(r));
			return r;
		}
	}
	if (pgl_sys_postgres_can_write(pgdata) < 0) {
		dut_error_set(err, "user postgres cannot write %s: a parent directory is probably "
			      "not searchable (chmod o+x the parents)", pgdata);
		return -EACCES;
	}
	return 0;
}

/* Leave pgdata as it was before: absent (we made it) or empty. */
static void empty_dir(const char *pgdata, bool made)
{
	_cleanup_close_ int fd = -1;

	if (made) {
		pgl_sys_remove_tree(pgdata);
		return;
	}
	if ((fd = pgl_sys_open_dir(pgdata)) >= 0)
		pgl_sys_empty_dir_at(fd, NULL);
}

/* --- waiting for pg_stat_replication ------------------------------------ */

/* "streaming sync" or "" when the primary has no WAL sender for the name. */
static int replication_row(PGconn *c, const char *app_name, char *buf, size_t len,
			   struct dut_error *err)
{
	char sql[512], lit[160];

	sql_literal(app_name, lit, sizeof(lit));
	snprintf(sql, sizeof(sql), "SELECT coalesce((SELECT state || ' ' || sync_state FROM "
		 "pg_stat_replication WHERE application_name = %s LIMIT 1), '')", lit);
	return pgl_pq_value(c, sql, buf, len, err);
}

static void fail_with_log(const struct pgl_cluster *sc, const char *what, struct dut_error *err)
{
	char logf[PATH_MAX + 32], tail[300];

	snprintf(logf, sizeof(logf), "%s/%s", sc->pgdata, PGL_SERVER_LOG);
	pgl_sys_file_tail(logf, 6, tail, sizeof(tail));
	dut_error_set(err, "%s; last lines of %s:\n%s", what, logf, tail);
}

/* Until the primary shows the standby in `want` ("streaming" or "streaming sync"). */
static int wait_replication(PGconn *c, const struct pgl_cluster *sc, const char *want,
			    struct dut_error *err)
{
	char row[64] = "", what[200];
	unsigned polls = PGL_STANDBY_WAIT_S * 1000 / POLL_MS;
	int r;

	for (unsigned i = 0; i < polls; i++) {
		if (pgl_standby_interrupted) {
			dut_error_set(err, "interrupted while waiting for standby %s to be \"%s\"",
				      sc->sb.app_name, want);
			return -EINTR;
		}
		if ((r = replication_row(c, sc->sb.app_name, row, sizeof(row), err)) < 0)
			return r;
		if (strncmp(row, want, strlen(want)) == 0)
			return 0;
		if (!pgl_cluster_running(sc, NULL)) {
			fail_with_log(sc, "the standby server stopped", err);
			return -ESRCH;
		}
		sleep_ms(POLL_MS);
	}
	snprintf(what, sizeof(what), "the primary did not show standby %s as \"%s\" within %d s "
		 "(it shows: %s)", sc->sb.app_name, want, PGL_STANDBY_WAIT_S,
		 row[0] ? row : "no WAL sender for it");
	fail_with_log(sc, what, err);
	return -ETIMEDOUT;
}

static int set_ssn(PGconn *c, const char *value, struct dut_error *err)
{
	char sql[320], lit[200];
	int r;

	if (value) {
		sql_literal(value, lit, sizeof(lit));
		snprintf(sql, sizeof(sql), "ALTER SYSTEM SET synchronous_standby_names = %s", lit);
	} else {
		snprintf(sql, sizeof(sql), "ALTER SYSTEM RESET synchronous_standby_names");
	}
	if ((r = pgl_pq_exec(c, sql, err)) < 0)
		return r;
	return pgl_pq_exec(c, "SELECT pg_reload_conf()", err);
}

static int make_sync(PGconn *c, struct pgl_cluster *sc, struct dut_error *err)
{
	char ssn[128];
	int r;

	pgl_standby_ssn_value(sc->sb.app_name, ssn, sizeof(ssn));
	sc->sb.sync_set = true; /* recorded before it is true: destroy must undo it */
	if ((r = pgl_cluster_save(sc)) < 0) {
		dut_error_set(err, "cannot write the standby's state file: %s", strerror(-r));
		return r;
	}
	if ((r = set_ssn(c, ssn, err)) < 0)
		return r;
	if ((r = wait_replication(c, sc, "streaming sync", err)) < 0) {
		struct dut_error e2;

		/* Do not leave every commit on the primary waiting for it. */
		if (set_ssn(c, NULL, &e2) == 0) {
			sc->sb.sync_set = false;
			pgl_cluster_save(sc);
		}
		return r;
	}
	return 0;
}

/* --- create ------------------------------------------------------------- */

static int load_primary(const char *pgdata, struct pgl_cluster *p, struct dut_error *err)
{
	char why[sizeof(err->msg)];
	int r;

	if ((r = pgl_cluster_load(pgdata, p, err)) < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		dut_error_set(err, "--primary %s: %s (give the data directory of a running cluster "
			      "made by pgload cluster init)", pgdata, why);
		return r;
	}
	if (p->sb.is_standby) {
		dut_error_set(err, "--primary %s is itself a standby: cascading standbys are not "
			      "supported (give its primary %s)", pgdata, p->sb.primary_pgdata);
		return -EINVAL;
	}
	if (!pgl_cluster_running(p, NULL)) {
		dut_error_set(err, "--primary %s is not running (start it with pgload cluster start "
			      "--pgdata %s)", pgdata, pgdata);
		return -ESRCH;
	}
	return 0;
}

/*
 * Add how to remove the kept standby.  err->msg is 512 bytes: when it does
 * not all fit, the middle goes (the start says what failed, the end holds
 * the last log lines, which say why).
 */
static void append_keep_hint(struct dut_error *err, const char *pgdata)
{
	char why[sizeof(err->msg)], hint[PATH_MAX + 96];
	size_t wlen, room;

	snprintf(why, sizeof(why), "%s", err->msg);
	snprintf(hint, sizeof(hint), "\n(kept for inspection: pgload cluster destroy --pgdata %s)", pgdata);
	wlen = strlen(why);
	room = strlen(hint) < sizeof(err->msg) - 120 ? sizeof(err->msg) - 1 - strlen(hint) : 120;
	if (wlen <= room)
		dut_error_set(err, "%s%s", why, hint);
	else
		dut_error_set(err, "%.60s ... %s%s", why, why + wlen - (room - 65), hint);
}

int pgl_standby_create(const struct pgl_standby_opts *o, struct pgl_cluster *ret,
		       struct dut_error *err)
{
	struct pgl_cluster p, sc;
	char base[64], ssn[128];
	PGconn *c = NULL;
	bool made = false;
	int r;

	if ((r = load_primary(o->primary_pgdata, &p, err)) < 0)
		return r;
	memset(&sc, 0, sizeof(sc));
	if (pgl_sys_absolute_path(o->pgdata, sc.pgdata, sizeof(sc.pgdata)) < 0 ||
	    snprintf(sc.bindir, sizeof(sc.bindir), "%s", o->bindir ? o->bindir : p.bindir) >= (int)sizeof(sc.bindir))
		return -ENAMETOOLONG;
	if (strcmp(sc.pgdata, p.pgdata) == 0) {
		dut_error_set(err, "--pgdata and --primary name the same directory");
		return -EINVAL;
	}
	if ((r = pgl_cluster_check_bindir(sc.bindir, err)) < 0)
		return r;
	{
		/* run as postgres, from a bindir only root could have filled */
		static const char *const progs[] = { "pg_basebackup", NULL };

		if ((r = dut_pgbin_check_progs(sc.bindir, progs, err)) < 0)
			return r;
	}
	if (p.ntablespaces || p.wal_dir[0]) {
		dut_error_set(err, "the primary has %s; pgload cluster standby copies only primaries "
			      "whose data is all inside PGDATA", p.ntablespaces ? "tablespaces" :
			      "a separate WAL directory");
		return -EOPNOTSUPP;
	}
	if ((r = connect_primary(&p, &c, err)) < 0)
		return r;
	pgl_standby_name_from_dir(sc.pgdata, base, sizeof(base));
	sc.sb.is_standby = true;
	snprintf(sc.sb.primary_pgdata, sizeof(sc.sb.primary_pgdata), "%s", p.pgdata);
	if ((r = unique_name(c, base, sc.sb.app_name, sizeof(sc.sb.app_name), sc.sb.slot,
			     sizeof(sc.sb.slot), err)) < 0)
		goto out;
	pgl_standby_ssn_value(sc.sb.app_name, ssn, sizeof(ssn));
	if ((r = check_primary_settings(c, o->sync, ssn, err)) < 0 ||
	    (r = ensure_hba_replication(c, &p, err)) < 0 ||
	    (r = prepare_dir(sc.pgdata, &made, err)) < 0)
		goto out;
	if ((r = base_backup(&p, &sc, err)) < 0) {
		struct dut_error e2;

		/* -C made the slot before the copy failed. */
		drop_slot(c, sc.sb.slot, &e2);
		empty_dir(sc.pgdata, made);
		goto out;
	}
	/* From here the state file exists: `cluster destroy` cleans up after a failure. */
	if ((r = pgl_sys_pick_port()) < 0) {
		dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
		goto out_state;
	}
	sc.port = r;
	if ((r = configure_standby(o, &p, &sc, err)) < 0)
		goto out_state;
	if ((r = pgl_cluster_start(&sc, err)) < 0)
		goto out_keep;
	if ((r = wait_replication(c, &sc, "streaming", err)) < 0)
		goto out_keep;
	if (o->sync && (r = make_sync(c, &sc, err)) < 0)
		goto out_keep;
	*ret = sc;
	r = 0;
	goto out;

out_state:
	pgl_cluster_save(&sc);
out_keep:
	append_keep_hint(err, sc.pgdata);
out:
	PQfinish(c);
	return r;
}

/* --- release (destroy) -------------------------------------------------- */

/* Drop the slot, ending a WAL sender that still holds it; bounded. */
static int drop_slot(PGconn *c, const char *slot, struct dut_error *err)
{
	char sql[640], lit[160], pid[32];
	int r;

	sql_literal(slot, lit, sizeof(lit));
	for (unsigned i = 0; i < 10000 / POLL_MS; i++) {
		snprintf(sql, sizeof(sql), "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_replication_slots "
			 "WHERE slot_name = %s) THEN 'gone' ELSE coalesce((SELECT active_pid::text FROM "
			 "pg_replication_slots WHERE slot_name = %s), 'idle') END", lit, lit);
		if ((r = pgl_pq_value(c, sql, pid, sizeof(pid), err)) < 0)
			return r;
		if (strcmp(pid, "gone") == 0)
			return 0;
		if (strcmp(pid, "idle") == 0)
			snprintf(sql, sizeof(sql), "SELECT pg_drop_replication_slot(%s)", lit);
		else
			snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%s)", pid);
		/* A WAL sender may take the slot between our look and the drop: retry. */
		if (pgl_pq_exec(c, sql, err) == 0 && strcmp(pid, "idle") == 0)
			return 0;
		sleep_ms(POLL_MS);
	}
	dut_error_set(err, "replication slot %s on the primary stays in use", slot);
	return -EBUSY;
}

/* The primary is stopped: edit its files the way the server would (fd-relative, no links). */
static int release_offline(const struct pgl_cluster *p, const struct pgl_cluster *sb,
			   struct dut_error *err)
{
	char ssn[128];
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int pgfd = pgl_sys_open_dir(p->pgdata), slots = -1;
	size_t n = 0;
	int r;

	if (pgfd < 0) {
		dut_error_set(err, "primary %s: %s", p->pgdata, dut_fs_safe_strerror(pgfd));
		return pgfd;
	}
	if (sb->sb.slot[0]) {
		slots = openat(pgfd, "pg_replslot", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (slots < 0 && errno != ENOENT) {
			dut_error_set(err, "%s/pg_replslot: %s", p->pgdata, strerror(errno));
			return -errno;
		}
		/* the slot name is [a-z0-9_] (checked on load): one component */
		if (slots >= 0 && (r = dut_remove_tree_at(slots, sb->sb.slot)) < 0) {
			dut_error_set(err, "cannot remove slot %s/pg_replslot/%s: %s", p->pgdata,
				      sb->sb.slot, dut_fs_safe_strerror(r));
			return r;
		}
	}
	if (!sb->sb.sync_set)
		return 0;
	r = pgl_sys_read_at(pgfd, "postgresql.auto.conf", &text, &n);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		dut_error_set(err, "cannot read %s/postgresql.auto.conf: %s", p->pgdata, dut_fs_safe_strerror(r));
		return r;
	}
	pgl_standby_ssn_value(sb->sb.app_name, ssn, sizeof(ssn));
	if (pgl_conf_drop_setting(text, "synchronous_standby_names", ssn) == 0)
		return 0;
	if ((r = pgl_sys_write_at(pgfd, "postgresql.auto.conf", text, strlen(text), 0600)) < 0) {
		dut_error_set(err, "cannot replace %s/postgresql.auto.conf: %s", p->pgdata,
			      dut_fs_safe_strerror(r));
		return r;
	}
	return 0;
}

int pgl_standby_release(const struct pgl_cluster *sb, struct dut_error *err)
{
	struct pgl_cluster p;
	struct dut_error e2;
	char ssn[128], cur[256], pv[PATH_MAX + 16];
	PGconn *c;
	int r;

	snprintf(pv, sizeof(pv), "%s/PG_VERSION", sb->sb.primary_pgdata);
	if (faccessat(AT_FDCWD, pv, F_OK, AT_SYMLINK_NOFOLLOW) < 0 ||
	    pgl_cluster_load(sb->sb.primary_pgdata, &p, &e2) < 0)
		return 0; /* the primary is gone: nothing waits for us there */
	if (!pgl_cluster_running(&p, NULL))
		return release_offline(&p, sb, err);
	if ((r = connect_primary(&p, &c, err)) < 0) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		dut_error_set(err, "the primary %s runs but does not answer (%.300s); the standby is "
			      "stopped but kept, so that destroy can clear its slot%s later",
			      p.pgdata, why, sb->sb.sync_set ? " and synchronous_standby_names" : "");
		return r;
	}
	pgl_standby_ssn_value(sb->sb.app_name, ssn, sizeof(ssn));
	if (sb->sb.sync_set &&
	    ((r = pgl_pq_value(c, "SHOW synchronous_standby_names", cur, sizeof(cur), err)) < 0 ||
	     (strcmp(cur, ssn) == 0 && (r = set_ssn(c, NULL, err)) < 0)))
		goto out;
	r = sb->sb.slot[0] ? drop_slot(c, sb->sb.slot, err) : 0;
out:
	PQfinish(c);
	return r;
}

int pgl_standby_describe(const struct pgl_cluster *sb, char *buf, size_t len,
			 struct dut_error *err)
{
	struct pgl_cluster p;
	char sql[768], lit[160], row[200];
	PGconn *c;
	int r;

	if ((r = pgl_cluster_load(sb->sb.primary_pgdata, &p, err)) < 0)
		return r;
	if (!pgl_cluster_running(&p, NULL)) {
		snprintf(buf, len, "primary not running");
		return 0;
	}
	if ((r = connect_primary(&p, &c, err)) < 0)
		return r;
	sql_literal(sb->sb.app_name, lit, sizeof(lit));
	snprintf(sql, sizeof(sql), "SELECT coalesce((SELECT state || ', sync_state ' || sync_state || "
		 "', replay ' || coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint::text, "
		 "'?') || ' bytes behind' FROM pg_stat_replication WHERE application_name = %s LIMIT 1), "
		 "'not connected to the primary')", lit);
	r = pgl_pq_value(c, sql, row, sizeof(row), err);
	PQfinish(c);
	if (r == 0)
		snprintf(buf, len, "%s", row);
	return r;
}

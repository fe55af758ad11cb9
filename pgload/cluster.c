/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cluster life cycle: initdb / pg_ctl as user postgres, state file, clean-up. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/fs_safe.h"
#include "lib/pgbin.h"
#include "lib/memcg.h"
#include "lib/units.h"
#include "pgload/cluster.h"
#include "pgload/cluster_check.h"
#include "pgload/pgconn.h"

#define STATE_MAX_BYTES (1u << 20)
/* PostgreSQL's own default, assumed where init did not record shared_buffers. */
#define PG_DEFAULT_SHARED_BUFFERS (128ull << 20)

volatile int pgl_cluster_interrupted;

static int random_hex(char *buf, size_t nhex);

const char *pgl_cluster_secrets_dir(void)
{
	static char buf[64];

	if (geteuid() == 0)
		return PGL_SECRETS_DIR;
	snprintf(buf, sizeof(buf), PGL_SECRETS_DIR_USER "%u", (unsigned)geteuid());
	return buf;
}

int pgl_tablespace_parse(const char *spec, struct pgl_tablespace *ret, struct dut_error *err)
{
	const char *eq = strchr(spec, '=');
	size_t nlen = eq ? (size_t)(eq - spec) : 0;

	if (!eq || nlen == 0 || !eq[1]) {
		dut_error_set(err, "bad tablespace \"%s\": expected NAME=DIR", spec);
		return -EINVAL;
	}
	if (nlen >= sizeof(ret->name)) {
		dut_error_set(err, "tablespace name in \"%s\" is too long", spec);
		return -EINVAL;
	}
	for (size_t i = 0; i < nlen; i++) {
		char ch = spec[i];

		if (!((ch >= 'a' && ch <= 'z') || ch == '_' || (i && ch >= '0' && ch <= '9'))) {
			dut_error_set(err, "bad tablespace name \"%.*s\": use lower-case letters, digits and _",
				      (int)nlen, spec);
			return -EINVAL;
		}
	}
	if (nlen >= 3 && strncmp(spec, "pg_", 3) == 0) {
		dut_error_set(err, "tablespace name \"%.*s\": names starting with pg_ are reserved",
			      (int)nlen, spec);
		return -EINVAL;
	}
	memcpy(ret->name, spec, nlen);
	ret->name[nlen] = '\0';
	if (pgl_sys_absolute_path(eq + 1, ret->location, sizeof(ret->location)) < 0) {
		dut_error_set(err, "tablespace directory \"%s\": path too long", eq + 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* --- state file --------------------------------------------------------- */

static void state_path(const char *pgdata, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", pgdata, PGL_STATE_FILE);
}

static json_object *state_json(const struct pgl_cluster *c)
{
	json_object *o = json_object_new_object(), *ts = json_object_new_array();

	if (!o || !ts) {
		json_object_put(o);
		json_object_put(ts);
		return NULL;
	}
	json_object_object_add(o, "schema", json_object_new_string("pgload-cluster"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "pgdata", json_object_new_string(c->pgdata));
	json_object_object_add(o, "bindir", json_object_new_string(c->bindir));
	json_object_object_add(o, "socket_dir", json_object_new_string(c->socket_dir));
	json_object_object_add(o, "port", json_object_new_int(c->port));
	json_object_object_add(o, "wal_dir", c->wal_dir[0] ? json_object_new_string(c->wal_dir) : NULL);
	json_object_object_add(o, "wal_dir_created", json_object_new_boolean(c->wal_dir_created));
	if (c->wal_dir_id_known) {
		json_object_object_add(o, "wal_dir_dev", json_object_new_int64((int64_t)c->wal_dir_dev));
		json_object_object_add(o, "wal_dir_ino", json_object_new_int64((int64_t)c->wal_dir_ino));
	}
	json_object_object_add(o, "listen_tcp", json_object_new_boolean(c->listen_tcp));
	json_object_object_add(o, "passfile", c->passfile[0] ? json_object_new_string(c->passfile) : NULL);
	for (unsigned i = 0; i < c->ntablespaces; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "name", json_object_new_string(c->ts[i].name));
		json_object_object_add(t, "location", json_object_new_string(c->ts[i].location));
		json_object_array_add(ts, t);
	}
	json_object_object_add(o, "tablespaces", ts);
	if (c->memory_bytes)
		json_object_object_add(o, "memory_bytes", json_object_new_int64((int64_t)c->memory_bytes));
	if (c->shared_buffers_bytes)
		json_object_object_add(o, "shared_buffers_bytes",
				       json_object_new_int64((int64_t)c->shared_buffers_bytes));
	if (c->memcg_dir[0])
		json_object_object_add(o, "memory_cgroup", json_object_new_string(c->memcg_dir));
	if (c->sb.is_standby) {
		json_object *sb = json_object_new_object();

		json_object_object_add(sb, "primary_pgdata", json_object_new_string(c->sb.primary_pgdata));
		json_object_object_add(sb, "application_name", json_object_new_string(c->sb.app_name));
		json_object_object_add(sb, "slot", c->sb.slot[0] ? json_object_new_string(c->sb.slot) : NULL);
		json_object_object_add(sb, "sync_set", json_object_new_boolean(c->sb.sync_set));
		json_object_object_add(o, "standby", sb);
	}
	return o;
}

/*
 * Owned by the running euid (root: postgres can delete it, not forge it),
 * 0644 (tools/run reads it), written through the directory fd: a link
 * planted at the name is replaced, not followed.  Durable: after a power
 * cut the cluster must still be startable.
 */
static int state_write(const struct pgl_cluster *c)
{
	json_object *o = state_json(c);
	_cleanup_close_ int dfd = -1;
	const char *text;
	int r;

	if (!o)
		return -ENOMEM;
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		r = -ENOMEM;
	else if ((dfd = pgl_sys_open_dir(c->pgdata)) < 0)
		r = dfd;
	else
		r = dut_write_file_at(dfd, PGL_STATE_FILE, text, strlen(text), 0644, (uid_t)-1, (gid_t)-1);
	/* dut_write_file_at fsyncs the file; the rename is durable with the directory */
	if (r == 0 && fsync(dfd) < 0)
		r = -errno;
	json_object_put(o);
	return r;
}

/* 0, or -EINVAL for a value of the wrong type or too long; absent is "" (-EINVAL if required). */
static int copy_str(json_object *o, const char *key, char *dst, size_t len, bool required)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		dst[0] = '\0';
		return required ? -EINVAL : 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	return snprintf(dst, len, "%s", json_object_get_string(v)) >= (int)len ? -EINVAL : 0;
}

/* 0 (absent: 0) or -EINVAL (not a non-negative integer). */
static int get_u64(json_object *o, const char *key, uint64_t *ret)
{
	json_object *v;

	*ret = 0;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return -EINVAL;
	*ret = (uint64_t)json_object_get_int64(v);
	return 0;
}

static bool get_bool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static int parse_state(json_object *o, struct pgl_cluster *c)
{
	char schema[32];
	json_object *v, *ts, *dev, *ino;

	if (copy_str(o, "schema", schema, sizeof(schema), true) < 0 || strcmp(schema, "pgload-cluster") ||
	    copy_str(o, "bindir", c->bindir, sizeof(c->bindir), true) < 0 ||
	    copy_str(o, "socket_dir", c->socket_dir, sizeof(c->socket_dir), true) < 0 ||
	    copy_str(o, "wal_dir", c->wal_dir, sizeof(c->wal_dir), false) < 0 ||
	    copy_str(o, "passfile", c->passfile, sizeof(c->passfile), false) < 0 ||
	    copy_str(o, "memory_cgroup", c->memcg_dir, sizeof(c->memcg_dir), false) < 0 ||
	    get_u64(o, "memory_bytes", &c->memory_bytes) < 0 ||
	    get_u64(o, "shared_buffers_bytes", &c->shared_buffers_bytes) < 0 ||
	    !json_object_object_get_ex(o, "port", &v) || !json_object_is_type(v, json_type_int))
		return -EINVAL;
	c->port = json_object_get_int(v);
	c->wal_dir_created = get_bool(o, "wal_dir_created");
	c->listen_tcp = get_bool(o, "listen_tcp");
	if (json_object_object_get_ex(o, "wal_dir_dev", &dev) && json_object_is_type(dev, json_type_int) &&
	    json_object_object_get_ex(o, "wal_dir_ino", &ino) && json_object_is_type(ino, json_type_int)) {
		c->wal_dir_id_known = true;
		c->wal_dir_dev = (uint64_t)json_object_get_int64(dev);
		c->wal_dir_ino = (uint64_t)json_object_get_int64(ino);
	}
	if (json_object_object_get_ex(o, "tablespaces", &ts) && json_object_is_type(ts, json_type_array)) {
		if (json_object_array_length(ts) > PGL_MAX_TABLESPACES)
			return -EINVAL;
		for (size_t i = 0; i < json_object_array_length(ts); i++) {
			json_object *t = json_object_array_get_idx(ts, i);

			if (copy_str(t, "name", c->ts[i].name, sizeof(c->ts[i].name), true) < 0 ||
			    copy_str(t, "location", c->ts[i].location, sizeof(c->ts[i].location), true) < 0)
				return -EINVAL;
			c->ntablespaces++;
		}
	}
	if (json_object_object_get_ex(o, "standby", &v) && json_object_is_type(v, json_type_object)) {
		c->sb.is_standby = true;
		if (copy_str(v, "primary_pgdata", c->sb.primary_pgdata, sizeof(c->sb.primary_pgdata), true) < 0 ||
		    copy_str(v, "application_name", c->sb.app_name, sizeof(c->sb.app_name), true) < 0 ||
		    copy_str(v, "slot", c->sb.slot, sizeof(c->sb.slot), false) < 0)
			return -EINVAL;
		c->sb.sync_set = get_bool(v, "sync_set");
	}
	return 0;
}

int pgl_cluster_load(const char *pgdata, struct pgl_cluster *ret, struct dut_error *err)
{
	char path[PATH_MAX + 32], why[400];
	_cleanup_free_ char *text = NULL;
	struct pgl_cluster c;
	json_object *o;
	size_t len;
	int r;

	memset(&c, 0, sizeof(c));
	state_path(pgdata, path, sizeof(path));
	r = dut_read_file_owned(path, geteuid(), STATE_MAX_BYTES, &text, &len);
	if (r == -ENOENT || r == -ENOTDIR) {
		dut_error_set(err, "%s is not a cluster made by pgload (no %s: %s)", pgdata,
			      PGL_STATE_FILE, strerror(-r));
		return r;
	}
	if (r < 0) {
		struct stat st;

		if (r == -EPERM && lstat(path, &st) == 0)
			dut_error_set(err, "%s: refusing the state file: it is owned by uid %u, not by uid %u "
				      "who made the cluster (anyone who can write the data directory could "
				      "have forged it; remove the directory by hand after checking it)",
				      path, (unsigned)st.st_uid, (unsigned)geteuid());
		else
			dut_error_set(err, "%s: refusing the state file: %s", path, dut_fs_safe_strerror(r));
		return r;
	}
	o = json_tokener_parse(text);
	if (!o) {
		dut_error_set(err, "%s: cannot parse the state file", path);
		return -EINVAL;
	}
	r = parse_state(o, &c);
	json_object_put(o);
	if (r < 0) {
		dut_error_set(err, "%s: not a pgload cluster state file (schema pgload-cluster, "
			      "with bindir, socket_dir and port)", path);
		return r;
	}
	if ((r = pgl_state_check(&c, pgl_cluster_secrets_dir(), why, sizeof(why))) < 0) {
		dut_error_set(err, "%s: refusing the state file: %s", path, why);
		return r;
	}
	if (c.memcg_dir[0] || c.memory_bytes) {
		struct dut_memcg_mounts m;

		if ((r = dut_memcg_read_mounts(&m, err)) < 0)
			return r;
		if ((r = pgl_state_check_memcg(&c, &m, why, sizeof(why))) < 0) {
			dut_error_set(err, "%s: refusing the state file: %s", path, why);
			return r;
		}
	}
	if ((r = pgl_cluster_check_bindir(c.bindir, err)) < 0)
		return r;
	if (pgl_sys_absolute_path(pgdata, c.pgdata, sizeof(c.pgdata)) < 0)
		return -ENAMETOOLONG;
	*ret = c;
	return 0;
}

void pgl_cluster_conninfo(const struct pgl_cluster *c, char *buf, size_t len)
{
	/* Cut, it would name another server: make it one libpq refuses (callers give PATH_MAX + 128). */
	if (snprintf(buf, len, "host=%s port=%d user=postgres dbname=postgres%s%s", c->socket_dir,
		     c->port, c->passfile[0] ? " passfile=" : "", c->passfile) >= (int)len)
		snprintf(buf, len, "service=pgload-conninfo-too-long");
}

void pgl_cluster_tcp_conninfo(const struct pgl_cluster *c, char *buf, size_t len)
{
	if (!c->listen_tcp || !c->passfile[0])
		snprintf(buf, len, "%s", "");
	else if (snprintf(buf, len, "host=127.0.0.1 port=%d user=postgres dbname=postgres passfile=%s",
			  c->port, c->passfile) >= (int)len)
		snprintf(buf, len, "service=pgload-conninfo-too-long");
}

/* --- life cycle --------------------------------------------------------- */

/*
 * A socket directory only the server's user controls.  One that is gone
 * (/tmp was cleaned) or that someone else made under the recorded name is
 * replaced by a new one, never used.
 */
static int ensure_socket_dir(struct pgl_cluster *c)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	uid_t uid;
	gid_t gid;
	int r;

	if ((r = pgl_sys_postgres_ids(&uid, &gid)) < 0)
		return r;
	if (uid == (uid_t)-1)
		uid = geteuid();
	if (c->socket_dir[0] && pgl_socket_dir_is_valid(c->socket_dir) &&
	    (fd = pgl_sys_open_dir(c->socket_dir)) >= 0 && fstat(fd, &st) == 0 &&
	    st.st_uid == uid && (st.st_mode & 07777) == 0700)
		return 0;
	if (fd >= 0)
		close(fd);
	snprintf(c->socket_dir, sizeof(c->socket_dir), "/tmp/pgload-XXXXXX");
	if (!mkdtemp(c->socket_dir))
		return -errno;
	if ((fd = pgl_sys_open_dir(c->socket_dir)) < 0)
		return fd;
	if (fchmod(fd, 0700) < 0)
		return -errno;
	return pgl_sys_chown_postgres_fd(fd);
}

int pgl_cluster_running(const struct pgl_cluster *c, long *ret_pid)
{
	char path[PATH_MAX + 32];
	_cleanup_fclose_ FILE *f = NULL;
	long pid;
	int fd;

	snprintf(path, sizeof(path), "%s/postmaster.pid", c->pgdata);
	if ((fd = dut_open_regular(path, DUT_ANY_OWNER, NULL)) < 0)
		return 0;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 0;
	if (ret_pid)
		*ret_pid = pid;
	return 1;
}

/* --- memory budget ------------------------------------------------------ */

/* The cgroup the state file names (its directory was checked on load). */
static void memcg_of(const struct pgl_cluster *c, struct dut_memcg *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->kind = DUT_MEMCG_V1;        /* both hierarchies list members in cgroup.procs */
	snprintf(cg->dir, sizeof(cg->dir), "%s", c->memcg_dir);
	cg->limit_bytes = c->memory_bytes;
}

/* Remove the budget's cgroup (none, or already gone: nothing to do). */
static int memcg_release(const struct pgl_cluster *c, struct dut_error *err)
{
	struct dut_memcg cg;
	int r;

	if (!c->memcg_dir[0])
		return 0;
	memcg_of(c, &cg);
	if ((r = dut_memcg_remove(&cg)) < 0)
		dut_error_set(err, "cannot remove the memory cgroup %s: %s (remove it with rmdir once "
			      "its processes are gone)", c->memcg_dir, strerror(-r));
	return r;
}

int pgl_cluster_memory(const struct pgl_cluster *c, uint64_t *ret_current, uint64_t *ret_peak)
{
	struct dut_error err;
	struct dut_memcg cg;

	if (!c->memory_bytes || !c->memcg_dir[0] || dut_memcg_open(c->memcg_dir, &cg, &err) < 0)
		return 0;
	return dut_memcg_usage(&cg, ret_current, ret_peak) < 0 ? 0 : 1;
}

/*
 * Pick a new cgroup for this start and record it (c->memcg_dir) before it
 * is made; one left by an earlier start is removed first.
 */
static int memcg_prepare(struct pgl_cluster *c, struct dut_memcg *cg, struct dut_error *err)
{
	char name[8 + 16 + 1] = "pgload-";
	int r;

	if ((r = memcg_release(c, err)) < 0)
		return r;
	c->memcg_dir[0] = '\0';
	if (!c->memory_bytes)
		return 0;
	if ((r = random_hex(name + 7, 16)) < 0) {
		dut_error_set(err, "cannot name the memory cgroup: no random numbers");
		return r;
	}
	if ((r = dut_memcg_locate(name, c->memory_bytes, cg, err)) < 0)
		return r;
	snprintf(c->memcg_dir, sizeof(c->memcg_dir), "%s", cg->dir);
	return 0;
}

/*
 * After a failed or interrupted start: stop what may have started and
 * remove the cgroup.  Only the server was put in it, so a process still
 * there is a postmaster that never got as far as postmaster.pid.
 */
static void start_undo(struct pgl_cluster *c)
{
	struct dut_error e2;
	struct dut_memcg cg;

	if (pgl_cluster_running(c, NULL))
		pgl_cluster_stop(c, true, &e2);
	if (c->memcg_dir[0]) {
		memcg_of(c, &cg);
		for (int i = 0; i < 50 && dut_memcg_kill(&cg, SIGKILL) > 0; i++)
			usleep(20 * 1000);
		memcg_release(c, &e2);
	}
}

int pgl_cluster_start(struct pgl_cluster *c, struct dut_error *err)
{
	char pg_ctl[PATH_MAX + 16], opts[PATH_MAX + 128], logf[PATH_MAX + 32];
	char tail[4096];
	struct dut_memcg cg;
	int r;

	if (pgl_cluster_running(c, NULL)) {
		dut_error_set(err, "the server of %s is already running", c->pgdata);
		return -EALREADY;
	}
	if ((r = ensure_socket_dir(c)) < 0) {
		dut_error_set(err, "cannot create a socket directory in /tmp: %s", dut_fs_safe_strerror(r));
		return r;
	}
	if (!pgl_sys_port_free(c->port)) {
		int p = pgl_sys_pick_port();

		if (p < 0) {
			dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
			return p;
		}
		c->port = p;
	}
	if ((r = memcg_prepare(c, &cg, err)) < 0)
		return r;
	/* the cgroup is named here before it exists: destroy finds it after any interruption */
	if ((r = state_write(c)) < 0) {
		dut_error_set(err, "cannot write %s/%s: %s", c->pgdata, PGL_STATE_FILE, dut_fs_safe_strerror(r));
		return r;
	}
	if (c->memcg_dir[0] && (r = dut_memcg_make(&cg, err)) < 0)
		return r;
	snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	/* pg_ctl hands -o to a shell: socket_dir is /tmp/pgload-XXXXXX (checked), '' is empty. */
	snprintf(opts, sizeof(opts), "-p %d -k %s -c listen_addresses=%s", c->port, c->socket_dir,
		 c->listen_tcp ? "127.0.0.1" : "''");
	snprintf(logf, sizeof(logf), "%s/%s", c->pgdata, PGL_SERVER_LOG);
	{
		char *argv[] = { pg_ctl, "-D", c->pgdata, "-l", logf, "-w", "-t", "120", "-o", opts,
				 "start", NULL };

		r = pgl_sys_run_in(argv, "pg_ctl start", c->memcg_dir[0] ? c->memcg_dir : NULL, err);
	}
	if (r < 0) {
		char pgctl_msg[sizeof(err->msg)];

		snprintf(pgctl_msg, sizeof(pgctl_msg), "%s", err->msg);
		pgl_sys_file_tail(logf, 20, tail, sizeof(tail));
		start_undo(c);
		dut_error_set(err, "the server did not start.\n%s\nlast lines of %s:\n%s", pgctl_msg,
			      logf, tail);
	} else if (pgl_cluster_interrupted) {
		start_undo(c);
		dut_error_set(err, "interrupted: the server of %s was stopped again%s", c->pgdata,
			      c->memcg_dir[0] ? " and its memory cgroup removed" : "");
		r = -EINTR;
	}
	return r;
}

int pgl_cluster_stop(const struct pgl_cluster *c, bool immediate, struct dut_error *err)
{
	char pg_ctl[PATH_MAX + 16];
	char *argv[] = { pg_ctl, "-D", (char *)c->pgdata, "-m", immediate ? "immediate" : "fast",
			 "-w", "-t", "120", "stop", NULL };
	int r;

	if (!pgl_cluster_running(c, NULL))
		return memcg_release(c, err);
	snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	if ((r = pgl_sys_run(argv, "pg_ctl stop", err)) < 0)
		return r;
	return memcg_release(c, err);
}

/* --- init ---------------------------------------------------------------- */

static int check_new_dirs(const struct pgl_cluster_init_opts *o, struct dut_error *err)
{
	int r = pgl_sys_dir_empty(o->pgdata);

	if (r == 0) {
		dut_error_set(err, "%s is not empty: refusing to create a cluster there "
			      "(give a new or empty directory)", o->pgdata);
		return -ENOTEMPTY;
	}
	if (r < 0 && r != -ENOENT) {
		dut_error_set(err, "%s: %s", o->pgdata, dut_fs_safe_strerror(r));
		return r;
	}
	if (o->wal_dir && (r = pgl_sys_dir_empty(o->wal_dir)) == 0) {
		dut_error_set(err, "WAL directory %s is not empty", o->wal_dir);
		return -ENOTEMPTY;
	}
	if (o->wal_dir && r < 0 && r != -ENOENT) {
		dut_error_set(err, "WAL directory %s: %s", o->wal_dir, dut_fs_safe_strerror(r));
		return r;
	}
	for (unsigned i = 0; i < o->nsets; i++) {
		char why[256];

		if (pgl_set_check(o->sets[i], why, sizeof(why)) < 0) {
			dut_error_set(err, "bad --set \"%.100s\": %s", o->sets[i], why);
			return -EINVAL;
		}
	}
	for (unsigned i = 0; i < o->ntablespaces; i++) {
		const struct pgl_tablespace *t = &o->ts[i];

		for (unsigned j = 0; j < i; j++) {
			if (strcmp(o->ts[j].name, t->name) == 0) {
				dut_error_set(err, "tablespace %s is given twice", t->name);
				return -EINVAL;
			}
		}
		r = pgl_sys_dir_empty(t->location);
		if (r == 0) {
			dut_error_set(err, "tablespace %s: directory %s is not empty (give an empty directory)",
				      t->name, t->location);
			return -ENOTEMPTY;
		}
		if (r < 0) {
			dut_error_set(err, "tablespace %s: directory %s: %s (create it first)", t->name,
				      t->location, dut_fs_safe_strerror(r));
			return r;
		}
	}
	return 0;
}

static int append_settings(const struct pgl_cluster_init_opts *o, int pgfd, struct dut_error *err)
{
	_cleanup_free_ char *ver = NULL;
	size_t vlen;
	/* I/O timings for pgload run's server counters (docs/pgload.md); track_wal_io_timing is new in 14 */
	bool wal_timing = pgl_sys_read_at(pgfd, "PG_VERSION", &ver, &vlen) == 0 && atoi(ver) >= 14;
	_cleanup_free_ char *text = pgl_settings_text(o->sets, o->nsets, wal_timing ?
		"\n# added by pgload cluster init (TCP logins, with --listen-tcp, use SCRAM)\n"
		"password_encryption = 'scram-sha-256'\n"
		"track_io_timing = on\ntrack_wal_io_timing = on\n"
		"# added by pgload cluster init --set\n" :
		"\n# added by pgload cluster init (TCP logins, with --listen-tcp, use SCRAM)\n"
		"password_encryption = 'scram-sha-256'\n"
		"track_io_timing = on\n"
		"# added by pgload cluster init --set\n");
	int r;

	if (!text)
		return -ENOMEM;
	if ((r = pgl_sys_append_at(pgfd, "postgresql.conf", text, true)) < 0)
		dut_error_set(err, "cannot add settings to %s/postgresql.conf: %s", o->pgdata,
			      dut_fs_safe_strerror(r));
	return r;
}

/* pg_hba.conf and pg_ident.conf: peer for root and postgres (us when not root). */
static int write_auth_files(const struct pgl_cluster *c, int pgfd, struct dut_error *err)
{
	char hba[1024], ident[1024];
	const char *users[3] = { "root", "postgres", NULL };
	struct passwd *pw;
	int r;

	if (!pgl_sys_as_root()) {
		if (!(pw = getpwuid(geteuid()))) {
			dut_error_set(err, "the running user %u has no name (needed for pg_ident.conf)",
				      (unsigned)geteuid());
			return -ENOENT;
		}
		users[0] = pw->pw_name;
		users[1] = NULL;
	}
	if ((r = pgl_hba_text(c->listen_tcp, hba, sizeof(hba))) < 0 ||
	    (r = pgl_ident_text(users, ident, sizeof(ident))) < 0) {
		dut_error_set(err, "cannot make pg_hba.conf / pg_ident.conf: %s", strerror(-r));
		return r;
	}
	if ((r = pgl_sys_write_at(pgfd, "pg_hba.conf", hba, strlen(hba), 0600)) < 0 ||
	    (r = pgl_sys_write_at(pgfd, "pg_ident.conf", ident, strlen(ident), 0600)) < 0)
		dut_error_set(err, "cannot write pg_hba.conf / pg_ident.conf in %s: %s", c->pgdata,
			      dut_fs_safe_strerror(r));
	return r;
}

static int random_hex(char *buf, size_t nhex)
{
	unsigned char raw[32];

	if (nhex / 2 > sizeof(raw) || getrandom(raw, nhex / 2, 0) != (ssize_t)(nhex / 2))
		return -EIO;
	for (size_t i = 0; i < nhex / 2; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* A new root-only 0600 passfile in the secrets directory; c->passfile names it. */
static int write_passfile(struct pgl_cluster *c, const char *password, struct dut_error *err)
{
	const char *dir = pgl_cluster_secrets_dir();
	char bad[PATH_MAX], name[32], line[128];
	_cleanup_close_ int dfd = -1;
	int r;

	if ((r = dut_ensure_private_dir(dir, 0700, bad, sizeof(bad))) < 0) {
		dut_error_set(err, "cannot use %s for the password file: %s: %s", dir, bad,
			      dut_fs_safe_strerror(r));
		return r;
	}
	if ((dfd = pgl_sys_open_dir(dir)) < 0)
		return dfd;
	if ((r = random_hex(name, 16)) < 0)
		return r;
	snprintf(name + 16, sizeof(name) - 16, ".pgpass");
	/* Any port: a later start may move the server to another free port. */
	snprintf(line, sizeof(line), "127.0.0.1:*:*:postgres:%s\n", password);
	if ((r = dut_write_file_at(dfd, name, line, strlen(line), 0600, (uid_t)-1, (gid_t)-1)) < 0) {
		dut_error_set(err, "cannot write the password file in %s: %s", dir, dut_fs_safe_strerror(r));
		return r;
	}
	snprintf(c->passfile, sizeof(c->passfile), "%s/%s", dir, name);
	return 0;
}

/* Give role postgres the password as a SCRAM verifier (the clear text never reaches the server). */
static int set_password(const struct pgl_cluster *c, const char *password, struct dut_error *err)
{
	char conninfo[PATH_MAX + 128], *verifier, *lit, sql[1024];
	PGconn *conn;
	int r;

	pgl_cluster_conninfo(c, conninfo, sizeof(conninfo));
	if ((r = pgl_pq_connect(conninfo, &conn, err)) < 0)
		return r;
	verifier = PQencryptPasswordConn(conn, password, "postgres", "scram-sha-256");
	lit = verifier ? PQescapeLiteral(conn, verifier, strlen(verifier)) : NULL;
	if (!lit) {
		dut_error_set(err, "cannot make the SCRAM verifier: %s", PQerrorMessage(conn));
		r = -EIO;
	} else {
		snprintf(sql, sizeof(sql), "ALTER ROLE postgres PASSWORD %s", lit);
		r = pgl_pq_exec(conn, sql, err);
	}
	PQfreemem(lit);
	PQfreemem(verifier);
	PQfinish(conn);
	return r;
}

static int create_tablespaces(const struct pgl_cluster *c, struct dut_error *err)
{
	char conninfo[PATH_MAX + 128];
	PGconn *conn;
	int r = 0;

	if (c->ntablespaces == 0)
		return 0;
	pgl_cluster_conninfo(c, conninfo, sizeof(conninfo));
	if ((r = pgl_pq_connect(conninfo, &conn, err)) < 0)
		return r;
	for (unsigned i = 0; i < c->ntablespaces && r == 0; i++) {
		char sql[PATH_MAX + 256];
		char *lit = PQescapeLiteral(conn, c->ts[i].location, strlen(c->ts[i].location));

		if (!lit) {
			r = -ENOMEM;
			break;
		}
		snprintf(sql, sizeof(sql), "CREATE TABLESPACE %s LOCATION %s", c->ts[i].name, lit);
		PQfreemem(lit);
		r = pgl_pq_exec(conn, sql, err);
	}
	PQfinish(conn);
	return r;
}

/* The WAL directory: made by us when absent; its identity recorded for destroy. */
static int prepare_wal_dir(const char *wal_dir, struct pgl_cluster *c, struct dut_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (pgl_sys_absolute_path(wal_dir, c->wal_dir, sizeof(c->wal_dir)) < 0)
		return -ENAMETOOLONG;
	c->wal_dir_created = pgl_sys_dir_empty(c->wal_dir) == -ENOENT;
	/* initdb runs as postgres and may not be allowed to create it: we do. */
	if (c->wal_dir_created && mkdir(c->wal_dir, 0700) < 0) {
		r = -errno;
		dut_error_set(err, "cannot create the WAL directory %s: %s", c->wal_dir, strerror(-r));
		return r;
	}
	if ((fd = pgl_sys_open_dir(c->wal_dir)) < 0 || fstat(fd, &st) < 0) {
		r = fd < 0 ? fd : -errno;
		dut_error_set(err, "WAL directory %s: %s", c->wal_dir, dut_fs_safe_strerror(r));
		return r;
	}
	c->wal_dir_id_known = true;
	c->wal_dir_dev = (uint64_t)st.st_dev;
	c->wal_dir_ino = (uint64_t)st.st_ino;
	if ((r = pgl_sys_chown_postgres_fd(fd)) < 0)
		dut_error_set(err, "cannot chown the WAL directory %s to postgres: %s", c->wal_dir,
			      strerror(-r));
	return r;
}

static int chown_dir(const char *path, mode_t mode, struct dut_error *err)
{
	_cleanup_close_ int fd = pgl_sys_open_dir(path);
	int r;

	if (fd < 0) {
		dut_error_set(err, "%s: %s", path, dut_fs_safe_strerror(fd));
		return fd;
	}
	if (mode && fchmod(fd, mode) < 0)
		return -errno;
	if ((r = pgl_sys_chown_postgres_fd(fd)) < 0)
		dut_error_set(err, "cannot chown %s to postgres: %s", path, strerror(-r));
	return r;
}

/* Is the setting name given in --set? */
static const char *set_value(const struct pgl_cluster_init_opts *io, const char *name)
{
	size_t n = strlen(name);

	for (unsigned i = 0; i < io->nsets; i++)
		if (strncasecmp(io->sets[i], name, n) == 0 && io->sets[i][n] == '=')
			return io->sets[i] + n + 1;
	return NULL;
}

/* Add "name=<mib>MB" to the options (text in buf, which must outlive them). */
static int add_default(struct pgl_cluster_init_opts *io, const char *name, uint64_t bytes, char *buf,
		       size_t len, struct dut_error *err)
{
	if (io->nsets >= PGL_MAX_SETS) {
		dut_error_set(err, "too many --set options: with --memory, pgload adds %s (give at most %d)",
			      name, PGL_MAX_SETS - 2);
		return -EINVAL;
	}
	snprintf(buf, len, "%s=%lluMB", name, (unsigned long long)(bytes >> 20));
	io->sets[io->nsets++] = buf;
	return 0;
}

/*
 * The budget's size check, before anything is made: shared_buffers from
 * --set, or (with a budget and none set) min(128 MiB, budget/4) added as a
 * setting to *io (a copy of the caller's options; the texts are in sb_text
 * and mwm_text).  maintenance_work_mem, whose 64MB default alone would
 * overrun a small budget when the primary key is built (the server is then
 * killed by the cgroup's OOM killer), becomes min(64MB, budget/8).
 */
/*
 * The block size of the server in bindir, for a bare shared_buffers: a build
 * of dutlab pg build records it beside its bin/ (lib/pgbin.h); else
 * Debian's 8 kB.
 */
static uint64_t bindir_block_bytes(const char *bindir)
{
	struct dut_pg_build b;
	struct dut_error e = { "" };
	char dir[PATH_MAX], *slash;

	if (!bindir || snprintf(dir, sizeof(dir), "%s", bindir) >= (int)sizeof(dir))
		return DUT_PG_DEFAULT_BLOCK_KB * 1024ull;
	while ((slash = strrchr(dir, '/')) && slash[1] == '\0' && slash != dir)
		*slash = '\0';
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		return DUT_PG_DEFAULT_BLOCK_KB * 1024ull;
	*slash = '\0';
	if (dut_pg_build_read(dir, &b, &e) < 0 || !b.block_kb)
		return DUT_PG_DEFAULT_BLOCK_KB * 1024ull;
	return b.block_kb * 1024ull;
}

static int memory_plan(struct pgl_cluster_init_opts *io, char *sb_text, char *mwm_text, size_t len,
		       struct pgl_cluster *c, struct dut_error *err)
{
	const char *set = set_value(io, "shared_buffers");
	struct dut_memcg cg;
	uint64_t mwm;
	char why[400];
	int r;

	c->shared_buffers_bytes = PG_DEFAULT_SHARED_BUFFERS;
	if (set && dut_pg_memory_parse(set, bindir_block_bytes(io->bindir), &c->shared_buffers_bytes) < 0) {
		if (!io->memory_bytes) {
			c->shared_buffers_bytes = 0;    /* unknown: start --memory assumes the default */
			return 0;
		}
		dut_error_set(err, "--set shared_buffers=%.64s: cannot read the size for the check against "
			      "--memory (give it as a number with kB, MB or GB, e.g. 32MB)", set);
		return -EINVAL;
	}
	if (!io->memory_bytes)
		return 0;
	if (!set) {
		c->shared_buffers_bytes = pgl_memory_default_shared_buffers(io->memory_bytes);
		if ((r = add_default(io, "shared_buffers", c->shared_buffers_bytes, sb_text, len, err)) < 0)
			return r;
	}
	if ((r = pgl_memory_check(io->memory_bytes, c->shared_buffers_bytes, why, sizeof(why))) < 0) {
		dut_error_set(err, "--memory: %s", why);
		return r;
	}
	mwm = (io->memory_bytes / 8) & ~((1ull << 20) - 1);
	if (!set_value(io, "maintenance_work_mem") &&
	    (r = add_default(io, "maintenance_work_mem", mwm > (64ull << 20) ? 64ull << 20 : mwm,
			     mwm_text, len, err)) < 0)
		return r;
	/* no memory controller here: say so now, not after initdb */
	if ((r = dut_memcg_locate("pgload-check", io->memory_bytes, &cg, err)) < 0)
		return r;
	c->memory_bytes = io->memory_bytes;
	return 0;
}

int pgl_cluster_init(const struct pgl_cluster_init_opts *oo, struct pgl_cluster *ret,
		     struct dut_error *err)
{
	struct pgl_cluster c;
	struct pgl_cluster_init_opts opts = *oo, *o = &opts;
	char initdb[PATH_MAX + 16], password[40] = "", sb_text[64], mwm_text[64];
	_cleanup_close_ int pgfd = -1;
	char newest[PATH_MAX];
	uid_t uid;
	gid_t gid;
	int r;

	memset(&c, 0, sizeof(c));
	c.listen_tcp = o->listen_tcp;
	if ((r = memory_plan(&opts, sb_text, mwm_text, sizeof(sb_text), &c, err)) < 0)
		return r;
	/* without --bindir: the newest PostgreSQL major installed (lib/pgbin.h) */
	if (!o->bindir && (r = dut_pgbin_find(dut_pgbin_root(), 0, newest, sizeof(newest), NULL, err)) < 0)
		return r;
	if (pgl_sys_absolute_path(o->pgdata, c.pgdata, sizeof(c.pgdata)) < 0 ||
	    pgl_sys_absolute_path(o->bindir ? o->bindir : newest, c.bindir, sizeof(c.bindir)) < 0)
		return -ENAMETOOLONG;
	if ((r = pgl_cluster_check_bindir(c.bindir, err)) < 0)
		return r;
	snprintf(initdb, sizeof(initdb), "%s/initdb", c.bindir);
	if (pgl_sys_postgres_ids(&uid, &gid) < 0) {
		dut_error_set(err, "running as root, but there is no user postgres to run the server");
		return -ENOENT;
	}
	if ((r = check_new_dirs(o, err)) < 0)
		return r;
	if (o->wal_dir && (r = prepare_wal_dir(o->wal_dir, &c, err)) < 0)
		return r;
	c.ntablespaces = o->ntablespaces;
	memcpy(c.ts, o->ts, sizeof(c.ts));
	if (mkdir(c.pgdata, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		dut_error_set(err, "cannot create %s: %s", c.pgdata, strerror(-r));
		return r;
	}
	if ((r = chown_dir(c.pgdata, 0700, err)) < 0)
		return r;
	if ((pgfd = pgl_sys_open_dir(c.pgdata)) < 0)
		return pgfd;
	for (unsigned i = 0; i < c.ntablespaces; i++)
		if ((r = chown_dir(c.ts[i].location, 0, err)) < 0)
			goto out_empty;
	if (pgl_sys_postgres_can_write(c.pgdata) < 0) {
		dut_error_set(err, "user postgres cannot write %s: a parent directory is probably "
			      "not searchable (chmod o+x the parents)", c.pgdata);
		r = -EACCES;
		goto out_empty;
	}
	{
		/* No trust, not even before pg_hba.conf is ours. */
		char *argv[] = { initdb, "-D", c.pgdata, "--data-checksums", "-U", "postgres",
				 "--auth-local=peer", "--auth-host=scram-sha-256", "-E", "UTF8",
				 "--locale=C", "-N", o->wal_dir ? "-X" : NULL, c.wal_dir, NULL };

		if ((r = pgl_sys_run(argv, "initdb", err)) < 0)
			goto out_empty;
		if (pgl_cluster_interrupted) {
			dut_error_set(err, "interrupted (during initdb): %s is left empty", c.pgdata);
			r = -EINTR;
			goto out_empty;
		}
	}
	if ((r = write_auth_files(&c, pgfd, err)) < 0 || (r = append_settings(o, pgfd, err)) < 0)
		goto out_empty;
	if ((c.port = pgl_sys_pick_port()) < 0) {
		dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
		r = c.port;
		goto out_empty;
	}
	if (c.listen_tcp && ((r = random_hex(password, 32)) < 0 || (r = write_passfile(&c, password, err)) < 0))
		goto out_empty;
	/* From here the state file exists: `cluster destroy` cleans up (the passfile too). */
	if ((r = pgl_cluster_start(&c, err)) < 0)
		return r; /* keep the cluster and its log for the user to look at */
	if (c.listen_tcp && (r = set_password(&c, password, err)) < 0)
		return r;
	if ((r = create_tablespaces(&c, err)) < 0)
		return r;
	*ret = c;
	return 0;

out_empty:
	/* We made pgdata (it was absent or empty): leave it empty again. */
	if (pgfd >= 0 && faccessat(pgfd, PGL_STATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		pgl_sys_empty_dir_at(pgfd, NULL);
	return r;
}

/* --- destroy --------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static void add_note(char *note, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (!note || !len)
		return;
	used = strlen(note);
	if (used && used + 2 < len)
		note[used++] = '\n', note[used] = '\0';
	va_start(ap, fmt);
	vsnprintf(note + used, len - used, fmt, ap);
	va_end(ap);
}

/*
 * Remove what pgload put in the WAL directory, and the directory if pgload
 * made it, but only if it is still the directory recorded at init: opened
 * without links, its device and inode compared on the fd.  The final rmdir
 * removes only an empty directory, so a swap after the check costs nothing.
 */
static int destroy_wal_dir(const struct pgl_cluster *c, char *note, size_t note_len)
{
	char parent[PATH_MAX], *slash;
	_cleanup_close_ int pfd = -1, fd = -1;
	const char *base;
	struct stat st;
	int r;

	if (!c->wal_dir[0])
		return 0;
	if (!c->wal_dir_id_known) {
		add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir,
			 "the state file does not say which directory pgload made (made by an older "
			 "pgload); remove it by hand");
		return 0;
	}
	snprintf(parent, sizeof(parent), "%s", c->wal_dir);
	slash = strrchr(parent, '/');
	base = c->wal_dir + (slash - parent) + 1;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	if ((pfd = pgl_sys_open_dir(parent)) < 0 ||
	    (fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = pfd < 0 ? pfd : -errno;
		if (r != -ENOENT)
			add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir, dut_fs_safe_strerror(r));
		return 0;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_dev != c->wal_dir_dev || (uint64_t)st.st_ino != c->wal_dir_ino) {
		add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir,
			 "it is not the directory pgload made for this cluster (another device/inode)");
		return 0;
	}
	if ((r = pgl_sys_empty_dir_at(fd, NULL)) < 0) {
		add_note(note, note_len, "WAL directory %s: not everything removed: %s", c->wal_dir,
			 dut_fs_safe_strerror(r));
		return 0;
	}
	if (c->wal_dir_created && unlinkat(pfd, base, AT_REMOVEDIR) < 0 && errno != ENOENT)
		add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir, strerror(errno));
	return 0;
}

static void remove_passfile(const struct pgl_cluster *c)
{
	const char *dir = pgl_cluster_secrets_dir();
	_cleanup_close_ int dfd = -1;

	if (!c->passfile[0] || !pgl_passfile_is_valid(c->passfile, dir))
		return;
	if ((dfd = pgl_sys_open_dir(dir)) >= 0)
		unlinkat(dfd, c->passfile + strlen(dir) + 1, 0);
}

int pgl_cluster_destroy(const char *pgdata, pgl_release_fn release_standby, char *note, size_t note_len,
			struct dut_error *err)
{
	struct pgl_cluster c;
	_cleanup_close_ int pgfd = -1;
	int r;

	if (note && note_len)
		note[0] = '\0';
	if ((r = pgl_cluster_load(pgdata, &c, err)) < 0)
		return r;
	if ((pgfd = pgl_sys_open_dir(c.pgdata)) < 0 ||
	    faccessat(pgfd, "PG_VERSION", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		dut_error_set(err, "%s has a pgload state file but no PG_VERSION: not removing it",
			      c.pgdata);
		return -EINVAL;
	}
	if (pgl_cluster_running(&c, NULL)) {
		struct dut_error e2;

		if (pgl_cluster_stop(&c, false, &e2) < 0 && (r = pgl_cluster_stop(&c, true, err)) < 0)
			return r;
	}
	/* not running (a start that was killed): the cgroup may still be there */
	if ((r = memcg_release(&c, err)) < 0)
		return r;
	/* Before its files go: the primary must not keep waiting for it or its WAL. */
	if (c.sb.is_standby) {
		if (!release_standby) {
			dut_error_set(err, "%s is a standby: not removing it without releasing its slot on the primary",
				      c.pgdata);
			return -EINVAL;
		}
		if ((r = release_standby(&c, err)) < 0)
			return r;
	}
	/* Tablespace directories are the user's: remove only what PostgreSQL put in them. */
	for (unsigned i = 0; i < c.ntablespaces; i++) {
		_cleanup_close_ int fd = pgl_sys_open_dir(c.ts[i].location);

		if (fd < 0) {
			if (fd != -ENOENT)
				add_note(note, note_len, "tablespace directory %s kept: %s", c.ts[i].location,
					 dut_fs_safe_strerror(fd));
			continue;
		}
		if ((r = pgl_sys_empty_dir_at(fd, "PG_")) < 0) {
			dut_error_set(err, "cannot remove PG_* in %s: %s", c.ts[i].location,
				      dut_fs_safe_strerror(r));
			return r;
		}
	}
	if ((r = destroy_wal_dir(&c, note, note_len)) < 0)
		return r;
	dut_remove_tree(c.socket_dir);   /* /tmp/pgload-XXXXXX, checked on load */
	remove_passfile(&c);
	if ((r = dut_remove_tree(c.pgdata)) < 0) {
		dut_error_set(err, "cannot remove %s: %s", c.pgdata, dut_fs_safe_strerror(r));
		return r;
	}
	return 0;
}

int pgl_cluster_save(const struct pgl_cluster *c)
{
	return state_write(c);
}

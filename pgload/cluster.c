/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cluster life cycle: initdb / pg_ctl as user postgres, state file, clean-up. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "pgload/cluster.h"
#include "pgload/pgconn.h"
#include "pgload/standby.h"

/* --- running programs as postgres --------------------------------------- */

static int postgres_ids(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam("postgres");

	if (!pw)
		return -ENOENT;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static bool as_root(void)
{
	return geteuid() == 0;
}

/*
 * Run argv (as postgres when we are root) with stdout and stderr going to
 * out_fd.  Returns the exit status (0..255), or -errno.
 */
static int run_program(char *const argv[], int out_fd)
{
	const char *full[32];
	unsigned n = 0;
	int status;
	pid_t pid;

	if (as_root()) {
		full[n++] = "runuser";
		full[n++] = "-u";
		full[n++] = "postgres";
		full[n++] = "--";
	}
	for (unsigned i = 0; argv[i] && n < 31; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		if (out_fd >= 0) {
			dup2(out_fd, STDOUT_FILENO);
			dup2(out_fd, STDERR_FILENO);
		}
		execvp(full[0], (char *const *)full);
		fprintf(stderr, "cannot run %s: %s\n", full[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The last `lines` lines of a file, for error messages. */
static void file_tail(const char *path, unsigned lines, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char data[16384];
	off_t size;
	ssize_t n;
	const char *p;
	unsigned seen = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		return;
	n = pread(fd, data, sizeof(data) - 1,
		  size > (off_t)sizeof(data) - 1 ? size - (off_t)sizeof(data) + 1 : 0);
	if (n <= 0)
		return;
	data[n] = '\0';
	p = data + n;
	if (p > data && p[-1] == '\n')
		p--;
	while (p > data) {
		if (p[-1] == '\n' && ++seen == lines)
			break;
		p--;
	}
	/* Keep the end if it does not fit: the last lines say why. */
	n = (ssize_t)strlen(p);
	if ((size_t)n >= len)
		p += (size_t)n - (len - 1);
	memcpy(buf, p, strlen(p) + 1);
}

/* Run argv, capturing its output in a temp file; on failure put the tail in err. */
static int run_checked(char *const argv[], const char *what, struct dut_error *err)
{
	char path[] = "/tmp/pgload-out-XXXXXX";
	_cleanup_close_ int fd = mkstemp(path);
	char tail[400]; /* the end of the output: err->msg holds 512 bytes */
	int r;

	if (fd < 0)
		return -errno;
	r = run_program(argv, fd);
	if (r != 0) {
		file_tail(path, 20, tail, sizeof(tail));
		dut_error_set(err, "%s failed (%s %d):\n%s", what, r < 0 ? "error" : "exit status",
			      r < 0 ? -r : r, tail);
	}
	unlink(path);
	return r == 0 ? 0 : (r < 0 ? r : -EIO);
}

static int chown_postgres(const char *path)
{
	uid_t uid;
	gid_t gid;

	if (!as_root())
		return 0;
	if (postgres_ids(&uid, &gid) < 0)
		return -ENOENT;
	return chown(path, uid, gid) < 0 ? -errno : 0;
}

/* Can user postgres reach and write dir?  Checked in a child that drops to postgres. */
static int postgres_can_write(const char *dir)
{
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int status;

	if (!as_root())
		return access(dir, R_OK | W_OK | X_OK) < 0 ? -errno : 0;
	if (postgres_ids(&uid, &gid) < 0)
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(2);
		_exit(access(dir, R_OK | W_OK | X_OK) < 0 ? 1 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EACCES;
}

/* --- directories -------------------------------------------------------- */

/* 1 empty, 0 not empty, -errno (-ENOENT missing, -ENOTDIR). */
static int dir_empty(const char *path)
{
	_cleanup_closedir_ DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			return 0;
	return 1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

/* rm -rf without following symlinks or crossing into other mounts. */
static int remove_tree(const char *path)
{
	if (nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

static int absolute_path(const char *in, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (in[0] == '/')
		return snprintf(out, len, "%s", in) >= (int)len ? -ENAMETOOLONG : 0;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return snprintf(out, len, "%s/%s", cwd, in) >= (int)len ? -ENAMETOOLONG : 0;
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
	if (absolute_path(eq + 1, ret->location, sizeof(ret->location)) < 0) {
		dut_error_set(err, "tablespace directory \"%s\": path too long", eq + 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* --- ports -------------------------------------------------------------- */

static bool port_free(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	_cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return false;
	return bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
}

static int pick_port(void)
{
	unsigned start = (unsigned)(getpid() * 7919u + (unsigned)time(NULL)) % 20000u;

	for (unsigned i = 0; i < 20000; i++) {
		int port = 20000 + (int)((start + i) % 20000u);

		if (port_free(port))
			return port;
	}
	return -EADDRINUSE;
}

/* --- state file --------------------------------------------------------- */

static void state_path(const char *pgdata, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", pgdata, PGL_STATE_FILE);
}

static int state_write(const struct pgl_cluster *c)
{
	json_object *o = json_object_new_object(), *ts = json_object_new_array();
	char path[PATH_MAX + 32];
	const char *text;
	int r = 0;

	if (!o || !ts) {
		json_object_put(o);
		json_object_put(ts);
		return -ENOMEM;
	}
	json_object_object_add(o, "schema", json_object_new_string("pgload-cluster"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "pgdata", json_object_new_string(c->pgdata));
	json_object_object_add(o, "bindir", json_object_new_string(c->bindir));
	json_object_object_add(o, "socket_dir", json_object_new_string(c->socket_dir));
	json_object_object_add(o, "port", json_object_new_int(c->port));
	json_object_object_add(o, "wal_dir", c->wal_dir[0] ? json_object_new_string(c->wal_dir) : NULL);
	json_object_object_add(o, "wal_dir_created", json_object_new_boolean(c->wal_dir_created));
	for (unsigned i = 0; i < c->ntablespaces; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "name", json_object_new_string(c->ts[i].name));
		json_object_object_add(t, "location", json_object_new_string(c->ts[i].location));
		json_object_array_add(ts, t);
	}
	json_object_object_add(o, "tablespaces", ts);
	if (c->sb.is_standby) {
		json_object *sb = json_object_new_object();

		json_object_object_add(sb, "primary_pgdata", json_object_new_string(c->sb.primary_pgdata));
		json_object_object_add(sb, "application_name", json_object_new_string(c->sb.app_name));
		json_object_object_add(sb, "slot", c->sb.slot[0] ? json_object_new_string(c->sb.slot) : NULL);
		json_object_object_add(sb, "sync_set", json_object_new_boolean(c->sb.sync_set));
		json_object_object_add(o, "standby", sb);
	}
	state_path(c->pgdata, path, sizeof(path));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	/* durable: after a power cut the cluster must still be startable */
	r = text ? dut_write_file_atomic(path, text, strlen(text), 0644) : -ENOMEM;
	json_object_put(o);
	return r;
}

static int copy_str(json_object *o, const char *key, char *dst, size_t len, bool required)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		dst[0] = '\0';
		return required ? -EINVAL : 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	snprintf(dst, len, "%s", json_object_get_string(v));
	return 0;
}

int pgl_cluster_load(const char *pgdata, struct pgl_cluster *ret, struct dut_error *err)
{
	char path[PATH_MAX + 32], schema[32];
	struct pgl_cluster c;
	json_object *o, *v, *ts;
	int r = 0;

	memset(&c, 0, sizeof(c));
	state_path(pgdata, path, sizeof(path));
	if (access(path, F_OK) < 0) {
		int e = errno;

		dut_error_set(err, "%s is not a cluster made by pgload (no %s: %s)", pgdata,
			      PGL_STATE_FILE, strerror(e));
		return -e;
	}
	o = json_object_from_file(path);
	if (!o) {
		dut_error_set(err, "%s: cannot parse the state file (%s)", path, json_util_get_last_err());
		return -EINVAL;
	}
	if (copy_str(o, "schema", schema, sizeof(schema), true) < 0 || strcmp(schema, "pgload-cluster") ||
	    copy_str(o, "bindir", c.bindir, sizeof(c.bindir), true) < 0 ||
	    copy_str(o, "socket_dir", c.socket_dir, sizeof(c.socket_dir), true) < 0 ||
	    copy_str(o, "wal_dir", c.wal_dir, sizeof(c.wal_dir), false) < 0 ||
	    !json_object_object_get_ex(o, "port", &v) || !json_object_is_type(v, json_type_int))
		r = -EINVAL;
	if (r == 0) {
		c.port = json_object_get_int(v);
		if (json_object_object_get_ex(o, "wal_dir_created", &v))
			c.wal_dir_created = json_object_get_boolean(v);
		if (json_object_object_get_ex(o, "tablespaces", &ts) &&
		    json_object_is_type(ts, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(ts) && i < PGL_MAX_TABLESPACES; i++) {
				json_object *t = json_object_array_get_idx(ts, i);

				if (copy_str(t, "name", c.ts[i].name, sizeof(c.ts[i].name), true) < 0 ||
				    copy_str(t, "location", c.ts[i].location, sizeof(c.ts[i].location), true) < 0)
					r = -EINVAL;
				c.ntablespaces++;
			}
		}
		if (json_object_object_get_ex(o, "standby", &v) && json_object_is_type(v, json_type_object)) {
			json_object *b;

			c.sb.is_standby = true;
			if (copy_str(v, "primary_pgdata", c.sb.primary_pgdata, sizeof(c.sb.primary_pgdata), true) < 0 ||
			    copy_str(v, "application_name", c.sb.app_name, sizeof(c.sb.app_name), true) < 0 ||
			    copy_str(v, "slot", c.sb.slot, sizeof(c.sb.slot), false) < 0)
				r = -EINVAL;
			if (json_object_object_get_ex(v, "sync_set", &b))
				c.sb.sync_set = json_object_get_boolean(b);
		}
	}
	json_object_put(o);
	if (r < 0) {
		dut_error_set(err, "%s: not a pgload cluster state file (schema pgload-cluster, "
			      "with bindir, socket_dir and port)", path);
		return r;
	}
	if (absolute_path(pgdata, c.pgdata, sizeof(c.pgdata)) < 0)
		return -ENAMETOOLONG;
	*ret = c;
	return 0;
}

void pgl_cluster_conninfo(const struct pgl_cluster *c, char *buf, size_t len)
{
	snprintf(buf, len, "host=%s port=%d user=postgres dbname=postgres", c->socket_dir, c->port);
}

/* --- life cycle --------------------------------------------------------- */

static int ensure_socket_dir(struct pgl_cluster *c)
{
	struct stat st;

	if (c->socket_dir[0] && stat(c->socket_dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	snprintf(c->socket_dir, sizeof(c->socket_dir), "/tmp/pgload-XXXXXX");
	if (!mkdtemp(c->socket_dir))
		return -errno;
	return chown_postgres(c->socket_dir);
}

int pgl_cluster_running(const struct pgl_cluster *c, long *ret_pid)
{
	char path[PATH_MAX + 32];
	_cleanup_fclose_ FILE *f = NULL;
	long pid;

	snprintf(path, sizeof(path), "%s/postmaster.pid", c->pgdata);
	f = fopen(path, "re");
	if (!f || fscanf(f, "%ld", &pid) != 1 || pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 0;
	if (ret_pid)
		*ret_pid = pid;
	return 1;
}

int pgl_cluster_start(struct pgl_cluster *c, struct dut_error *err)
{
	char pg_ctl[PATH_MAX + 16], opts[PATH_MAX + 128], logf[PATH_MAX + 32];
	char tail[4096];
	int r;

	if (pgl_cluster_running(c, NULL)) {
		dut_error_set(err, "the server of %s is already running", c->pgdata);
		return -EALREADY;
	}
	if ((r = ensure_socket_dir(c)) < 0) {
		dut_error_set(err, "cannot create a socket directory in /tmp: %s", strerror(-r));
		return r;
	}
	if (!port_free(c->port)) {
		int p = pick_port();

		if (p < 0) {
			dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
			return p;
		}
		c->port = p;
	}
	if ((r = state_write(c)) < 0) {
		dut_error_set(err, "cannot write %s/%s: %s", c->pgdata, PGL_STATE_FILE, strerror(-r));
		return r;
	}
	snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	snprintf(opts, sizeof(opts), "-p %d -k %s -c listen_addresses=127.0.0.1", c->port,
		 c->socket_dir);
	snprintf(logf, sizeof(logf), "%s/%s", c->pgdata, PGL_SERVER_LOG);
	{
		char *argv[] = { pg_ctl, "-D", c->pgdata, "-l", logf, "-w", "-t", "120", "-o", opts,
				 "start", NULL };

		r = run_checked(argv, "pg_ctl start", err);
	}
	if (r < 0) {
		char pgctl_msg[sizeof(err->msg)];

		snprintf(pgctl_msg, sizeof(pgctl_msg), "%s", err->msg);
		file_tail(logf, 20, tail, sizeof(tail));
		dut_error_set(err, "the server did not start.\n%s\nlast lines of %s:\n%s", pgctl_msg,
			      logf, tail);
	}
	return r;
}

int pgl_cluster_stop(const struct pgl_cluster *c, bool immediate, struct dut_error *err)
{
	char pg_ctl[PATH_MAX + 16];
	char *argv[] = { pg_ctl, "-D", (char *)c->pgdata, "-m", immediate ? "immediate" : "fast",
			 "-w", "-t", "120", "stop", NULL };

	if (!pgl_cluster_running(c, NULL))
		return 0;
	snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	return run_checked(argv, "pg_ctl stop", err);
}

static int check_new_dirs(const struct pgl_cluster_init_opts *o, struct dut_error *err)
{
	int r = dir_empty(o->pgdata);

	if (r == 0) {
		dut_error_set(err, "%s is not empty: refusing to create a cluster there "
			      "(give a new or empty directory)", o->pgdata);
		return -ENOTEMPTY;
	}
	if (r < 0 && r != -ENOENT) {
		dut_error_set(err, "%s: %s", o->pgdata, strerror(-r));
		return r;
	}
	if (o->wal_dir && (r = dir_empty(o->wal_dir)) == 0) {
		dut_error_set(err, "WAL directory %s is not empty", o->wal_dir);
		return -ENOTEMPTY;
	}
	for (unsigned i = 0; i < o->ntablespaces; i++) {
		const struct pgl_tablespace *t = &o->ts[i];

		for (unsigned j = 0; j < i; j++) {
			if (strcmp(o->ts[j].name, t->name) == 0) {
				dut_error_set(err, "tablespace %s is given twice", t->name);
				return -EINVAL;
			}
		}
		r = dir_empty(t->location);
		if (r == 0) {
			dut_error_set(err, "tablespace %s: directory %s is not empty (give an empty directory)",
				      t->name, t->location);
			return -ENOTEMPTY;
		}
		if (r < 0) {
			dut_error_set(err, "tablespace %s: directory %s: %s (create it first)", t->name,
				      t->location, strerror(-r));
			return r;
		}
	}
	return 0;
}

static int append_settings(const struct pgl_cluster_init_opts *o, const char *pgdata,
			   struct dut_error *err)
{
	char path[PATH_MAX + 32];
	_cleanup_fclose_ FILE *f = NULL;

	if (o->nsets == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/postgresql.conf", pgdata);
	f = fopen(path, "ae");
	if (!f) {
		dut_error_set(err, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "\n# added by pgload cluster init --set\n");
	for (unsigned i = 0; i < o->nsets; i++) {
		const char *eq = strchr(o->sets[i], '=');

		/* Quote the value, doubling quotes, so any text is a valid setting. */
		fprintf(f, "%.*s = '", (int)(eq - o->sets[i]), o->sets[i]);
		for (const char *p = eq + 1; *p; p++)
			fprintf(f, *p == '\'' ? "''" : "%c", *p);
		fprintf(f, "'\n");
	}
	return fflush(f) == 0 ? 0 : -EIO;
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

int pgl_cluster_init(const struct pgl_cluster_init_opts *o, struct pgl_cluster *ret,
		     struct dut_error *err)
{
	struct pgl_cluster c;
	char initdb[PATH_MAX + 16], parent[PATH_MAX];
	int r;

	memset(&c, 0, sizeof(c));
	if (absolute_path(o->pgdata, c.pgdata, sizeof(c.pgdata)) < 0 ||
	    snprintf(c.bindir, sizeof(c.bindir), "%s", o->bindir ? o->bindir : PGL_DEFAULT_BINDIR) >= (int)sizeof(c.bindir))
		return -ENAMETOOLONG;
	snprintf(initdb, sizeof(initdb), "%s/initdb", c.bindir);
	if (access(initdb, X_OK) < 0) {
		dut_error_set(err, "%s: %s (give the PostgreSQL binaries with --bindir)", initdb,
			      strerror(errno));
		return -ENOENT;
	}
	if (as_root() && postgres_ids(&(uid_t){0}, &(gid_t){0}) < 0) {
		dut_error_set(err, "running as root, but there is no user postgres to run the server");
		return -ENOENT;
	}
	if ((r = check_new_dirs(o, err)) < 0)
		return r;
	if (o->wal_dir) {
		if (absolute_path(o->wal_dir, c.wal_dir, sizeof(c.wal_dir)) < 0)
			return -ENAMETOOLONG;
		c.wal_dir_created = access(c.wal_dir, F_OK) < 0;
		/* initdb runs as postgres and may not be allowed to create it: we do. */
		if (c.wal_dir_created && mkdir(c.wal_dir, 0700) < 0) {
			dut_error_set(err, "cannot create the WAL directory %s: %s", c.wal_dir,
				      strerror(errno));
			return -errno;
		}
		if ((r = chown_postgres(c.wal_dir)) < 0)
			goto fail_chown;
	}
	c.ntablespaces = o->ntablespaces;
	memcpy(c.ts, o->ts, sizeof(c.ts));
	if (mkdir(c.pgdata, 0700) < 0 && errno != EEXIST) {
		dut_error_set(err, "cannot create %s: %s", c.pgdata, strerror(errno));
		return -errno;
	}
	chmod(c.pgdata, 0700);
	if ((r = chown_postgres(c.pgdata)) < 0)
		goto fail_chown;
	for (unsigned i = 0; i < c.ntablespaces; i++)
		if ((r = chown_postgres(c.ts[i].location)) < 0)
			goto fail_chown;
	snprintf(parent, sizeof(parent), "%s", c.pgdata);
	if (postgres_can_write(c.pgdata) < 0) {
		dut_error_set(err, "user postgres cannot write %s: a parent directory is probably "
			      "not searchable (chmod o+x the parents)", c.pgdata);
		r = -EACCES;
		goto out_rmdir;
	}
	{
		char *argv[] = { initdb, "-D", c.pgdata, "--data-checksums", "-U", "postgres",
				 "--auth=trust", "-E", "UTF8", "--locale=C", "-N",
				 o->wal_dir ? "-X" : NULL, c.wal_dir, NULL };

		if ((r = run_checked(argv, "initdb", err)) < 0)
			goto out_rmdir;
	}
	if ((r = append_settings(o, c.pgdata, err)) < 0)
		goto out_rmdir;
	if ((c.port = pick_port()) < 0) {
		dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
		r = c.port;
		goto out_rmdir;
	}
	if ((r = pgl_cluster_start(&c, err)) < 0)
		return r; /* keep the cluster and its log for the user to look at */
	if ((r = create_tablespaces(&c, err)) < 0)
		return r;
	*ret = c;
	return 0;

fail_chown:
	dut_error_set(err, "cannot chown the cluster directories to postgres: %s", strerror(-r));
out_rmdir:
	/* We made pgdata (it was absent or empty): leave it absent or empty again. */
	{
		char state[PATH_MAX + 32];

		state_path(c.pgdata, state, sizeof(state));
		if (access(state, F_OK) < 0) {
			_cleanup_closedir_ DIR *d = opendir(c.pgdata);
			struct dirent *e;

			while (d && (e = readdir(d))) {
				char p[PATH_MAX + 256];

				if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
					continue;
				snprintf(p, sizeof(p), "%s/%s", c.pgdata, e->d_name);
				remove_tree(p);
			}
		}
	}
	return r;
}

int pgl_cluster_destroy(const char *pgdata, struct dut_error *err)
{
	struct pgl_cluster c;
	char path[PATH_MAX + 32];
	int r;

	if ((r = pgl_cluster_load(pgdata, &c, err)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/PG_VERSION", c.pgdata);
	if (access(path, F_OK) < 0) {
		dut_error_set(err, "%s has a pgload state file but no PG_VERSION: not removing it",
			      c.pgdata);
		return -EINVAL;
	}
	if (pgl_cluster_running(&c, NULL)) {
		struct dut_error e2;

		if (pgl_cluster_stop(&c, false, &e2) < 0 && (r = pgl_cluster_stop(&c, true, err)) < 0)
			return r;
	}
	/* Before its files go: the primary must not keep waiting for it or its WAL. */
	if (c.sb.is_standby && (r = pgl_standby_release(&c, err)) < 0)
		return r;
	/* Tablespace directories are the user's: remove only what PostgreSQL put in them. */
	for (unsigned i = 0; i < c.ntablespaces; i++) {
		_cleanup_closedir_ DIR *d = opendir(c.ts[i].location);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char p[PATH_MAX + 256];

			if (strncmp(e->d_name, "PG_", 3) != 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", c.ts[i].location, e->d_name);
			if ((r = remove_tree(p)) < 0) {
				dut_error_set(err, "cannot remove %s: %s", p, strerror(-r));
				return r;
			}
		}
	}
	if (c.wal_dir[0]) {
		if (c.wal_dir_created)
			r = remove_tree(c.wal_dir);
		else {
			_cleanup_closedir_ DIR *d = opendir(c.wal_dir);
			struct dirent *e;

			while (d && (e = readdir(d))) {
				char p[PATH_MAX + 256];

				if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
					continue;
				snprintf(p, sizeof(p), "%s/%s", c.wal_dir, e->d_name);
				remove_tree(p);
			}
		}
	}
	if (strncmp(c.socket_dir, "/tmp/pgload-", 12) == 0)
		remove_tree(c.socket_dir);
	if ((r = remove_tree(c.pgdata)) < 0) {
		dut_error_set(err, "cannot remove %s: %s", c.pgdata, strerror(-r));
		return r;
	}
	return 0;
}

/* --- shared with standby.c ---------------------------------------------- */

int pgl_sys_run(char *const argv[], const char *what, struct dut_error *err)
{
	return run_checked(argv, what, err);
}

void pgl_sys_file_tail(const char *path, unsigned lines, char *buf, size_t len)
{
	file_tail(path, lines, buf, len);
}

int pgl_sys_chown_postgres(const char *path)
{
	return chown_postgres(path);
}

int pgl_sys_postgres_can_write(const char *dir)
{
	return postgres_can_write(dir);
}

int pgl_sys_pick_port(void)
{
	return pick_port();
}

int pgl_sys_remove_tree(const char *path)
{
	return remove_tree(path);
}

int pgl_sys_dir_empty(const char *path)
{
	return dir_empty(path);
}

int pgl_sys_absolute_path(const char *in, char *out, size_t len)
{
	return absolute_path(in, out, len);
}

int pgl_cluster_save(const struct pgl_cluster *c)
{
	return state_write(c);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cluster's state file (pgload-cluster JSON beside PGDATA): written at
 * init and start, read by every later command (pgl_cluster_load). */
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
#include "pgload/cluster_priv.h"
#include "pgload/pgconn.h"

#define STATE_MAX_BYTES (1u << 20)

const char *pgl_cluster_secrets_dir(void)
{
	static char buf[64];

	if (geteuid() == 0)
		return PGL_SECRETS_DIR;
	snprintf(buf, sizeof(buf), PGL_SECRETS_DIR_USER "%u", (unsigned)geteuid());
	return buf;
}

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

int pgl_cluster_save(const struct pgl_cluster *c)
{
	return state_write(c);
}

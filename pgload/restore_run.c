/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pgload restore dump` and `pgload restore run` (see restore.h, restore_sys.h).  Prints nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "pgload/mark.h"
#include "pgload/pgconn.h"
#include "pgload/psi_linux.h"
#include "pgload/restore_sys.h"

#define CONNINFO_MAX 4096

/* "pg_dump failed (exit status 1): <its last stderr lines>" */
static int child_failed(const char *what, const struct pgl_child *c, struct dut_error *err)
{
	dut_error_set(err, "%s failed (exit status %d):\n%s", what, c->status,
		      c->err_tail[0] ? c->err_tail : "(it printed nothing)\n");
	return -EIO;
}

static int run_checked(char *const argv[], const char *out, const char *pw, const char *what,
		       struct pgl_child *c, struct dut_error *err)
{
	int r = pgl_child_run(argv, out, pw, c, err);

	if (r < 0)
		return r;
	if (c->status == 127 && strstr(c->err_tail, "cannot run")) {
		dut_error_set(err, "%s: %s(is --bindir right?)", what, c->err_tail);
		return -ENOENT;
	}
	return c->status ? child_failed(what, c, err) : 0;
}

/* --- dump --------------------------------------------------------------- */

/* Generate "oltp:SCALE" or "dss:SF" into a new database; its conninfo in buf. */
static int generate(const struct pgl_restore_dump_opts *o, PGconn *server, char *buf,
		    size_t len, char **pw, struct dut_error *err)
{
	char kind[8] = "", scale[32] = "";
	const char *colon = strchr(o->generate, ':');
	struct pgl_child c;
	int r;

	if (!colon || (size_t)(colon - o->generate) >= sizeof(kind) || !colon[1] ||
	    strlen(colon + 1) >= sizeof(scale)) {
		dut_error_set(err, "--generate %s: expected oltp:SCALE or dss:SF", o->generate);
		return -EINVAL;
	}
	memcpy(kind, o->generate, (size_t)(colon - o->generate));
	snprintf(scale, sizeof(scale), "%s", colon + 1);
	if (strcmp(kind, "oltp") && strcmp(kind, "dss")) {
		dut_error_set(err, "--generate %s: unknown kind \"%s\" (expected oltp or dss)",
			      o->generate, kind);
		return -EINVAL;
	}
	if ((r = pgl_database_exists(server, o->dbname, err)) < 0)
		return r;
	if (r && !o->clean) {
		dut_error_set(err, "database %s exists on the source server; give --clean to drop "
			      "and regenerate it, or --source to dump it as it is", o->dbname);
		return -EEXIST;
	}
	if ((r = pgl_database_create(server, o->dbname, true, err)) < 0)
		return r;
	if ((r = pgl_conninfo_for_db(server, o->dbname, buf, len, pw)) < 0) {
		dut_error_set(err, "conninfo too long");
		return r;
	}
	char *const oltp[] = { (char *)o->self, "init", "-d", buf, "-s", scale, "-q", NULL };
	char *const dss[] = { (char *)o->self, "dss", "-d", buf, "-s", scale, "--phases",
			      "load,keys", "--quiet", NULL };
	return run_checked(kind[0] == 'o' ? oltp : dss, NULL, *pw, "generating the source", &c, err);
}

static int write_sidecar(const char *dump, const struct pgl_restore_sidecar *s, struct dut_error *err)
{
	char path[PATH_MAX];
	json_object *doc = pgl_restore_sidecar_to_json(s);
	int r = 0;

	if (!doc)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s.json", dump);
	if (json_object_to_file_ext(path, doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) < 0) {
		dut_error_set(err, "cannot write %s: %s", path, json_util_get_last_err());
		r = -EIO;
	}
	json_object_put(doc);
	return r;
}

int pgl_restore_dump(const struct pgl_restore_dump_opts *o, struct pgl_restore_sidecar *ret,
		     struct dut_error *err)
{
	struct pgl_restore_sidecar s = { 0 };
	char conninfo[CONNINFO_MAX], pg_dump[PATH_MAX];
	_cleanup_free_ char *pw = NULL;
	PGconn *src = NULL, *server = NULL;
	struct pgl_child c;
	struct stat st;
	int r;

	if (o->generate) {
		if ((r = pgl_pq_connect(o->server, &server, err)) < 0)
			return r;
		r = generate(o, server, conninfo, sizeof(conninfo), &pw, err);
		if (r == 0)
			r = pgl_pq_connect_db(o->server, o->dbname, &src, err);
		PQfinish(server);
	} else if ((r = pgl_pq_connect(o->source, &src, err)) == 0 &&
		   pgl_conninfo_for_db(src, NULL, conninfo, sizeof(conninfo), &pw) < 0) {
		dut_error_set(err, "conninfo too long");
		r = -ENAMETOOLONG;
	}
	if (r < 0)
		goto out;
	snprintf(pg_dump, sizeof(pg_dump), "%s/pg_dump", o->bindir);
	char *const argv[] = { pg_dump, "-Fc", "-f", (char *)o->out, "-d", conninfo, NULL };
	if ((r = run_checked(argv, NULL, pw, "pg_dump", &c, err)) < 0)
		goto out;
	if (stat(o->out, &st) < 0) {
		r = -errno;
		dut_error_set(err, "pg_dump wrote no %s: %s", o->out, strerror(errno));
		goto out;
	}
	snprintf(s.source, sizeof(s.source), "%s", conninfo);
	snprintf(s.dbname, sizeof(s.dbname), "%s", PQdb(src));
	snprintf(s.server_version, sizeof(s.server_version), "%s",
		 PQparameterStatus(src, "server_version") ? PQparameterStatus(src, "server_version") : "");
	dut_host_utc_now(s.created, sizeof(s.created));
	s.dump_bytes = (uint64_t)st.st_size;
	s.dump_ns = c.wall_ns;
	if ((r = pgl_restore_catalog_read(src, &s.cat, err)) < 0)
		goto out;
	if ((r = write_sidecar(o->out, &s, err)) < 0) {
		pgl_restore_catalog_free(&s.cat);
		goto out;
	}
	*ret = s;
out:
	if (src)
		PQfinish(src);
	return r;
}

/* --- run ---------------------------------------------------------------- */

struct run_ctx {
	const struct pgl_restore_run_opts *o;
	struct pgl_restore_result *res;
	char conninfo[CONNINFO_MAX];    /* of the target database */
	char *pw;
	char tmpdir[64];
	char *toc;                      /* pg_restore -l */
	struct pgl_marker marker;
	struct pgl_server_cpu cpu;
};

/* A phase marker; one dutfs did not take is noted, and the restore goes on. */
static void mark(struct run_ctx *x, const char *label)
{
	struct dut_error e;

	if (pgl_mark(&x->marker, label, &e) < 0)
		pgl_note(&x->res->notes, "%s", e.msg);
}

/* pg_restore -l into ctx->toc, and one list file per post-data phase. */
static int make_lists(struct run_ctx *x, struct dut_error *err)
{
	char pg_restore[PATH_MAX], path[128];
	struct pgl_child c;
	int r;

	snprintf(pg_restore, sizeof(pg_restore), "%s/pg_restore", x->o->bindir);
	snprintf(path, sizeof(path), "%s/toc.list", x->tmpdir);
	char *const argv[] = { pg_restore, "-l", (char *)x->o->dump, NULL };
	if ((r = run_checked(argv, path, NULL, "pg_restore -l (listing the dump)", &c, err)) < 0)
		return r;
	if ((r = dut_read_text_alloc(path, 256u << 20, &x->toc, NULL)) < 0) {
		dut_error_set(err, "reading %s: %s", path, strerror(-r));
		return r;
	}
	for (unsigned p = PGL_RS_INDEXES; p < PGL_RS_NPHASES; p++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.list", x->tmpdir, pgl_restore_phase_name(p));
		if (!(f = fopen(path, "w"))) {
			dut_error_set(err, "cannot write %s: %s", path, strerror(errno));
			return -errno;
		}
		r = pgl_restore_toc_select(x->toc, p, f);
		if (fclose(f) != 0 && r >= 0)
			r = -EIO;
		if (r < 0) {
			dut_error_set(err, "cannot make the list of %s entries: %s",
				      pgl_restore_phase_name(p), strerror(-r));
			return r;
		}
		x->res->ph[p].entries = p == PGL_RS_POST_OTHER ? -1 : r;
	}
	r = pgl_restore_toc_count_type(x->toc, "TABLE DATA");
	x->res->ph[PGL_RS_DATA].entries = r < 0 ? -1 : r;
	x->res->ph[PGL_RS_PRE_DATA].entries = -1;
	return 0;
}

static unsigned usable(unsigned jobs, int entries, unsigned cpus)
{
	unsigned u = jobs < cpus ? jobs : cpus;

	return entries >= 0 && (unsigned)entries < u ? (unsigned)entries : u;
}

/* The server's I/O over the phase, or why it is unknown (the first reason is kept). */
static void server_io(struct run_ctx *x, struct pgl_restore_phase_result *ph,
		      const struct pgl_server_sample *s0, const struct pgl_server_sample *s1)
{
	const struct pgl_proc_io *a = &s0->io, *b = &s1->io;
	int why = s0->io_r ? s0->io_r : s1->io_r;

	ph->pr.server_io_known = ph->server_cpu_known && !why;
	if (ph->pr.server_io_known) {
		/* a backend alive at the start and reaped by the end: the sums can shrink; clamp */
		ph->pr.server_io = (struct pgl_proc_io){
			.rchar = b->rchar > a->rchar ? b->rchar - a->rchar : 0,
			.wchar = b->wchar > a->wchar ? b->wchar - a->wchar : 0,
			.read_bytes = b->read_bytes > a->read_bytes ? b->read_bytes - a->read_bytes : 0,
			.write_bytes = b->write_bytes > a->write_bytes ? b->write_bytes - a->write_bytes : 0,
			.cancelled_write_bytes = b->cancelled_write_bytes > a->cancelled_write_bytes ?
				b->cancelled_write_bytes - a->cancelled_write_bytes : 0,
		};
	} else if (ph->server_cpu_known && !x->res->server_io_note[0]) {
		snprintf(x->res->server_io_note, sizeof(x->res->server_io_note),
			 "/proc/PID/io of the server's processes: %s%s", strerror(-why),
			 why == -EACCES ? " (run as root or as the server's user)" : "");
	}
}

static int run_phase(struct run_ctx *x, enum pgl_restore_phase p, struct dut_error *err)
{
	struct pgl_restore_phase_result *ph = &x->res->ph[p];
	char pg_restore[PATH_MAX], jobs[16], list[128], section[32], label[64], what[96];
	char *argv[16];
	unsigned n = 0;
	struct pgl_server_sample s0, s1;
	struct pgl_phase_sampler smp;
	struct pgl_child c;
	int r;

	if (ph->entries == 0)
		return 0; /* nothing of this kind in the dump */
	snprintf(pg_restore, sizeof(pg_restore), "%s/pg_restore", x->o->bindir);
	snprintf(jobs, sizeof(jobs), "-j%u", x->o->jobs);
	snprintf(section, sizeof(section), "--section=%s",
		 p == PGL_RS_PRE_DATA ? "pre-data" : p == PGL_RS_DATA ? "data" : "post-data");
	argv[n++] = pg_restore;
	argv[n++] = "--exit-on-error";
	argv[n++] = "--no-owner";
	argv[n++] = jobs;
	argv[n++] = section;
	if (p >= PGL_RS_INDEXES) {
		snprintf(list, sizeof(list), "-L%s/%s.list", x->tmpdir, pgl_restore_phase_name(p));
		argv[n++] = list;
	}
	argv[n++] = "-d";
	argv[n++] = x->conninfo;
	argv[n++] = (char *)x->o->dump;
	argv[n] = NULL;

	snprintf(label, sizeof(label), "restore/%s start", pgl_restore_phase_name(p));
	mark(x, label);
	ph->server_cpu_known = pgl_server_sample_now(&x->cpu, &s0) == 0;
	pgl_phase_sampler_start(&smp);
	r = pgl_child_run(argv, NULL, x->pw, &c, err);
	pgl_phase_sampler_stop(&smp, &ph->pr);
	ph->server_cpu_known &= pgl_server_sample_now(&x->cpu, &s1) == 0;
	snprintf(label, sizeof(label), "restore/%s end", pgl_restore_phase_name(p));
	mark(x, label);
	if (r < 0)
		return r;
	ph->ran = true;
	ph->wall_ns = c.wall_ns;
	ph->client_cpu_ns = c.cpu_ns;
	ph->server_cpu_ns = ph->server_cpu_known && s1.cpu_ns > s0.cpu_ns ? s1.cpu_ns - s0.cpu_ns : 0;
	server_io(x, ph, &s0, &s1);
	ph->usable_cpus = p == PGL_RS_PRE_DATA ? 1 : usable(x->o->jobs, ph->entries, x->res->cpus);
	if (c.status) {
		snprintf(what, sizeof(what), "pg_restore (phase %s)", pgl_restore_phase_name(p));
		child_failed(what, &c, err);
		return -EIO;
	}
	return 0;
}

/* Server facts for the report, the target database, markers, CPU. */
static int prepare_target(struct run_ctx *x, PGconn *admin, struct dut_error *err)
{
	struct pgl_restore_result *res = x->res;
	char bs[32] = "";
	int r, exists;

	snprintf(res->server_version, sizeof(res->server_version), "%s",
		 PQparameterStatus(admin, "server_version") ? PQparameterStatus(admin, "server_version") : "");
	if (pgl_pq_value(admin, "SHOW block_size", bs, sizeof(bs), NULL) == 0)
		res->block_size = (uint32_t)strtoul(bs, NULL, 10);
	if (pgl_pq_value(admin, "SHOW data_directory", res->data_directory,
			 sizeof(res->data_directory), NULL) < 0)
		res->data_directory[0] = '\0';
	if ((exists = pgl_database_exists(admin, x->o->dbname, err)) < 0)
		return exists;
	if (exists && !x->o->clean) {
		dut_error_set(err, "database %s exists on the target; give --clean to drop and "
			      "recreate it, or --dbname another name", x->o->dbname);
		return -EEXIST;
	}
	if ((r = pgl_conninfo_for_db(admin, x->o->dbname, x->conninfo, sizeof(x->conninfo), &x->pw)) < 0) {
		dut_error_set(err, "conninfo too long");
		return r;
	}
	if ((r = pgl_marker_open(&x->marker, x->o->dutfs_control,
				 res->data_directory[0] ? res->data_directory : NULL, err)) < 0)
		return r;
	res->markers_where = x->marker.where;
	if (x->marker.refused.msg[0])
		pgl_note(&res->notes, "%s", x->marker.refused.msg);
	pgl_server_cpu_open(&x->cpu, admin, res->data_directory);
	snprintf(res->server_cpu_note, sizeof(res->server_cpu_note), "%s", x->cpu.note);
	if ((r = pgl_database_create(admin, x->o->dbname, exists, err)) < 0)
		return r;
	return 0;
}

/* Compare the restored database with the sidecar; count rows if there is none. */
static int check(struct run_ctx *x, const struct pgl_restore_sidecar *sc, bool have_sc,
		 struct dut_error *err)
{
	struct pgl_restore_catalog got;
	PGconn *c;
	int r;

	if ((r = pgl_pq_connect_db(x->o->conninfo, x->o->dbname, &c, err)) < 0)
		return r;
	r = pgl_restore_catalog_read(c, &got, err);
	PQfinish(c);
	if (r < 0)
		return r;
	if (have_sc) {
		x->res->checked = true;
		x->res->differences = pgl_restore_catalog_diff(&sc->cat, &got, x->res->diff,
							       sizeof(x->res->diff));
	} else {
		x->res->rows = pgl_restore_catalog_rows(&got);
	}
	pgl_restore_catalog_free(&got);
	return 0;
}

static int load_sidecar(const char *dump, struct pgl_restore_sidecar *ret, struct dut_error *err)
{
	char path[PATH_MAX];
	struct dut_error e = { "" };
	json_object *doc;
	int r;

	snprintf(path, sizeof(path), "%s.json", dump);
	if (access(path, F_OK) < 0)
		return 0;
	if (!(doc = json_object_from_file(path))) {
		dut_error_set(err, "%s is not JSON: %s", path, json_util_get_last_err());
		return -EINVAL;
	}
	r = pgl_restore_sidecar_from_json(doc, ret, &e);
	json_object_put(doc);
	if (r < 0) {
		dut_error_set(err, "%s: %s (remake the dump with pgload restore dump)", path, e.msg);
		return r;
	}
	return 1;
}

int pgl_restore_run(const struct pgl_restore_run_opts *o, struct pgl_restore_result *ret,
		    struct dut_error *err)
{
	struct run_ctx x = { .o = o, .res = ret, .marker = { .fd = -1 } };
	struct pgl_restore_sidecar sc = { 0 };
	struct stat st;
	PGconn *admin = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int r, have_sc;

	memset(ret, 0, sizeof(*ret));
	ret->rows = -1;
	ret->jobs = o->jobs;
	ret->cpus = ncpu > 0 ? (unsigned)ncpu : 1;
	snprintf(ret->dump, sizeof(ret->dump), "%s", o->dump);
	snprintf(ret->dbname, sizeof(ret->dbname), "%s", o->dbname);
	if (stat(o->dump, &st) < 0 || !S_ISREG(st.st_mode)) {
		dut_error_set(err, "dump %s: %s (make one with pgload restore dump)", o->dump,
			      errno ? strerror(errno) : "not a regular file");
		return -ENOENT;
	}
	ret->dump_bytes = (uint64_t)st.st_size;
	if ((have_sc = load_sidecar(o->dump, &sc, err)) < 0)
		return have_sc;
	if (have_sc)
		ret->rows = pgl_restore_catalog_rows(&sc.cat);
	snprintf(x.tmpdir, sizeof(x.tmpdir), "/tmp/pgload-restore-XXXXXX");
	if (!mkdtemp(x.tmpdir)) {
		r = -errno;
		dut_error_set(err, "mkdtemp %s: %s", x.tmpdir, strerror(errno));
		x.tmpdir[0] = '\0';
		goto out;
	}
	if ((r = make_lists(&x, err)) < 0)
		goto out;
	if ((r = pgl_pq_connect(o->conninfo, &admin, err)) < 0)
		goto out;
	if ((r = pgl_conninfo_for_db(admin, NULL, ret->target, sizeof(ret->target), NULL)) < 0)
		goto out;
	if ((r = prepare_target(&x, admin, err)) < 0)
		goto out;
	for (unsigned p = 0; p < PGL_RS_NPHASES && r == 0; p++)
		r = run_phase(&x, p, err);
	if (r == 0 && o->verify)
		r = check(&x, &sc, have_sc, err);
out:
	if (admin)
		PQfinish(admin);
	pgl_marker_close(&x.marker);
	if (x.tmpdir[0])
		dut_remove_tree(x.tmpdir);   /* fd-relative, no links followed */
	free(x.toc);
	free(x.pw);
	pgl_restore_catalog_free(&sc.cat);
	return r;
}

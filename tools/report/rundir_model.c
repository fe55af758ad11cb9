/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.json of a run directory -> struct rundir_model (pure; json-c). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/run_manifest.h"
#include "tools/report/rundir_model.h"

DUT_DEFINE_FREEP(json_object *, json_object_put)

/* Where the parser is: the file name and the member path, for messages. */
struct mctx {
	const char *fname;
	struct dut_error *err;
};

/* A member path into buf (vsnprintf: a path longer than buf is cut, which only shortens a message). */
static void pathf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

static const char *found(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number";
	case json_type_int: return json_object_get_int64(o) < 0 ? "a negative integer" : "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}

static int bad(const struct mctx *x, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const struct mctx *x, const char *path, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	dut_error_set(x->err, "%s: %s%s%s", x->fname, path, *path ? ": " : "", what);
	return -EINVAL;
}

/* A member of type t; absent (or null) -> *ret NULL, an error only when required. */
static int member(const struct mctx *x, json_object *obj, const char *path, const char *key,
		  json_type t, bool required, json_object **ret)
{
	static const char *const want[] = {
		[json_type_string] = "a string", [json_type_int] = "an integer",
		[json_type_object] = "an object", [json_type_array] = "an array",
		[json_type_boolean] = "a boolean",
	};
	char p[256];
	json_object *v;

	pathf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
		*ret = NULL;
		return required ? bad(x, p, "missing (expected %s)", want[t]) : 0;
	}
	if (!json_object_is_type(v, t))
		return bad(x, p, "expected %s, found %s", want[t], found(v));
	*ret = v;
	return 0;
}

static int get_str(const struct mctx *x, json_object *obj, const char *path, const char *key,
		   bool required, char **ret)
{
	json_object *v;
	int r = member(x, obj, path, key, json_type_string, required, &v);

	if (r < 0)
		return r;
	*ret = strdup(v ? json_object_get_string(v) : "");
	return *ret ? 0 : -ENOMEM;
}

static int get_uint(const struct mctx *x, json_object *obj, const char *path, const char *key,
		    bool required, uint64_t max, uint64_t *ret)
{
	json_object *v;
	int r = member(x, obj, path, key, json_type_int, required, &v);
	int64_t n;

	if (r < 0)
		return r;
	n = v ? json_object_get_int64(v) : 0;
	if (n < 0 || (uint64_t)n > max) {
		char p[256];

		pathf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
		return bad(x, p, "%" PRId64 " is out of range (0..%" PRIu64 ")", n, max);
	}
	*ret = (uint64_t)n;
	return 0;
}

/*
 * A path the report opens, relative to the run (or rep) directory: it must
 * stay inside it, so a manifest cannot point the report at /etc/shadow.
 */
static int check_rel_path(const struct mctx *x, const char *path, const char *key, const char *v)
{
	char p[256];

	pathf(p, sizeof(p), "%s.%s", path, key);
	if (!*v)
		return bad(x, p, "empty path");
	if (v[0] == '/')
		return bad(x, p, "\"%s\" is absolute: expected a path inside the run directory", v);
	for (const char *s = v; s; s = strchr(s, '/')) {
		s += *s == '/';
		if (strncmp(s, "..", 2) == 0 && (s[2] == '/' || !s[2]))
			return bad(x, p, "\"%s\" leaves the run directory (..)", v);
	}
	return 0;
}

static int get_path(const struct mctx *x, json_object *obj, const char *path, const char *key,
		    bool required, char **ret)
{
	int r = get_str(x, obj, path, key, required, ret);

	if (r < 0)
		return r;
	if (!**ret && !required) {
		free(*ret);
		*ret = NULL;
		return 0;
	}
	return check_rel_path(x, path, key, *ret);
}

static int parse_step(const struct mctx *x, json_object *o, const char *path, struct rundir_step *s)
{
	json_object *res, *ec, *dc, *dev;
	char dp[256];
	uint64_t wall;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(x, path, "expected an object, found %s", found(o));
	if (json_object_object_get_ex(o, DUT_RM_DUTFS_CPU_S, &dc) && !json_object_is_type(dc, json_type_double) &&
	    !json_object_is_type(dc, json_type_int))
		return bad(x, path, "dutfs_cpu_s: expected a number, found %s", found(dc));
	s->dutfs_cpu_s = dc ? json_object_get_double(dc) : NAN;
	if ((r = get_str(x, o, path, DUT_RM_NAME, true, &s->name)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_TYPE, false, &s->type)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_TOOL, false, &s->tool)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_STATUS, true, &s->status)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_MARK, false, &s->mark)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_STARTED_AT, false, &s->started_at)) < 0 ||
	    (r = get_uint(x, o, path, DUT_RM_WALL_NS, false, UINT64_MAX, &wall)) < 0 ||
	    (r = member(x, o, path, DUT_RM_EXIT_CODE, json_type_int, false, &ec)) < 0 ||
	    (r = member(x, o, path, DUT_RM_RESULTS, json_type_array, false, &res)) < 0 ||
	    (r = member(x, o, path, DUT_RM_DEVICE, json_type_object, false, &dev)) < 0)
		return r;
	pathf(dp, sizeof(dp), "%s.device", path);
	if ((r = get_str(x, dev, dp, "experiment_target", false, &s->experiment_target)) < 0 ||
	    (r = get_str(x, dev, dp, "experiment_path", false, &s->experiment_path)) < 0)
		return r;
	if (!*s->mark) {
		free(s->mark);
		if (!(s->mark = strdup(s->name)))
			return -ENOMEM;
	}
	s->wall_ns = wall;
	s->exit_code = ec ? json_object_get_int(ec) : 0;
	s->ndocs = res ? json_object_array_length(res) : 0;
	s->docs = calloc(s->ndocs + 1, sizeof(*s->docs));
	if (!s->docs)
		return -ENOMEM;
	for (size_t i = 0; i < s->ndocs; i++) {
		json_object *f = json_object_array_get_idx(res, i);
		char p[256];

		pathf(p, sizeof(p), "%s.results[%zu]", path, i);
		if (!json_object_is_type(f, json_type_string))
			return bad(x, p, "expected a string (a file name), found %s", found(f));
		s->docs[i].file = strdup(json_object_get_string(f));
		if (!s->docs[i].file)
			return -ENOMEM;
		if ((r = check_rel_path(x, path, "results[]", s->docs[i].file)) < 0)
			return r;
	}
	return 0;
}

/* artifacts "trace-<target>": the traces of the other mounts */
static int parse_more_traces(const struct mctx *x, json_object *art, const char *path, struct rundir_rep *rp)
{
	size_t n = 0;
	int r;

	json_object_object_foreach(art, key, val) {
		(void)val;
		n += strncmp(key, "trace-", 6) == 0;
	}
	if (n == 0)
		return 0;
	rp->more_traces = calloc(n, sizeof(*rp->more_traces));
	rp->more_io = calloc(n, sizeof(*rp->more_io));
	if (!rp->more_traces || !rp->more_io)
		return -ENOMEM;
	json_object_object_foreach(art, k2, v2) {
		(void)v2;
		if (strncmp(k2, "trace-", 6) != 0)
			continue;
		/* counted before the check: a refused path is freed with the rep */
		r = get_path(x, art, path, k2, true, &rp->more_traces[rp->nmore++]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Whether the ", "-separated list has item. */
static bool list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
		if (strncmp(p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* The rep's "targets" (optional): filesystems and dutfs mounts, for the Configurations table. */
static int parse_rep_targets(const struct mctx *x, json_object *o, const char *path, struct rundir_rep *rp)
{
	json_object *tg, *fs, *dutfs;
	size_t len = 0;
	char p[256];
	int r;

	rp->dutfs_mounts = -1;
	if ((r = member(x, o, path, DUT_RM_TARGETS, json_type_array, false, &tg)) < 0)
		return r;
	if (!(rp->filesystems = calloc(1, 1)))
		return -ENOMEM;
	if (!tg)
		return 0;
	rp->dutfs_mounts = 0;
	for (size_t i = 0; i < json_object_array_length(tg); i++) {
		json_object *t = json_object_array_get_idx(tg, i);
		const char *f;
		char *nf;

		pathf(p, sizeof(p), "%s.targets[%zu]", path, i);
		if (!json_object_is_type(t, json_type_object))
			return bad(x, p, "expected an object, found %s", found(t));
		if ((r = member(x, t, p, DUT_RM_FILESYSTEM, json_type_string, false, &fs)) < 0 ||
		    (r = member(x, t, p, DUT_RM_DUTFS, json_type_boolean, false, &dutfs)) < 0)
			return r;
		rp->dutfs_mounts += dutfs && json_object_get_boolean(dutfs);
		f = fs ? json_object_get_string(fs) : "";
		if (!*f || list_has(rp->filesystems, f))
			continue;
		if (!(nf = realloc(rp->filesystems, len + strlen(f) + 3)))
			return -ENOMEM;
		rp->filesystems = nf;
		len += (size_t)sprintf(nf + len, "%s%s", len ? ", " : "", f);
	}
	return 0;
}

static int parse_rep(const struct mctx *x, json_object *o, const char *path, struct rundir_rep *rp)
{
	json_object *steps, *art;
	uint64_t n;
	char p[256];
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(x, path, "expected an object, found %s", found(o));
	if ((r = get_uint(x, o, path, DUT_RM_REP, true, 1000000, &n)) < 0 ||
	    (r = get_path(x, o, path, DUT_RM_DIR, true, &rp->dir)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_STATUS, true, &rp->status)) < 0 ||
	    (r = member(x, o, path, DUT_RM_STEPS, json_type_array, false, &steps)) < 0 ||
	    (r = member(x, o, path, DUT_RM_ARTIFACTS, json_type_object, false, &art)) < 0 ||
	    (r = parse_rep_targets(x, o, path, rp)) < 0)
		return r;
	rp->rep = (unsigned)n;
	if (art) {
		pathf(p, sizeof(p), "%s.artifacts", path);
		if ((r = get_path(x, art, p, DUT_RM_TRACE, false, &rp->trace)) < 0 ||
		    (r = get_path(x, art, p, "relmap", false, &rp->relmap)) < 0 ||
		    (r = parse_more_traces(x, art, p, rp)) < 0)
			return r;
	}
	rp->nsteps = steps ? json_object_array_length(steps) : 0;
	rp->steps = calloc(rp->nsteps + 1, sizeof(*rp->steps));
	if (!rp->steps)
		return -ENOMEM;
	for (size_t i = 0; i < rp->nsteps; i++) {
		pathf(p, sizeof(p), "%s.steps[%zu]", path, i);
		if ((r = parse_step(x, json_object_array_get_idx(steps, i), p, &rp->steps[i])) < 0)
			return r;
	}
	return 0;
}

/*
 * "postgres": { "major", "version", "bindir", "block_size_kb", "wal_block_size_kb" }
 * (absent before #22, null without a cluster; the block sizes from #26)
 */
static int parse_config_pg(const struct mctx *x, json_object *o, const char *path, struct rundir_config *c)
{
	json_object *pg;
	uint64_t kb = 0;
	char p[256];
	int r;

	if ((r = member(x, o, path, DUT_RM_POSTGRES, json_type_object, false, &pg)) < 0)
		return r;
	if (!pg) {
		c->pg_version = strdup("");
		c->pg_bindir = strdup("");
		return c->pg_version && c->pg_bindir ? 0 : -ENOMEM;
	}
	pathf(p, sizeof(p), "%s.postgres", path);
	if ((r = get_str(x, pg, p, DUT_RM_VERSION, false, &c->pg_version)) < 0 ||
	    (r = get_str(x, pg, p, DUT_RM_BINDIR, false, &c->pg_bindir)) < 0 ||
	    (r = get_uint(x, pg, p, DUT_RM_BLOCK_SIZE_KB, false, 32, &kb)) < 0)
		return r;
	c->pg_block_kb = (unsigned)kb;
	kb = 0;
	if ((r = get_uint(x, pg, p, DUT_RM_WAL_BLOCK_SIZE_KB, false, 64, &kb)) < 0)
		return r;
	c->pg_wal_block_kb = (unsigned)kb;
	return 0;
}

static int parse_config(const struct mctx *x, json_object *o, const char *path, struct rundir_config *c)
{
	json_object *reps;
	uint64_t idx;
	char p[256];
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(x, path, "expected an object, found %s", found(o));
	if ((r = get_uint(x, o, path, DUT_RM_INDEX, true, 10000, &idx)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_NAME, true, &c->name)) < 0 ||
	    (r = get_path(x, o, path, DUT_RM_DIR, true, &c->dir)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_STATUS, true, &c->status)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_REASON, false, &c->reason)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_VIEW, false, &c->view)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_FILESYSTEM, false, &c->filesystem)) < 0 ||
	    (r = get_str(x, o, path, DUT_RM_REPLICA, false, &c->replica)) < 0 ||
	    (r = get_uint(x, o, path, DUT_RM_MEMORY_BUDGET_BYTES, false, UINT64_MAX,
			  &c->memory_budget_bytes)) < 0 ||
	    (r = member(x, o, path, DUT_RM_REPS, json_type_array, false, &reps)) < 0)
		return r;
	if ((r = parse_config_pg(x, o, path, c)) < 0)
		return r;
	c->index = (unsigned)idx;
	c->nreps = reps ? json_object_array_length(reps) : 0;
	c->reps = calloc(c->nreps + 1, sizeof(*c->reps));
	if (!c->reps)
		return -ENOMEM;
	for (size_t i = 0; i < c->nreps; i++) {
		pathf(p, sizeof(p), "%s.reps[%zu]", path, i);
		if ((r = parse_rep(x, json_object_array_get_idx(reps, i), p, &c->reps[i])) < 0)
			return r;
	}
	return 0;
}

static int parse_host(const struct mctx *x, json_object *root, struct rundir_model *m)
{
	json_object *h;
	_cleanup_free_ char *hn = NULL, *k = NULL, *cpu = NULL;
	uint64_t cpus, mem;
	int r;

	if ((r = member(x, root, "", DUT_RM_HOST, json_type_object, false, &h)) < 0 || !h)
		return r;
	if ((r = get_str(x, h, DUT_RM_HOST, DUT_RM_HOSTNAME, false, &hn)) < 0 ||
	    (r = get_str(x, h, DUT_RM_HOST, DUT_RM_KERNEL, false, &k)) < 0 ||
	    (r = get_str(x, h, DUT_RM_HOST, DUT_RM_CPU_MODEL, false, &cpu)) < 0 ||
	    (r = get_uint(x, h, DUT_RM_HOST, DUT_RM_CPUS, false, 1u << 20, &cpus)) < 0 ||
	    (r = get_uint(x, h, DUT_RM_HOST, DUT_RM_MEM_BYTES, false, UINT64_MAX, &mem)) < 0)
		return r;
	snprintf(m->host.hostname, sizeof(m->host.hostname), "%s", hn);
	snprintf(m->host.kernel, sizeof(m->host.kernel), "%s", k);
	snprintf(m->host.cpu_model, sizeof(m->host.cpu_model), "%s", cpu);
	m->host.cpus = (unsigned)cpus;
	m->host.mem_bytes = mem;
	m->have_host = true;
	return 0;
}

static int parse_root(const struct mctx *x, json_object *root, struct rundir_model *m)
{
	json_object *v, *exp, *cfgs;
	uint64_t ver, reps;
	char p[64];
	int r;

	if (!json_object_is_type(root, json_type_object))
		return bad(x, "", "expected a JSON object, found %s", found(root));
	if ((r = member(x, root, "", DUT_RM_SCHEMA, json_type_string, true, &v)) < 0)
		return r;
	if (strcmp(json_object_get_string(v), RUNDIR_MANIFEST_SCHEMA) != 0)
		return bad(x, DUT_RM_SCHEMA, "expected \"%s\", found \"%s\": not a dutlab run manifest",
			   RUNDIR_MANIFEST_SCHEMA, json_object_get_string(v));
	if ((r = get_uint(x, root, "", DUT_RM_SCHEMA_VERSION, true, UINT32_MAX, &ver)) < 0)
		return r;
	if (ver < 1 || ver > RUNDIR_MANIFEST_VERSION)
		return bad(x, DUT_RM_SCHEMA_VERSION, "the manifest has version %" PRIu64 ", this dutlab reads "
			   "version %d: use the dutlab that made the run", ver, RUNDIR_MANIFEST_VERSION);
	if ((r = member(x, root, "", DUT_RM_EXPERIMENT, json_type_object, true, &exp)) < 0 ||
	    (r = get_str(x, exp, DUT_RM_EXPERIMENT, DUT_RM_NAME, true, &m->name)) < 0 ||
	    (r = get_str(x, exp, DUT_RM_EXPERIMENT, DUT_RM_DESCRIPTION, false, &m->description)) < 0 ||
	    (r = get_str(x, exp, DUT_RM_EXPERIMENT, DUT_RM_SOURCE, false, &m->source)) < 0 ||
	    (r = get_uint(x, exp, DUT_RM_EXPERIMENT, DUT_RM_REPETITIONS, false, 1000000, &reps)) < 0 ||
	    (r = get_str(x, root, "", DUT_RM_STATUS, true, &m->status)) < 0 ||
	    (r = get_str(x, root, "", DUT_RM_STARTED_AT, false, &m->started_at)) < 0 ||
	    (r = get_str(x, root, "", DUT_RM_FINISHED_AT, false, &m->finished_at)) < 0 ||
	    (r = parse_host(x, root, m)) < 0 ||
	    (r = member(x, root, "", DUT_RM_CONFIGS, json_type_array, true, &cfgs)) < 0)
		return r;
	m->repetitions = (unsigned)reps;
	m->nconfigs = json_object_array_length(cfgs);
	m->configs = calloc(m->nconfigs + 1, sizeof(*m->configs));
	if (!m->configs)
		return -ENOMEM;
	for (size_t i = 0; i < m->nconfigs; i++) {
		pathf(p, sizeof(p), "configs[%zu]", i);
		if ((r = parse_config(x, json_object_array_get_idx(cfgs, i), p, &m->configs[i])) < 0)
			return r;
	}
	return 0;
}

int rundir_manifest_parse(const char *text, size_t len, const char *fname, struct rundir_model **ret,
		       struct dut_error *err)
{
	struct mctx x = { .fname = fname, .err = err };
	_cleanup_(json_object_putp) json_object *root = NULL;
	json_tokener *tok;
	struct rundir_model *m;
	int r;

	if (len > RUNDIR_MANIFEST_MAX_BYTES)
		return bad(&x, "", "larger than %u MiB: not a manifest", RUNDIR_MANIFEST_MAX_BYTES >> 20);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) < len) {
		enum json_tokener_error je = json_tokener_get_error(tok);
		size_t at = json_tokener_get_parse_end(tok);

		json_tokener_free(tok);
		if (root && je == json_tokener_success)
			return bad(&x, "", "text after the JSON document at byte %zu", at);
		return bad(&x, "", "not valid JSON at byte %zu: %s", at,
			   je == json_tokener_continue ? "unexpected end of the file"
						       : json_tokener_error_desc(je));
	}
	json_tokener_free(tok);
	m = calloc(1, sizeof(*m));
	if (!m || !(m->dir = strdup(""))) {
		free(m);
		return -ENOMEM;
	}
	r = parse_root(&x, root, m);
	if (r < 0) {
		rundir_model_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

static void free_rep(struct rundir_rep *rp)
{
	for (size_t s = 0; s < rp->nsteps; s++) {
		struct rundir_step *st = &rp->steps[s];

		for (size_t d = 0; d < st->ndocs; d++) {
			free(st->docs[d].file);
			dut_result_free(st->docs[d].doc);
		}
		free(st->docs);
		free(st->name);
		free(st->type);
		free(st->tool);
		free(st->status);
		free(st->mark);
		free(st->started_at);
		free(st->experiment_target);
		free(st->experiment_path);
	}
	free(rp->steps);
	free(rp->dir);
	free(rp->status);
	free(rp->trace);
	free(rp->relmap);
	report_free(rp->io);
	for (size_t i = 0; i < rp->nmore; i++) {
		free(rp->more_traces[i]);
		report_free(rp->more_io[i]);
	}
	free(rp->more_traces);
	free(rp->more_io);
	free(rp->filesystems);
}

void rundir_model_free(struct rundir_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nconfigs; i++) {
		struct rundir_config *c = &m->configs[i];

		for (size_t r = 0; r < c->nreps; r++)
			free_rep(&c->reps[r]);
		free(c->reps);
		free(c->name);
		free(c->dir);
		free(c->status);
		free(c->reason);
		free(c->view);
		free(c->filesystem);
		free(c->replica);
		free(c->pg_version);
		free(c->pg_bindir);
	}
	for (size_t i = 0; i < m->nnotes; i++)
		free(m->notes[i]);
	free(m->notes);
	free(m->configs);
	free(m->dir);
	free(m->name);
	free(m->description);
	free(m->source);
	free(m->status);
	free(m->started_at);
	free(m->finished_at);
	free(m);
}

int rundir_model_note(struct rundir_model *m, const char *fmt, ...)
{
	char **n = realloc(m->notes, (m->nnotes + 1) * sizeof(*n));
	va_list ap;
	int len;

	if (!n)
		return -ENOMEM;
	m->notes = n;
	va_start(ap, fmt);
	len = vasprintf(&n[m->nnotes], fmt, ap);
	va_end(ap);
	if (len < 0)
		return -ENOMEM;
	m->nnotes++;
	return 0;
}

const struct rundir_step *rundir_rep_step(const struct rundir_rep *r, const char *name)
{
	for (size_t i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].name, name) == 0)
			return &r->steps[i];
	return NULL;
}

/* ---- the server-side evidence of pgload run documents ---- */

struct json_object *rundir_server_json(const struct dut_result *doc)
{
	struct dut_result_phase *ph = doc ? dut_result_find_phase(doc, "run") : NULL;
	json_object *srv, *col;

	if (!ph || !json_object_object_get_ex(dut_phase_extra(ph), "server", &srv) ||
	    !json_object_is_type(srv, json_type_object) ||
	    !json_object_object_get_ex(srv, "collected", &col) || !json_object_get_boolean(col))
		return NULL;
	return srv;
}

static double num_member(json_object *o, const char *name)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, name, &v) || !v ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

double rundir_server_counter(const struct dut_result *doc, const char *name, const char **why)
{
	json_object *srv = rundir_server_json(doc), *ctr = NULL, *ab = NULL, *w;
	double v;

	if (why)
		*why = "";
	if (!srv)
		return NAN;
	json_object_object_get_ex(srv, "counters", &ctr);
	v = num_member(ctr, name);
	if (isnan(v) && why && json_object_object_get_ex(srv, "absent", &ab) &&
	    json_object_object_get_ex(ab, name, &w) && json_object_is_type(w, json_type_string))
		*why = json_object_get_string(w);
	return v;
}

double rundir_server_cpu(const struct dut_result *doc, const char *name)
{
	json_object *srv = rundir_server_json(doc), *cpu = NULL;

	if (!srv || !json_object_object_get_ex(srv, "cpu", &cpu))
		return NAN;
	return num_member(cpu, name);
}

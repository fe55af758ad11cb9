/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fuse/stats.h"
#include "lib/cleanup.h"
#include "lib/hist.h"

static const char *const kind_names[DUTFS_STAT_KINDS] = { "read", "write", "sync" };

struct kind_stats {
	uint64_t ops, bytes, errors;
	struct dut_hist lat;
};

struct dutfs_stats_thread {
	struct dutfs_stats_thread *next;  /* protected by st->lock */
	atomic_bool in_use;
	/* written only by the owning thread */
	struct kind_stats cls[DUT_PG_CLASS_COUNT][DUTFS_STAT_KINDS];
};

struct file_stats {
	atomic_bool valid;               /* set (release) once path/pg are written */
	uint32_t id;
	char *path;
	struct dut_pg_file pg;
	atomic_uint_fast64_t ops[DUTFS_STAT_KINDS];
	atomic_uint_fast64_t bytes[DUTFS_STAT_KINDS];
	atomic_uint_fast64_t errors[DUTFS_STAT_KINDS];
	/* allocated at first use; every worker adds with dut_hist_add_shared()
	 * (no lock: a spinlock here was 11 % of the daemon's samples under
	 * select-only pgbench, 16 workers on 2 CPUs) */
	struct dut_hist *_Atomic lat[DUTFS_STAT_KINDS];
};

struct dutfs_stats {
	uint64_t start_ns;
	pthread_mutex_t lock;            /* guards threads list and chunk allocation */
	struct dutfs_stats_thread *threads;
	struct file_stats *_Atomic chunks[DUTFS_STATS_NCHUNKS];
	uint32_t max_id;                 /* protected by lock */
};

int dutfs_stats_new(uint64_t start_ns, struct dutfs_stats **ret)
{
	struct dutfs_stats *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->start_ns = start_ns;
	pthread_mutex_init(&st->lock, NULL);
	*ret = st;
	return 0;
}

void dutfs_stats_free(struct dutfs_stats *st)
{
	if (!st)
		return;
	for (unsigned c = 0; c < DUTFS_STATS_NCHUNKS; c++) {
		struct file_stats *ch = atomic_load(&st->chunks[c]);

		if (!ch)
			continue;
		for (unsigned i = 0; i < DUTFS_STATS_CHUNK; i++) {
			free(ch[i].path);
			for (int k = 0; k < DUTFS_STAT_KINDS; k++)
				dut_hist_free(atomic_load(&ch[i].lat[k]));
		}
		free(ch);
	}
	for (struct dutfs_stats_thread *t = st->threads, *n; t; t = n) {
		n = t->next;
		free(t);
	}
	pthread_mutex_destroy(&st->lock);
	free(st);
}

int dutfs_stats_thread_get(struct dutfs_stats *st, struct dutfs_stats_thread **ret)
{
	struct dutfs_stats_thread *t;

	pthread_mutex_lock(&st->lock);
	for (t = st->threads; t; t = t->next) {
		bool expect = false;

		if (atomic_compare_exchange_strong(&t->in_use, &expect, true))
			break;
	}
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			pthread_mutex_unlock(&st->lock);
			return -ENOMEM;
		}
		for (int c = 0; c < DUT_PG_CLASS_COUNT; c++)
			for (int k = 0; k < DUTFS_STAT_KINDS; k++)
				dut_hist_init(&t->cls[c][k].lat);
		atomic_store(&t->in_use, true);
		t->next = st->threads;
		st->threads = t;
	}
	pthread_mutex_unlock(&st->lock);
	*ret = t;
	return 0;
}

void dutfs_stats_thread_put(struct dutfs_stats_thread *t)
{
	if (t)
		atomic_store(&t->in_use, false);
}

static struct file_stats *file_get(struct dutfs_stats *st, uint32_t id)
{
	struct file_stats *ch;

	if (id == 0 || id > DUTFS_STATS_MAX_ID)
		return NULL;
	ch = atomic_load_explicit(&st->chunks[id / DUTFS_STATS_CHUNK], memory_order_acquire);
	if (!ch)
		return NULL;
	ch += id % DUTFS_STATS_CHUNK;
	return atomic_load_explicit(&ch->valid, memory_order_acquire) ? ch : NULL;
}

int dutfs_stats_add_file(struct dutfs_stats *st, uint32_t id, const char *path,
			 const struct dut_pg_file *pg)
{
	struct file_stats *ch, *f;
	unsigned c = id / DUTFS_STATS_CHUNK;
	char *copy;

	if (id == 0 || id > DUTFS_STATS_MAX_ID)
		return -ERANGE;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&st->lock);
	ch = atomic_load(&st->chunks[c]);
	if (!ch) {
		ch = calloc(DUTFS_STATS_CHUNK, sizeof(*ch));
		if (!ch) {
			pthread_mutex_unlock(&st->lock);
			free(copy);
			return -ENOMEM;
		}
		atomic_store_explicit(&st->chunks[c], ch, memory_order_release);
	}
	f = &ch[id % DUTFS_STATS_CHUNK];
	if (atomic_load(&f->valid)) {
		pthread_mutex_unlock(&st->lock);
		free(copy);
		return -EEXIST;
	}
	f->id = id;
	f->path = copy;
	f->pg = *pg;
	if (id > st->max_id)
		st->max_id = id;
	atomic_store_explicit(&f->valid, true, memory_order_release);
	pthread_mutex_unlock(&st->lock);
	return 0;
}

static struct dut_hist *file_hist(struct file_stats *f, enum dutfs_stat_kind k)
{
	struct dut_hist *h = atomic_load_explicit(&f->lat[k], memory_order_acquire);
	struct dut_hist *expect = NULL;

	if (h)
		return h;
	/* once per file and kind: not on the steady-state I/O path */
	h = dut_hist_new();
	if (!h)
		return NULL;
	if (!atomic_compare_exchange_strong(&f->lat[k], &expect, h)) {
		dut_hist_free(h);
		return expect;
	}
	return h;
}

void dutfs_stats_record(struct dutfs_stats *st, struct dutfs_stats_thread *t, uint32_t id,
			enum dutfs_stat_kind kind, uint64_t bytes, uint64_t lat_ns, int failed)
{
	struct file_stats *f = file_get(st, id);
	enum dut_pg_class cls = f ? f->pg.cls : DUT_PG_OTHER;
	struct kind_stats *ks;
	struct dut_hist *h;

	if ((unsigned)cls >= DUT_PG_CLASS_COUNT)
		cls = DUT_PG_OTHER;
	if (t) {
		ks = &t->cls[cls][kind];
		ks->ops++;
		ks->bytes += bytes;
		ks->errors += failed ? 1 : 0;
		dut_hist_add(&ks->lat, lat_ns);
	}
	if (!f)
		return;
	atomic_fetch_add_explicit(&f->ops[kind], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&f->bytes[kind], bytes, memory_order_relaxed);
	if (failed)
		atomic_fetch_add_explicit(&f->errors[kind], 1, memory_order_relaxed);
	h = file_hist(f, kind);
	if (h)
		dut_hist_add_shared(h, lat_ns);
}

/* ---- rendering ---- */

static int add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, key, v) ? -ENOMEM : 0;
}

static struct json_object *kind_json(uint64_t ops, uint64_t bytes, uint64_t errors,
				     const struct dut_hist *h)
{
	struct json_object *o = json_object_new_object(), *lat;
	struct dut_hist_summary s;
	int r = 0;

	if (!o)
		return NULL;
	r |= add(o, "ops", json_object_new_uint64(ops));
	r |= add(o, "bytes", json_object_new_uint64(bytes));
	r |= add(o, "errors", json_object_new_uint64(errors));
	if (h && h->count) {
		dut_hist_summarize(h, &s);
		lat = json_object_new_object();
		if (!lat) {
			json_object_put(o);
			return NULL;
		}
		r |= add(lat, "min", json_object_new_uint64(s.min));
		r |= add(lat, "mean", json_object_new_double(s.mean));
		r |= add(lat, "p50", json_object_new_uint64(s.p50));
		r |= add(lat, "p90", json_object_new_uint64(s.p90));
		r |= add(lat, "p99", json_object_new_uint64(s.p99));
		r |= add(lat, "p99.9", json_object_new_uint64(s.p999));
		r |= add(lat, "max", json_object_new_uint64(s.max));
		r |= add(o, "lat_ns", lat);
	}
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int render_classes(struct dutfs_stats *st, struct json_object *root)
{
	struct json_object *classes = json_object_new_object();
	_cleanup_free_ struct dut_hist *tmp = dut_hist_new();
	_cleanup_free_ struct dut_hist *sum = dut_hist_new();
	int r = 0;

	if (!classes || !tmp || !sum) {
		json_object_put(classes);
		return -ENOMEM;
	}
	pthread_mutex_lock(&st->lock);
	for (int c = 0; c < DUT_PG_CLASS_COUNT && !r; c++) {
		struct json_object *co = NULL;

		for (int k = 0; k < DUTFS_STAT_KINDS && !r; k++) {
			uint64_t ops = 0, bytes = 0, errors = 0;

			dut_hist_reset(sum);
			for (struct dutfs_stats_thread *t = st->threads; t; t = t->next) {
				const struct kind_stats *ks = &t->cls[c][k];

				ops += __atomic_load_n(&ks->ops, __ATOMIC_RELAXED);
				bytes += __atomic_load_n(&ks->bytes, __ATOMIC_RELAXED);
				errors += __atomic_load_n(&ks->errors, __ATOMIC_RELAXED);
				dut_hist_snapshot(tmp, &ks->lat);
				dut_hist_merge(sum, tmp);
			}
			if (!ops)
				continue;
			if (!co) {
				co = json_object_new_object();
				r = add(classes, dut_pg_class_name((enum dut_pg_class)c), co);
				if (r)
					break;
			}
			r = add(co, kind_names[k], kind_json(ops, bytes, errors, sum));
		}
	}
	pthread_mutex_unlock(&st->lock);
	if (r) {
		json_object_put(classes);
		return r;
	}
	return add(root, "classes", classes);
}

/* *ret = the file's object, or NULL when it saw no I/O (it is left out). */
static int file_json(struct file_stats *f, struct dut_hist *tmp, struct json_object **ret)
{
	struct json_object *o = NULL;
	int r = 0;

	for (int k = 0; k < DUTFS_STAT_KINDS && !r; k++) {
		uint64_t ops = atomic_load_explicit(&f->ops[k], memory_order_relaxed);
		struct dut_hist *h;

		if (!ops)
			continue;
		if (!o) {
			o = json_object_new_object();
			if (!o)
				return -ENOMEM;
			r |= add(o, "id", json_object_new_uint64(f->id));
			r |= add(o, "path", json_object_new_string(f->path));
			r |= add(o, "class", json_object_new_string(dut_pg_class_name(f->pg.cls)));
			if (f->pg.fork != DUT_PG_FORK_NONE)
				r |= add(o, "fork", json_object_new_string(dut_pg_fork_name(f->pg.fork)));
		}
		h = atomic_load_explicit(&f->lat[k], memory_order_acquire);
		if (h) {
			dut_hist_snapshot(tmp, h);
		} else {
			dut_hist_reset(tmp);
		}
		r |= add(o, kind_names[k],
			 kind_json(ops, atomic_load_explicit(&f->bytes[k], memory_order_relaxed),
				   atomic_load_explicit(&f->errors[k], memory_order_relaxed), tmp));
	}
	if (r) {
		json_object_put(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

static int render_files(struct dutfs_stats *st, struct json_object *root)
{
	struct json_object *files = json_object_new_array();
	_cleanup_free_ struct dut_hist *tmp = dut_hist_new();
	uint32_t max_id;

	if (!files || !tmp) {
		json_object_put(files);
		return -ENOMEM;
	}
	pthread_mutex_lock(&st->lock);
	max_id = st->max_id;
	pthread_mutex_unlock(&st->lock);
	for (uint32_t id = 1; id <= max_id; id++) {
		struct file_stats *f = file_get(st, id);
		struct json_object *o;

		if (!f)
			continue;
		if (file_json(f, tmp, &o)) {
			json_object_put(files);
			return -ENOMEM;
		}
		if (!o)
			continue;
		if (json_object_array_add(files, o)) {
			json_object_put(o);
			json_object_put(files);
			return -ENOMEM;
		}
	}
	return add(root, "files", files);
}

int dutfs_stats_render(struct dutfs_stats *st, const struct dutfs_stats_info *info,
		       char **ret_json, size_t *ret_len)
{
	struct json_object *root = json_object_new_object(), *tr;
	const char *s;
	size_t len;
	char *out;
	int r = 0;

	if (!root) {
		json_object_put(info->shape);
		json_object_put(info->control);
		json_object_put(info->transport);
		return -ENOMEM;
	}
	r |= add(root, "schema", json_object_new_string("dutfs-stats"));
	r |= add(root, "schema_version", json_object_new_int(1));
	r |= add(root, "view", json_object_new_string(info->view ? info->view : "device"));
	r |= add(root, "uptime_s",
		 json_object_new_double(info->now_ns > st->start_ns
					? (double)(info->now_ns - st->start_ns) / 1e9 : 0.0));
	tr = json_object_new_object();
	r |= add(root, "trace", tr);
	if (!r) {
		r |= add(tr, "file", json_object_new_boolean(info->trace_file));
		r |= add(tr, "enabled", json_object_new_boolean(info->tracing));
		r |= add(tr, "records_written", json_object_new_uint64(info->trace_written));
		r |= add(tr, "records_dropped", json_object_new_uint64(info->trace_dropped));
		if (info->trace_max_bytes) {
			r |= add(tr, "max_bytes", json_object_new_uint64(info->trace_max_bytes));
			r |= add(tr, "rotations", json_object_new_uint64(info->trace_rotations));
		}
	}
	if (info->last_mark)
		r |= add(root, "last_mark", json_object_new_string(info->last_mark));
	else if (json_object_object_add(root, "last_mark", NULL)) /* JSON null */
		r = -ENOMEM;
	if (!r && info->nreq) {
		struct json_object *rq = json_object_new_object();

		r |= add(root, "requests", rq);
		for (size_t i = 0; !r && i < info->nreq; i++)
			r |= add(rq, info->req_names[i], json_object_new_uint64(info->req_counts[i]));
	}
	if (info->shape) {
		if (r)
			json_object_put(info->shape);
		else
			r |= add(root, "shape", info->shape);
	}
	if (info->control) {
		if (r)
			json_object_put(info->control);
		else
			r |= add(root, "control", info->control);
	}
	if (info->transport) {
		if (r)
			json_object_put(info->transport);
		else
			r |= add(root, "transport", info->transport);
	}
	if (!r)
		r = render_classes(st, root);
	if (!r)
		r = render_files(st, root);
	if (r) {
		json_object_put(root);
		return -ENOMEM;
	}
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	len = s ? strlen(s) : 0;
	out = s ? malloc(len + 2) : NULL;
	if (!out) {
		json_object_put(root);
		return -ENOMEM;
	}
	memcpy(out, s, len);
	out[len++] = '\n';
	out[len] = '\0';
	json_object_put(root);
	*ret_json = out;
	*ret_len = len;
	return 0;
}

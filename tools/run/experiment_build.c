/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Experiment file parser, second half: collected sections -> struct
 * dut_experiment.  Each section kind has its list of keys (an unknown key is
 * an error with a "did you mean"), each key is checked where it is read, and
 * the cross-references (targets, filesystems, tablespaces, the matrix) are
 * checked once everything is built.  Finally every configuration the matrix
 * expands to goes through the planner, which rejects the ones that cannot
 * run (a filesystem on a directory target, a database larger than its image).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "tools/run/experiment_build.h"

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const char *const *const section_keys[S_COUNT] = {
	[S_EXPERIMENT] = KEYS("name", "description", "repetitions", "order", "filesystem", "progress",
			     "report-every"),
	[S_TARGET] = KEYS("type", "path", "size", "destructive", "follow-symlinks", "filesystem", "shape"),
	[S_FILESYSTEM] = KEYS("type", "data", "block-size", "mkfs-options", "mount-options"),
	[S_DUTFS] = KEYS("view", "trace", "shape", "trace-max", "trace-segments"),
	[S_POSTGRES] = KEYS("target", "wal-on", "data-checksums", "memory", "version", "bindir",
			   "block_size", "wal_block_size", "set"),
	[S_TABLESPACE] = KEYS("target"),
	[S_REPLICA] = KEYS("target", "mode"),
	[S_MATRIX] = KEYS("filesystem", "view", "shape", "replica", "tables-on", "indexes-on", "version",
			 "block_size", "wal_block_size", "set.NAME"),
	[S_STEP] = KEYS("type", "repeat", "target", "raw", "mark"),
};
static const char *const target_types[] = { "directory", "image", "device", NULL };
static const char *const fs_types[] = { "none", "ext4", "xfs", "btrfs", NULL };
static const char *const ext4_modes[] = { "ordered", "writeback", "journal", NULL };
static const char *const exp_orders[] = { [DUT_ORDER_INTERLEAVED] = "interleaved",
					  [DUT_ORDER_SEQUENTIAL] = "sequential", NULL };

static const struct dut_filesystem builtin_fs[] = {
	{ .name = "none", .type = DUT_FS_NONE },
	{ .name = "ext4-ordered", .type = DUT_FS_EXT4, .data = DUT_EXT4_ORDERED },
	{ .name = "ext4-writeback", .type = DUT_FS_EXT4, .data = DUT_EXT4_WRITEBACK },
	{ .name = "ext4-journal", .type = DUT_FS_EXT4, .data = DUT_EXT4_JOURNAL },
	{ .name = "xfs", .type = DUT_FS_XFS },
	{ .name = "btrfs", .type = DUT_FS_BTRFS },
};
#define NBUILTIN_FS (sizeof(builtin_fs) / sizeof(builtin_fs[0]))

static bool oom(struct exp_ctx *c)
{
	c->errs.failed = -ENOMEM;
	return false;
}

static struct exp_kv *get(struct exp_section *s, const char *key)
{
	for (size_t i = 0; i < s->nkv; i++)
		if (strcmp(s->kv[i].key, key) == 0)
			return &s->kv[i];
	return NULL;
}

/* Unknown and repeated keys; extra: more allowed keys (a step type's). */
static bool check_keys(struct exp_ctx *c, struct exp_section *s, const char *const *extra, size_t nextra)
{
	const char *const *keys = section_keys[s->kind];
	const char *all[64];
	size_t n = 0;
	char sugg[96], list[400];

	for (size_t i = 0; keys[i] && n < 63; i++)
		all[n++] = keys[i];
	for (size_t i = 0; i < nextra && n < 63; i++)
		all[n++] = extra[i];
	all[n] = NULL;
	for (size_t i = 0; i < s->nkv; i++) {
		struct exp_kv *kv = &s->kv[i];

		if (s->kind == S_MATRIX && strncmp(kv->key, "set.", 4) == 0)
			continue;
		if (exp_word_index(all, kv->key) < 0) {
			exp_suggest(sugg, sizeof(sugg), all, n, kv->key);
			exp_error(c, kv->line, s, "unknown key \"%s\"%s; expected %s", kv->key, sugg,
				  exp_join_words(all, list, sizeof(list)));
			return false;
		}
		if (s->kind == S_POSTGRES && strcmp(kv->key, "set") == 0)
			continue;   /* repeatable */
		for (size_t j = 0; j < i; j++) {
			if (strcmp(s->kv[j].key, kv->key) == 0) {
				exp_error(c, kv->line, s, "%s is already set at line %u", kv->key, s->kv[j].line);
				return false;
			}
		}
	}
	return true;
}

static bool require(struct exp_ctx *c, struct exp_section *s, const char *key, const char *what, struct exp_kv **ret)
{
	*ret = get(s, key);
	if (!*ret) {
		exp_error(c, s->line, s, "missing key %s (%s)", key, what);
		return false;
	}
	if (!(*ret)->value[0]) {
		exp_error(c, (*ret)->line, s, "%s: expected %s, found nothing", key, what);
		return false;
	}
	return true;
}

static bool choice(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, const char *const *words, int *ret)
{
	char list[200], sugg[96];
	size_t n = 0;
	int i = exp_word_index(words, kv->value);

	if (i >= 0) {
		*ret = i;
		return true;
	}
	while (words[n])
		n++;
	exp_suggest(sugg, sizeof(sugg), words, n, kv->value);
	exp_error(c, kv->line, s, "%s: expected %s, found \"%s\"%s", kv->key, exp_join_words(words, list, sizeof(list)),
		  kv->value, sugg);
	return false;
}

static bool boolean(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, bool *ret)
{
	if (exp_parse_bool(kv->value, ret) == 0)
		return true;
	exp_error(c, kv->line, s, "%s: expected yes or no, found \"%s\"", kv->key, kv->value);
	return false;
}

static bool uint_in(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, unsigned lo, unsigned hi,
		    unsigned *ret)
{
	struct dut_param_spec p = { .kind = DUT_P_UINT, .min = lo, .max = hi };
	struct dut_param_value v = { 0 };
	char msg[200];

	if (exp_param_parse(&p, kv->value, &v, NULL, msg, sizeof(msg)) < 0) {
		exp_error(c, kv->line, s, "%s: %s", kv->key, msg);
		return false;
	}
	*ret = (unsigned)v.u;
	return true;
}

static bool ref_name(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, char **dst)
{
	if (!exp_name_ok(kv->value, strlen(kv->value))) {
		exp_error(c, kv->line, s, "%s: expected a name (1 to %d letters, digits, '_', '-', '.'), found \"%s\"",
			  kv->key, DUT_EXP_NAME_MAX, kv->value);
		return false;
	}
	return exp_dup_to(c, dst, kv->value);
}

/* ---- sections ---- */

static bool build_experiment(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, struct base_lines *b)
{
	struct exp_kv *kv;

	if ((kv = get(s, "name")) && !ref_name(c, s, kv, &e->name))
		return false;
	if ((kv = get(s, "description")) && !exp_dup_to(c, &e->description, kv->value))
		return false;
	if ((kv = get(s, "repetitions")) && !uint_in(c, s, kv, 1, DUT_EXP_MAX_REPETITIONS, &e->repetitions))
		return false;
	/* without the key: interleaved when there is more than one repetition to interleave */
	e->order = e->repetitions > 1 ? DUT_ORDER_INTERLEAVED : DUT_ORDER_SEQUENTIAL;
	if ((kv = get(s, "order"))) {
		int o = 0;

		if (!choice(c, s, kv, exp_orders, &o))
			return false;
		e->order = (enum dut_exp_order)o;
		e->order_line = kv->line;
	}
	if ((kv = get(s, "filesystem"))) {
		b->filesystem = kv->line;
		if (!ref_name(c, s, kv, &e->filesystem))
			return false;
	}
	return exp_build_soak(c, s, e);
}

static bool build_target(struct exp_ctx *c, struct exp_section *s, struct dut_target *t)
{
	struct exp_kv *kv;
	int type = 0;

	t->line = s->line;
	if (!exp_dup_to(c, &t->name, s->name))
		return false;
	if (!require(c, s, "type", "directory, image or device", &kv) || !choice(c, s, kv, target_types, &type))
		return false;
	t->type = (enum dut_target_type)type;
	if (!require(c, s, "path", "the directory, image file or device", &kv) || !exp_dup_to(c, &t->path, kv->value))
		return false;
	if (t->type == DUT_TARGET_DEVICE && strncmp(t->path, "/dev/", 5) != 0) {
		exp_error(c, kv->line, s, "path: expected a block device or partition under /dev/, found \"%s\"", t->path);
		return false;
	}
	kv = get(s, "size");
	if (t->type == DUT_TARGET_IMAGE) {
		struct dut_param_spec p = { .kind = DUT_P_SIZE, .min = 64 << 20, .max = 1ull << 50 };
		struct dut_param_value v = { 0 };
		char msg[200];

		if (!require(c, s, "size", "the size of the image file, such as 4GiB", &kv))
			return false;
		if (exp_param_parse(&p, kv->value, &v, NULL, msg, sizeof(msg)) < 0) {
			exp_error(c, kv->line, s, "size: %s", msg);
			return false;
		}
		t->size_bytes = v.u;
	} else if (kv) {
		exp_error(c, kv->line, s, "size: only an image target has a size (this is a %s target)",
			  dut_target_type_name(t->type));
		return false;
	}
	if ((kv = get(s, "follow-symlinks"))) {
		if (t->type != DUT_TARGET_IMAGE) {
			exp_error(c, kv->line, s, "follow-symlinks: only an image target may be reached through "
				  "links (this is a %s target)", dut_target_type_name(t->type));
			return false;
		}
		if (!boolean(c, s, kv, &t->follow_symlinks))
			return false;
	}
	if ((kv = get(s, "destructive"))) {
		if (t->type != DUT_TARGET_DEVICE) {
			exp_error(c, kv->line, s, "destructive: only a device target needs it (this is a %s target)",
				  dut_target_type_name(t->type));
			return false;
		}
		if (!boolean(c, s, kv, &t->destructive))
			return false;
	}
	if (t->type == DUT_TARGET_DEVICE && !t->destructive) {
		exp_error(c, kv ? kv->line : s->line, s,
			  "device %s: expected destructive = yes (everything on the device is lost), found %s",
			  t->path, kv ? "destructive = no" : "no destructive key");
		return false;
	}
	if ((kv = get(s, "filesystem")) && !ref_name(c, s, kv, &t->filesystem))
		return false;
	if ((kv = get(s, "shape")) && strcmp(kv->value, "none") != 0 && !exp_dup_to(c, &t->shape, kv->value))
		return false;
	return true;
}

static bool build_filesystem(struct exp_ctx *c, struct exp_section *s, struct dut_filesystem *f)
{
	struct exp_kv *kv;
	int type = 0, mode = 0;

	f->line = s->line;
	for (size_t i = 0; i < NBUILTIN_FS; i++) {
		if (strcmp(builtin_fs[i].name, s->name) == 0) {
			exp_error(c, s->line, s, "\"%s\" is a built-in filesystem; give yours another name", s->name);
			return false;
		}
	}
	if (!exp_dup_to(c, &f->name, s->name))
		return false;
	if (!require(c, s, "type", "ext4, xfs, btrfs or none", &kv) || !choice(c, s, kv, fs_types, &type))
		return false;
	f->type = (enum dut_fs_type)type;
	if ((kv = get(s, "data"))) {
		if (f->type != DUT_FS_EXT4) {
			exp_error(c, kv->line, s, "data: only ext4 has a data= journaling mode (this is %s)",
				  dut_fs_type_name(f->type));
			return false;
		}
		if (!choice(c, s, kv, ext4_modes, &mode))
			return false;
		f->data = (enum dut_ext4_data)mode;
	}
	if ((kv = get(s, "block-size"))) {
		uint64_t bs;
		struct dut_error ue;
		/* mountable block sizes on a 4 KiB-page kernel */
		uint64_t lo = f->type == DUT_FS_BTRFS ? 4096 : 1024, hi = 4096;

		if (f->type == DUT_FS_NONE) {
			exp_error(c, kv->line, s, "block-size: filesystem type none creates nothing");
			return false;
		}
		if (dut_parse_size(kv->value, &bs, &ue) < 0 || bs < lo || bs > hi || (bs & (bs - 1))) {
			exp_error(c, kv->line, s, "block-size: expected a power of two from %llu to %llu bytes for %s "
				  "(such as 1k, 4k), found \"%s\"", (unsigned long long)lo, (unsigned long long)hi,
				  dut_fs_type_name(f->type), kv->value);
			return false;
		}
		f->block_size = (uint32_t)bs;
	}
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "mount-options" : "mkfs-options";

		if (!(kv = get(s, key)))
			continue;
		if (f->type == DUT_FS_NONE) {
			exp_error(c, kv->line, s, "%s: filesystem type none creates and mounts nothing", key);
			return false;
		}
		if (strpbrk(kv->value, "'\"`$;|&<>\\")) {
			exp_error(c, kv->line, s, "%s: expected plain options (no quotes or shell characters), found \"%s\"",
				  key, kv->value);
			return false;
		}
		if (!exp_dup_to(c, i ? &f->mount_options : &f->mkfs_options, kv->value))
			return false;
	}
	return true;
}

static bool build_dutfs(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, struct base_lines *b)
{
	struct exp_kv *kv;
	int v = 0;

	if ((kv = get(s, "view"))) {
		if (!choice(c, s, kv, exp_views, &v))
			return false;
		e->view = (enum dut_view)v;
		b->view = kv->line;
	}
	if ((kv = get(s, "trace")) && !boolean(c, s, kv, &e->trace))
		return false;
	if ((kv = get(s, "shape"))) {
		b->shape = kv->line;
		if (strcmp(kv->value, "none") != 0 && !exp_dup_to(c, &e->shape, kv->value))
			return false;
	}
	return exp_build_trace_max(c, s, e);
}

static bool add_setting(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, struct dut_experiment *e)
{
	const char *eq = strchr(kv->value, '='), *v;
	size_t n;
	struct dut_setting *ns;

	n = eq ? (size_t)(eq - kv->value) : 0;
	while (n && (kv->value[n - 1] == ' ' || kv->value[n - 1] == '\t'))
		n--;
	v = eq ? eq + 1 : NULL;
	while (v && (*v == ' ' || *v == '\t'))
		v++;
	if (!eq || !exp_setting_name_okn(kv->value, n) || !*v) {
		exp_error(c, kv->line, s, "set: expected NAME = VALUE (a PostgreSQL setting such as "
			  "set = shared_buffers = 128MB), found \"%s\"", kv->value);
		return false;
	}
	if (!dut_setting_value_ok(v)) {
		exp_error(c, kv->line, s, "set: the value of %.*s has a control character (a newline, tab or "
			  "other byte below 0x20): PostgreSQL setting values cannot have them", (int)n, kv->value);
		return false;
	}
	for (size_t i = 0; i < e->nsettings; i++) {
		if (strlen(e->settings[i].name) == n && strncmp(e->settings[i].name, kv->value, n) == 0) {
			exp_error(c, kv->line, s, "set: %s is already set at line %u", e->settings[i].name,
				  e->settings[i].line);
			return false;
		}
	}
	ns = realloc(e->settings, (e->nsettings + 1) * sizeof(*ns));
	if (!ns)
		return oom(c);
	e->settings = ns;
	ns = &e->settings[e->nsettings++];
	ns->name = strndup(kv->value, n);
	ns->value = strdup(v);
	ns->line = kv->line;
	return ns->name && ns->value ? true : oom(c);
}

static bool build_postgres(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, struct base_lines *b)
{
	struct exp_kv *kv;

	if (!exp_build_pg_install(c, s, e))
		return false;
	b->pg = e->pg_line;

	if ((kv = get(s, "target")) && !ref_name(c, s, kv, &e->pg_target))
		return false;
	if ((kv = get(s, "wal-on")) && !ref_name(c, s, kv, &e->wal_target))
		return false;
	if ((kv = get(s, "data-checksums")) && !boolean(c, s, kv, &e->data_checksums))
		return false;
	if ((kv = get(s, "memory")) && strcmp(kv->value, "none") != 0) {
		struct dut_error ue;

		e->pg_memory_line = kv->line;
		/* pgload cluster --memory: its smallest budget is 32 MiB (lib/memcg.h) */
		if (dut_parse_size(kv->value, &e->pg_memory_bytes, &ue) < 0 || e->pg_memory_bytes < (32ull << 20)) {
			exp_error(c, kv->line, s, "memory: expected the server's memory budget, a size of at least "
				  "32MiB (such as 96MiB or 1GiB) or none, found \"%s\"", kv->value);
			return false;
		}
	}
	for (size_t i = 0; i < s->nkv; i++)
		if (strcmp(s->kv[i].key, "set") == 0 && !add_setting(c, s, &s->kv[i], e))
			return false;
	return true;
}

static bool build_tablespace(struct exp_ctx *c, struct exp_section *s, struct dut_tablespace *t)
{
	struct exp_kv *kv;
	const char *n = s->name;

	t->line = s->line;
	if (!(*n >= 'a' && *n <= 'z') || strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(n) ||
	    strncmp(n, "pg_", 3) == 0 || strcmp(n, "default") == 0) {
		exp_error(c, s->line, s, "expected a tablespace name of lower-case letters, digits and '_', "
			  "not starting with pg_ and not \"default\", found \"%s\"", n);
		return false;
	}
	if (!exp_dup_to(c, &t->name, n))
		return false;
	return require(c, s, "target", "the [target NAME] the tablespace lives on", &kv) &&
	       ref_name(c, s, kv, &t->target);
}

static bool build_replica(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, struct base_lines *b)
{
	struct exp_kv *kv;
	int m = 0;

	if (!require(c, s, "target", "the [target NAME] the standby's data directory lives on", &kv) ||
	    !ref_name(c, s, kv, &e->replica_target))
		return false;
	e->replica = DUT_REPLICA_ASYNC;
	if ((kv = get(s, "mode"))) {
		if (!choice(c, s, kv, exp_replica_modes, &m))
			return false;
		e->replica = (enum dut_replica_mode)m;
		b->replica = kv->line;
	}
	return true;
}

/* ---- steps ---- */

static bool build_step(struct exp_ctx *c, struct exp_section *s, const struct dut_experiment *e, struct dut_step *st)
{
	const char *keys[32], *names[16];
	struct exp_kv *kv;
	char msg[300], sugg[96], list[200];
	const struct dut_step_type *type;
	unsigned line = 0;

	st->line = s->line;
	st->repeat = 1;
	if (!exp_dup_to(c, &st->name, s->name))
		return false;
	for (size_t i = 0; i < dut_step_ntypes; i++)
		names[i] = dut_step_types[i]->name;
	names[dut_step_ntypes] = NULL;
	if (!require(c, s, "type", exp_join_words(names, list, sizeof(list)), &kv))
		return false;
	type = dut_step_type_find(kv->value);
	if (!type) {
		exp_suggest(sugg, sizeof(sugg), names, dut_step_ntypes, kv->value);
		exp_error(c, kv->line, s, "type: expected %s, found \"%s\"%s", list, kv->value, sugg);
		return false;
	}
	st->type = type;
	for (size_t i = 0; i < type->nparams && i < 31; i++)
		keys[i] = type->params[i].key;
	if (!check_keys(c, s, keys, type->nparams))
		return false;
	if ((kv = get(s, "repeat")) && !uint_in(c, s, kv, 1, 1000, &st->repeat))
		return false;
	if ((kv = get(s, "target")) || (kv = get(s, "raw"))) {
		if (!type->probe) {
			char probes[256] = "";
			size_t used = 0;

			/* the probe kinds, from the table: "identify, bench, slc, fill, crash" */
			for (size_t i = 0; i < dut_step_ntypes && used < sizeof(probes); i++)
				if (dut_step_types[i]->probe)
					used += (size_t)snprintf(probes + used, sizeof(probes) - used, "%s%s",
								 used ? ", " : "", dut_step_types[i]->name);
			exp_error(c, kv->line, s, "%s: a %s step runs on the cluster; only probe steps "
				  "(%s) name a target", kv->key, type->name, probes);
			return false;
		}
	}
	if ((kv = get(s, "target")) && !ref_name(c, s, kv, &st->target))
		return false;
	if ((kv = get(s, "raw")) && !boolean(c, s, kv, &st->raw))
		return false;
	if ((kv = get(s, "mark")) && !ref_name(c, s, kv, &st->mark))
		return false;
	st->values = calloc(type->nparams ? type->nparams : 1, sizeof(*st->values));
	if (!st->values)
		return oom(c);
	for (size_t i = 0; i < type->nparams; i++) {
		const struct dut_param_spec *p = &type->params[i];
		struct dut_param_value *v = &st->values[i];
		const char *text = p->def;

		kv = get(s, p->key);
		if (kv) {
			text = kv->value;
			v->set = true;
			v->line = kv->line;
		} else if (p->required) {
			exp_error(c, s->line, s, "missing key %s (%s)", p->key, p->help);
			return false;
		}
		if (!text)
			continue;
		if (exp_param_parse(p, text, v, e, msg, sizeof(msg)) < 0) {
			exp_error(c, v->line ? v->line : s->line, s, "%s: %s", p->key, msg);
			return false;
		}
		if (!exp_dup_to(c, &v->text, text))
			return false;
	}
	if (type->probe && dut_step_param(st, "file")) {
		const struct dut_param_value *size = dut_step_param(st, "size"), *file = dut_step_param(st, "file");

		if (st->raw && (size->set || file->set)) {
			exp_error(c, size->set ? size->line : file->line, s,
				  "%s: a raw probe uses the whole target; expected no file or size", size->set ? "size" : "file");
			return false;
		}
		if (!st->raw && !size->set) {
			exp_error(c, s->line, s, "missing key size (the size of the probe file %s; "
				  "or raw = yes to probe the whole image or device)", file->text);
			return false;
		}
		if (!st->raw && (file->text[0] == '/' || strstr(file->text, "..") || strchr(file->text, '/'))) {
			exp_error(c, file->line, s, "file: expected a file name on the target (no '/'), found \"%s\"",
				  file->text);
			return false;
		}
	}
	if (type->check && type->check(st, msg, sizeof(msg), &line) < 0) {
		exp_error(c, line ? line : s->line, s, "%s", msg);
		return false;
	}
	return true;
}

/* ---- cross-references ---- */

static bool target_ref(struct exp_ctx *c, unsigned line, struct exp_section *s, const struct dut_experiment *e,
		       const char *key, const char *name)
{
	const char *names[65];
	char sugg[96];
	size_t n = 0;

	if (dut_experiment_target(e, name))
		return true;
	for (size_t i = 0; i < e->ntargets && n < 64; i++)
		names[n++] = e->targets[i].name;
	names[n] = NULL;
	exp_suggest(sugg, sizeof(sugg), names, n, name);
	exp_error(c, line, s, "%s: expected the name of a [target NAME], found \"%s\"%s", key, name, sugg);
	return false;
}

static struct exp_section *find_section(struct exp_ctx *c, enum exp_section_kind k, const char *name)
{
	for (size_t i = 0; i < c->nsec; i++)
		if (c->sec[i].kind == k && (!name || strcmp(c->sec[i].name, name) == 0))
			return &c->sec[i];
	return NULL;
}

static bool cross_check(struct exp_ctx *c, struct dut_experiment *e, const struct base_lines *b)
{
	struct exp_section *s;
	const char *fsn[80];
	char sugg[96];
	size_t nfs = 0;

	for (size_t i = 0; i < e->nfilesystems && i < 79; i++)
		fsn[nfs++] = e->filesystems[i].name;
	fsn[nfs] = NULL;
	if (!e->ntargets) {
		exp_error(c, c->line ? c->line : 1, NULL, "expected at least one [target NAME] (a directory, image or device)");
		return false;
	}
	if (!e->nsteps) {
		exp_error(c, c->line ? c->line : 1, NULL, "expected at least one [step NAME]: the experiment does nothing");
		return false;
	}
	if (!dut_experiment_filesystem(e, e->filesystem)) {
		s = find_section(c, S_EXPERIMENT, NULL);
		exp_suggest(sugg, sizeof(sugg), fsn, nfs, e->filesystem);
		exp_error(c, b->filesystem, s, "filesystem: expected a built-in filesystem or a [filesystem NAME], found \"%s\"%s",
			  e->filesystem, sugg);
		return false;
	}
	for (size_t i = 0; i < e->ntargets; i++) {
		struct dut_target *t = &e->targets[i];
		struct exp_kv *kv;

		s = find_section(c, S_TARGET, t->name);
		if (t->filesystem && !dut_experiment_filesystem(e, t->filesystem)) {
			kv = get(s, "filesystem");
			exp_suggest(sugg, sizeof(sugg), fsn, nfs, t->filesystem);
			exp_error(c, kv->line, s, "filesystem: expected a built-in filesystem or a [filesystem NAME], found \"%s\"%s",
				  t->filesystem, sugg);
			return false;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(e->targets[j].path, t->path) == 0) {
				exp_error(c, get(s, "path")->line, s, "path %s is also the path of [target %s] at line %u",
					  t->path, e->targets[j].name, e->targets[j].line);
				return false;
			}
		}
	}
	s = find_section(c, S_POSTGRES, NULL);
	if (e->pg_target && !target_ref(c, get(s, "target")->line, s, e, "target", e->pg_target))
		return false;
	if (!e->pg_target && !exp_dup_to(c, &e->pg_target, e->targets[0].name))
		return false;
	if (e->wal_target && !target_ref(c, get(s, "wal-on")->line, s, e, "wal-on", e->wal_target))
		return false;
	for (size_t i = 0; i < e->ntablespaces; i++) {
		s = find_section(c, S_TABLESPACE, e->tablespaces[i].name);
		if (!target_ref(c, get(s, "target")->line, s, e, "target", e->tablespaces[i].target))
			return false;
	}
	if (e->replica_target) {
		s = find_section(c, S_REPLICA, NULL);
		if (!target_ref(c, get(s, "target")->line, s, e, "target", e->replica_target))
			return false;
		if (strcmp(e->replica_target, e->pg_target) == 0) {
			exp_error(c, get(s, "target")->line, s, "target: the standby needs its own mount; expected a target "
				  "other than the primary's (%s), found \"%s\"", e->pg_target, e->replica_target);
			return false;
		}
	}
	for (size_t i = 0; i < e->nsteps; i++) {
		const struct dut_step *st = &e->steps[i];

		s = find_section(c, S_STEP, st->name);
		if (st->target && !target_ref(c, get(s, "target")->line, s, e, "target", st->target))
			return false;
	}
	return true;
}

/* Sections in dependency order: what a key may refer to is built first. */
static const enum exp_section_kind build_order[] = {
	S_EXPERIMENT, S_FILESYSTEM, S_TARGET, S_TABLESPACE, S_DUTFS, S_POSTGRES, S_REPLICA, S_STEP, S_MATRIX,
};

static size_t count_kind(const struct exp_ctx *c, enum exp_section_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nsec; i++)
		n += c->sec[i].kind == k;
	return n;
}

static bool build_section(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, struct base_lines *b)
{
	if (s->kind != S_STEP && !check_keys(c, s, NULL, 0))
		return false;
	switch (s->kind) {
	case S_EXPERIMENT:
		return build_experiment(c, s, e, b);
	case S_FILESYSTEM:
		return build_filesystem(c, s, &e->filesystems[e->nfilesystems++]);
	case S_TARGET:
		return build_target(c, s, &e->targets[e->ntargets++]);
	case S_TABLESPACE:
		return build_tablespace(c, s, &e->tablespaces[e->ntablespaces++]);
	case S_DUTFS:
		return build_dutfs(c, s, e, b);
	case S_POSTGRES:
		return build_postgres(c, s, e, b);
	case S_REPLICA:
		return build_replica(c, s, e, b);
	case S_STEP:
		if (e->nsteps == DUT_EXP_MAX_STEPS) {
			exp_error(c, s->line, s, "expected at most %d steps", DUT_EXP_MAX_STEPS);
			return false;
		}
		return build_step(c, s, e, &e->steps[e->nsteps++]);
	case S_MATRIX:
		return exp_build_matrix(c, s, e, b);
	case S_COUNT:
		break;
	}
	return false;
}

int exp_build(struct exp_ctx *c, struct dut_experiment *e)
{
	struct base_lines b = { 0 };
	struct dut_plan *plan = NULL;
	int r;

	e->repetitions = 1;
	e->order = DUT_ORDER_SEQUENTIAL;
	e->view = DUT_VIEW_DEVICE;
	e->trace = true;
	e->data_checksums = true;
	e->nconfigs = 1;
	e->filesystems = calloc(NBUILTIN_FS + count_kind(c, S_FILESYSTEM), sizeof(*e->filesystems));
	e->targets = calloc(count_kind(c, S_TARGET) + 1, sizeof(*e->targets));
	e->tablespaces = calloc(count_kind(c, S_TABLESPACE) + 1, sizeof(*e->tablespaces));
	e->steps = calloc(count_kind(c, S_STEP) + 1, sizeof(*e->steps));
	if (!e->filesystems || !e->targets || !e->tablespaces || !e->steps || !exp_dup_to(c, &e->filesystem, "none"))
		return -ENOMEM;
	memcpy(e->filesystems, builtin_fs, sizeof(builtin_fs));
	e->nfilesystems = NBUILTIN_FS;
	for (size_t k = 0; k < sizeof(build_order) / sizeof(build_order[0]); k++)
		for (size_t i = 0; i < c->nsec; i++)
			if (c->sec[i].kind == build_order[k] && !build_section(c, &c->sec[i], e, &b))
				return c->errs.failed ? c->errs.failed : -EINVAL;
	if (!e->name) {
		const char *base = strrchr(e->source, '/') ? strrchr(e->source, '/') + 1 : e->source;
		size_t n = strcspn(base, ".");

		e->name = strndup(base, n && n <= DUT_EXP_NAME_MAX ? n : 0);
		if (!e->name)
			return -ENOMEM;
		if (!exp_name_ok(e->name, strlen(e->name)) && !exp_dup_to(c, &e->name, "experiment"))
			return -ENOMEM;
	}
	if (!cross_check(c, e, &b))
		return c->errs.failed ? c->errs.failed : -EINVAL;
	r = exp_plan_build(e, &plan, c->errs.err);
	dut_plan_free(plan);
	return r;
}

void dut_experiment_free(struct dut_experiment *e)
{
	if (!e)
		return;
	free(e->source);
	free(e->base_dir);
	free(e->name);
	free(e->description);
	free(e->filesystem);
	free(e->shape);
	free(e->pg_target);
	free(e->wal_target);
	free(e->replica_target);
	free(e->pg_bindir);
	for (size_t i = 0; i < e->nsettings; i++) {
		free(e->settings[i].name);
		free(e->settings[i].value);
	}
	free(e->settings);
	for (size_t i = 0; i < e->ntargets; i++) {
		free(e->targets[i].name);
		free(e->targets[i].path);
		free(e->targets[i].filesystem);
		free(e->targets[i].shape);
	}
	free(e->targets);
	for (size_t i = NBUILTIN_FS; i < e->nfilesystems; i++) {
		free(e->filesystems[i].name);
		free(e->filesystems[i].mkfs_options);
		free(e->filesystems[i].mount_options);
	}
	free(e->filesystems);
	for (size_t i = 0; i < e->ntablespaces; i++) {
		free(e->tablespaces[i].name);
		free(e->tablespaces[i].target);
	}
	free(e->tablespaces);
	for (size_t i = 0; i < e->ndims; i++) {
		free(e->dims[i].key);
		free(e->dims[i].setting);
		for (size_t j = 0; j < e->dims[i].nvalues; j++)
			free(e->dims[i].values[j]);
		free(e->dims[i].values);
	}
	free(e->dims);
	for (size_t i = 0; i < e->nsteps; i++) {
		struct dut_step *st = &e->steps[i];

		free(st->name);
		free(st->target);
		free(st->mark);
		for (size_t j = 0; st->values && j < st->type->nparams; j++)
			free(st->values[j].text);
		free(st->values);
	}
	free(e->steps);
	free(e);
}

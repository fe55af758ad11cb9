/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expansion of an experiment into its plan: the configurations of the
 * matrix (mixed radix, the first [matrix] key the slowest digit), what each
 * target holds in each configuration and how much space that needs, and the
 * ordered run of setups and steps with estimated times for an ETA (in the
 * experiment's order: interleaved or sequential, see experiment.h).
 *
 * The parser calls this with an error sink to validate every configuration;
 * dut_experiment_plan() calls it on an experiment that passed, where only
 * memory can fail.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/ini_doc.h"
#include "lib/pgbin.h"
#include "lib/units.h"
#include "tools/run/experiment_priv.h"

#define EXP_MAX_PLAN_ITEMS 100000
/* What ext4/xfs/btrfs leave of an image for files (journal, metadata, reserve). */
#define EXP_FS_USABLE_PERCENT 85

struct pb {
	const struct dut_experiment *e;
	struct dut_ini_errors errs;  /* .failed: -errno once an error is recorded */
};

static void pb_error(struct pb *b, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void pb_error(struct pb *b, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dut_ini_verror(&b->errs, line, NULL, NULL, fmt, ap);
	va_end(ap);
}

static size_t target_index(const struct dut_experiment *e, const char *name)
{
	for (size_t i = 0; i < e->ntargets; i++)
		if (strcmp(e->targets[i].name, name) == 0)
			return i;
	return 0;   /* names were checked by the parser */
}

static size_t tablespace_target(const struct dut_experiment *e, const char *ts)
{
	if (!ts || strcmp(ts, "default") == 0)
		return target_index(e, e->pg_target);
	for (size_t i = 0; i < e->ntablespaces; i++)
		if (strcmp(e->tablespaces[i].name, ts) == 0)
			return target_index(e, e->tablespaces[i].target);
	return target_index(e, e->pg_target);
}

static const struct dut_dimension *dim_of(const struct dut_experiment *e, enum dut_dim_kind k)
{
	for (size_t i = 0; i < e->ndims; i++)
		if (e->dims[i].kind == k)
			return &e->dims[i];
	return NULL;
}

/* Name fragment of one dimension's value. */
static void name_part(const struct dut_dimension *d, const char *v, char *buf, size_t len)
{
	const char *base, *dot;

	switch (d->kind) {
	case DUT_DIM_FILESYSTEM:
	case DUT_DIM_VIEW:
		snprintf(buf, len, "%s", v);
		return;
	case DUT_DIM_SHAPE:
		base = strrchr(v, '/') ? strrchr(v, '/') + 1 : v;
		dot = strrchr(base, '.');
		snprintf(buf, len, "shape=%.*s", (int)(dot && dot != base ? dot - base : (long)strlen(base)), base);
		return;
	case DUT_DIM_REPLICA:
		snprintf(buf, len, "replica=%s", v);
		return;
	case DUT_DIM_TABLES_ON:
		snprintf(buf, len, "tables=%s", v);
		return;
	case DUT_DIM_INDEXES_ON:
		snprintf(buf, len, "indexes=%s", v);
		return;
	case DUT_DIM_VERSION:
		snprintf(buf, len, "pg%s", v);
		return;
	case DUT_DIM_BLOCK_SIZE:
	case DUT_DIM_WAL_BLOCK_SIZE: {
		unsigned kb = 0;
		char msg[160];

		(void)dut_pg_parse_block_size(v, d->kind == DUT_DIM_WAL_BLOCK_SIZE, &kb, msg, sizeof(msg));
		snprintf(buf, len, "%s%uk", d->kind == DUT_DIM_BLOCK_SIZE ? "bs" : "walbs", kb);
		return;
	}
	case DUT_DIM_SET:
		snprintf(buf, len, "%s=%s", d->setting, v);
		return;
	}
}

/* Apply the matrix values of configuration index to c. */
static int apply_dims(struct pb *b, struct dut_config *c, size_t index)
{
	const struct dut_experiment *e = b->e;
	char name[1024] = "", part[160];
	size_t rem = index, used = 0;
	size_t pick[64];

	for (size_t i = e->ndims; i-- > 0;) {
		pick[i < 64 ? i : 63] = rem % e->dims[i].nvalues;
		rem /= e->dims[i].nvalues;
	}
	c->dim_values = calloc(e->ndims ? e->ndims : 1, sizeof(*c->dim_values));
	c->settings = calloc(e->nsettings + e->ndims + 1, sizeof(*c->settings));
	if (!c->dim_values || !c->settings)
		return -ENOMEM;
	if (e->nsettings)
		memcpy(c->settings, e->settings, e->nsettings * sizeof(*c->settings));
	c->nsettings = e->nsettings;
	for (size_t i = 0; i < e->ndims && i < 64; i++) {
		const struct dut_dimension *d = &e->dims[i];
		const char *v = d->values[pick[i]];

		c->dim_values[i] = v;
		switch (d->kind) {
		case DUT_DIM_FILESYSTEM:
			c->filesystem = dut_experiment_filesystem(e, v);
			break;
		case DUT_DIM_VIEW:
			c->view = strcmp(v, "off") == 0 ? DUT_VIEW_OFF : strcmp(v, "syscall") == 0 ? DUT_VIEW_SYSCALL
												: DUT_VIEW_DEVICE;
			break;
		case DUT_DIM_SHAPE:
			c->shape = strcmp(v, "none") == 0 ? NULL : v;
			break;
		case DUT_DIM_REPLICA:
			c->replica = strcmp(v, "sync") == 0 ? DUT_REPLICA_SYNC : strcmp(v, "async") == 0 ? DUT_REPLICA_ASYNC
												 : DUT_REPLICA_NONE;
			break;
		case DUT_DIM_TABLES_ON:
			c->tables_on = v;
			break;
		case DUT_DIM_INDEXES_ON:
			c->indexes_on = v;
			break;
		case DUT_DIM_VERSION:
			c->pg_major = (unsigned)strtoul(v, NULL, 10);   /* checked by the parser */
			break;
		case DUT_DIM_BLOCK_SIZE:
		case DUT_DIM_WAL_BLOCK_SIZE: {
			char msg[160];

			/* checked by the parser */
			(void)dut_pg_parse_block_size(v, d->kind == DUT_DIM_WAL_BLOCK_SIZE,
						 d->kind == DUT_DIM_BLOCK_SIZE ? &c->pg_block_kb : &c->pg_wal_block_kb,
						 msg, sizeof(msg));
			break;
		}
		case DUT_DIM_SET:
			c->settings[c->nsettings].name = d->setting;
			c->settings[c->nsettings].value = d->values[pick[i]];
			c->settings[c->nsettings].line = d->line;
			c->nsettings++;
			break;
		}
		name_part(d, v, part, sizeof(part));
		used += (size_t)snprintf(name + used, sizeof(name) - used,
					 "%s%s", i ? "+" : "", part);
		if (used >= sizeof(name))
			used = sizeof(name) - 1;
	}
	c->name = strdup(e->ndims ? name : "default");
	return c->name ? 0 : -ENOMEM;
}

/* Where did this configuration's filesystem come from: the line to cite. */
static unsigned fs_line(const struct dut_experiment *e, const struct dut_target *t)
{
	const struct dut_dimension *d = dim_of(e, DUT_DIM_FILESYSTEM);

	if (t->filesystem)
		return t->line;
	return d ? d->line : t->line;
}

static bool mounted_fs(const struct dut_config_target *ct)
{
	return ct->target->type == DUT_TARGET_DIRECTORY || ct->fs->type != DUT_FS_NONE;
}

static void check_holds_fs(struct pb *b, const struct dut_config *c, const struct dut_config_target *ct,
			   const char *what, unsigned line)
{
	if (!mounted_fs(ct))
		pb_error(b, line, "configuration %s: %s on [target %s], a %s with filesystem none; expected a "
			 "filesystem to create there (filesystem = ext4-ordered, xfs, ...)", c->name, what,
			 ct->target->name, dut_target_type_name(ct->target->type));
}

static void config_targets(struct pb *b, struct dut_config *c)
{
	const struct dut_experiment *e = b->e;

	for (size_t i = 0; i < e->ntargets && !b->errs.failed; i++) {
		struct dut_config_target *ct = &c->targets[i];
		const struct dut_target *t = &e->targets[i];

		ct->target = t;
		ct->fs = t->filesystem ? dut_experiment_filesystem(e, t->filesystem) : c->filesystem;
		ct->shape = t->shape ? t->shape : c->shape;
		if (t->type == DUT_TARGET_DIRECTORY && ct->fs->type != DUT_FS_NONE)
			pb_error(b, fs_line(e, t), "configuration %s: [target %s] is a directory (%s); expected filesystem "
				 "none there, found %s (to create a filesystem, use an image or device target)",
				 c->name, t->name, t->path, ct->fs->name);
	}
	c->ntargets = e->ntargets;
}

static void check_steps(struct pb *b, struct dut_config *c)
{
	const struct dut_experiment *e = b->e;
	size_t pg = target_index(e, e->pg_target);

	for (size_t i = 0; i < e->nsteps && !b->errs.failed; i++) {
		const struct dut_step *st = &e->steps[i];
		const struct dut_config_target *ct;

		if (!st->type->probe) {
			c->needs_cluster = true;
			continue;
		}
		ct = &c->targets[st->target ? target_index(e, st->target) : pg];
		if (st->raw && (ct->target->type == DUT_TARGET_DIRECTORY || ct->fs->type != DUT_FS_NONE))
			pb_error(b, st->line, "[step %s]: configuration %s: raw = yes writes over all of [target %s]; "
				 "expected an image or device target with filesystem none, found a %s with %s",
				 st->name, c->name, ct->target->name, dut_target_type_name(ct->target->type), ct->fs->name);
		else if (!st->raw && !st->type->reads_only && !mounted_fs(ct))
			pb_error(b, st->line, "[step %s]: configuration %s: the probe file needs a filesystem, but "
				 "[target %s] has filesystem none; expected raw = yes or a filesystem", st->name,
				 c->name, ct->target->name);
	}
	for (size_t i = 0; i < e->nsteps && !b->errs.failed; i++) {
		const struct dut_step *st = &e->steps[i];
		const struct dut_param_value *to, *io;

		if (!st->type->places_tables)
			continue;
		to = dut_step_param(st, "tables-on");
		io = dut_step_param(st, "indexes-on");
		if (c->tables_on && to->set)
			pb_error(b, to->line, "[step %s]: tables-on is also a [matrix] key; set it in one place", st->name);
		if (c->indexes_on && io->set)
			pb_error(b, io->line, "[step %s]: indexes-on is also a [matrix] key; set it in one place", st->name);
	}
}

/*
 * [postgres] memory against the configuration's shared_buffers, as pgload
 * cluster init checks it (pgload/cluster_check.h): the budget must hold
 * shared_buffers + 32 MiB; without a shared_buffers setting pgload sets
 * min(128 MiB, budget/4).  Refused here, a run does not fail at its setup.
 */
static void check_memory(struct pb *b, const struct dut_config *c)
{
	const struct dut_experiment *e = b->e;
	uint64_t sb = (e->pg_memory_bytes / 4) & ~((1ull << 20) - 1), need;
	const char *set = NULL;
	char have[32], want[32];

	if (!e->pg_memory_bytes)
		return;
	if (sb > (128ull << 20))
		sb = 128ull << 20;
	for (size_t i = 0; i < c->nsettings; i++)
		if (strcasecmp(c->settings[i].name, "shared_buffers") == 0)
			set = c->settings[i].value;
	if (set && dut_pg_memory_parse(set, (c->pg_block_kb ? c->pg_block_kb : 8) * 1024ull, &sb) < 0) {
		pb_error(b, e->pg_memory_line, "configuration %s: memory: shared_buffers = %.64s is not a size pgload "
			 "can check against the budget; expected a number with kB, MB or GB (such as 16MB)", c->name, set);
		return;
	}
	need = sb + (32ull << 20);
	if (e->pg_memory_bytes < need)
		pb_error(b, e->pg_memory_line, "configuration %s: memory = %s is too small for shared_buffers = %llu MiB%s: "
			 "expected at least %s (shared_buffers + 32 MiB for the backends and the page cache)", c->name,
			 dut_format_size(e->pg_memory_bytes, have, sizeof(have)), (unsigned long long)(sb >> 20),
			 set ? "" : " (budget/4, the default with a budget)",
			 dut_format_size((need + (1ull << 20) - 1) & ~((1ull << 20) - 1), want, sizeof(want)));
}

static void check_cluster(struct pb *b, struct dut_config *c)
{
	const struct dut_experiment *e = b->e;
	const struct dut_dimension *rd = dim_of(e, DUT_DIM_REPLICA);

	if (c->replica != DUT_REPLICA_NONE && !e->replica_target) {
		pb_error(b, rd ? rd->line : 1, "configuration %s: replica %s needs a [replica] section with the "
			 "target of the standby", c->name, dut_replica_mode_name(c->replica));
		return;
	}
	if (c->replica != DUT_REPLICA_NONE && !c->needs_cluster) {
		pb_error(b, rd ? rd->line : 1, "configuration %s: a replica needs pgload steps, found only probe steps",
			 c->name);
		return;
	}
	if (!c->needs_cluster)
		return;
	check_memory(b, c);
	check_holds_fs(b, c, &c->targets[target_index(e, e->pg_target)], "the data directory", c->targets[target_index(e, e->pg_target)].target->line);
	if (e->wal_target)
		check_holds_fs(b, c, &c->targets[target_index(e, e->wal_target)], "the WAL",
			       c->targets[target_index(e, e->wal_target)].target->line);
	for (size_t i = 0; i < e->ntablespaces && !b->errs.failed; i++) {
		size_t t = target_index(e, e->tablespaces[i].target);

		check_holds_fs(b, c, &c->targets[t], "a tablespace", e->tablespaces[i].line);
	}
	if (c->replica != DUT_REPLICA_NONE) {
		size_t t = target_index(e, e->replica_target);

		check_holds_fs(b, c, &c->targets[t], "the standby", c->targets[t].target->line);
	}
	if ((c->tables_on || c->indexes_on) && !b->errs.failed) {
		bool any = false;

		for (size_t i = 0; i < e->nsteps; i++)
			any |= e->steps[i].type->places_tables;
		if (!any)
			pb_error(b, dim_of(e, c->tables_on ? DUT_DIM_TABLES_ON : DUT_DIM_INDEXES_ON)->line,
				 "[matrix]: tables-on and indexes-on place the pgbench tables, but there is no oltp-init step");
	}
}

/* Space on each target, in the order the steps create it. */
static void config_space(struct pb *b, struct dut_config *c)
{
	const struct dut_experiment *e = b->e;
	size_t pg = target_index(e, e->pg_target), wal = e->wal_target ? target_index(e, e->wal_target) : pg;
	uint64_t db = 0;

	if (c->needs_cluster) {
		c->targets[pg].holds_pgdata = true;
		c->targets[wal].holds_wal = true;
		c->targets[pg].space_bytes += DUT_PG_CLUSTER_BYTES;
		c->targets[wal].space_bytes += DUT_PG_WAL_BYTES;
	}
	for (size_t i = 0; i < e->nsteps; i++) {
		const struct dut_step *st = &e->steps[i];
		uint64_t add = st->type->space_bytes(st, db);

		if (st->type->places_tables) {
			const struct dut_param_value *to = dut_step_param(st, "tables-on"), *io = dut_step_param(st, "indexes-on");
			uint64_t scale = dut_step_param(st, "scale")->u, idx = scale * DUT_PGBENCH_INDEX_BYTES_PER_SCALE;

			c->targets[tablespace_target(e, c->tables_on ? c->tables_on : to->text)].space_bytes += add - idx;
			c->targets[tablespace_target(e, c->indexes_on ? c->indexes_on : io->text)].space_bytes += idx;
			db += add;
		} else if (st->type->probe) {
			c->targets[st->target ? target_index(e, st->target) : pg].space_bytes += add;
		} else {
			c->targets[pg].space_bytes += add;
			db += add;
		}
	}
	if (c->replica != DUT_REPLICA_NONE) {
		size_t r = target_index(e, e->replica_target);

		c->targets[r].holds_replica = true;
		c->targets[r].space_bytes += DUT_PG_CLUSTER_BYTES + DUT_PG_WAL_BYTES + db;
	}
	for (size_t i = 0; i < c->ntargets && !b->errs.failed; i++) {
		const struct dut_config_target *ct = &c->targets[i];
		char need[DUT_FMT_LEN], have[DUT_FMT_LEN];
		uint64_t usable = ct->target->size_bytes / 100 * EXP_FS_USABLE_PERCENT;

		c->space_bytes += ct->space_bytes;
		if (ct->target->type == DUT_TARGET_IMAGE && ct->fs->type != DUT_FS_NONE && ct->space_bytes > usable)
			pb_error(b, ct->target->line, "configuration %s: [target %s] is too small: expected about %s on it "
				 "(database, WAL, probe files), found an image of %s (%d%% usable after the filesystem); "
				 "give it a larger size or a smaller scale", c->name, ct->target->name,
				 dut_format_size(ct->space_bytes, need, sizeof(need)),
				 dut_format_size(ct->target->size_bytes, have, sizeof(have)), EXP_FS_USABLE_PERCENT);
	}
}

static int build_config(struct pb *b, struct dut_config *c, size_t index)
{
	const struct dut_experiment *e = b->e;
	int r;

	c->index = (unsigned)index;
	c->filesystem = dut_experiment_filesystem(e, e->filesystem);
	c->view = e->view;
	c->trace = e->trace;
	c->shape = e->shape;
	c->replica = e->replica_target ? e->replica : DUT_REPLICA_NONE;
	c->pg_major = e->pg_major;
	c->pg_bindir = e->pg_bindir;
	c->pg_block_kb = e->pg_block_kb;
	c->pg_wal_block_kb = e->pg_wal_block_kb;
	c->targets = calloc(e->ntargets ? e->ntargets : 1, sizeof(*c->targets));
	if (!c->targets)
		return -ENOMEM;
	r = apply_dims(b, c, index);
	if (r < 0)
		return r;
	config_targets(b, c);
	if (!b->errs.failed)
		check_steps(b, c);
	if (!b->errs.failed)
		check_cluster(b, c);
	if (!b->errs.failed)
		config_space(b, c);
	return b->errs.failed;
}

static uint64_t setup_estimate(const struct dut_config *c)
{
	uint64_t ns = EXP_SETUP_TEARDOWN_NS;

	for (size_t i = 0; i < c->ntargets; i++)
		if (c->targets[i].fs->type != DUT_FS_NONE)
			ns += EXP_SETUP_MKFS_NS;
	if (c->needs_cluster)
		ns += EXP_SETUP_INITDB_NS;
	if (c->replica != DUT_REPLICA_NONE)
		ns += EXP_SETUP_REPLICA_NS;
	return ns;
}

/* The items of one (configuration, repetition): its setup, then the steps. */
static void add_rep(const struct dut_experiment *e, struct dut_plan *p, unsigned ci, unsigned rep,
		    size_t *k, uint64_t *t)
{
	struct dut_config *c = &p->configs[ci];
	uint64_t db = 0, t0 = *t;

	p->items[*k] = (struct dut_plan_item){ .kind = DUT_PLAN_SETUP, .config = ci, .rep = rep,
						.est_ns = c->setup_ns, .start_ns = *t };
	*t += p->items[(*k)++].est_ns;
	for (size_t si = 0; si < e->nsteps; si++) {
		const struct dut_step *st = &e->steps[si];
		const struct dut_config_target *ct = &c->targets[target_index(e, st->target ? st->target : e->pg_target)];
		uint64_t tbytes = st->raw ? ct->target->size_bytes : 0;

		for (unsigned it = 0; it < st->repeat; it++) {
			p->items[*k] = (struct dut_plan_item){
				.kind = DUT_PLAN_STEP, .config = ci, .rep = rep, .step = (unsigned)si,
				.iteration = it, .est_ns = st->type->estimate_ns(st, tbytes, db), .start_ns = *t };
			*t += p->items[(*k)++].est_ns;
		}
		if (!st->type->probe)
			db += st->type->space_bytes(st, db);
	}
	c->est_ns += *t - t0;
}

static int build_items(struct pb *b, struct dut_plan *p)
{
	const struct dut_experiment *e = b->e;
	uint64_t per_rep = 1, n, t = 0;
	size_t k = 0;

	for (size_t i = 0; i < e->nsteps; i++)
		per_rep += e->steps[i].repeat;
	n = per_rep * e->repetitions * p->nconfigs;
	if (n > EXP_MAX_PLAN_ITEMS) {
		pb_error(b, e->steps[e->nsteps - 1].line, "the plan has %llu setups and step runs (%zu configurations x %u repetitions "
			 "x (1 setup + %llu step runs)); expected at most %d: fewer repetitions or configurations",
			 (unsigned long long)n, p->nconfigs, e->repetitions, (unsigned long long)(per_rep - 1),
			 EXP_MAX_PLAN_ITEMS);
		return -EINVAL;
	}
	p->items = calloc((size_t)n, sizeof(*p->items));
	if (!p->items)
		return -ENOMEM;
	for (size_t ci = 0; ci < p->nconfigs; ci++) {
		p->configs[ci].setup_ns = setup_estimate(&p->configs[ci]);
		p->configs[ci].est_ns = 0;
	}
	if (e->order == DUT_ORDER_SEQUENTIAL) {
		for (unsigned ci = 0; ci < p->nconfigs; ci++)
			for (unsigned rep = 0; rep < e->repetitions; rep++)
				add_rep(e, p, ci, rep, &k, &t);
	} else {
		for (unsigned rep = 0; rep < e->repetitions; rep++)
			for (unsigned ci = 0; ci < p->nconfigs; ci++)
				add_rep(e, p, ci, rep, &k, &t);
	}
	p->nitems = k;
	p->est_ns = t;
	return 0;
}

int exp_plan_build(const struct dut_experiment *e, struct dut_plan **ret, struct dut_error *err)
{
	struct pb b = { .e = e, .errs = { .source = e->source, .err = err } };
	struct dut_plan *p = calloc(1, sizeof(*p));
	int r = 0;

	if (!p)
		return -ENOMEM;
	p->exp = e;
	p->configs = calloc(e->nconfigs ? e->nconfigs : 1, sizeof(*p->configs));
	if (!p->configs) {
		dut_plan_free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->nconfigs && r == 0; i++) {
		p->nconfigs = i + 1;
		r = build_config(&b, &p->configs[i], i);
		for (size_t j = 0; j < i && r == 0; j++) {
			if (strcmp(p->configs[j].name, p->configs[i].name) == 0) {
				pb_error(&b, e->ndims ? e->dims[0].line : 1, "[matrix]: configurations %zu and %zu are both "
					 "named %s; expected distinct values", j + 1, i + 1, p->configs[i].name);
				r = -EINVAL;
			}
		}
	}
	if (r == 0)
		r = build_items(&b, p);
	if (r < 0) {
		if (r == -ENOMEM)
			dut_error_set(err, "%s: out of memory while planning the experiment", e->source);
		dut_plan_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

int dut_experiment_plan(const struct dut_experiment *e, struct dut_plan **ret)
{
	return exp_plan_build(e, ret, NULL);
}

void dut_plan_free(struct dut_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nconfigs; i++) {
		free(p->configs[i].name);
		free(p->configs[i].dim_values);
		free(p->configs[i].settings);
		free(p->configs[i].targets);
	}
	free(p->configs);
	free(p->items);
	free(p);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Findings (pure), the traps: what a run did not measure although its
 * numbers look as if it had.  Here the ones over every step kind, each
 * asking the kinds' ops (rundir_kinds.h) what they need: no flash behind the
 * target, an empty drive, a figure above the link; then each kind's own
 * (findings_traps_pg.c: a step served by memory, connection time in TPS, a
 * contended CPU, an unstable DSS plan).  The other findings: findings.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"
#include "tools/report/findings.h"
#include "tools/report/findings_priv.h"
#include "tools/report/rundir_kinds.h"
#include "tools/report/rundir_stats.h"

/* ---- traps: what the run did not measure ---- */

/* What the documents of a configuration say its target is. */
struct target_facts {
	const char *path, *kind, *through;
	const char *link_kind;     /* identify's: none, virtual, pcie, sata, usb, unknown */
	const char *link_desc;
	double ceiling;            /* B/s; 0: unknown */
	bool loop;                 /* a loop device, or through one (an image) */
};

static const char *jstr(json_object *o, const char *key)
{
	json_object *v = rundir_jget(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

/* A probe document's link description as identify's link kind. */
static const char *link_kind_of_desc(const char *d)
{
	if (strstr(d, "paravirtual"))
		return "virtual";
	if (strncmp(d, "loop", 4) == 0 || strstr(d, "no link"))
		return "none";
	if (!*d || strncmp(d, "unknown", 7) == 0)
		return "unknown";
	return "physical";
}

/* From the first identify document, else the first other dutprobe document; false: none. */
static bool target_facts_of(const struct rundir_config *c, const struct rundir_stepinfo *steps,
			    size_t nsteps, struct target_facts *ret)
{
	for (enum rundir_target_source src = RUNDIR_TARGET_IDENTIFY; src <= RUNDIR_TARGET_PROBE; src++)
		for (size_t s = 0; s < nsteps; s++) {
			const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);
			const struct dut_result *docs[1];
			json_object *t, *link;

			if (!ops || ops->target != src || !rundir_config_docs(c, steps[s].name, docs, 1))
				continue;
			t = findings_doc_member(docs[0], "target");
			link = rundir_jget(t, "link");
			*ret = (struct target_facts){ .path = jstr(t, "path"), .kind = jstr(t, "kind"),
						      .through = jstr(t, "through") };
			if (src == RUNDIR_TARGET_IDENTIFY) {
				json_object *bd = rundir_jget(t, "block_device");

				/* the target as the experiment names it, not the run's staging mount */
				for (size_t r = 0; r < c->nreps; r++) {
					const struct rundir_step *st = rundir_rep_step(&c->reps[r], steps[s].name);

					if (st && st->experiment_path && *st->experiment_path) {
						ret->path = st->experiment_path;
						break;
					}
				}
				ret->link_kind = jstr(link, "kind");
				ret->link_desc = jstr(link, "description");
				ret->ceiling = json_object_get_double(rundir_jget(link, "ceiling_bytes_per_s"));
				ret->loop = rundir_jget(bd, "loop") || strstr(ret->through, "loop") ||
					    strncmp(jstr(bd, "name"), "loop", 4) == 0;
			} else {
				ret->link_desc = json_object_get_string(link) ? json_object_get_string(link) : "";
				ret->link_kind = link_kind_of_desc(ret->link_desc);
				ret->ceiling = json_object_get_double(rundir_jget(t, "link_ceiling_bytes_per_s"));
				ret->loop = strncmp(ret->link_desc, "loop", 4) == 0;
			}
			return true;
		}
	return false;
}

static int no_flash_finding(const struct rundir_model *m, size_t ci, const struct target_facts *t,
			    struct findings *fs)
{
	bool image = t->loop || strcmp(t->kind, "file") == 0 || strcmp(t->kind, "directory") == 0;
	/* a virtual or absent link has no drive of its own behind it; an unknown one
	 * says so only under a file system's file or directory (a disk may just hide its link) */
	bool nolink = strcmp(t->link_kind, "virtual") == 0 || strcmp(t->link_kind, "none") == 0 ||
		      (image && strcmp(t->link_kind, "unknown") == 0);
	struct finding f = { .kind = FIND_NO_FLASH, .config = ci, .other = ci, .trap = true,
			     .value = { t->ceiling } };
	char thr[300] = "";

	if (!t->loop && !nolink)
		return 0;
	if (*t->through)
		snprintf(thr, sizeof(thr), ", through %s", t->through);
	return findings_add(fs, &f, t->link_kind,
		   "%s: no flash behind this: the target %s (%s%s) sits on a link dutprobe describes as "
		   "\"%s\", so its figures are "
		   "those of %s, not of a drive; this run did not measure a flash device. To measure "
		   "one, give a disk or partition with a physical link (PCIe, SATA, USB) as the target",
		   m->configs[ci].name, *t->path ? t->path : "(path not recorded)",
		   t->loop ? "a loop image" : *t->kind ? t->kind : "kind unknown", thr,
		   *t->link_desc ? t->link_desc : "an unknown link",
		   strcmp(t->link_kind, "virtual") == 0 ? "the hypervisor and the host's storage and cache" :
		   t->loop ? "the backing file's file system and page cache" : "whatever is behind it");
}

/*
 * A write step whose kind says the device was not ready for it (a bench
 * write row with no write before it in the repetition or on a freshly
 * created file or image, a fill that was not preconditioned).
 */
static int empty_drive_findings(const struct rundir_model *m, size_t ci, const struct target_facts *t,
				bool have_t, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct rundir_rep *rp = c->nreps ? &c->reps[0] : NULL;
	bool written = false;

	for (size_t s = 0; rp && s < rp->nsteps; s++) {
		const struct rundir_step *st = &rp->steps[s];
		const struct dut_result *d = st->ndocs ? st->docs[0].doc : NULL;
		const struct rundir_kind_ops *ops = d ? rundir_kind_ops_of(rundir_doc_kind_of(d)) : NULL;
		/* the step's own target: a bench lays out its own file */
		json_object *dt = d ? findings_doc_member(d, "target") : NULL;
		bool fresh = strcmp(jstr(dt, "kind"), "file") == 0 ||
			     strncmp(jstr(dt, "link"), "loop", 4) == 0 ||
			     (have_t && t->loop);
		struct finding f = { .kind = FIND_EMPTY_DRIVE, .config = ci, .other = ci, .trap = true };
		const char *why;
		int r;

		if (!ops || !ops->writes || !ops->writes(d))
			continue;
		why = ops->unprepared ? ops->unprepared(d, written, fresh, have_t && t->loop) : NULL;
		written = true;
		if (!why)
			continue;
		r = findings_add(fs, &f, st->name,
			"%s, step %s: the drive was empty or not preconditioned for this write test (%s): "
			"an SSD's figures on empty or fresh space are not its sustained ones. Precondition "
			"the device (a fill step, or slc over the whole span, before the write test) on a "
			"disk or partition", c->name, st->name, why);
		if (r < 0)
			return r;
	}
	return 0;
}

static int ceiling_add(const struct rundir_model *m, size_t ci, const char *step, const char *what,
		       double bps, const struct target_facts *t, struct findings *fs)
{
	struct finding f = { .kind = FIND_CEILING, .config = ci, .other = ci, .trap = true,
			     .value = { bps, t->ceiling } };
	char a[32], b[32];

	return findings_add(fs, &f, step,
		   "%s, step %s: %s of %s MB/s exceeds the interface ceiling of %s MB/s (%s): a cache "
		   "served it (the page cache, or one in front of the link), not the device",
		   m->configs[ci].name, step, what, rundir_fmt_num(bps / MB, 0, a, sizeof(a)),
		   rundir_fmt_num(t->ceiling / MB, 0, b, sizeof(b)), t->link_desc);
}

/* Any step's figure above the link: its kind's peak, or the I/O traced between its markers. */
static int ceiling_findings(const struct rundir_model *m, size_t ci, const struct rundir_stepinfo *st,
			    const struct target_facts *t, struct findings *fs)
{
	const struct rundir_config *c = &m->configs[ci];
	const struct rundir_kind_ops *ops = rundir_kind_ops_of(st->kind);
	double best = 0;
	char what[64] = "";

	if (t->ceiling <= 0 || (ops && ops->no_link_check))
		return 0;
	if (ops && ops->peak_bps) {
		best = ops->peak_bps(c, st->name, what, sizeof(what));
	} else {
		/* the trace between the step's markers: the bytes dutfs passed per second */
		const char *mark = rundir_step_mark(c, st->name);
		struct rundir_io_mix mix;

		if (!mark)
			return 0;
		rundir_io_mix_of(c, mark, &mix);
		if (mix.span_ns)
			best = (double)(mix.total.bytes[REP_READ] + mix.total.bytes[REP_WRITE]) * 1e9 /
			       (double)mix.span_ns;
		snprintf(what, sizeof(what), "the traced I/O (reads and writes)");
	}
	if (best <= t->ceiling)
		return 0;
	return ceiling_add(m, ci, st->name, what, best, t, fs);
}

int findings_traps(const struct rundir_model *m, size_t ci, const struct rundir_stepinfo *steps, size_t nsteps,
		   struct findings *fs)
{
	struct target_facts t;
	bool have_t = target_facts_of(&m->configs[ci], steps, nsteps, &t);
	int r = 0;

	if (have_t)
		r = no_flash_finding(m, ci, &t, fs);
	if (r == 0)
		r = empty_drive_findings(m, ci, &t, have_t, fs);
	for (size_t s = 0; r == 0 && s < nsteps; s++) {
		const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

		if (ops && ops->traps)
			r = ops->traps(m, ci, steps[s].name, fs);
		if (r == 0 && have_t)
			r = ceiling_findings(m, ci, &steps[s], &t, fs);
	}
	return r;
}

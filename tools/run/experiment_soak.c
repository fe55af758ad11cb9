/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The keys of long (soak) runs: [dutfs] trace-max and trace-segments (the
 * trace of each dutfs mount kept within a size by rotation: dutfs
 * --trace-max, docs/soak.md), and [experiment] progress and report-every
 * (a progress line every so often while a step runs, and the run
 * directory's report.md rewritten as a partial report).
 */
#include <string.h>

#include "lib/trace.h"
#include "lib/units.h"
#include "tools/run/experiment_build.h"

/* the bounds of dutfs --trace-max / --trace-segments (lib/trace.h) */
#define SEG_MIN_MIB (DUT_TRACE_SEGMENT_MIN_BYTES >> 20)

static struct exp_kv *find(struct exp_section *s, const char *key)
{
	for (size_t i = 0; i < s->nkv; i++)
		if (strcmp(s->kv[i].key, key) == 0)
			return &s->kv[i];
	return NULL;
}

bool exp_build_trace_max(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e)
{
	struct exp_kv *max = find(s, "trace-max"), *seg = find(s, "trace-segments");
	unsigned nseg = DUT_TRACE_SEGMENTS_DEFAULT;
	struct dut_error ue;

	if (seg) {
		struct dut_param_spec p = { .kind = DUT_P_UINT, .min = 2, .max = DUT_TRACE_SEGMENTS_MAX };
		struct dut_param_value v = { 0 };
		char msg[160];

		if (!max) {
			exp_error(c, seg->line, s, "trace-segments only serves trace-max: give trace-max = SIZE too");
			return false;
		}
		if (exp_param_parse(&p, seg->value, &v, e, msg, sizeof(msg)) < 0) {
			exp_error(c, seg->line, s, "trace-segments: expected a number of segments from 2 to %u, "
				  "found \"%s\"", DUT_TRACE_SEGMENTS_MAX, seg->value);
			return false;
		}
		nseg = (unsigned)v.u;
		e->trace_segments = nseg;
	}
	if (!max || strcmp(max->value, "none") == 0)
		return true;
	e->trace_max_line = max->line;
	if (dut_parse_size(max->value, &e->trace_max_bytes, &ue) < 0 || e->trace_max_bytes == 0) {
		exp_error(c, max->line, s, "trace-max: expected the most disk each trace may use, a size such as "
			  "512MiB or 8GiB (or none), found \"%s\"", max->value);
		e->trace_max_bytes = 0;
		return false;
	}
	if (e->trace_max_bytes / nseg < DUT_TRACE_SEGMENT_MIN_BYTES) {
		exp_error(c, max->line, s, "trace-max: %s is too small for %u segments of at least %llu MiB "
			  "(give at least %lluMiB, or fewer trace-segments)", max->value, nseg,
			  (unsigned long long)SEG_MIN_MIB, (unsigned long long)SEG_MIN_MIB * nseg);
		return false;
	}
	if (!e->trace) {
		exp_error(c, max->line, s, "trace-max bounds the trace, but trace = no writes none "
			  "(remove trace-max, or set trace = yes)");
		return false;
	}
	return true;
}

static bool duration_in(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, uint64_t lo_s,
			uint64_t hi_s, const char *what, uint64_t *ret)
{
	struct dut_error ue;
	uint64_t ns = 0;

	if (dut_parse_duration(kv->value, &ns, &ue) < 0 || ns < lo_s * 1000000000ull ||
	    ns > hi_s * 1000000000ull) {
		exp_error(c, kv->line, s, "%s: expected %s, a duration from %llus to %lluh (such as 60s or "
			  "15m), found \"%s\"", kv->key, what, (unsigned long long)lo_s,
			  (unsigned long long)(hi_s / 3600), kv->value);
		return false;
	}
	*ret = ns;
	return true;
}

bool exp_build_soak(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e)
{
	struct exp_kv *kv;

	if ((kv = find(s, "progress")) &&
	    !duration_in(c, s, kv, 1, 24 * 3600, "how often a running step prints a progress line", &e->progress_ns))
		return false;
	if ((kv = find(s, "report-every")) &&
	    !duration_in(c, s, kv, 10, 24 * 3600, "how often report.md is rewritten while a step runs",
			 &e->report_every_ns))
		return false;
	return true;
}

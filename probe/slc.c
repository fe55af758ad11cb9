/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe slc: sustained sequential write over a span; the throughput per
 * window of bytes written goes to knee_detect() (knee.c), which finds where
 * the write cache (SLC) runs out.  Optionally, after --idle S seconds, write
 * again and see how much cache came back.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"
#include "probe/engine.h"
#include "probe/knee.h"
#include "probe/probe.h"

#define QUICK_SPAN (256ull << 20)
#define QUICK_WINDOW (8ull << 20)

struct slc_cfg {
	uint64_t span_bytes, offset, window_bytes, slice_ns, idle_ns;
	uint32_t bs_bytes;
	unsigned qd;
	bool no_trim, window_set, slice_set;
	bool quick;
};

struct slc_pass {
	uint64_t bytes, elapsed_ns;
	size_t nwin, nslice;
	double *win_bw, *win_t_s, *slice_bw, *slice_t_s;
	uint64_t *win_end;        /* bytes written at the end of each window */
	struct knee_result knee;
	struct dut_hist_summary lat;
	int error;
	uint64_t error_offset;
	bool error_at_offset;     /* error_offset names an I/O (engine.h) */
	bool interrupted, ran;
};

struct slc_result {
	uint64_t span_bytes, offset, window_bytes, slice_ns, idle_ns;
	uint32_t bs_bytes;
	unsigned qd;
	int trim_status;          /* 0 trimmed, -errno, 1 = not asked */
	const char *discard_method;
	struct slc_pass first, again;
	bool interrupted;         /* Ctrl-C, also during the idle wait (no second pass then) */
};

enum { OPT_SPAN = 256, OPT_OFFSET, OPT_BS, OPT_QD, OPT_WINDOW, OPT_SLICE, OPT_IDLE, OPT_NO_TRIM };

static const struct option slc_opts[] = {
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "qd", required_argument, NULL, OPT_QD },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "slice", required_argument, NULL, OPT_SLICE },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "no-trim", no_argument, NULL, OPT_NO_TRIM },
	{ NULL, 0, NULL, 0 },
};

static void slc_init(void *c)
{
	struct slc_cfg *cfg = c;

	cfg->window_bytes = 64ull << 20;
	cfg->slice_ns = 500000000ull;
	cfg->bs_bytes = 1u << 20;
	cfg->qd = 8;
}

static int slc_parse_opt(void *c, int opt, const char *arg, struct dut_error *err)
{
	struct slc_cfg *cfg = c;

	switch (opt) {
	case OPT_SPAN:
		return probe_parse_size_opt("--span", arg, &cfg->span_bytes, err);
	case OPT_OFFSET:
		return probe_parse_size_opt("--offset", arg, &cfg->offset, err);
	case OPT_BS:
		return probe_parse_bs_opt(arg, &cfg->bs_bytes, err);
	case OPT_QD:
		return probe_parse_uint_opt("--qd", arg, 1, 4096, &cfg->qd, err);
	case OPT_WINDOW:
		cfg->window_set = true;
		return probe_parse_size_opt("--window", arg, &cfg->window_bytes, err);
	case OPT_SLICE:
		cfg->slice_set = true;
		return probe_parse_duration_opt("--slice", arg, &cfg->slice_ns, err);
	case OPT_IDLE:
		return probe_parse_duration_opt("--idle", arg, &cfg->idle_ns, err);
	case OPT_NO_TRIM:
		cfg->no_trim = true;
		return 0;
	}
	return -EINVAL;
}

static int slc_finish(void *c, const struct probe_common *co, struct dut_error *err)
{
	struct slc_cfg *cfg = c;

	cfg->quick = co->quick;
	if (co->quick) {
		if (!cfg->window_set)
			cfg->window_bytes = QUICK_WINDOW;
		if (!cfg->slice_set)
			cfg->slice_ns = 100000000ull;
	}
	if (!cfg->slice_ns || !cfg->window_bytes) {
		dut_error_set(err, "--window and --slice must be more than 0");
		return -EINVAL;
	}
	return 0;
}

static bool slc_writes(const void *c)
{
	return true;
}

static uint64_t slc_span(const struct slc_cfg *cfg, const struct probe_target *t)
{
	uint64_t span = cfg->span_bytes ? cfg->span_bytes : t->size_bytes - cfg->offset;

	if (cfg->quick && !cfg->span_bytes && span > QUICK_SPAN)
		span = QUICK_SPAN;
	return span / cfg->bs_bytes * cfg->bs_bytes;
}

static int slc_check_target(const void *c, const struct probe_target *t, struct dut_error *err)
{
	const struct slc_cfg *cfg = c;

	if (cfg->bs_bytes % t->lbs_bytes || cfg->offset % t->lbs_bytes) {
		dut_error_set(err, "--bs %u and --offset %" PRIu64 " must be multiples of the logical block size %u of %s",
			      cfg->bs_bytes, cfg->offset, t->lbs_bytes, t->path);
		return -EINVAL;
	}
	if (cfg->offset >= t->size_bytes ||
	    (cfg->span_bytes && cfg->span_bytes > t->size_bytes - cfg->offset)) {
		dut_error_set(err, "--offset/--span reach past the end of %s (%" PRIu64 " bytes)", t->path,
			      t->size_bytes);
		return -EINVAL;
	}
	if (slc_span(cfg, t) < cfg->window_bytes * 2) {
		dut_error_set(err, "the span must hold at least two --window of %" PRIu64 " bytes", cfg->window_bytes);
		return -EINVAL;
	}
	return 0;
}

static void pass_free(struct slc_pass *p)
{
	free(p->win_bw);
	free(p->win_t_s);
	free(p->win_end);
	free(p->slice_bw);
	free(p->slice_t_s);
}

/* Turn cumulative samples into rates: bytes between samples / time between them. */
static int rates(const struct engine_sample *s, size_t n, uint64_t min_bytes, double **ret_bw,
		 double **ret_t, uint64_t **ret_end, size_t *ret_n)
{
	double *bw = calloc(n + 1, sizeof(*bw)), *t = calloc(n + 1, sizeof(*t));
	uint64_t *end = calloc(n + 1, sizeof(*end)), pb = 0, pt = 0;
	size_t k = 0;

	if (!bw || !t || !end) {
		free(bw);
		free(t);
		free(end);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t db = s[i].bytes - pb, dt = s[i].t_ns - pt;

		/* The last sample may close a short remainder: too little to rate. */
		if (dt == 0 || db < min_bytes)
			continue;
		bw[k] = (double)db * 1e9 / (double)dt;
		t[k] = (double)s[i].t_ns / 1e9;
		end[k] = s[i].bytes;
		k++;
		pb = s[i].bytes;
		pt = s[i].t_ns;
	}
	*ret_bw = bw;
	*ret_t = t;
	if (ret_end)
		*ret_end = end;
	else
		free(end);
	*ret_n = k;
	return 0;
}

static int write_pass(const struct slc_cfg *cfg, struct probe_ctx *ctx, uint64_t span, uint64_t limit,
		      struct slc_pass *p)
{
	struct engine_job j = {
		.fd = ctx->target.fd, .pattern = PROBE_SEQ, .dir = PROBE_WRITE, .bs_bytes = cfg->bs_bytes,
		.qd = cfg->qd, .threads = 1, .span_offset = cfg->offset, .span_bytes = span,
		.byte_limit = limit, .fixed_files = ctx->co.fixed_files, .fixed_bufs = ctx->co.fixed_bufs,
		.sqpoll = ctx->co.sqpoll, .seed = ctx->co.seed, .series_slice_ns = cfg->slice_ns,
		.series_window_bytes = cfg->window_bytes, .stall_ns = ctx->co.stall_ns, .stop = ctx->stop,
	};
	struct engine_result er;
	int r;

	r = engine_run(&j, &er);
	if (r < 0)
		return r;
	p->ran = true;
	p->bytes = er.total_bytes;
	p->elapsed_ns = er.elapsed_ns;
	p->error = er.error;
	p->error_offset = er.error_offset;
	p->error_at_offset = er.error_at_offset;
	p->interrupted = er.interrupted;
	dut_hist_summarize(er.lat, &p->lat);
	r = rates(er.windows, er.nwindows, cfg->window_bytes / 2, &p->win_bw, &p->win_t_s, &p->win_end, &p->nwin);
	if (r == 0)
		r = rates(er.slices, er.nslices, 1, &p->slice_bw, &p->slice_t_s, NULL, &p->nslice);
	if (r == 0)
		r = knee_detect(p->win_bw, p->nwin, NULL, &p->knee);
	engine_result_free(&er);
	return r;
}

static void idle_wait(uint64_t ns, const volatile sig_atomic_t *stop)
{
	while (ns && !*stop) {
		uint64_t step = ns < 100000000ull ? ns : 100000000ull;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step };

		nanosleep(&ts, NULL);
		ns -= step;
	}
}

static void slc_free(void *p)
{
	struct slc_result *res = p;

	if (!res)
		return;
	pass_free(&res->first);
	pass_free(&res->again);
	free(res);
}

static int slc_run(const void *c, struct probe_ctx *ctx, void **ret, struct dut_error *err)
{
	const struct slc_cfg *cfg = c;
	struct slc_result *res = calloc(1, sizeof(*res));
	uint64_t span = slc_span(cfg, &ctx->target);
	const char *method = "none";
	int r;

	if (!res)
		return -ENOMEM;
	res->span_bytes = span;
	res->offset = cfg->offset;
	res->window_bytes = cfg->window_bytes;
	res->slice_ns = cfg->slice_ns;
	res->idle_ns = cfg->idle_ns;
	res->bs_bytes = cfg->bs_bytes;
	res->qd = cfg->qd;
	/* Start from discarded blocks: a fresh drive's state, and a fair cache. */
	res->trim_status = cfg->no_trim ? 1 : probe_discard(ctx, cfg->offset, span, &method);
	res->discard_method = method;
	r = write_pass(cfg, ctx, span, 0, &res->first);
	if (r == 0 && cfg->idle_ns && !res->first.error && !*ctx->stop) {
		idle_wait(cfg->idle_ns, ctx->stop);
		if (!*ctx->stop)
			r = write_pass(cfg, ctx, span, res->first.bytes, &res->again);
	}
	res->interrupted = *ctx->stop || res->first.interrupted || res->again.interrupted;
	if (r < 0) {
		dut_error_set(err, "slc: %s", strerror(-r));
		slc_free(res);
		return r;
	}
	*ret = res;
	return 0;
}

/* Bytes written before the sample at index i (the end of window i - 1). */
static uint64_t bytes_before(const struct slc_pass *p, size_t i)
{
	return i ? p->win_end[i - 1] : 0;
}

/* Where knee k lies in bytes written: point estimate and interval (knee_locate). */
static struct knee_locus locus_of(const struct slc_pass *p, const struct knee_point *k)
{
	struct knee_locus l;

	knee_locate(k, p->win_bw, p->win_end, p->nwin, &l);
	return l;
}

static void human_pass(const struct slc_pass *p, const struct probe_ctx *ctx, FILE *out)
{
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN], c[DUT_FMT_LEN], d[DUT_FMT_LEN];

	fprintf(out, "wrote %s in %s: %zu windows, %zu time slices; write latency p50 %s p99 %s\n",
		dut_format_size(p->bytes, a, sizeof(a)), dut_format_duration(p->elapsed_ns, b, sizeof(b)),
		p->nwin, p->nslice, dut_format_duration(p->lat.p50, c, sizeof(c)),
		dut_format_duration(p->lat.p99, d, sizeof(d)));
	if (!p->knee.nknees) {
		double med = p->knee.nsegments ? p->knee.segments[0].median : 0;

		fprintf(out, "knee: none (%s); median %.1f MB/s\n", p->knee.why_none, med / 1e6);
	}
	for (size_t i = 0; i < p->knee.nknees; i++) {
		const struct knee_point *k = &p->knee.knees[i];
		struct knee_locus l = locus_of(p, k);

		fprintf(out, "knee %zu: after %s written (95%% interval %s .. ", i + 1,
			dut_format_size(l.at, a, sizeof(a)), dut_format_size(l.lo, b, sizeof(b)));
		fprintf(out, "%s): %.1f -> %.1f MB/s (%+.0f%%), t = %.1f, confidence %s%s\n",
			dut_format_size(l.hi, c, sizeof(c)), k->median_before / 1e6,
			k->median_after / 1e6, k->rel_change * 100, k->t_stat, k->confidence,
			probe_above_ceiling(ctx, k->median_before) ? " (before: cache, not device)" : "");
	}
	for (size_t i = 0; p->knee.nknees && i < p->knee.nsegments; i++) {
		const struct knee_segment *s = &p->knee.segments[i];

		fprintf(out, "  plateau %zu: %s .. %s written, median %.1f MB/s\n", i + 1,
			dut_format_size(bytes_before(p, s->first), a, sizeof(a)),
			dut_format_size(p->win_end[s->end - 1], b, sizeof(b)), s->median / 1e6);
	}
	if (p->error)
		probe_print_io_error(out, "", p->error, p->error_at_offset, p->error_offset);
}

/* The first knee where throughput falls: the end of the write cache. */
static const struct knee_point *cache_knee(const struct slc_pass *p)
{
	for (size_t i = 0; i < p->knee.nknees; i++)
		if (p->knee.knees[i].rel_change < 0)
			return &p->knee.knees[i];
	return NULL;
}

static void slc_human(const void *v, const struct probe_ctx *ctx, FILE *out)
{
	const struct slc_result *res = v;
	const struct knee_point *k1 = cache_knee(&res->first);
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN], c[DUT_FMT_LEN];

	fprintf(out, "dutprobe slc %s: sequential write, %s blocks, QD%u, over %s at offset %" PRIu64 "\n",
		ctx->target.path, dut_format_size(res->bs_bytes, a, sizeof(a)), res->qd,
		dut_format_size(res->span_bytes, b, sizeof(b)), res->offset);
	fprintf(out, "link: %s; windows of %s, slices of %s; %s (%s)\n", ctx->ceiling_desc,
		dut_format_size(res->window_bytes, a, sizeof(a)), dut_format_duration(res->slice_ns, b, sizeof(b)),
		res->trim_status == 0 ? "span discarded first" :
		res->trim_status == 1 ? "not discarded first (--no-trim)" : "discard failed: not discarded first",
		res->discard_method);
	human_pass(&res->first, ctx, out);
	if (k1)
		fprintf(out, "estimated write cache: %s (confidence %s)\n",
			dut_format_size(locus_of(&res->first, k1).at, a, sizeof(a)), k1->confidence);
	else
		fprintf(out, "estimated write cache: no knee within %s (larger than the span, or none)\n",
			dut_format_size(res->first.bytes, a, sizeof(a)));
	if (res->again.ran) {
		const struct knee_point *k2 = cache_knee(&res->again);

		fprintf(out, "\nafter %s idle, writing again:\n", dut_format_duration(res->idle_ns, c, sizeof(c)));
		human_pass(&res->again, ctx, out);
		if (k1 && k2) {
			uint64_t back = locus_of(&res->again, k2).at, first = locus_of(&res->first, k1).at;

			fprintf(out, "cache that came back: %s of %s (%.0f%%)\n",
				dut_format_size(back, a, sizeof(a)), dut_format_size(first, b, sizeof(b)),
				first ? 100.0 * (double)back / (double)first : 0.0);
		}
		else if (k1)
			fprintf(out, "cache that came back: all of it, or more (no knee in %s)\n",
				dut_format_size(res->again.bytes, a, sizeof(a)));
	}
	if (res->interrupted)
		fprintf(out, "\ninterrupted: figures above are partial%s\n",
			res->idle_ns && !res->again.ran && !res->first.interrupted ? " (no second pass after the idle wait)" : "");
}

static int json_knees(json_object *x, const struct slc_pass *p)
{
	json_object *arr = json_object_new_array();
	int r = 0;

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < p->knee.nknees; i++) {
		const struct knee_point *k = &p->knee.knees[i];
		json_object *o = json_object_new_object();

		if (!o || json_object_array_add(arr, o) < 0) {
			json_object_put(o);
			r = -ENOMEM;
			break;
		}
		struct knee_locus l = locus_of(p, k);

		/* bytes_before: the window boundary of the split; bytes_at: the estimate inside it */
		r |= probe_json_add(o, "bytes_before", json_object_new_int64((int64_t)bytes_before(p, k->index)));
		r |= probe_json_add(o, "bytes_at", json_object_new_int64((int64_t)l.at));
		r |= probe_json_add(o, "ci95_lo_bytes", json_object_new_int64((int64_t)l.lo));
		r |= probe_json_add(o, "ci95_hi_bytes", json_object_new_int64((int64_t)l.hi));
		r |= probe_json_add(o, "bw_before", json_object_new_double(k->median_before));
		r |= probe_json_add(o, "bw_after", json_object_new_double(k->median_after));
		r |= probe_json_add(o, "rel_change", json_object_new_double(k->rel_change));
		if (isfinite(k->t_stat))
			r |= probe_json_add(o, "t_stat", json_object_new_double(k->t_stat));
		r |= probe_json_add(o, "confidence", json_object_new_string(k->confidence));
	}
	r |= probe_json_add(x, "knees", arr);
	if (!p->knee.nknees)
		r |= probe_json_add(x, "no_knee_reason", json_object_new_string(p->knee.why_none));
	return r ? -ENOMEM : 0;
}

static int json_pass(struct dut_result *doc, const char *name, const struct slc_pass *p)
{
	static const char *const wcols[] = { "bytes_written", "t_s", "bw" };
	static const char *const wunits[] = { "B", "s", "B/s" };
	static const char *const scols[] = { "t_s", "bw" };
	static const char *const sunits[] = { "s", "B/s" };
	struct dut_result_phase *ph = dut_result_add_phase(doc, name);
	struct dut_series *ws, *ss;
	int r;

	if (!ph)
		return -ENOMEM;
	ws = dut_phase_add_series(ph, "per_window", wcols, wunits, 3);
	ss = dut_phase_add_series(ph, "per_slice", scols, sunits, 2);
	if (!ws || !ss)
		return -ENOMEM;
	for (size_t i = 0; i < p->nwin; i++) {
		double row[3] = { (double)p->win_end[i], p->win_t_s[i], p->win_bw[i] };

		if ((r = dut_series_append(ws, row)) < 0)
			return r;
	}
	for (size_t i = 0; i < p->nslice; i++) {
		double row[2] = { p->slice_t_s[i], p->slice_bw[i] };

		if ((r = dut_series_append(ss, row)) < 0)
			return r;
	}
	if ((r = dut_phase_set_duration(ph, p->elapsed_ns)) < 0 ||
	    (r = dut_phase_set_metric(ph, "bytes_written", (double)p->bytes, "B")) < 0 ||
	    (r = dut_phase_set_latency(ph, "write", &p->lat)) < 0)
		return r;
	return json_knees(dut_phase_extra(ph), p);
}

static int slc_json(const void *v, const struct probe_ctx *ctx, struct dut_result *doc)
{
	const struct slc_result *res = v;
	const struct knee_point *k = cache_knee(&res->first);
	json_object *cfg = dut_result_config(doc);
	int r = 0;

	r |= probe_json_add(cfg, "test", json_object_new_string("slc"));
	r |= probe_json_add(cfg, "span_bytes", json_object_new_int64((int64_t)res->span_bytes));
	r |= probe_json_add(cfg, "offset_bytes", json_object_new_int64((int64_t)res->offset));
	r |= probe_json_add(cfg, "block_bytes", json_object_new_int64(res->bs_bytes));
	r |= probe_json_add(cfg, "queue_depth", json_object_new_int((int)res->qd));
	r |= probe_json_add(cfg, "window_bytes", json_object_new_int64((int64_t)res->window_bytes));
	r |= probe_json_add(cfg, "slice_ns", json_object_new_int64((int64_t)res->slice_ns));
	r |= probe_json_add(cfg, "idle_ns", json_object_new_int64((int64_t)res->idle_ns));
	r |= probe_json_add(cfg, "discarded_first", json_object_new_boolean(res->trim_status == 0));
	r |= probe_json_add(cfg, "interrupted", json_object_new_boolean(res->interrupted));
	if (r)
		return -ENOMEM;
	if ((r = json_pass(doc, "write", &res->first)) < 0)
		return r;
	if (k) {
		struct dut_result_phase *ph = dut_result_find_phase(doc, "write");

		r = dut_phase_set_metric(ph, "cache_bytes", (double)locus_of(&res->first, k).at, "B");
		if (r < 0)
			return r;
	}
	if (res->again.ran)
		return json_pass(doc, "write_after_idle", &res->again);
	return 0;
}

static int slc_exit_status(const void *v)
{
	const struct slc_result *res = v;

	return res->first.error || res->again.error || res->interrupted;
}

const struct probe_test_ops probe_slc_ops = {
	.name = "slc",
	.summary = "write-cache (SLC) size: the knee of sustained sequential write throughput",
	.help =
		"  --span SIZE         how much to write (default: the whole target; --quick 256 MiB)\n"
		"  --offset SIZE       where to start (default 0)\n"
		"  --bs SIZE           block size (default 1M)\n"
		"  --qd N              queue depth (default 8)\n"
		"  --window SIZE       throughput sample per window of bytes written (default 64M;\n"
		"                      --quick 8M): the series the knee is found in\n"
		"  --slice DUR         throughput sample per time slice too (default 500ms; --quick 100ms)\n"
		"  --idle DUR          then wait DUR idle and write again: how much cache came back\n"
		"  --no-trim           do not discard the span first\n"
		"The knee: best split of the window series into two constant levels by least\n"
		"squares, kept when it beats one level by BIC and the levels differ by >= 15%;\n"
		"repeated inside each part for more plateaus.  Confidence from the t statistic of\n"
		"the level change and the width of the 95% likelihood interval of its position.\n",
	.longopts = slc_opts,
	.cfg_size = sizeof(struct slc_cfg),
	.init = slc_init,
	.parse_opt = slc_parse_opt,
	.finish = slc_finish,
	.writes = slc_writes,
	.check_target = slc_check_target,
	.run = slc_run,
	.render_human = slc_human,
	.render_json = slc_json,
	.exit_status = slc_exit_status,
	.free_result = slc_free,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe bench: a CrystalDiskMark-style table.  Each row runs reps times
 * (warm-up before the first); MB/s and IOPS are the median of the reps with
 * their min-max; latency percentiles come from one histogram of all reps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/units.h"
#include "probe/engine.h"
#include "probe/probe.h"
#include "probe/rowspec.h"

#define BENCH_MAX_REPS 50
#define QUICK_SPAN (64ull << 20)

struct bench_cfg {
	struct bench_row rows[BENCH_MAX_ROWS];
	size_t nrows;
	uint64_t time_ns, warmup_ns, span_bytes, offset;
	unsigned reps;
	bool read_only, time_set, warmup_set, reps_set;
	struct probe_common co;   /* copied in finish() */
};

struct bench_row_result {
	struct bench_row row;
	unsigned reps_done;
	double iops[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];   /* bw in bytes/s */
	double iops_med, iops_min, iops_max, bw_med, bw_min, bw_max;
	struct dut_hist *lat;
	struct dut_hist_summary lat_s;
	uint64_t ios, elapsed_ns;
	double cpu_s;
	bool above_ceiling;
	int error;
	uint64_t error_offset;
	bool error_at_offset;     /* error_offset names an I/O (engine.h) */
};

struct bench_result {
	size_t nrows;
	struct bench_row_result rows[BENCH_MAX_ROWS];
	uint64_t span_bytes, offset, time_ns, warmup_ns;
	unsigned reps;
	uint64_t laid_out_bytes, layout_ns;
	bool interrupted;
	int error;                /* first I/O error, -errno */
};

enum { OPT_ROW = 256, OPT_ROWS, OPT_TIME, OPT_WARMUP, OPT_REPS, OPT_SPAN, OPT_OFFSET, OPT_READ_ONLY };

static const struct option bench_opts[] = {
	{ "row", required_argument, NULL, OPT_ROW },
	{ "rows", required_argument, NULL, OPT_ROWS },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "read-only", no_argument, NULL, OPT_READ_ONLY },
	{ NULL, 0, NULL, 0 },
};

static void bench_init(void *c)
{
	struct bench_cfg *cfg = c;

	cfg->time_ns = 5000000000ull;
	cfg->warmup_ns = 1000000000ull;
	cfg->reps = 3;
}

static int bench_parse_opt(void *c, int opt, const char *arg, struct dut_error *err)
{
	struct bench_cfg *cfg = c;

	switch (opt) {
	case OPT_ROW:
		return bench_row_parse(arg, cfg->rows, BENCH_MAX_ROWS, &cfg->nrows, err);
	case OPT_ROWS:
		return bench_rows_parse_list(arg, cfg->rows, BENCH_MAX_ROWS, &cfg->nrows, err);
	case OPT_TIME:
		cfg->time_set = true;
		if (probe_parse_duration_opt("--time", arg, &cfg->time_ns, err) < 0)
			return -EINVAL;
		if (!cfg->time_ns) {
			dut_error_set(err, "--time must be more than 0");
			return -EINVAL;
		}
		return 0;
	case OPT_WARMUP:
		cfg->warmup_set = true;
		return probe_parse_duration_opt("--warmup", arg, &cfg->warmup_ns, err);
	case OPT_REPS:
		cfg->reps_set = true;
		return probe_parse_uint_opt("--reps", arg, 1, BENCH_MAX_REPS, &cfg->reps, err);
	case OPT_SPAN:
		return probe_parse_size_opt("--span", arg, &cfg->span_bytes, err);
	case OPT_OFFSET:
		return probe_parse_size_opt("--offset", arg, &cfg->offset, err);
	case OPT_READ_ONLY:
		cfg->read_only = true;
		return 0;
	}
	return -EINVAL;
}

static int bench_finish(void *c, const struct probe_common *co, struct dut_error *err)
{
	struct bench_cfg *cfg = c;

	cfg->co = *co;
	if (!cfg->nrows) {
		memcpy(cfg->rows, bench_default_rows, sizeof(bench_default_rows));
		cfg->nrows = DUT_ARRAY_SIZE(bench_default_rows);
	}
	if (cfg->read_only) {
		size_t n = 0;

		for (size_t i = 0; i < cfg->nrows; i++)
			if (!bench_row_writes(&cfg->rows[i]))
				cfg->rows[n++] = cfg->rows[i];
		cfg->nrows = n;
		if (!n) {
			dut_error_set(err, "--read-only leaves no rows to run");
			return -EINVAL;
		}
	}
	if (co->quick) {
		if (!cfg->time_set)
			cfg->time_ns = 300000000ull;
		if (!cfg->warmup_set)
			cfg->warmup_ns = 100000000ull;
		if (!cfg->reps_set)
			cfg->reps = 2;
	}
	return 0;
}

static bool bench_writes(const void *c)
{
	const struct bench_cfg *cfg = c;

	for (size_t i = 0; i < cfg->nrows; i++)
		if (bench_row_writes(&cfg->rows[i]))
			return true;
	return false;
}

static int bench_check_target(const void *c, const struct probe_target *t, struct dut_error *err)
{
	const struct bench_cfg *cfg = c;
	uint64_t span = cfg->span_bytes ? cfg->span_bytes : t->size_bytes - cfg->offset;
	char name[48];

	if (cfg->offset % t->lbs_bytes) {
		dut_error_set(err, "--offset %" PRIu64 " is not a multiple of the logical block size %u of %s",
			      cfg->offset, t->lbs_bytes, t->path);
		return -EINVAL;
	}
	if (cfg->offset >= t->size_bytes || span > t->size_bytes - cfg->offset) {
		dut_error_set(err, "--offset/--span reach past the end of %s (%" PRIu64 " bytes)", t->path,
			      t->size_bytes);
		return -EINVAL;
	}
	for (size_t i = 0; i < cfg->nrows; i++) {
		const struct bench_row *r = &cfg->rows[i];

		if (r->bs_bytes % t->lbs_bytes) {
			dut_error_set(err, "row %s: block size %u bytes is not a multiple of the logical block size %u of %s",
				      bench_row_name(r, name, sizeof(name)), r->bs_bytes, t->lbs_bytes, t->path);
			return -EINVAL;
		}
		if ((uint64_t)r->bs_bytes * r->threads > span) {
			dut_error_set(err, "row %s: the span (%" PRIu64 " bytes) is smaller than one block per thread",
				      bench_row_name(r, name, sizeof(name)), span);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void median_spread(const double *v, unsigned n, double *med, double *lo, double *hi)
{
	double s[BENCH_MAX_REPS];

	if (!n) {
		*med = *lo = *hi = 0;
		return;
	}
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	*med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	*lo = s[0];
	*hi = s[n - 1];
}

static void job_base(struct engine_job *j, const struct probe_ctx *ctx, uint64_t off, uint64_t span)
{
	memset(j, 0, sizeof(*j));
	j->fd = ctx->target.fd;
	j->span_offset = off;
	j->span_bytes = span;
	j->fixed_files = ctx->co.fixed_files;
	j->fixed_bufs = ctx->co.fixed_bufs;
	j->sqpoll = ctx->co.sqpoll;
	j->seed = ctx->co.seed;
	j->stall_ns = ctx->co.stall_ns;
	j->stop = ctx->stop;
}

/* Write a sparse file once from start to end so reads hit allocated blocks. */
static int lay_out(struct bench_result *res, struct probe_ctx *ctx, uint64_t off, uint64_t span)
{
	struct engine_job j;
	struct engine_result er;
	int r;

	job_base(&j, ctx, off, span);
	j.pattern = PROBE_SEQ;
	j.dir = PROBE_WRITE;
	j.bs_bytes = span >= (1u << 20) && span % (1u << 20) == 0 ? 1u << 20 : ctx->target.lbs_bytes;
	j.qd = 8;
	j.threads = 1;
	r = engine_run(&j, &er);
	if (r < 0)
		return r;
	res->laid_out_bytes = er.total_bytes;
	res->layout_ns = er.elapsed_ns;
	if (er.error)
		res->error = er.error;
	res->interrupted |= er.interrupted;
	engine_result_free(&er);
	return target_refresh_sparse(&ctx->target);
}

static int run_row(const struct bench_cfg *cfg, struct probe_ctx *ctx, struct bench_row_result *rr,
		   uint64_t off, uint64_t span)
{
	for (unsigned rep = 0; rep < cfg->reps; rep++) {
		struct engine_job j;
		struct engine_result er;
		int r;

		job_base(&j, ctx, off, span);
		j.pattern = rr->row.pattern;
		j.dir = rr->row.dir;
		j.bs_bytes = rr->row.bs_bytes;
		j.qd = rr->row.qd;
		j.threads = rr->row.threads;
		j.wrap = true;
		j.time_limit_ns = cfg->time_ns;
		j.warmup_ns = rep == 0 ? cfg->warmup_ns : 0;
		j.seed = ctx->co.seed + rep * 7919;
		r = engine_run(&j, &er);
		if (r < 0)
			return r;
		if (er.elapsed_ns && er.ios) {
			rr->iops[rr->reps_done] = (double)er.ios * 1e9 / (double)er.elapsed_ns;
			rr->bw[rr->reps_done] = (double)er.bytes * 1e9 / (double)er.elapsed_ns;
			rr->reps_done++;
		}
		rr->ios += er.ios;
		rr->elapsed_ns += er.elapsed_ns;
		rr->cpu_s += er.cpu_user_s + er.cpu_sys_s;
		dut_hist_merge(rr->lat, er.lat);
		if (er.error && !rr->error) {
			rr->error = er.error;
			rr->error_offset = er.error_offset;
			rr->error_at_offset = er.error_at_offset;
		}
		engine_result_free(&er);
		if (rr->error || (ctx->stop && *ctx->stop))
			break;
	}
	median_spread(rr->iops, rr->reps_done, &rr->iops_med, &rr->iops_min, &rr->iops_max);
	median_spread(rr->bw, rr->reps_done, &rr->bw_med, &rr->bw_min, &rr->bw_max);
	dut_hist_summarize(rr->lat, &rr->lat_s);
	rr->above_ceiling = probe_above_ceiling(ctx, rr->bw_max);
	return 0;
}

static void bench_free(void *p)
{
	struct bench_result *res = p;

	if (!res)
		return;
	for (size_t i = 0; i < BENCH_MAX_ROWS; i++)
		dut_hist_free(res->rows[i].lat);
	free(res);
}

static int bench_run(const void *c, struct probe_ctx *ctx, void **ret, struct dut_error *err)
{
	const struct bench_cfg *cfg = c;
	struct bench_result *res = calloc(1, sizeof(*res));
	uint64_t span;
	bool reads = false, hole = false;
	int r;

	if (!res)
		return -ENOMEM;
	span = cfg->span_bytes ? cfg->span_bytes : ctx->target.size_bytes - cfg->offset;
	if (ctx->co.quick && !cfg->span_bytes && span > QUICK_SPAN)
		span = QUICK_SPAN;
	res->span_bytes = span;
	res->offset = cfg->offset;
	res->time_ns = cfg->time_ns;
	res->warmup_ns = cfg->warmup_ns;
	res->reps = cfg->reps;
	for (size_t i = 0; i < cfg->nrows; i++)
		reads |= !bench_row_writes(&cfg->rows[i]);
	if (reads && target_has_hole(&ctx->target, cfg->offset, span, &hole) == 0 && hole) {
		if (!ctx->target.writable) {
			dut_error_set(err, "%s has holes in the span (they read as zeros without touching the device) and is not writable; write it in full first",
				      ctx->target.path);
			bench_free(res);
			return -EINVAL;
		}
		r = lay_out(res, ctx, cfg->offset, span);
		if (r < 0) {
			dut_error_set(err, "laying out %s failed: %s", ctx->target.path, strerror(-r));
			bench_free(res);
			return r;
		}
	}
	for (size_t i = 0; i < cfg->nrows && !res->error && !(ctx->stop && *ctx->stop); i++) {
		struct bench_row_result *rr = &res->rows[res->nrows];

		rr->row = cfg->rows[i];
		rr->lat = dut_hist_new();
		if (!rr->lat) {
			bench_free(res);
			return -ENOMEM;
		}
		res->nrows++;
		r = run_row(cfg, ctx, rr, cfg->offset, span);
		if (r < 0) {
			dut_error_set(err, "cannot run row: io_uring setup failed: %s", strerror(-r));
			bench_free(res);
			return r;
		}
		if (rr->error)
			res->error = rr->error;
	}
	res->interrupted |= ctx->stop && *ctx->stop;
	*ret = res;
	return 0;
}

static void bench_human(const void *p, const struct probe_ctx *ctx, FILE *out)
{
	const struct bench_result *res = p;
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN], c[DUT_FMT_LEN], d[DUT_FMT_LEN], e[DUT_FMT_LEN];
	char name[48];
	bool any_flag = false;

	fprintf(out, "dutprobe bench %s (%s%s%s, span %s at offset %" PRIu64 ", logical block %u B)\n",
		ctx->target.path, target_kind_name(ctx->target.kind),
		ctx->target.kind == TARGET_FILE ? " on " : "",
		ctx->target.kind == TARGET_FILE ? ctx->target.fstype : "",
		dut_format_size(res->span_bytes, a, sizeof(a)), res->offset, ctx->target.lbs_bytes);
	fprintf(out, "link: %s\n", ctx->ceiling_desc);
	if (res->laid_out_bytes)
		fprintf(out, "the file had holes: wrote all %s of the span first (%s) so reads hit real blocks\n",
			dut_format_size(res->laid_out_bytes, a, sizeof(a)),
			dut_format_duration(res->layout_ns, b, sizeof(b)));
	fprintf(out, "%u rep%s of %s after %s warm-up; MB/s and IOPS: median (min-max); latency over all reps\n\n",
		res->reps, res->reps == 1 ? "" : "s", dut_format_duration(res->time_ns, a, sizeof(a)),
		dut_format_duration(res->warmup_ns, b, sizeof(b)));
	fprintf(out, "%-16s %22s %24s %10s %10s %10s %10s\n", "row", "MB/s", "IOPS", "p50", "p99",
		"p99.9", "max");
	for (size_t i = 0; i < res->nrows; i++) {
		const struct bench_row_result *rr = &res->rows[i];
		char bw[48], iops[48];

		snprintf(bw, sizeof(bw), "%.1f (%.1f-%.1f)", rr->bw_med / 1e6, rr->bw_min / 1e6, rr->bw_max / 1e6);
		snprintf(iops, sizeof(iops), "%.0f (%.0f-%.0f)", rr->iops_med, rr->iops_min, rr->iops_max);
		fprintf(out, "%-16s %22s %24s %10s %10s %10s %10s%s\n", bench_row_name(&rr->row, name, sizeof(name)),
			bw, iops, dut_format_duration(rr->lat_s.p50, b, sizeof(b)),
			dut_format_duration(rr->lat_s.p99, c, sizeof(c)),
			dut_format_duration(rr->lat_s.p999, d, sizeof(d)),
			dut_format_duration(rr->lat_s.max, e, sizeof(e)),
			rr->above_ceiling ? "  <- cache, not device" : "");
		any_flag |= rr->above_ceiling;
		if (rr->error) {
			char prefix[96];

			snprintf(prefix, sizeof(prefix), "  %s: ", name);
			probe_print_io_error(out, prefix, rr->error, rr->error_at_offset, rr->error_offset);
		}
	}
	if (any_flag)
		fprintf(out, "\n\"cache, not device\": faster than the link can carry (%s, %s)\n", ctx->ceiling_desc,
			dut_format_rate(ctx->ceiling_bytes_per_s, a, sizeof(a)));
	if (res->interrupted)
		fprintf(out, "\ninterrupted: rows above are partial\n");
}

static int json_row_extra(json_object *x, const struct bench_row_result *rr)
{
	json_object *iops = json_object_new_array(), *bw = json_object_new_array();
	int r = 0;

	if (!iops || !bw) {
		json_object_put(iops);
		json_object_put(bw);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < rr->reps_done; i++) {
		json_object_array_add(iops, json_object_new_double(rr->iops[i]));
		json_object_array_add(bw, json_object_new_double(rr->bw[i]));
	}
	r |= probe_json_add(x, "pattern", json_object_new_string(rr->row.pattern == PROBE_SEQ ? "seq" : "rand"));
	r |= probe_json_add(x, "direction", json_object_new_string(rr->row.dir == PROBE_READ ? "read" : "write"));
	r |= probe_json_add(x, "block_bytes", json_object_new_int64(rr->row.bs_bytes));
	r |= probe_json_add(x, "queue_depth", json_object_new_int(rr->row.qd));
	r |= probe_json_add(x, "threads", json_object_new_int(rr->row.threads));
	r |= probe_json_add(x, "reps_iops", iops);
	r |= probe_json_add(x, "reps_bytes_per_s", bw);
	r |= probe_json_add(x, "cpu_s", json_object_new_double(rr->cpu_s));
	r |= probe_json_add(x, "ios", json_object_new_int64((int64_t)rr->ios));
	r |= probe_json_add(x, "cache_not_device", json_object_new_boolean(rr->above_ceiling));
	if (rr->error)
		r |= probe_json_add(x, "error", json_object_new_string(probe_io_strerror(rr->error)));
	return r ? -ENOMEM : 0;
}

static int bench_json(const void *p, const struct probe_ctx *ctx, struct dut_result *doc)
{
	const struct bench_result *res = p;
	json_object *cfg = dut_result_config(doc);
	char name[48];
	int r = 0;

	r |= probe_json_add(cfg, "test", json_object_new_string("bench"));
	r |= probe_json_add(cfg, "span_bytes", json_object_new_int64((int64_t)res->span_bytes));
	r |= probe_json_add(cfg, "offset_bytes", json_object_new_int64((int64_t)res->offset));
	r |= probe_json_add(cfg, "time_ns", json_object_new_int64((int64_t)res->time_ns));
	r |= probe_json_add(cfg, "warmup_ns", json_object_new_int64((int64_t)res->warmup_ns));
	r |= probe_json_add(cfg, "reps", json_object_new_int((int)res->reps));
	r |= probe_json_add(cfg, "fixed_files", json_object_new_boolean(ctx->co.fixed_files));
	r |= probe_json_add(cfg, "fixed_bufs", json_object_new_boolean(ctx->co.fixed_bufs));
	r |= probe_json_add(cfg, "sqpoll", json_object_new_boolean(ctx->co.sqpoll));
	r |= probe_json_add(cfg, "laid_out_bytes", json_object_new_int64((int64_t)res->laid_out_bytes));
	r |= probe_json_add(cfg, "interrupted", json_object_new_boolean(res->interrupted));
	if (r)
		return -ENOMEM;
	for (size_t i = 0; i < res->nrows; i++) {
		const struct bench_row_result *rr = &res->rows[i];
		struct dut_result_phase *ph = dut_result_add_phase(doc, bench_row_name(&rr->row, name, sizeof(name)));

		if (!ph)
			return -ENOMEM;
		if ((r = dut_phase_set_duration(ph, rr->elapsed_ns)) < 0 ||
		    (r = dut_phase_set_metric(ph, "bw", rr->bw_med, "B/s")) < 0 ||
		    (r = dut_phase_set_metric(ph, "bw_min", rr->bw_min, "B/s")) < 0 ||
		    (r = dut_phase_set_metric(ph, "bw_max", rr->bw_max, "B/s")) < 0 ||
		    (r = dut_phase_set_metric(ph, "iops", rr->iops_med, "IO/s")) < 0 ||
		    (r = dut_phase_set_metric(ph, "iops_min", rr->iops_min, "IO/s")) < 0 ||
		    (r = dut_phase_set_metric(ph, "iops_max", rr->iops_max, "IO/s")) < 0 ||
		    (r = dut_phase_set_latency(ph, "io", &rr->lat_s)) < 0 ||
		    (r = json_row_extra(dut_phase_extra(ph), rr)) < 0)
			return r;
	}
	return 0;
}

static int bench_exit_status(const void *p)
{
	const struct bench_result *res = p;

	return res->interrupted || res->error ? 1 : 0;
}

const struct probe_test_ops probe_bench_ops = {
	.name = "bench",
	.summary = "throughput, IOPS and latency table (CrystalDiskMark-style rows)",
	.help =
		"Rows (default: SEQ1M Q8T1 R/W, RND4K Q32T1 R/W, RND4K Q1T1 R/W):\n"
		"  --row SPEC          add one row, e.g. \"SEQ1M Q8T1 R\", seq1m-q8t1-read, rnd16k_q4_t2_w;\n"
		"                      without R/W a spec adds a read and a write row (repeatable)\n"
		"  --rows LIST         comma-separated specs; \"default\" = the six default rows\n"
		"  --read-only         drop the write rows\n"
		"Each row:\n"
		"  --time DUR          measured time per rep (default 5s; --quick 300ms)\n"
		"  --warmup DUR        warm-up before the first rep, not counted (default 1s; --quick 100ms)\n"
		"  --reps N            repetitions, reported as median (min-max) (default 3; --quick 2)\n"
		"  --span SIZE         region the offsets cover (default: the whole target;\n"
		"                      --quick: at most 64 MiB)\n"
		"  --offset SIZE       where the region starts (default 0)\n"
		"Random offsets are uniform over the span, aligned to the row's block size, which\n"
		"must be a multiple of the logical block size.  A sparse file is written in full\n"
		"before reads.  Figures above the link's ceiling are flagged \"cache, not device\".\n",
	.longopts = bench_opts,
	.cfg_size = sizeof(struct bench_cfg),
	.init = bench_init,
	.parse_opt = bench_parse_opt,
	.finish = bench_finish,
	.writes = bench_writes,
	.check_target = bench_check_target,
	.run = bench_run,
	.render_human = bench_human,
	.render_json = bench_json,
	.exit_status = bench_exit_status,
	.free_result = bench_free,
};

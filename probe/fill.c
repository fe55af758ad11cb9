/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe fill: random-write IOPS as the device fills.  Discard the span,
 * then for each level (ascending): write sequentially up to it, and run
 * rounds of random writes inside the filled part at each queue depth until
 * the steady-state criterion (steady.c) holds or --max-rounds is reached.
 * The steady-state IOPS is the mean of the last window of rounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "probe/engine.h"
#include "probe/probe.h"
#include "probe/steady.h"

#define FILL_MAX_LEVELS 16
#define FILL_MAX_QD 8
#define FILL_MAX_ROUNDS 1000
#define QUICK_SPAN (128ull << 20)

struct fill_level {
	double pct;               /* > 0 when given as a percentage */
	uint64_t bytes;           /* when given as a size */
};

struct fill_cfg {
	struct fill_level levels[FILL_MAX_LEVELS];
	size_t nlevels;
	unsigned qds[FILL_MAX_QD];
	size_t nqd;
	uint32_t bs_bytes;
	uint64_t round_ns, span_bytes;
	unsigned max_rounds;
	struct ss_criterion ss;
	bool quick, round_set, max_rounds_set;
};

struct fill_cell {                 /* one level x one queue depth */
	unsigned qd;
	size_t nrounds;
	double *round_iops;
	bool attained;
	size_t rounds_to_ss;       /* rounds when attained */
	struct ss_eval eval;       /* of the last window */
	double iops;               /* mean of the last window (or of all rounds if fewer) */
	double rel_to_fullest;
	struct dut_hist_summary lat;
	int error;
};

struct fill_level_result {
	uint64_t bytes;
	double pct;
	uint64_t fill_ns;
	struct fill_cell cells[FILL_MAX_QD];
};

struct fill_result {
	uint64_t span_bytes, round_ns;
	uint32_t bs_bytes;
	unsigned max_rounds;
	struct ss_criterion ss;
	int trim_status;
	const char *discard_method;
	size_t nlevels, nqd;
	struct fill_level_result levels[FILL_MAX_LEVELS];
	bool interrupted;
	int error;
	uint64_t error_offset;
	bool error_at_offset;     /* error_offset names an I/O (engine.h) */
};

enum { OPT_LEVELS = 256, OPT_QD, OPT_BS, OPT_ROUND, OPT_MAX_ROUNDS, OPT_SS, OPT_SPAN };

static const struct option fill_opts[] = {
	{ "levels", required_argument, NULL, OPT_LEVELS },
	{ "qd", required_argument, NULL, OPT_QD },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "round-time", required_argument, NULL, OPT_ROUND },
	{ "max-rounds", required_argument, NULL, OPT_MAX_ROUNDS },
	{ "ss", required_argument, NULL, OPT_SS },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ NULL, 0, NULL, 0 },
};

static int parse_levels(struct fill_cfg *cfg, const char *arg, struct dut_error *err)
{
	char buf[512];
	char *save = NULL, *tok;
	struct dut_error e = { { 0 } };

	if (strlen(arg) >= sizeof(buf) || !*arg) {
		dut_error_set(err, "--levels \"%s\": expected e.g. 30%%,60%%,90%% or 1G,2G", arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	cfg->nlevels = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct fill_level *l = &cfg->levels[cfg->nlevels];
		int r;

		if (cfg->nlevels == FILL_MAX_LEVELS) {
			dut_error_set(err, "--levels: at most %d levels", FILL_MAX_LEVELS);
			return -EINVAL;
		}
		memset(l, 0, sizeof(*l));
		if (strchr(tok, '%')) {
			r = dut_parse_percent(tok, &l->pct, &e);
			if (r == -ERANGE) {
				dut_error_set(err, "--levels: level %s is above 100%%", tok);
				return -EINVAL;
			}
			if (r == 0 && !(l->pct > 0)) {
				dut_error_set(err, "--levels: level %s must be more than 0%%", tok);
				return -EINVAL;
			}
		} else {
			r = dut_parse_size(tok, &l->bytes, &e);
			if (r == 0 && !l->bytes) {
				dut_error_set(err, "--levels: level %s must be more than 0", tok);
				return -EINVAL;
			}
		}
		if (r < 0) {
			dut_error_set(err, "--levels: %s", e.msg);
			return -EINVAL;
		}
		cfg->nlevels++;
	}
	return 0;
}

static void fill_init(void *c)
{
	struct fill_cfg *cfg = c;

	parse_levels(cfg, "30%,60%,90%", NULL);
	cfg->qds[0] = 1;
	cfg->qds[1] = 8;
	cfg->qds[2] = 32;
	cfg->nqd = 3;
	cfg->bs_bytes = 16384;
	cfg->round_ns = 10000000000ull;
	cfg->max_rounds = 30;
	ss_criterion_default(&cfg->ss);
}

static int fill_parse_opt(void *c, int opt, const char *arg, struct dut_error *err)
{
	struct fill_cfg *cfg = c;

	switch (opt) {
	case OPT_LEVELS:
		return parse_levels(cfg, arg, err);
	case OPT_QD:
		return probe_parse_uint_list("--qd", arg, cfg->qds, FILL_MAX_QD, &cfg->nqd, 1, 4096, err);
	case OPT_BS:
		return probe_parse_bs_opt(arg, &cfg->bs_bytes, err);
	case OPT_ROUND:
		cfg->round_set = true;
		if (probe_parse_duration_opt("--round-time", arg, &cfg->round_ns, err) < 0)
			return -EINVAL;
		if (!cfg->round_ns) {
			dut_error_set(err, "--round-time must be more than 0");
			return -EINVAL;
		}
		return 0;
	case OPT_MAX_ROUNDS:
		cfg->max_rounds_set = true;
		return probe_parse_uint_opt("--max-rounds", arg, 1, FILL_MAX_ROUNDS, &cfg->max_rounds, err);
	case OPT_SS:
		return ss_parse(arg, &cfg->ss, err);
	case OPT_SPAN:
		return probe_parse_size_opt("--span", arg, &cfg->span_bytes, err);
	}
	return -EINVAL;
}

static int fill_finish(void *c, const struct probe_common *co, struct dut_error *err)
{
	struct fill_cfg *cfg = c;

	cfg->quick = co->quick;
	if (co->quick) {
		if (!cfg->round_set)
			cfg->round_ns = 200000000ull;
		if (!cfg->max_rounds_set)
			cfg->max_rounds = 8;
	}
	return 0;
}

static bool fill_writes(const void *c)
{
	return true;
}

static uint64_t fill_span(const struct fill_cfg *cfg, const struct probe_target *t)
{
	uint64_t span = cfg->span_bytes ? cfg->span_bytes : t->size_bytes;

	if (cfg->quick && !cfg->span_bytes && span > QUICK_SPAN)
		span = QUICK_SPAN;
	return span;
}

static uint64_t level_bytes(const struct fill_level *l, uint64_t span, uint32_t bs)
{
	uint64_t b = l->pct > 0 ? (uint64_t)((double)span * l->pct / 100.0) : l->bytes;

	return b / bs * bs;
}

static int fill_check_target(const void *c, const struct probe_target *t, struct dut_error *err)
{
	const struct fill_cfg *cfg = c;
	uint64_t span = fill_span(cfg, t);
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN];

	if (cfg->bs_bytes % t->lbs_bytes) {
		dut_error_set(err, "--bs %u is not a multiple of the logical block size %u of %s", cfg->bs_bytes,
			      t->lbs_bytes, t->path);
		return -EINVAL;
	}
	if (span > t->size_bytes) {
		dut_error_set(err, "--span is larger than %s", t->path);
		return -EINVAL;
	}
	for (size_t i = 0; i < cfg->nlevels; i++) {
		uint64_t lb = level_bytes(&cfg->levels[i], span, cfg->bs_bytes);

		if (!cfg->levels[i].pct && cfg->levels[i].bytes > span) {
			dut_error_set(err, "--levels: %s is larger than the span (%s)",
				      dut_format_size(cfg->levels[i].bytes, a, sizeof(a)),
				      dut_format_size(span, b, sizeof(b)));
			return -EINVAL;
		}
		if (lb < cfg->bs_bytes) {
			dut_error_set(err, "--levels: level %zu is less than one block", i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_level(const void *a, const void *b)
{
	uint64_t x = ((const struct fill_level_result *)a)->bytes, y = ((const struct fill_level_result *)b)->bytes;

	return (x > y) - (x < y);
}

static void job_base(struct engine_job *j, const struct probe_ctx *ctx, uint64_t span)
{
	memset(j, 0, sizeof(*j));
	j->fd = ctx->target.fd;
	j->span_bytes = span;
	j->threads = 1;
	j->fixed_files = ctx->co.fixed_files;
	j->fixed_bufs = ctx->co.fixed_bufs;
	j->sqpoll = ctx->co.sqpoll;
	j->seed = ctx->co.seed;
	j->stall_ns = ctx->co.stall_ns;
	j->stop = ctx->stop;
}

/* Rounds of random writes in [0, filled) at one queue depth. */
static int run_cell(const struct fill_cfg *cfg, struct probe_ctx *ctx, uint64_t filled, struct fill_cell *cell,
		    struct fill_result *res)
{
	struct dut_hist *last = dut_hist_new();

	cell->round_iops = calloc(cfg->max_rounds, sizeof(double));
	if (!last || !cell->round_iops) {
		dut_hist_free(last);
		return -ENOMEM;
	}
	while (cell->nrounds < cfg->max_rounds && !*ctx->stop) {
		struct engine_job j;
		struct engine_result er;
		int r;

		job_base(&j, ctx, filled);
		j.pattern = PROBE_RAND;
		j.dir = PROBE_WRITE;
		j.bs_bytes = cfg->bs_bytes;
		j.qd = cell->qd;
		j.time_limit_ns = cfg->round_ns;
		j.seed = ctx->co.seed + cell->nrounds * 104729 + cell->qd;
		r = engine_run(&j, &er);
		if (r < 0) {
			dut_hist_free(last);
			return r;
		}
		if (er.error) {
			cell->error = er.error;
			res->error = er.error;
			res->error_offset = er.error_offset;
			res->error_at_offset = er.error_at_offset;
		}
		if (er.ios && er.elapsed_ns)
			cell->round_iops[cell->nrounds++] = (double)er.ios * 1e9 / (double)er.elapsed_ns;
		dut_hist_reset(last);
		dut_hist_merge(last, er.lat);
		engine_result_free(&er);
		if (cell->error || er.interrupted)
			break;
		if (ss_evaluate(&cfg->ss, cell->round_iops, cell->nrounds, &cell->eval) == 0 && cell->eval.attained) {
			cell->attained = true;
			cell->rounds_to_ss = cell->nrounds;
			break;
		}
	}
	/* Steady-state IOPS: the window mean (SNIA); fewer rounds: their mean. */
	if (cell->nrounds) {
		size_t w = cell->nrounds < cfg->ss.window ? cell->nrounds : cfg->ss.window;
		double sum = 0;

		for (size_t i = cell->nrounds - w; i < cell->nrounds; i++)
			sum += cell->round_iops[i];
		cell->iops = sum / (double)w;
		if (!cell->attained)
			ss_evaluate(&cfg->ss, cell->round_iops, cell->nrounds, &cell->eval);
	}
	dut_hist_summarize(last, &cell->lat);
	dut_hist_free(last);
	return 0;
}

static void fill_free(void *p)
{
	struct fill_result *res = p;

	if (!res)
		return;
	for (size_t i = 0; i < FILL_MAX_LEVELS; i++)
		for (size_t q = 0; q < FILL_MAX_QD; q++)
			free(res->levels[i].cells[q].round_iops);
	free(res);
}

static int fill_run(const void *c, struct probe_ctx *ctx, void **ret, struct dut_error *err)
{
	const struct fill_cfg *cfg = c;
	struct fill_result *res = calloc(1, sizeof(*res));
	uint64_t span = fill_span(cfg, &ctx->target), filled = 0;
	const char *method = NULL;
	int r = 0;

	if (!res)
		return -ENOMEM;
	res->span_bytes = span;
	res->round_ns = cfg->round_ns;
	res->bs_bytes = cfg->bs_bytes;
	res->max_rounds = cfg->max_rounds;
	res->ss = cfg->ss;
	res->nqd = cfg->nqd;
	for (size_t i = 0; i < cfg->nlevels; i++) {
		res->levels[i].bytes = level_bytes(&cfg->levels[i], span, cfg->bs_bytes);
		res->levels[i].pct = 100.0 * (double)res->levels[i].bytes / (double)span;
	}
	qsort(res->levels, cfg->nlevels, sizeof(res->levels[0]), cmp_level);
	/* Precondition: every block of the span deallocated, as on a fresh drive. */
	res->trim_status = probe_discard(ctx, 0, span, &method);
	res->discard_method = method;

	for (size_t i = 0; i < cfg->nlevels && !res->error && !*ctx->stop; i++) {
		struct fill_level_result *lv = &res->levels[i];

		if (lv->bytes > filled) {
			struct engine_job j;
			struct engine_result er;

			job_base(&j, ctx, lv->bytes);
			j.pattern = PROBE_SEQ;
			j.dir = PROBE_WRITE;
			j.bs_bytes = (lv->bytes - filled) % (1u << 20) == 0 && filled % (1u << 20) == 0 ? 1u << 20
												      : cfg->bs_bytes;
			j.qd = 8;
			j.seq_start = filled;
			r = engine_run(&j, &er);
			if (r < 0)
				break;
			lv->fill_ns = er.elapsed_ns;
			if (er.error) {
				res->error = er.error;
				res->error_offset = er.error_offset;
				res->error_at_offset = er.error_at_offset;
			}
			filled += er.total_bytes;
			engine_result_free(&er);
			if (res->error || *ctx->stop)
				break;
		}
		res->nlevels = i + 1;
		for (size_t q = 0; q < cfg->nqd && !res->error && !*ctx->stop; q++) {
			lv->cells[q].qd = cfg->qds[q];
			r = run_cell(cfg, ctx, lv->bytes, &lv->cells[q], res);
			if (r < 0)
				break;
		}
		if (r < 0)
			break;
	}
	if (r < 0) {
		dut_error_set(err, "fill: %s", strerror(-r));
		fill_free(res);
		return r;
	}
	res->interrupted = *ctx->stop;
	/* Relative to the fullest level that was measured, per queue depth. */
	for (size_t q = 0; res->nlevels && q < cfg->nqd; q++) {
		double full = res->levels[res->nlevels - 1].cells[q].iops;

		for (size_t i = 0; i < res->nlevels; i++)
			res->levels[i].cells[q].rel_to_fullest = full > 0 ? res->levels[i].cells[q].iops / full : 0;
	}
	*ret = res;
	return 0;
}

static void fill_human(const void *p, const struct probe_ctx *ctx, FILE *out)
{
	const struct fill_result *res = p;
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN], ss[64];

	fprintf(out, "dutprobe fill %s: random %s writes after filling to each level of %s\n", ctx->target.path,
		dut_format_size(res->bs_bytes, a, sizeof(a)), dut_format_size(res->span_bytes, b, sizeof(b)));
	fprintf(out, "precondition: %s (%s); rounds of %s, at most %u; steady state: %s\n\n",
		res->trim_status == 0 ? "span discarded" : "discard failed, not preconditioned", res->discard_method,
		dut_format_duration(res->round_ns, a, sizeof(a)), res->max_rounds,
		ss_describe(&res->ss, ss, sizeof(ss)));
	fprintf(out, "%-8s %-10s %5s %12s %9s %-16s %10s\n", "level", "filled", "QD", "IOPS", "vs full",
		"steady state", "p99");
	for (size_t i = 0; i < res->nlevels; i++) {
		const struct fill_level_result *lv = &res->levels[i];

		for (size_t q = 0; q < res->nqd; q++) {
			const struct fill_cell *cell = &lv->cells[q];
			char st[48];

			if (!cell->nrounds)
				continue;
			if (cell->attained)
				snprintf(st, sizeof(st), "yes, %zu rounds", cell->rounds_to_ss);
			else
				snprintf(st, sizeof(st), "no (%zu rounds)", cell->nrounds);
			fprintf(out, "%-8s %-10s %5u %12.0f %8.2fx %-16s %10s\n",
				q == 0 ? (snprintf(ss, sizeof(ss), "%.0f%%", lv->pct), ss) : "",
				q == 0 ? dut_format_size(lv->bytes, a, sizeof(a)) : "", cell->qd, cell->iops,
				cell->rel_to_fullest, st, dut_format_duration(cell->lat.p99, b, sizeof(b)));
		}
	}
	fprintf(out, "\nIOPS: mean of the last %u rounds; \"vs full\": relative to the fullest level at the same QD\n",
		res->ss.window);
	if (res->error)
		probe_print_io_error(out, "", res->error, res->error_at_offset, res->error_offset);
	if (res->interrupted)
		fprintf(out, "interrupted: figures above are partial\n");
}

static int json_cell(json_object *arr, const struct fill_cell *cell)
{
	json_object *o = json_object_new_object(), *rounds = json_object_new_array();
	int r = 0;

	if (!o || !rounds || json_object_array_add(arr, o) < 0) {
		json_object_put(o);
		json_object_put(rounds);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cell->nrounds; i++)
		json_object_array_add(rounds, json_object_new_double(cell->round_iops[i]));
	r |= probe_json_add(o, "queue_depth", json_object_new_int((int)cell->qd));
	r |= probe_json_add(o, "iops", json_object_new_double(cell->iops));
	r |= probe_json_add(o, "rel_to_fullest", json_object_new_double(cell->rel_to_fullest));
	r |= probe_json_add(o, "steady_state", json_object_new_boolean(cell->attained));
	r |= probe_json_add(o, "rounds", json_object_new_int((int)cell->nrounds));
	r |= probe_json_add(o, "round_iops", rounds);
	r |= probe_json_add(o, "window_range_pct", json_object_new_double(cell->eval.range_pct));
	r |= probe_json_add(o, "window_excursion_pct", json_object_new_double(cell->eval.excursion_pct));
	r |= probe_json_add(o, "lat_p99_ns", json_object_new_int64((int64_t)cell->lat.p99));
	return r ? -ENOMEM : 0;
}

static int fill_json(const void *p, const struct probe_ctx *ctx, struct dut_result *doc)
{
	const struct fill_result *res = p;
	json_object *cfg = dut_result_config(doc);
	char ss[64], name[48];
	int r = 0;

	r |= probe_json_add(cfg, "test", json_object_new_string("fill"));
	r |= probe_json_add(cfg, "span_bytes", json_object_new_int64((int64_t)res->span_bytes));
	r |= probe_json_add(cfg, "block_bytes", json_object_new_int64(res->bs_bytes));
	r |= probe_json_add(cfg, "round_ns", json_object_new_int64((int64_t)res->round_ns));
	r |= probe_json_add(cfg, "max_rounds", json_object_new_int((int)res->max_rounds));
	r |= probe_json_add(cfg, "steady_state", json_object_new_string(ss_describe(&res->ss, ss, sizeof(ss))));
	r |= probe_json_add(cfg, "interrupted", json_object_new_boolean(res->interrupted));
	r |= probe_json_add(cfg, "preconditioned", json_object_new_boolean(res->trim_status == 0));
	if (r)
		return -ENOMEM;
	for (size_t i = 0; i < res->nlevels; i++) {
		const struct fill_level_result *lv = &res->levels[i];
		struct dut_result_phase *ph;
		json_object *cells;

		snprintf(name, sizeof(name), "level_%d%%", (int)(lv->pct + 0.5));
		ph = dut_result_add_phase(doc, name);
		cells = json_object_new_array();
		if (!ph || !cells || probe_json_add(dut_phase_extra(ph), "by_queue_depth", cells) < 0)
			return -ENOMEM;
		r |= probe_json_add(dut_phase_extra(ph), "filled_bytes", json_object_new_int64((int64_t)lv->bytes));
		for (size_t q = 0; q < res->nqd; q++) {
			char m[32];

			if (!lv->cells[q].nrounds)
				continue;
			snprintf(m, sizeof(m), "iops_qd%u", lv->cells[q].qd);
			r |= dut_phase_set_metric(ph, m, lv->cells[q].iops, "IO/s");
			r |= json_cell(cells, &lv->cells[q]);
		}
		if (r)
			return -ENOMEM;
	}
	return 0;
}

static int fill_exit_status(const void *p)
{
	const struct fill_result *res = p;

	return res->error || res->interrupted ? 1 : 0;
}

const struct probe_test_ops probe_fill_ops = {
	.name = "fill",
	.summary = "random-write IOPS against fill level, to steady state",
	.help =
		"  --levels LIST       fill levels, percentages of the span or sizes (default 30%,60%,90%)\n"
		"  --qd LIST           queue depths of the random writes (default 1,8,32)\n"
		"  --bs SIZE           random write size (default 16K)\n"
		"  --round-time DUR    length of one round (default 10s; --quick 200ms)\n"
		"  --max-rounds N      give up on steady state after N rounds (default 30; --quick 8)\n"
		"  --ss CRITERION      snia (default: over 5 rounds, range <= 20% and slope\n"
		"                      excursion <= 10% of the mean), snia:R%,S%, iops:N% (fio:\n"
		"                      every round within N% of the mean), iops_slope:N%; @W sets\n"
		"                      the window, e.g. iops:10%@8\n"
		"  --span SIZE         the part of the target that counts as full (default: all;\n"
		"                      --quick 128 MiB)\n"
		"The span is discarded first (BLKDISCARD, or punched out of a file), then filled\n"
		"sequentially to each level in turn; random writes stay inside the filled part.\n",
	.longopts = fill_opts,
	.cfg_size = sizeof(struct fill_cfg),
	.init = fill_init,
	.parse_opt = fill_parse_opt,
	.finish = fill_finish,
	.writes = fill_writes,
	.check_target = fill_check_target,
	.run = fill_run,
	.render_human = fill_human,
	.render_json = fill_json,
	.exit_status = fill_exit_status,
	.free_result = fill_free,
};

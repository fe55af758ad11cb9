/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutprobe trim: discard a range (BLKDISCARD on a device, punch a hole in a file). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"
#include "probe/probe.h"

struct trim_cfg {
	uint64_t offset, length;  /* length 0 = to the end */
};

struct trim_result {
	uint64_t offset, length, duration_ns;
	const char *method;
	int error;
};

enum { OPT_OFFSET = 256, OPT_LENGTH };

static const struct option trim_opts[] = {
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "length", required_argument, NULL, OPT_LENGTH },
	{ NULL, 0, NULL, 0 },
};

static void trim_init(void *c)
{
	memset(c, 0, sizeof(struct trim_cfg));
}

static int trim_parse_opt(void *c, int opt, const char *arg, struct dut_error *err)
{
	struct trim_cfg *cfg = c;

	if (opt == OPT_OFFSET)
		return probe_parse_size_opt("--offset", arg, &cfg->offset, err);
	if (opt == OPT_LENGTH) {
		if (probe_parse_size_opt("--length", arg, &cfg->length, err) < 0)
			return -EINVAL;
		if (!cfg->length) {
			dut_error_set(err, "--length must be more than 0");
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static int trim_finish(void *c, const struct probe_common *co, struct dut_error *err)
{
	return 0;
}

static bool trim_writes(const void *c)
{
	return true;
}

static int trim_check_target(const void *c, const struct probe_target *t, struct dut_error *err)
{
	const struct trim_cfg *cfg = c;
	uint64_t len = cfg->length ? cfg->length : t->size_bytes - (cfg->offset < t->size_bytes ? cfg->offset : 0);

	if (cfg->offset % t->lbs_bytes || len % t->lbs_bytes) {
		dut_error_set(err, "--offset and --length must be multiples of the logical block size %u of %s",
			      t->lbs_bytes, t->path);
		return -EINVAL;
	}
	if (cfg->offset >= t->size_bytes || len > t->size_bytes - cfg->offset) {
		dut_error_set(err, "--offset %" PRIu64 " + --length %" PRIu64 " reach past the end of %s (%" PRIu64 " bytes)",
			      cfg->offset, len, t->path, t->size_bytes);
		return -EINVAL;
	}
	return 0;
}

static int trim_run(const void *c, struct probe_ctx *ctx, void **ret, struct dut_error *err)
{
	const struct trim_cfg *cfg = c;
	struct trim_result *res = calloc(1, sizeof(*res));
	struct timespec a, b;

	if (!res)
		return -ENOMEM;
	res->offset = cfg->offset;
	res->length = cfg->length ? cfg->length : ctx->target.size_bytes - cfg->offset;
	clock_gettime(CLOCK_MONOTONIC, &a);
	res->error = probe_discard(ctx, res->offset, res->length, &res->method);
	clock_gettime(CLOCK_MONOTONIC, &b);
	res->duration_ns = (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
	*ret = res;
	return 0;
}

static void trim_human(const void *p, const struct probe_ctx *ctx, FILE *out)
{
	const struct trim_result *res = p;
	char a[DUT_FMT_LEN], b[DUT_FMT_LEN];

	if (res->error == -EOPNOTSUPP)
		fprintf(out, "%s: discard is not supported here (%s); nothing was discarded\n", ctx->target.path,
			res->method);
	else if (res->error)
		fprintf(out, "%s: discard failed (%s): %s\n", ctx->target.path, res->method, strerror(-res->error));
	else
		fprintf(out, "%s: discarded %s at offset %" PRIu64 " with %s in %s\n", ctx->target.path,
			dut_format_size(res->length, a, sizeof(a)), res->offset, res->method,
			dut_format_duration(res->duration_ns, b, sizeof(b)));
}

static int trim_json(const void *p, const struct probe_ctx *ctx, struct dut_result *doc)
{
	const struct trim_result *res = p;
	struct dut_result_phase *ph = dut_result_add_phase(doc, "trim");
	json_object *x;
	int r = 0;

	if (!ph)
		return -ENOMEM;
	r |= probe_json_add(dut_result_config(doc), "test", json_object_new_string("trim"));
	x = dut_phase_extra(ph);
	r |= probe_json_add(x, "offset_bytes", json_object_new_int64((int64_t)res->offset));
	r |= probe_json_add(x, "length_bytes", json_object_new_int64((int64_t)res->length));
	r |= probe_json_add(x, "method", json_object_new_string(res->method));
	r |= probe_json_add(x, "ok", json_object_new_boolean(res->error == 0));
	if (res->error)
		r |= probe_json_add(x, "error", json_object_new_string(strerror(-res->error)));
	if (r)
		return -ENOMEM;
	return dut_phase_set_duration(ph, res->duration_ns);
}

static int trim_exit_status(const void *p)
{
	return ((const struct trim_result *)p)->error ? 1 : 0;
}

const struct probe_test_ops probe_trim_ops = {
	.name = "trim",
	.summary = "discard a range: BLKDISCARD on a device, punch a hole in a file",
	.help =
		"  --offset SIZE       start (default 0); a multiple of the logical block size\n"
		"  --length SIZE       how much (default: to the end)\n",
	.longopts = trim_opts,
	.cfg_size = sizeof(struct trim_cfg),
	.init = trim_init,
	.parse_opt = trim_parse_opt,
	.finish = trim_finish,
	.writes = trim_writes,
	.check_target = trim_check_target,
	.run = trim_run,
	.render_human = trim_human,
	.render_json = trim_json,
	.exit_status = trim_exit_status,
	.free_result = free,
};

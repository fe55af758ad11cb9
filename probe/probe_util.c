/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option parsing and JSON helpers shared by dutprobe's tests. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/units.h"
#include "probe/engine.h"
#include "probe/identify/nvme.h"
#include "probe/probe.h"

static void bprintf(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Append to buf[*used..len), truncating when full. */
static void bprintf(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

char *probe_stall_describe(const struct engine_stall *st, char *buf, size_t len)
{
	char row[48], a[DUT_FMT_LEN], b[DUT_FMT_LEN];
	size_t used = 0;

	buf[0] = '\0';
	bprintf(buf, len, &used, "the device stalled: no I/O completed within --stall-timeout (%s) in row %s; ",
		dut_format_duration(st->stall_ns, a, sizeof(a)), bench_row_name(&st->row, row, sizeof(row)));
	if (st->has_oldest)
		bprintf(buf, len, &used, "dutprobe had %u I/O%s in flight, the oldest for %s at offset %" PRIu64,
			st->inflight, st->inflight == 1 ? "" : "s",
			dut_format_duration(st->oldest_age_ns, b, sizeof(b)), st->oldest_offset);
	else
		bprintf(buf, len, &used, "dutprobe had none in flight");
	if (!st->dev_known)
		bprintf(buf, len, &used, " (no block layer count: the target is not a block device or a file on one)");
	else {
		char where[128];

		if (st->dev_name[0])
			snprintf(where, sizeof(where), "%s (%u:%u, /sys/%s/%s/inflight)", st->dev_name,
				 st->dev_major, st->dev_minor, st->dev_partition ? "class/block" : "block",
				 st->dev_name);
		else
			snprintf(where, sizeof(where), "%u:%u (/sys/dev/block/%u:%u/inflight)", st->dev_major,
				 st->dev_minor, st->dev_major, st->dev_minor);
		if (st->dev_reads + st->dev_writes)
			bprintf(buf, len, &used, "; the block layer had %" PRIu64 " read%s and %" PRIu64
				" write%s in flight on %s: waiting for the device", st->dev_reads,
				st->dev_reads == 1 ? "" : "s", st->dev_writes, st->dev_writes == 1 ? "" : "s", where);
		else
			bprintf(buf, len, &used, "; the block layer had none in flight on %s: %s", where,
				st->has_oldest ? "the I/Os wait above it (io_uring, the filesystem), not at the device"
					       : "nothing waits for the device");
	}
	bprintf(buf, len, &used, "; dutprobe stopped issuing and asked the kernel to cancel what was in flight: ");
	if (!st->cancel_answered)
		bprintf(buf, len, &used, "no answer");
	else if (st->cancel_res >= 0)
		bprintf(buf, len, &used, "%d cancelled", st->cancel_res);
	else if (st->cancel_res == -ENOENT)
		bprintf(buf, len, &used, "nothing could be cancelled");
	else if (st->cancel_res == -EINVAL)
		bprintf(buf, len, &used, "this kernel cannot cancel them (before 5.19)");
	else
		bprintf(buf, len, &used, "%s", strerror(-st->cancel_res));
	if (st->has_oldest)
		bprintf(buf, len, &used, " (I/O already at the device cannot be cancelled)");
	if (st->abandoned_ios)
		bprintf(buf, len, &used, "; %u did not complete within another %s, so dutprobe stopped waiting "
			"(their buffers stay allocated, and the process exits only once the kernel is done with them)",
			st->abandoned_ios, a);
	return buf;
}

const char *probe_io_strerror(int err)
{
	static __thread char msg[1024];
	struct engine_stall st;

	if (err == -ENGINE_ESTALL) {
		if (engine_last_stall(&st))
			return probe_stall_describe(&st, msg, sizeof(msg));
		return "the device stalled: no I/O completed within --stall-timeout, so dutprobe stopped issuing and asked the kernel to cancel what was in flight";
	}
	return strerror(-err);
}

void probe_print_io_error(FILE *out, const char *prefix, int err, bool at_offset, uint64_t offset)
{
	if (at_offset)
		fprintf(out, "%sI/O error at offset %" PRIu64 ": %s\n", prefix, offset, probe_io_strerror(err));
	else
		fprintf(out, "%sI/O error: %s\n", prefix, probe_io_strerror(err));
}

int probe_parse_size_opt(const char *opt, const char *arg, uint64_t *ret, struct dut_error *err)
{
	struct dut_error e = { { 0 } };
	int r = dut_parse_size(arg, ret, &e);

	if (r < 0)
		dut_error_set(err, "%s: %s", opt, e.msg);
	return r;
}

int probe_parse_duration_opt(const char *opt, const char *arg, uint64_t *ret_ns, struct dut_error *err)
{
	struct dut_error e = { { 0 } };
	int r = dut_parse_duration(arg, ret_ns, &e);

	if (r < 0)
		dut_error_set(err, "%s: %s", opt, e.msg);
	return r;
}

int probe_parse_uint_opt(const char *opt, const char *arg, unsigned min, unsigned max, unsigned *ret,
			 struct dut_error *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || arg[0] == '-' || errno || v < min || v > max) {
		dut_error_set(err, "%s \"%s\": expected a whole number from %u to %u", opt, arg, min, max);
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

int probe_parse_uint_list(const char *opt, const char *arg, unsigned *vals, size_t max, size_t *ret_n,
			  unsigned min, unsigned maxval, struct dut_error *err)
{
	char buf[256];
	char *save = NULL, *tok;
	size_t n = 0;

	if (strlen(arg) >= sizeof(buf) || !*arg) {
		dut_error_set(err, "%s \"%s\": expected a comma-separated list such as 1,8,32", opt, arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			dut_error_set(err, "%s \"%s\": at most %zu values", opt, arg, max);
			return -EINVAL;
		}
		if (probe_parse_uint_opt(opt, tok, min, maxval, &vals[n], err) < 0)
			return -EINVAL;
		n++;
	}
	*ret_n = n;
	return 0;
}

int probe_json_add(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(obj, key, val) < 0) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

int probe_json_target(const struct probe_ctx *ctx, struct dut_result *doc)
{
	json_object *t = dut_result_target(doc);
	const struct probe_target *tg = &ctx->target;
	int r = 0;

	r |= probe_json_add(t, "path", json_object_new_string(tg->path));
	r |= probe_json_add(t, "kind", json_object_new_string(target_kind_name(tg->kind)));
	r |= probe_json_add(t, "size_bytes", json_object_new_int64((int64_t)tg->size_bytes));
	r |= probe_json_add(t, "logical_block_bytes", json_object_new_int64(tg->lbs_bytes));
	if (tg->pbs_bytes)
		r |= probe_json_add(t, "physical_block_bytes", json_object_new_int64(tg->pbs_bytes));
	if (tg->kind == TARGET_FILE)
		r |= probe_json_add(t, "filesystem", json_object_new_string(tg->fstype));
	r |= probe_json_add(t, "link", json_object_new_string(ctx->ceiling_desc));
	r |= probe_json_add(t, "link_ceiling_bytes_per_s", json_object_new_double(ctx->ceiling_bytes_per_s));
	return r ? -ENOMEM : 0;
}

bool probe_above_ceiling(const struct probe_ctx *ctx, double bytes_per_s)
{
	return ctx->ceiling_bytes_per_s > 0 && bytes_per_s > ctx->ceiling_bytes_per_s;
}

/* An NVMe namespace (not a partition of one): /dev/nvme<N>n<M>. */
static bool is_nvme_namespace(const struct probe_target *t)
{
	const char *base = strrchr(t->path, '/');
	unsigned a, b;
	char tail;

	base = base ? base + 1 : t->path;
	return t->kind == TARGET_DISK && sscanf(base, "nvme%un%u%c", &a, &b, &tail) == 2;
}

int probe_discard(struct probe_ctx *ctx, uint64_t off, uint64_t len, const char **ret_method)
{
	struct probe_target *t = &ctx->target;
	uint32_t nsid;

	if (is_nvme_namespace(t) && dutprobe_nvme_get_nsid(t->fd, &nsid) == 0) {
		*ret_method = "NVMe Dataset Management deallocate";
		return dutprobe_nvme_deallocate_bytes(t->fd, nsid, t->lbs_bytes, off, len, NULL);
	}
	*ret_method = t->kind == TARGET_FILE ? "punch hole (fallocate)" : "BLKDISCARD";
	return target_discard(t, off, len);
}

int probe_parse_bs_opt(const char *arg, uint32_t *ret_bytes, struct dut_error *err)
{
	uint64_t v;

	if (probe_parse_size_opt("--bs", arg, &v, err) < 0)
		return -EINVAL;
	if (!v || v > (64u << 20)) {
		dut_error_set(err, "--bs %s: must be from 512 bytes to 64 MiB", arg);
		return -EINVAL;
	}
	*ret_bytes = (uint32_t)v;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Settings that exist only from or until a PostgreSQL major; see pgbin.h.
 * Pure.  The table lists what a storage test is likely to set (I/O, WAL,
 * checkpoints, vacuum, prefetch) and what a setting file written for one
 * major carries into another; a setting it does not know is left to
 * PostgreSQL, which refuses unknown names at start.  From the release
 * notes and the "Server Configuration" chapters of PostgreSQL 13 to 18.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/pgbin.h"

#define VALUES(...) ((const char *const[]){ __VA_ARGS__, NULL })

const struct dut_pg_setting_rule dut_pg_setting_rules[] = {
	/* asynchronous I/O and read streams */
	{ .name = "io_method", .since = 18 },
	{ .name = "io_workers", .since = 18 },
	{ .name = "io_max_concurrency", .since = 18 },
	{ .name = "io_max_combine_limit", .since = 18 },
	{ .name = "io_combine_limit", .since = 17 },
	{ .name = "maintenance_io_concurrency", .since = 13 },
	{ .name = "debug_io_direct", .since = 16 },
	{ .name = "file_copy_method", .since = 18 },
	/* WAL */
	{ .name = "wal_compression", .since = 15, .values = VALUES("pglz", "lz4", "zstd"),
	  .note = "before 15 it is on or off" },
	{ .name = "summarize_wal", .since = 17 },
	{ .name = "wal_summary_keep_time", .since = 17 },
	{ .name = "track_wal_io_timing", .since = 14 },
	{ .name = "recovery_prefetch", .since = 15 },
	{ .name = "wal_decode_buffer_size", .since = 15 },
	{ .name = "recovery_init_sync_method", .since = 14 },
	{ .name = "wal_keep_segments", .until = 12, .note = "use wal_keep_size" },
	/* vacuum, buffers */
	{ .name = "vacuum_buffer_usage_limit", .since = 16 },
	{ .name = "vacuum_defer_cleanup_age", .until = 15 },
	{ .name = "vacuum_truncate", .since = 18 },
	{ .name = "vacuum_max_eager_freeze_failure_rate", .since = 18 },
	{ .name = "autovacuum_worker_slots", .since = 18 },
	{ .name = "autovacuum_vacuum_max_threshold", .since = 18 },
	{ .name = "min_dynamic_shared_memory", .since = 14 },
	{ .name = "commit_timestamp_buffers", .since = 17 },
	{ .name = "multixact_member_buffers", .since = 17 },
	{ .name = "multixact_offset_buffers", .since = 17 },
	{ .name = "notify_buffers", .since = 17 },
	{ .name = "serializable_buffers", .since = 17 },
	{ .name = "subtransaction_buffers", .since = 17 },
	{ .name = "transaction_buffers", .since = 17 },
	/* gone or renamed */
	{ .name = "stats_temp_directory", .until = 14 },
	{ .name = "promote_trigger_file", .until = 15 },
	{ .name = "force_parallel_mode", .until = 15, .note = "renamed debug_parallel_query" },
	{ .name = "debug_parallel_query", .since = 16, .note = "force_parallel_mode before 16" },
	{ .name = "old_snapshot_threshold", .until = 16 },
	{ .name = "db_user_namespace", .until = 16 },
	/* planner and sessions */
	{ .name = "enable_memoize", .since = 14 },
	{ .name = "enable_presorted_aggregate", .since = 16 },
	{ .name = "enable_group_by_reordering", .since = 17 },
	{ .name = "transaction_timeout", .since = 17 },
	{ .name = "idle_session_timeout", .since = 14 },
};
const size_t dut_pg_nsetting_rules = sizeof(dut_pg_setting_rules) / sizeof(dut_pg_setting_rules[0]);

static bool value_listed(const char *const *values, const char *value)
{
	for (size_t i = 0; values[i]; i++)
		if (strcasecmp(values[i], value) == 0)
			return true;
	return false;
}

const struct dut_pg_setting_rule *dut_pg_setting_check(const char *name, const char *value, unsigned major)
{
	for (size_t i = 0; i < dut_pg_nsetting_rules; i++) {
		const struct dut_pg_setting_rule *r = &dut_pg_setting_rules[i];

		if (strcasecmp(r->name, name) != 0)
			continue;
		/* a rule about some values: other values are not its business */
		if (r->values && (!value || !value_listed(r->values, value)))
			continue;
		if ((r->since && major < r->since) || (r->until && major > r->until))
			return r;
	}
	return NULL;
}

void dut_pg_setting_reason(const struct dut_pg_setting_rule *r, const char *name, const char *value,
			   char *buf, size_t len)
{
	char what[160];

	if (r->values && value)
		snprintf(what, sizeof(what), "%s = %s", name, value);
	else
		snprintf(what, sizeof(what), "%s", name);
	if (r->since)
		snprintf(buf, len, "%s needs PostgreSQL %u%s%s%s", what, r->since, r->note ? " (" : "",
			 r->note ? r->note : "", r->note ? ")" : "");
	else
		snprintf(buf, len, "%s was removed in PostgreSQL %u%s%s%s", what, r->until + 1, r->note ? " (" : "",
			 r->note ? r->note : "", r->note ? ")" : "");
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive behind a USB bridge, without hardware: the smartctl JSON decoder
 * on the fixtures in tests/probe/identify/smartctl/, the bridge table and its
 * plans, and the argv (the attempts are in test_identify_inner.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/inner.h"
#include "lib/file_io.h"
#include "tests/cu_main.h"

static char fixdir[PATH_MAX];

static int suite_init(void)
{
	snprintf(fixdir, sizeof(fixdir), "%s/tests/probe/identify/smartctl", cu_source_root());
	return 0;
}

/* A fixture of smartctl/ (the project's bounded whole-file read). */
static char *slurp(const char *name, size_t *ret_len)
{
	char path[PATH_MAX + 64];
	char *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	return dut_read_small_file(path, 1u << 20, &buf, ret_len) < 0 ? NULL : buf;
}

static int decode_fixture(const char *name, struct dp_inner_drive *d)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	text = slurp(name, &len);
	if (!text) {
		cu_fail("cannot read fixture %s/%s", fixdir, name);
		return -ENOENT;
	}
	return dp_smartctl_decode(text, len, d);
}

/* ---------------- decoder ---------------- */

static void test_decode_nvme_behind_jmicron(void)
{
	_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));
	const struct dp_nvme_smart *s = &d->nvme;
	char why[256];

	CU_ASSERT_FATAL(d && decode_fixture("nvme-sntjmicron.json", d) == 0);
	CU_CHECK(strcmp(d->protocol, "NVMe") == 0 && strcmp(d->dev_type, "sntjmicron") == 0,
		 "protocol '%s' type '%s'", d->protocol, d->dev_type);
	CU_CHECK(strcmp(d->model, "INTEL SSDPEKKW256G7") == 0, "model '%s'", d->model);
	CU_CHECK(strcmp(d->serial, "BTPY7123456A256D") == 0, "serial '%s'", d->serial);
	CU_CHECK(strcmp(d->firmware, "PSF121C") == 0, "firmware '%s'", d->firmware);
	CU_CHECK(d->capacity_bytes == 256060514304ull, "capacity %llu",
		 (unsigned long long)d->capacity_bytes);
	CU_CHECK(d->logical_block_bytes == 512, "lbs %u", d->logical_block_bytes);
	CU_CHECK(d->exit_status == 0 && d->nmessages == 0, "exit %d msgs %u", d->exit_status,
		 d->nmessages);
	CU_CHECK(d->have_nvme_health && d->nattrs == 0, "health %d attrs %u", d->have_nvme_health,
		 d->nattrs);
	CU_CHECK(s->critical_warning == 0 && s->percent_used == 7 && s->avail_spare_pct == 100 &&
		 s->spare_thresh_pct == 10, "cw %u used %u spare %u/%u", s->critical_warning,
		 s->percent_used, s->avail_spare_pct, s->spare_thresh_pct);
	CU_CHECK(s->data_units_written.value == 29981573 && s->data_units_read.value == 14723381,
		 "units w %llu r %llu", (unsigned long long)s->data_units_written.value,
		 (unsigned long long)s->data_units_read.value);
	CU_CHECK(s->bytes_written.value == 29981573ull * 512000, "bytes written %llu",
		 (unsigned long long)s->bytes_written.value);
	CU_CHECK(s->power_on_hours.value == 6021 && s->media_errors.value == 0 &&
		 s->unsafe_shutdowns.value == 57 && s->error_log_entries.value == 12,
		 "poh %llu media %llu", (unsigned long long)s->power_on_hours.value,
		 (unsigned long long)s->media_errors.value);
	CU_CHECK(d->have_temperature && d->temperature_c == 33 && s->temperature_k == 306,
		 "temperature %d C, %u K", d->temperature_c, s->temperature_k);
	CU_CHECK(d->have_power_on_hours && d->power_on_hours == 6021, "poh %llu",
		 (unsigned long long)d->power_on_hours);
	CU_CHECK(d->have_smart_status && d->smart_passed, "smart passed");
	CU_CHECK(dp_smartctl_reached_drive(d, why, sizeof(why)), "not reached: %s", why);
}

static void test_decode_nvme_behind_asmedia(void)
{
	_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));
	const struct dp_nvme_smart *s = &d->nvme;
	char why[256];

	CU_ASSERT_FATAL(d && decode_fixture("nvme-sntasmedia.json", d) == 0);
	CU_CHECK(strcmp(d->model, "Samsung SSD 970 EVO Plus 1TB") == 0, "model '%s'", d->model);
	CU_CHECK(d->capacity_bytes == 1000204886016ull, "capacity");
	/* bit 1: temperature above threshold; smartctl says the health check failed */
	CU_CHECK(s->critical_warning == DP_CW_TEMPERATURE, "cw 0x%x", s->critical_warning);
	CU_CHECK(d->have_smart_status && !d->smart_passed, "smart status should be failed");
	/* above 2^53: smartctl prints the number and a _s string; the string is exact */
	CU_CHECK(s->data_units_read.value == 9007199254740993ull && !s->data_units_read.saturated,
		 "data units read %llu", (unsigned long long)s->data_units_read.value);
	/* 9007199254740993 * 512000 > 2^64: the byte count saturates, as on the libnvme path */
	CU_CHECK(s->bytes_read.saturated && s->bytes_read.value == UINT64_MAX, "bytes read saturate");
	CU_CHECK(d->temperature_c == 72, "temperature %d", d->temperature_c);
	CU_CHECK(dp_smartctl_reached_drive(d, why, sizeof(why)), "not reached: %s", why);
}

static void test_decode_sata_via_sat(void)
{
	_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));
	char why[256];
	bool seen_poh = false, seen_realloc = false;

	CU_ASSERT_FATAL(d && decode_fixture("sata-sat.json", d) == 0);
	CU_CHECK(strcmp(d->protocol, "ATA") == 0 && strcmp(d->dev_type, "sat") == 0, "protocol '%s'",
		 d->protocol);
	CU_CHECK(strcmp(d->model, "Samsung SSD 860 EVO 500GB") == 0 &&
		 strcmp(d->model_family, "Samsung based SSDs") == 0, "model '%s' family '%s'", d->model,
		 d->model_family);
	CU_CHECK(strcmp(d->firmware, "RVT04B6Q") == 0 && strcmp(d->serial, "S3Z1NB0K123456X") == 0,
		 "fw '%s' sn '%s'", d->firmware, d->serial);
	CU_CHECK(d->capacity_bytes == 500107862016ull && d->rotation_rpm == 0, "capacity/rotation");
	CU_CHECK(!d->have_nvme_health && d->nattrs == 14 && !d->attrs_truncated, "attrs %u", d->nattrs);
	for (unsigned i = 0; i < d->nattrs; i++) {
		const struct dp_ata_attr *a = &d->attrs[i];

		if (a->id == 9) {
			seen_poh = strcmp(a->name, "Power_On_Hours") == 0 && a->raw == 23417 &&
				   a->value == 95 && !a->prefailure;
		}
		if (a->id == 5)
			seen_realloc = a->prefailure && a->thresh == 10 && a->raw == 0 &&
				       strcmp(a->raw_string, "0") == 0;
		if (a->id == 241)
			CU_CHECK(a->raw == 38127319142ull, "LBAs written %llu", (unsigned long long)a->raw);
	}
	CU_CHECK(seen_poh && seen_realloc, "attributes 9 and 5 decoded");
	CU_CHECK(d->have_power_on_hours && d->power_on_hours == 23417 && d->have_power_cycles &&
		 d->power_cycles == 1287, "poh/cycles");
	CU_CHECK(d->have_temperature && d->temperature_c == 31, "temperature %d", d->temperature_c);
	CU_CHECK(dp_smartctl_reached_drive(d, why, sizeof(why)), "not reached: %s", why);
}

static void test_decode_failures(void)
{
	static const struct {
		const char *fixture;
		int exit_status;
		const char *protocol;
		const char *why;          /* substring of dp_smartctl_reached_drive's reason */
	} rows[] = {
		{ "failed-passthrough.json", 2, "NVMe", "Read NVMe Identify Controller failed" },
		{ "unsupported-type.json", 1, "", "Unknown SNT device type 'sntrealtek'" },
		{ "unknown-bridge.json", 1, "", "Unknown USB bridge [0x1234:0x5678" },
		{ "failed-sat.json", 2, "ATA", "Read Device Identity failed" },
		{ "permission-denied.json", 2, "", "Permission denied" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));
		char why[512] = "";
		int r;

		CU_ASSERT_FATAL(d != NULL);
		r = decode_fixture(rows[i].fixture, d);
		CU_CHECK(r == 0, "%s: r = %d", rows[i].fixture, r);
		if (r)
			continue;
		CU_CHECK(d->exit_status == rows[i].exit_status && strcmp(d->protocol, rows[i].protocol) == 0,
			 "%s: exit %d protocol '%s'", rows[i].fixture, d->exit_status, d->protocol);
		CU_CHECK(!d->have_identity && d->nmessages >= 1, "%s: identity %d msgs %u",
			 rows[i].fixture, d->have_identity, d->nmessages);
		CU_CHECK(!dp_smartctl_reached_drive(d, why, sizeof(why)) && strstr(why, rows[i].why),
			 "%s: why '%s' lacks '%s'", rows[i].fixture, why, rows[i].why);
	}
}

static void test_decode_not_json(void)
{
	static const struct { const char *name, *text; int want; } rows[] = {
		{ "empty", "", -EBADMSG },
		{ "text", "smartctl 7.3 2022-02-28 r5338 [x86_64-linux] (local build)\n", -EBADMSG },
		{ "cut object", "{\"smartctl\": {\"exit_status\": 0", -EBADMSG },
		{ "trailing garbage", "{\"smartctl\": {\"exit_status\": 0}} trailing", -EBADMSG },
		{ "not smartctl's", "{\"json_format_version\": [1, 0]}", -EPROTO },
		{ "array", "[1, 2]", -EPROTO },
		{ "smartctl not an object", "{\"smartctl\": 3}", -EPROTO },
		{ "minimal", "{\"smartctl\": {\"exit_status\": 0}}\n", 0 },
	};
	_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));

	CU_ASSERT_FATAL(d != NULL);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		int r = dp_smartctl_decode(rows[i].text, strlen(rows[i].text), d);

		CU_CHECK(r == rows[i].want, "%s: r = %d, want %d", rows[i].name, r, rows[i].want);
	}
	CU_CHECK(decode_fixture("truncated.json", d) == -EBADMSG, "truncated fixture");
}

static void test_decode_big_counters(void)
{
	static const struct {
		const char *name, *json;
		uint64_t want;
		bool saturated;
	} rows[] = {
		{ "plain", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":42}}", 42, false },
		/* json-c clamps what does not fit to UINT64_MAX: both read as "at least 2^64 - 1" */
		{ "uint64 max", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":18446744073709551615}}",
		  UINT64_MAX, true },
		{ "uint64 max with _s", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":18446744073709551615,"
		  "\"media_errors_s\":\"18446744073709551615\"}}", UINT64_MAX, false },
		{ "2^64 as a number only", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":18446744073709551616}}",
		  UINT64_MAX, true },
		{ "2^70 with _s", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":1180591620717411303424,"
		  "\"media_errors_s\":\"1180591620717411303424\"}}", UINT64_MAX, true },
		{ "_s wins", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":9007199254740992,"
		  "\"media_errors_s\":\"9007199254740993\"}}", 9007199254740993ull, false },
		{ "negative ignored", "{\"smartctl\":{},\"nvme_smart_health_information_log\":{\"media_errors\":-5}}", 0, false },
	};
	_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));

	CU_ASSERT_FATAL(d != NULL);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		int r = dp_smartctl_decode(rows[i].json, strlen(rows[i].json), d);

		CU_CHECK(r == 0 && d->nvme.media_errors.value == rows[i].want &&
			 d->nvme.media_errors.saturated == rows[i].saturated,
			 "%s: r %d value %llu saturated %d", rows[i].name, r,
			 (unsigned long long)d->nvme.media_errors.value, d->nvme.media_errors.saturated);
	}
}

/* A SCSI answer (smartctl fell back to the bridge's own INQUIRY) is not the inner drive. */
static void test_scsi_answer_is_the_bridge(void)
{
	static const char json[] = "{\"smartctl\":{\"exit_status\":0},\"device\":{\"name\":\"/dev/sdc\","
		"\"type\":\"scsi\",\"protocol\":\"SCSI\"},\"model_name\":\"ASMT 2362\",\"serial_number\":\"0000000000000D7B\"}";
	_cleanup_free_ struct dp_inner_drive *d = calloc(1, sizeof(*d));
	char why[512];

	CU_ASSERT_FATAL(d && dp_smartctl_decode(json, strlen(json), d) == 0);
	CU_CHECK(!dp_smartctl_reached_drive(d, why, sizeof(why)) && strstr(why, "bridge's own INQUIRY"),
		 "why '%s'", why);
}

/* ---------------- argv ---------------- */

static void test_argv_is_read_only(void)
{
	static const char *const allowed[] = { "-j", "-a", "-d" };
	const char *argv[DP_SMARTCTL_ARGV_MAX];

	dp_smartctl_argv("smartctl", "sntjmicron", "/dev/sdc", argv);
	CU_CHECK(argv[0] && strcmp(argv[0], "smartctl") == 0 && strcmp(argv[1], "-j") == 0 &&
		 strcmp(argv[2], "-a") == 0 && strcmp(argv[3], "-d") == 0 &&
		 strcmp(argv[4], "sntjmicron") == 0 && strcmp(argv[5], "/dev/sdc") == 0 && !argv[6],
		 "argv with -d");
	dp_smartctl_argv("/usr/sbin/smartctl", "", "/dev/sdd", argv);
	CU_CHECK(strcmp(argv[3], "/dev/sdd") == 0 && !argv[4], "auto: no -d");
	/* every option is one of the read-only few */
	dp_smartctl_argv("smartctl", "sat", "/dev/sdc", argv);
	for (size_t i = 1; argv[i]; i++) {
		bool ok = argv[i][0] != '-';

		for (size_t k = 0; k < DUT_ARRAY_SIZE(allowed); k++)
			ok = ok || strcmp(argv[i], allowed[k]) == 0;
		CU_CHECK(ok, "option '%s' is not one of -j -a -d", argv[i]);
	}
}

/* ---------------- bridge table ---------------- */

static void test_bridge_lookup(void)
{
	static const struct {
		uint16_t vid, pid, bcd;
		const char *chip;           /* NULL = not in the table */
		const char *inner;
		const char *plan[DP_BRIDGE_MAX_TYPES];
	} rows[] = {
		{ 0x174c, 0x2362, 0x0100, "ASMedia ASM2362", "NVMe", { "sntasmedia" } },
		{ 0x174c, 0x2364, 0, "ASMedia ASM2364", "NVMe", { "sntasmedia" } },
		{ 0x152d, 0x0583, 0x0214, "JMicron JMS583", "NVMe", { "sntjmicron" } },
		{ 0x152d, 0x0583, 0, "JMicron JMS583", "NVMe", { "sntjmicron" } },
		/* SATA adapters that reuse the JMS583 id: sat, never sntjmicron */
		{ 0x152d, 0x0583, 0x0414, "JMicron USB-to-SATA (JMS583 id)", "SATA", { "sat" } },
		{ 0x152d, 0x0583, 0x9128, "JMicron USB-to-SATA (JMS583 id)", "SATA", { "sat" } },
		{ 0x0bda, 0x9210, 0x2100, "Realtek RTL9210", "NVMe", { "sntrealtek" } },
		{ 0x0bda, 0x9220, 0, "Realtek RTL9220", "NVMe or SATA", { "sntrealtek", "sat" } },
		{ 0x152d, 0x0581, 0, "JMicron JMS581", "NVMe or SATA", { "sat", "sntjmicron" } },
		{ 0x152d, 0x0578, 0x0204, "JMicron JMS578", "SATA", { "sat" } },
		{ 0x174c, 0x55aa, 0x0100, "ASMedia ASM1051E/ASM1053E/ASM1153E", "SATA", { "sat" } },
		{ 0x0781, 0x5567, 0x0100, NULL, NULL, { "", "sat", "sntasmedia", "sntrealtek", "sntjmicron" } },
		{ 0x1234, 0x5678, 0, NULL, NULL, { "", "sat", "sntasmedia", "sntrealtek", "sntjmicron" } },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const struct dp_usb_bridge_model *m = dp_usb_bridge_lookup(rows[i].vid, rows[i].pid, rows[i].bcd);
		const char *plan[DP_BRIDGE_MAX_TYPES];
		size_t n = dp_usb_bridge_plan(m, plan, DP_BRIDGE_MAX_TYPES), want = 0;
		char id[32];

		snprintf(id, sizeof(id), "%04x:%04x bcd %04x", rows[i].vid, rows[i].pid, rows[i].bcd);
		if (rows[i].chip)
			CU_CHECK(m && strcmp(m->chip, rows[i].chip) == 0 && strcmp(m->inner, rows[i].inner) == 0,
				 "%s: chip '%s'", id, m ? m->chip : "(none)");
		else
			CU_CHECK(m == NULL, "%s: should not be in the table ('%s')", id, m ? m->chip : "");
		while (want < DP_BRIDGE_MAX_TYPES && rows[i].plan[want])
			want++;
		CU_CHECK(n == want, "%s: plan has %zu types, want %zu", id, n, want);
		for (size_t k = 0; k < n && k < want; k++)
			CU_CHECK(strcmp(plan[k], rows[i].plan[k]) == 0, "%s: plan[%zu] '%s', want '%s'", id, k,
				 plan[k], rows[i].plan[k]);
	}
	/* a short buffer gets the first types only */
	const char *two[2];
	CU_CHECK(dp_usb_bridge_plan(NULL, two, 2) == 2 && strcmp(two[1], "sat") == 0, "bounded plan");
}

/*
 * sntjmicron's wrapper is an ATA PASS-THROUGH(12) that a SATA bridge reads as
 * "ATA hardware reset": no row that may hold a SATA drive tries it before sat,
 * and the plan for unknown bridges tries sat first too.
 */
static void test_bridge_plans_never_reset_sata(void)
{
	size_t n;
	const struct dp_usb_bridge_model *t = dp_usb_bridge_table(&n);

	CU_ASSERT_FATAL(t && n > 0);
	for (size_t i = 0; i <= n; i++) {
		const struct dp_usb_bridge_model *m = i < n ? &t[i] : NULL;
		const char *plan[DP_BRIDGE_MAX_TYPES];
		size_t np = dp_usb_bridge_plan(m, plan, DP_BRIDGE_MAX_TYPES);
		bool sat_seen = false, nvme_only = m && strcmp(m->inner, "NVMe") == 0;

		CU_CHECK(np >= 1, "%s: empty plan", m ? m->chip : "unknown");
		for (size_t k = 0; k < np; k++) {
			if (strcmp(plan[k], "sat") == 0)
				sat_seen = true;
			if (strcmp(plan[k], "sntjmicron") == 0)
				CU_CHECK(nvme_only || sat_seen, "%s: sntjmicron before sat on a bridge that may hold SATA",
					 m ? m->chip : "unknown bridges");
			CU_CHECK(plan[k][0] == '\0' || dp_smartctl_type_desc(plan[k])[0],
				 "%s: type '%s' has no description", m ? m->chip : "unknown", plan[k]);
		}
		if (m)
			CU_CHECK(m->chip && m->inner && m->passthrough && m->vid, "row %zu incomplete", i);
	}
}

static const struct cu_test tests[] = {
	{ "decode_nvme_behind_jmicron", test_decode_nvme_behind_jmicron },
	{ "decode_nvme_behind_asmedia", test_decode_nvme_behind_asmedia },
	{ "decode_sata_via_sat", test_decode_sata_via_sat },
	{ "decode_failures", test_decode_failures },
	{ "decode_not_json", test_decode_not_json },
	{ "decode_big_counters", test_decode_big_counters },
	{ "scsi_answer_is_the_bridge", test_scsi_answer_is_the_bridge },
	{ "argv_is_read_only", test_argv_is_read_only },
	{ "bridge_lookup", test_bridge_lookup },
	{ "bridge_plans_never_reset_sata", test_bridge_plans_never_reset_sata },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "identify_smartctl", .init = suite_init, .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVMe identify/SMART/features/deallocate through libnvme against the ioctl
 * mock: the commands sent, the decoding of crafted pages, and error
 * injection (an NVMe status or an errno per command).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvme/ioctl.h>
#include <nvme/types.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/nvme.h"
#include "tests/cu_main.h"
#include "tests/probe/identify/nvme_mock.h"

#define OPC_IDENTIFY 0x06
#define OPC_GET_LOG 0x02
#define OPC_GET_FEATURES 0x0a
#define OPC_DSM 0x09
#define SMART_CDW10 0x007F0002u  /* NUMDL = 512/4 - 1, LID 02h */

static struct nvme_id_ctrl ctrl_page;
static struct nvme_id_ns ns_page;
static struct nvme_smart_log smart_page;

static void put_le128(uint8_t out[16], uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(lo >> (8 * i));
		out[8 + i] = (uint8_t)(hi >> (8 * i));
	}
}

static void pad(char *dst, size_t len, const char *s)
{
	memset(dst, ' ', len);
	memcpy(dst, s, strlen(s) < len ? strlen(s) : len);
}

static void craft_pages(void)
{
	memset(&ctrl_page, 0, sizeof(ctrl_page));
	ctrl_page.vid = htole16(0x144d);
	ctrl_page.ssvid = htole16(0x144d);
	pad(ctrl_page.sn, sizeof(ctrl_page.sn), "S4EWNX0R123456A");
	pad(ctrl_page.mn, sizeof(ctrl_page.mn), "Samsung SSD 970 EVO Plus 1TB");
	pad(ctrl_page.fr, sizeof(ctrl_page.fr), "2B2QEXM7");
	ctrl_page.ver = htole32(0x00010300);
	ctrl_page.vwc = 1;
	ctrl_page.nn = htole32(1);
	ctrl_page.oncs = htole16(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	put_le128(ctrl_page.tnvmcap, 1000204886016ull, 0);

	memset(&ns_page, 0, sizeof(ns_page));
	ns_page.nsze = htole64(244190646);
	ns_page.ncap = htole64(244190646);
	ns_page.nuse = htole64(1000);
	ns_page.nlbaf = 1;           /* two formats */
	ns_page.flbas = 1;           /* the 4 KiB one in use */
	ns_page.lbaf[0].ds = 9;
	ns_page.lbaf[0].rp = 2;
	ns_page.lbaf[1].ds = 12;
	ns_page.lbaf[1].ms = htole16(0);
	ns_page.dlfeat = 1;

	memset(&smart_page, 0, sizeof(smart_page));
	smart_page.critical_warning = DP_CW_SPARE | DP_CW_RELIABILITY;
	smart_page.temperature[0] = 323 & 0xff;
	smart_page.temperature[1] = 323 >> 8;
	smart_page.avail_spare = 100;
	smart_page.spare_thresh = 10;
	smart_page.percent_used = 3;
	put_le128(smart_page.data_units_read, 12345, 0);
	put_le128(smart_page.data_units_written, 5, 1);  /* 2^64 + 5: beyond 64 bits */
	put_le128(smart_page.host_reads, 987654321, 0);
	put_le128(smart_page.host_writes, 123456789, 0);
	put_le128(smart_page.power_cycles, 42, 0);
	put_le128(smart_page.power_on_hours, 1234, 0);
	put_le128(smart_page.unsafe_shutdowns, 17, 0);
	put_le128(smart_page.media_errors, 0, 0);
	smart_page.warning_temp_time = htole32(7);
}

/* The command sequence of dp_nvme_collect() on namespace 1. */
enum { Q_NSID, Q_CTRL, Q_NS, Q_SMART, Q_VWC, Q_COUNT };

static struct mock_expect expected[Q_COUNT];

static void expect_collect(void)
{
	craft_pages();
	expected[Q_NSID] = (struct mock_expect){ .req = NVME_IOCTL_ID, .result = 1 };
	expected[Q_CTRL] = (struct mock_expect){ .req = NVME_IOCTL_ADMIN_CMD,
		.opcode = OPC_IDENTIFY, .nsid = 0, .cdw10 = 1, .data_len = 4096, .page = &ctrl_page };
	expected[Q_NS] = (struct mock_expect){ .req = NVME_IOCTL_ADMIN_CMD,
		.opcode = OPC_IDENTIFY, .nsid = 1, .cdw10 = 0, .data_len = 4096, .page = &ns_page };
	expected[Q_SMART] = (struct mock_expect){ .req = NVME_IOCTL_ADMIN_CMD,
		.opcode = OPC_GET_LOG, .nsid = NVME_NSID_ALL, .cdw10 = SMART_CDW10, .data_len = 512,
		.page = &smart_page };
	expected[Q_VWC] = (struct mock_expect){ .req = NVME_IOCTL_ADMIN_CMD,
		.opcode = OPC_GET_FEATURES, .nsid = 0, .cdw10 = 0x06, .data_len = 0, .result = 1 };
}

static void test_collect_decodes_crafted_pages(void)
{
	struct dp_nvme_info info;
	int fd;

	expect_collect();
	fd = mock_begin();
	CU_ASSERT_FATAL(fd >= 0);
	for (int i = 0; i < Q_COUNT; i++)
		mock_expect_add(expected[i]);
	memset(&info, 0, sizeof(info));
	dp_nvme_collect(fd, &info);
	CU_CHECK(mock_end(), "command sequence: %s", mock.mismatch);

	CU_CHECK(!info.q_nsid.err && !info.q_ctrl.err && !info.q_ns.err && !info.q_smart.err &&
		 !info.q_vwc.err, "all queries ok: %d %d %d %d %d", info.q_nsid.err, info.q_ctrl.err,
		 info.q_ns.err, info.q_smart.err, info.q_vwc.err);
	CU_CHECK(info.nsid == 1, "nsid %u", info.nsid);
	CU_CHECK(info.ctrl.vid == 0x144d, "vid %04x", info.ctrl.vid);
	CU_CHECK(strcmp(info.ctrl.mn, "Samsung SSD 970 EVO Plus 1TB") == 0, "model '%s'", info.ctrl.mn);
	CU_CHECK(strcmp(info.ctrl.sn, "S4EWNX0R123456A") == 0, "serial '%s'", info.ctrl.sn);
	CU_CHECK(strcmp(info.ctrl.fr, "2B2QEXM7") == 0, "firmware '%s'", info.ctrl.fr);
	CU_CHECK(info.ctrl.tnvmcap_bytes.value == 1000204886016ull, "tnvmcap %llu",
		 (unsigned long long)info.ctrl.tnvmcap_bytes.value);
	CU_CHECK(info.ctrl.vwc_present && info.vwc_enabled, "vwc present %d enabled %d",
		 info.ctrl.vwc_present, info.vwc_enabled);
	CU_CHECK(info.ctrl.dsm_supported && info.ctrl.write_zeroes_supported, "oncs");
	CU_CHECK(info.ns.nlbaf == 2 && info.ns.in_use == 1, "nlbaf %u in use %u", info.ns.nlbaf,
		 info.ns.in_use);
	CU_CHECK(info.ns.lbaf[0].data_bytes == 512 && info.ns.lbaf[1].data_bytes == 4096,
		 "lbaf sizes %llu %llu", (unsigned long long)info.ns.lbaf[0].data_bytes,
		 (unsigned long long)info.ns.lbaf[1].data_bytes);
	CU_CHECK(info.ns.lbaf[0].rel_perf == 2, "rp %u", info.ns.lbaf[0].rel_perf);
	CU_CHECK(info.ns.size_bytes == 244190646ull * 4096, "ns size %llu",
		 (unsigned long long)info.ns.size_bytes);
	CU_CHECK(info.ns.dealloc_reads_zeroes, "dlfeat 1 = reads zeroes");
	CU_CHECK(info.smart.temperature_k == 323 && info.smart.temperature_c == 50, "temp %u K %d C",
		 info.smart.temperature_k, info.smart.temperature_c);
	CU_CHECK(info.smart.critical_warning == 0x05, "cw 0x%x", info.smart.critical_warning);
	CU_CHECK(info.smart.data_units_read.value == 12345 && !info.smart.data_units_read.saturated,
		 "units read");
	CU_CHECK(info.smart.bytes_read.value == 12345ull * 512000, "bytes read %llu",
		 (unsigned long long)info.smart.bytes_read.value);
	CU_CHECK(info.smart.data_units_written.saturated &&
		 info.smart.data_units_written.value == UINT64_MAX &&
		 info.smart.bytes_written.saturated, "128-bit counter saturates");
	CU_CHECK(info.smart.power_on_hours.value == 1234 && info.smart.unsafe_shutdowns.value == 17 &&
		 info.smart.host_reads.value == 987654321 && info.smart.power_cycles.value == 42,
		 "counters");
	CU_CHECK(info.smart.warning_temp_minutes == 7, "warning temp time");
}

/* Error injection: one command fails, the others still answer. */
static void test_collect_reports_injected_errors(void)
{
	static const struct {
		const char *name;
		int which;
		uint16_t status;
		int err;
		const char *text;       /* expected in dp_nvme_query_text() */
	} rows[] = {
		{ "identify ns: Invalid Field", Q_NS, 0x4002, 0, "0x4002 (Invalid Field in Command, do not retry)" },
		{ "smart: EIO", Q_SMART, 0, EIO, "Input/output error" },
		{ "identify ctrl: ENOTTY", Q_CTRL, 0, ENOTTY, "does not accept NVMe passthrough" },
		{ "nsid: ENOTTY", Q_NSID, 0, ENOTTY, "does not accept NVMe passthrough" },
		{ "vwc: Invalid Field", Q_VWC, 0x4002, 0, "Invalid Field in Command" },
		{ "smart: Invalid Log Page", Q_SMART, 0x0109, 0, "0x0109" },
		{ "identify ctrl: EACCES", Q_CTRL, 0, EACCES, "root" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dp_nvme_info info;
		struct dp_nvme_query *qs[Q_COUNT] = { &info.q_nsid, &info.q_ctrl, &info.q_ns,
						      &info.q_smart, &info.q_vwc };
		char text[512];
		_cleanup_free_ char *out = NULL;
		size_t outlen = 0;
		FILE *f;
		int fd, w = rows[i].which;

		expect_collect();
		expected[w].status = rows[i].status;
		expected[w].err = rows[i].err;
		fd = mock_begin();
		CU_ASSERT_FATAL(fd >= 0);
		for (int q = 0; q < Q_COUNT; q++) {
			/* without a namespace id there is no identify namespace; without
			 * identify controller nobody knows whether a cache exists */
			if ((w == Q_NSID && q == Q_NS) || (w == Q_CTRL && q == Q_VWC))
				continue;
			mock_expect_add(expected[q]);
		}
		memset(&info, 0, sizeof(info));
		dp_nvme_collect(fd, &info);
		CU_CHECK(mock_end(), "%s: command sequence: %s", rows[i].name, mock.mismatch);

		CU_CHECK(qs[w]->status == rows[i].status, "%s: status 0x%x", rows[i].name, qs[w]->status);
		CU_CHECK(qs[w]->err == (rows[i].status ? -EIO : -rows[i].err), "%s: err %d",
			 rows[i].name, qs[w]->err);
		dp_nvme_query_text("cmd", qs[w], text, sizeof(text));
		CU_CHECK(strstr(text, rows[i].text) != NULL, "%s: message '%s' lacks '%s'",
			 rows[i].name, text, rows[i].text);
		for (int q = 0; q < Q_COUNT; q++)
			if (q != w && qs[q]->tried)
				CU_CHECK(qs[q]->err == 0, "%s: query %d should still succeed (err %d)",
					 rows[i].name, q, qs[q]->err);

		/* the renderers must cope with any partial result */
		struct dp_identity *id = calloc(1, sizeof(*id));
		CU_ASSERT_FATAL(id != NULL);
		id->have_nvme = true;
		id->nvme = info;
		f = open_memstream(&out, &outlen);
		CU_ASSERT_FATAL(f != NULL);
		CU_CHECK(dp_render_human(id, f) == 0, "%s: human render", rows[i].name);
		fclose(f);
		CU_CHECK(out && strstr(out, rows[i].text), "%s: table lacks the error:\n%s", rows[i].name,
			 out ? out : "");
		json_object *o = json_object_new_object();
		CU_CHECK(dp_render_json(id, o) == 0, "%s: json render", rows[i].name);
		json_object *nv, *errs;
		CU_CHECK(json_object_object_get_ex(o, "nvme", &nv) &&
			 json_object_object_get_ex(nv, "errors", &errs) &&
			 json_object_array_length(errs) == 1, "%s: one error in JSON: %s", rows[i].name,
			 json_object_to_json_string(o));
		json_object_put(o);
		free(id);
	}
}

static void test_smart_decoding(void)
{
	static const struct {
		const char *name;
		uint64_t lo, hi;
		uint64_t value, bytes;
		bool sat, bytes_sat;
	} rows[] = {
		{ "zero", 0, 0, 0, 0, false, false },
		{ "one unit = 512000 bytes", 1, 0, 1, 512000, false, false },
		{ "bytes overflow 64 bits", UINT64_MAX / 512000 + 1, 0, UINT64_MAX / 512000 + 1,
		  UINT64_MAX, false, true },
		{ "largest exact", UINT64_MAX / 512000, 0, UINT64_MAX / 512000,
		  (UINT64_MAX / 512000) * 512000, false, false },
		{ "high byte set", 0, 1ull << 56, UINT64_MAX, UINT64_MAX, true, true },
		{ "2^64 exactly", 0, 1, UINT64_MAX, UINT64_MAX, true, true },
		{ "all 64 low bits", UINT64_MAX, 0, UINT64_MAX, UINT64_MAX, false, true },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct nvme_smart_log log;
		struct dp_nvme_smart s;

		memset(&log, 0, sizeof(log));
		put_le128(log.data_units_written, rows[i].lo, rows[i].hi);
		dp_nvme_decode_smart(&log, &s);
		CU_CHECK(s.data_units_written.value == rows[i].value &&
			 s.data_units_written.saturated == rows[i].sat, "%s: units %llu sat %d",
			 rows[i].name, (unsigned long long)s.data_units_written.value,
			 s.data_units_written.saturated);
		CU_CHECK(s.bytes_written.value == rows[i].bytes &&
			 s.bytes_written.saturated == rows[i].bytes_sat, "%s: bytes %llu sat %d",
			 rows[i].name, (unsigned long long)s.bytes_written.value,
			 s.bytes_written.saturated);
	}

	/* byte order of the 128-bit counters: little endian */
	uint8_t le[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
	struct dp_counter c = dp_counter_from_le128(le);
	CU_CHECK(c.value == 0x0807060504030201ull && !c.saturated, "le128 0x%llx",
		 (unsigned long long)c.value);

	static const struct { unsigned k; int c; } temps[] = {
		{ 273, 0 }, { 323, 50 }, { 250, -23 }, { 358, 85 },
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(temps); i++) {
		struct nvme_smart_log log;
		struct dp_nvme_smart s;

		memset(&log, 0, sizeof(log));
		log.temperature[0] = temps[i].k & 0xff;
		log.temperature[1] = temps[i].k >> 8;
		dp_nvme_decode_smart(&log, &s);
		CU_CHECK(s.temperature_k == temps[i].k && s.temperature_c == temps[i].c,
			 "%u K -> %d C, got %d", temps[i].k, temps[i].c, s.temperature_c);
	}
}

static void test_critical_warning_bits(void)
{
	static const struct { unsigned bit; const char *word; } rows[] = {
		{ 0, "spare" }, { 1, "temperature" }, { 2, "reliability" }, { 3, "read-only" },
		{ 4, "volatile memory backup" }, { 5, "persistent memory" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const char *n = dp_nvme_crit_warning_name(rows[i].bit);
		CU_CHECK(n && strstr(n, rows[i].word), "bit %u: '%s' lacks '%s'", rows[i].bit,
			 n ? n : "(null)", rows[i].word);
	}
	CU_CHECK(dp_nvme_crit_warning_name(6) == NULL && dp_nvme_crit_warning_name(7) == NULL,
		 "bits 6, 7 reserved");

	/* every set bit is listed, in the table and in JSON */
	struct dp_identity *id = calloc(1, sizeof(*id));
	_cleanup_free_ char *out = NULL;
	size_t len = 0;
	FILE *f;

	CU_ASSERT_FATAL(id != NULL);
	id->have_nvme = true;
	id->nvme.smart.critical_warning = DP_CW_TEMPERATURE | DP_CW_READ_ONLY | 0x80;
	f = open_memstream(&out, &len);
	CU_ASSERT_FATAL(f != NULL);
	dp_render_human(id, f);
	fclose(f);
	CU_CHECK(strstr(out, "bit 1: temperature") && strstr(out, "bit 3: media placed in read-only") &&
		 strstr(out, "bit 7: reserved"), "critical warnings in table:\n%s", out);
	json_object *o = json_object_new_object(), *nv, *sm, *w;
	dp_render_json(id, o);
	CU_CHECK(json_object_object_get_ex(o, "nvme", &nv) && json_object_object_get_ex(nv, "smart", &sm) &&
		 json_object_object_get_ex(sm, "critical_warnings", &w) &&
		 json_object_array_length(w) == 3, "json warnings: %s", json_object_to_json_string(o));
	json_object_put(o);
	free(id);
}

static void test_namespace_formats(void)
{
	static const struct {
		const char *name;
		uint8_t nlbaf, flbas, ds_in_use;
		unsigned count, in_use;
		uint64_t bytes;
	} rows[] = {
		{ "512 in use", 0, 0, 9, 1, 0, 512 },
		{ "format 4 of 8", 7, 4, 12, 8, 4, 4096 },
		{ "NVMe 2.0 high index bits", 63, 0x21, 12, 64, 17, 4096 },
		{ "metadata bit ignored", 3, 0x12, 12, 4, 2, 4096 },
		{ "unsupported LBADS", 1, 1, 0, 2, 1, 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct nvme_id_ns ns;
		struct dp_nvme_ns d;

		memset(&ns, 0, sizeof(ns));
		ns.nsze = htole64(1000);
		ns.nlbaf = rows[i].nlbaf;
		ns.flbas = rows[i].flbas;
		for (unsigned f = 0; f <= rows[i].nlbaf; f++)
			ns.lbaf[f].ds = 9;
		ns.lbaf[rows[i].in_use].ds = rows[i].ds_in_use;
		dp_nvme_decode_ns(&ns, 3, &d);
		CU_CHECK(d.nlbaf == rows[i].count && d.in_use == rows[i].in_use, "%s: %u formats, %u in use",
			 rows[i].name, d.nlbaf, d.in_use);
		CU_CHECK(d.lbaf[d.in_use].data_bytes == rows[i].bytes && d.size_bytes == 1000 * rows[i].bytes,
			 "%s: %llu bytes, size %llu", rows[i].name,
			 (unsigned long long)d.lbaf[d.in_use].data_bytes, (unsigned long long)d.size_bytes);
	}
}

static void test_deallocate_commands(void)
{
	struct dutprobe_lba_range r3[3] = { { 0, 8 }, { 1000, 1 }, { 1ull << 40, 4096 } };
	uint16_t st = 0xffff;
	int fd, r;

	/* three ranges in one command: cdw10 = NR (0's based), cdw11 = AD */
	fd = mock_begin();
	CU_ASSERT_FATAL(fd >= 0);
	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_IO_CMD, .opcode = OPC_DSM,
		.nsid = 2, .cdw10 = 2, .cdw11 = 4, .data_len = 3 * 16 });
	r = dutprobe_nvme_deallocate(fd, 2, r3, 3, &st);
	CU_CHECK(mock_end(), "three ranges: %s", mock.mismatch);
	CU_CHECK(r == 0 && st == 0, "three ranges: r %d st 0x%x", r, st);
	CU_CHECK(mock.captured_len == 48, "captured %zu", mock.captured_len);
	const struct nvme_dsm_range *got = (const void *)mock.captured;
	for (int i = 0; i < 3; i++)
		CU_CHECK(le64toh(got[i].slba) == r3[i].slba && le32toh(got[i].nlb) == r3[i].nlb &&
			 got[i].cattr == 0, "range %d: slba %llu nlb %u", i,
			 (unsigned long long)le64toh(got[i].slba), le32toh(got[i].nlb));

	/* 300 ranges: 256 + 44 */
	struct dutprobe_lba_range many[300];
	for (int i = 0; i < 300; i++)
		many[i] = (struct dutprobe_lba_range){ (uint64_t)i * 16, 8 };
	fd = mock_begin();
	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_IO_CMD, .opcode = OPC_DSM,
		.nsid = 1, .cdw10 = 255, .cdw11 = 4, .data_len = 256 * 16 });
	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_IO_CMD, .opcode = OPC_DSM,
		.nsid = 1, .cdw10 = 43, .cdw11 = 4, .data_len = 44 * 16 });
	r = dutprobe_nvme_deallocate(fd, 1, many, 300, &st);
	CU_CHECK(mock_end() && r == 0, "300 ranges: r %d %s", r, mock.mismatch);
	got = (const void *)mock.captured;
	CU_CHECK(le64toh(got[0].slba) == 256 * 16, "second command starts at range 256: %llu",
		 (unsigned long long)le64toh(got[0].slba));

	/* byte extents */
	fd = mock_begin();
	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_IO_CMD, .opcode = OPC_DSM,
		.nsid = 1, .cdw10 = 0, .cdw11 = 4, .data_len = 16 });
	r = dutprobe_nvme_deallocate_bytes(fd, 1, 4096, 8192, 10 * 4096, &st);
	CU_CHECK(mock_end() && r == 0, "bytes: r %d %s", r, mock.mismatch);
	got = (const void *)mock.captured;
	CU_CHECK(le64toh(got[0].slba) == 2 && le32toh(got[0].nlb) == 10, "bytes -> slba %llu nlb %u",
		 (unsigned long long)le64toh(got[0].slba), le32toh(got[0].nlb));

	/* more than 2^32-1 blocks: split into two ranges of one command */
	fd = mock_begin();
	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_IO_CMD, .opcode = OPC_DSM,
		.nsid = 1, .cdw10 = 1, .cdw11 = 4, .data_len = 32 });
	r = dutprobe_nvme_deallocate_bytes(fd, 1, 512, 0, ((uint64_t)UINT32_MAX + 5) * 512, &st);
	CU_CHECK(mock_end() && r == 0, "huge: r %d %s", r, mock.mismatch);
	got = (const void *)mock.captured;
	CU_CHECK(le32toh(got[0].nlb) == UINT32_MAX && le64toh(got[1].slba) == UINT32_MAX &&
		 le32toh(got[1].nlb) == 5, "huge split");

	/* invalid requests never reach the device */
	static const struct { const char *name; uint32_t lba; uint64_t off, len; } bad[] = {
		{ "unaligned offset", 4096, 512, 4096 }, { "unaligned length", 4096, 0, 1000 },
		{ "zero length", 512, 0, 0 }, { "lba not a power of two", 1000, 0, 1000 },
		{ "wraps", 512, UINT64_MAX - 511, 1024 },
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(bad); i++) {
		fd = mock_begin();
		r = dutprobe_nvme_deallocate_bytes(fd, 1, bad[i].lba, bad[i].off, bad[i].len, &st);
		CU_CHECK(r == -EINVAL && mock.calls == 0, "%s: r %d calls %u", bad[i].name, r, mock.calls);
		mock_end();
	}
	struct dutprobe_lba_range zero = { 5, 0 };
	fd = mock_begin();
	r = dutprobe_nvme_deallocate(fd, 1, &zero, 1, &st);
	CU_CHECK(r == -EINVAL && mock.calls == 0, "nlb 0 rejected: %d", r);
	r = dutprobe_nvme_deallocate(fd, NVME_NSID_ALL, r3, 1, &st);
	CU_CHECK(r == -EINVAL && mock.calls == 0, "broadcast nsid rejected: %d", r);
	mock_end();
}

static void test_deallocate_errors(void)
{
	static const struct { const char *name; uint16_t status; int err; int want; } rows[] = {
		{ "Invalid Field", 0x4002, 0, -EIO },
		{ "LBA out of range", 0x0080, 0, -EIO },
		{ "EIO", 0, EIO, -EIO },
		{ "ENOTTY", 0, ENOTTY, -ENOTTY },
		{ "EINTR", 0, EINTR, -EINTR },
	};
	struct dutprobe_lba_range r1 = { 0, 8 };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		uint16_t st = 0xffff;
		int fd = mock_begin(), r;

		mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_IO_CMD, .opcode = OPC_DSM,
			.nsid = 1, .cdw10 = 0, .cdw11 = 4, .data_len = 16,
			.status = rows[i].status, .err = rows[i].err });
		r = dutprobe_nvme_deallocate(fd, 1, &r1, 1, &st);
		CU_CHECK(mock_end(), "%s: %s", rows[i].name, mock.mismatch);
		CU_CHECK(r == rows[i].want && st == rows[i].status, "%s: r %d status 0x%x", rows[i].name,
			 r, st);
	}
}

static void test_get_nsid(void)
{
	uint32_t nsid = 0;
	int fd = mock_begin(), r;

	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_ID, .result = 7 });
	mock_expect_add((struct mock_expect){ .req = NVME_IOCTL_ID, .err = ENOTTY });
	r = dutprobe_nvme_get_nsid(fd, &nsid);
	CU_CHECK(r == 0 && nsid == 7, "nsid 7: r %d nsid %u", r, nsid);
	nsid = 99;
	r = dutprobe_nvme_get_nsid(fd, &nsid);
	CU_CHECK(r == -ENOTTY && nsid == 99, "ENOTTY leaves nsid alone: r %d nsid %u", r, nsid);
	CU_CHECK(mock_end(), "%s", mock.mismatch);
}

static void test_status_text(void)
{
	static const struct { uint16_t st; const char *want; } rows[] = {
		{ 0x4002, "NVMe status 0x4002 (Invalid Field in Command, do not retry)" },
		{ 0x0002, "NVMe status 0x0002 (Invalid Field in Command)" },
		{ 0x000b, "Invalid Namespace" },
	};
	char buf[160];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		dp_nvme_status_text(rows[i].st, buf, sizeof(buf));
		CU_CHECK(strstr(buf, rows[i].want) != NULL, "0x%04x: '%s' lacks '%s'", rows[i].st, buf,
			 rows[i].want);
	}
}

/*
 * The power-fail atomic write unit: the namespace's NAWUPF when NSFEAT bit 1
 * says it has its own, else the controller's AWUPF, both 0's based in
 * logical blocks of the format in use; then the kernel's unit; then one
 * logical block.  And the sentence about 8 KiB pages.
 */
static void test_atomic_write_unit(void)
{
	static struct dp_identity id;
	struct dp_atomic a;
	char t[256];

	craft_pages();
	memset(&id, 0, sizeof(id));
	id.have_nvme = true;
	ctrl_page.awun = htole16(7);
	ctrl_page.awupf = htole16(0);            /* one 4 KiB block */
	dp_nvme_decode_ctrl(&ctrl_page, &id.nvme.ctrl);
	dp_nvme_decode_ns(&ns_page, 1, &id.nvme.ns);
	dp_atomic_decide(&id, &a);
	CU_CHECK(a.source == DP_ATOMIC_NVME_CTRL && a.power_fail_bytes == 4096 && a.normal_bytes == 32768,
		 "controller AWUPF 0 on 4 KiB blocks: %s %llu / %llu", dp_atomic_source_name(a.source),
		 (unsigned long long)a.power_fail_bytes, (unsigned long long)a.normal_bytes);
	dp_atomic_text(&a, 8192, t, sizeof(t));
	CU_CHECK(strstr(t, "4096 bytes (NVMe controller AWUPF)") && strstr(t, "can tear") &&
		 strstr(t, "keep full_page_writes on"), "text: %s", t);

	ns_page.nsfeat = NVME_NS_FEAT_NATOMIC;   /* the namespace's own: 2 blocks */
	ns_page.nawupf = htole16(1);
	ns_page.nawun = htole16(1);
	dp_nvme_decode_ns(&ns_page, 1, &id.nvme.ns);
	dp_atomic_decide(&id, &a);
	CU_CHECK(a.source == DP_ATOMIC_NVME_NS && a.power_fail_bytes == 8192,
		 "namespace NAWUPF 1: %s %llu", dp_atomic_source_name(a.source),
		 (unsigned long long)a.power_fail_bytes);
	dp_atomic_text(&a, 8192, t, sizeof(t));
	CU_CHECK(strstr(t, "cannot tear"), "8 KiB atomic covers 8 KiB pages: %s", t);
	dp_atomic_text(&a, 16384, t, sizeof(t));
	CU_CHECK(strstr(t, "16 KiB PostgreSQL pages can tear"), "16 KiB pages are not covered: %s", t);

	id.nvme.q_ns.err = -EIO;                 /* no namespace: the kernel, then one block */
	id.have_dev = true;
	id.dev.logical_block_bytes = 512;
	id.dev.atomic_write_unit_max_bytes = 16384;
	dp_atomic_decide(&id, &a);
	CU_CHECK(a.source == DP_ATOMIC_KERNEL && a.power_fail_bytes == 16384, "kernel unit: %s %llu",
		 dp_atomic_source_name(a.source), (unsigned long long)a.power_fail_bytes);
	id.dev.atomic_write_unit_max_bytes = 0;
	dp_atomic_decide(&id, &a);
	CU_CHECK(a.source == DP_ATOMIC_ASSUMED_LBA && a.power_fail_bytes == 512, "one block: %s %llu",
		 dp_atomic_source_name(a.source), (unsigned long long)a.power_fail_bytes);
	craft_pages();
}

static const struct cu_test tests[] = {
	{ "collect_decodes_crafted_pages", test_collect_decodes_crafted_pages },
	{ "collect_reports_injected_errors", test_collect_reports_injected_errors },
	{ "smart_decoding", test_smart_decoding },
	{ "critical_warning_bits", test_critical_warning_bits },
	{ "namespace_formats", test_namespace_formats },
	{ "deallocate_commands", test_deallocate_commands },
	{ "deallocate_errors", test_deallocate_errors },
	{ "get_nsid", test_get_nsid },
	{ "status_text", test_status_text },
	{ "atomic_write_unit", test_atomic_write_unit },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "identify_nvme", .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's atomicity in a crash campaign (tools/crash/crash_atomic.c): read
 * from a dutprobe identify document, the tear unit, and the report's
 * sentence about the server's pages, of the block size the campaign found;
 * also through the report renderers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/cu_main.h"
#include "tools/crash/crash_atomic.h"
#include "tools/crash/crash_result.h"

static json_object *doc(const char *text)
{
	json_object *d = json_tokener_parse(text);

	CU_ASSERT_FATAL(d != NULL);
	return d;
}

static void test_reads_identify_document(void)
{
	json_object *d = doc("{\"tool\": {\"name\": \"dutprobe\"}, \"target\": {\"path\": \"/dev/nvme0n1\", "
			     "\"atomic_write\": {\"power_fail_bytes\": 4096, \"source\": \"nvme-controller\"}}}");
	struct crash_atomic a;
	char why[300], s[400];

	CU_CHECK(crash_atomic_from_json(d, &a, why, sizeof(why)) == 0 && a.have && a.bytes == 4096,
		 "4 KiB AWUPF read: %s", why);
	CU_CHECK(strcmp(a.source, "nvme-controller") == 0 && strcmp(a.device, "/dev/nvme0n1") == 0,
		 "source %s device %s", a.source, a.device);
	CU_CHECK(crash_atomic_sector(&a) == 4096, "tear unit %u", crash_atomic_sector(&a));
	crash_atomic_sentence(&a, crash_atomic_sector(&a), 8192, s, sizeof(s));
	CU_CHECK(strstr(s, "8 KiB pages on a 4 KiB-atomic device") &&
		 strstr(s, "torn pages are possible, keep full_page_writes on") &&
		 strstr(s, "torn at 4096 bytes"), "sentence: %s", s);
	json_object_put(d);

	a.bytes = 16384;
	crash_atomic_sentence(&a, crash_atomic_sector(&a), 8192, s, sizeof(s));
	CU_CHECK(strstr(s, "a power loss cannot tear a page") && crash_atomic_sector(&a) == 16384,
		 "16 KiB atomic: %s", s);
	a.bytes = 3 * 4096;                     /* not a power of two: round down */
	CU_CHECK(crash_atomic_sector(&a) == 8192, "12 KiB -> %u", crash_atomic_sector(&a));
	a.bytes = 1u << 20;                     /* dutfs tears at 64 KiB at most */
	CU_CHECK(crash_atomic_sector(&a) == 65536, "1 MiB -> %u", crash_atomic_sector(&a));
	a.have = false;
	crash_atomic_sentence(&a, 512, 8192, s, sizeof(s));
	CU_CHECK(strstr(s, "8 KiB pages; writes in flight torn at 512 bytes") && strstr(s, "--identify"),
		 "without: %s", s);
}

static void test_refuses_other_documents(void)
{
	static const char *const bad[] = {
		"{\"tool\": {\"name\": \"pgload\"}, \"target\": {}}",
		"{\"tool\": {\"name\": \"dutprobe\"}, \"target\": {\"path\": \"/x\"}}",
		"{\"tool\": {\"name\": \"dutprobe\"}, \"target\": {\"atomic_write\": {\"power_fail_bytes\": 0}}}",
		"[]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *d = doc(bad[i]);
		struct crash_atomic a;
		char why[300] = "";

		CU_CHECK(crash_atomic_from_json(d, &a, why, sizeof(why)) == -EINVAL && !a.have && why[0],
			 "refused: %s (%s)", bad[i], why);
		json_object_put(d);
	}
}

/* The report prints the sentence and the JSON carries the atomicity. */
static void test_report_carries_it(void)
{
	struct crash_report r;
	json_object *j, *cfg, *a, *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&r, 0, sizeof(r));
	crash_campaign_defaults(&r.c);
	r.c.sector = 4096;
	r.only_state = -1;
	r.atomic = (struct crash_atomic){ .have = true, .bytes = 4096, .source = "nvme-controller",
					  .device = "/dev/nvme0n1" };
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	crash_report_print(&r, f);
	fclose(f);
	CU_CHECK(buf && strstr(buf, "8 KiB pages on a 4 KiB-atomic device (nvme-controller, from /dev/nvme0n1)"),
		 "human report: %s", buf ? buf : "");
	free(buf);
	j = crash_report_json(&r);
	CU_CHECK(j && json_object_object_get_ex(j, "config", &cfg) &&
		 json_object_object_get_ex(cfg, "atomic_write", &a) && a &&
		 json_object_object_get_ex(a, "pages_can_tear", &v) && json_object_get_boolean(v),
		 "config.atomic_write.pages_can_tear");
	json_object_put(j);
}

/*
 * The server's page is its block size, not always 8 KiB: a 16 or 32 KiB
 * build of dutlab pg build on a 16 KiB-atomic device, its sentence, its
 * subset grain and the JSON's pages_can_tear.
 */
static void test_page_size_of_the_build(void)
{
	static const struct {
		uint32_t page, atomic;
		const char *says;
		bool can_tear;
	} rows[] = {
		{ 8192, 4096, "8 KiB pages on a 4 KiB-atomic device", true },
		{ 8192, 16384, "8 KiB pages on a 16 KiB-atomic device", false },
		{ 16384, 8192, "16 KiB pages on a 8 KiB-atomic device", true },
		{ 16384, 16384, "16 KiB pages on a 16 KiB-atomic device", false },
		{ 32768, 16384, "32 KiB pages on a 16 KiB-atomic device", true },
		{ 4096, 4096, "4 KiB pages on a 4 KiB-atomic device", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crash_report r = { .only_state = -1, .page_source = "pg_controldata" };
		struct crash_state s;
		json_object *j, *cfg, *a, *v;
		char line[400];

		crash_campaign_defaults(&r.c);
		r.c.page_bytes = rows[i].page;
		r.c.losses_mask = 1u << CRASH_LOSS_SUBSET;
		r.atomic = (struct crash_atomic){ .have = true, .bytes = rows[i].atomic, .source = "nvme-namespace",
						  .device = "/dev/nvme0n1" };
		crash_atomic_sentence(&r.atomic, crash_atomic_sector(&r.atomic), rows[i].page, line, sizeof(line));
		CU_CHECK(strstr(line, rows[i].says) &&
			 !!strstr(line, "torn pages are possible") == rows[i].can_tear, "%u on %u: %s", rows[i].page,
			 rows[i].atomic, line);
		j = crash_report_json(&r);
		CU_CHECK(j && json_object_object_get_ex(j, "config", &cfg) &&
			 json_object_object_get_ex(cfg, "atomic_write", &a) &&
			 json_object_object_get_ex(a, "pages_can_tear", &v) &&
			 json_object_get_boolean(v) == rows[i].can_tear &&
			 json_object_object_get_ex(cfg, "page_bytes", &v) && json_object_get_int(v) == (int)rows[i].page &&
			 json_object_object_get_ex(cfg, "atomicity", &v) && strstr(json_object_get_string(v), rows[i].says),
			 "%u on %u: the JSON", rows[i].page, rows[i].atomic);
		json_object_put(j);
		/* subset loses whole pages of the server's size; the fpw control still tears them */
		crash_plan_state(&r.c, 0, &s);
		CU_CHECK(s.loss == CRASH_LOSS_SUBSET && s.grain == rows[i].page, "page %u: subset grain %llu",
			 rows[i].page, (unsigned long long)s.grain);
		r.c.control_states = 1;
		crash_plan_state(&r.c, r.c.states, &s);
		CU_CHECK(s.control == CRASH_CONTROL_FPW_OFF && s.grain < rows[i].page && rows[i].page % s.grain == 0,
			 "page %u: the full_page_writes=off control tears at %llu", rows[i].page,
			 (unsigned long long)s.grain);
	}
}

/* Where the block size comes from: pg_controldata's line, or a build's record. */
static void test_page_size_sources(void)
{
	static const struct { const char *text; int ret; uint32_t page; } rows[] = {
		{ "pg_control version number:            1300\nDatabase block size:                  8192\n"
		  "Blocks per segment of large relation: 131072\n", 0, 8192 },
		{ "Database block size:                  16384\n", 0, 16384 },
		{ "Database block size:                  32768", 0, 32768 },
		{ "Database block size:                  12288\n", -EINVAL, 0 },
		{ "Database block size:                  65536\n", -EINVAL, 0 },
		{ "WAL block size:                       8192\n", -EINVAL, 0 },
		{ "Database block size:\n", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t page = 0;

		CU_CHECK(crash_page_from_controldata(rows[i].text, &page) == rows[i].ret && page == rows[i].page,
			 "row %zu: %u", i, page);
	}
	CU_CHECK(crash_page_from_build(16) == 16384 && crash_page_from_build(32) == 32768 &&
		 crash_page_from_build(8) == 8192 && crash_page_from_build(0) == 0 && crash_page_from_build(12) == 0,
		 "dutlab-build.conf's block_size_kb");
}

static const struct cu_test tests[] = {
	{ "reads_identify_document", test_reads_identify_document },
	{ "refuses_other_documents", test_refuses_other_documents },
	{ "report_carries_it", test_report_carries_it },
	{ "page_size_of_the_build", test_page_size_of_the_build },
	{ "page_size_sources", test_page_size_sources },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash_atomic", .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules file: good files give exact structures, every bad input a clear error at its line. */
#include <errno.h>
#include <string.h>

#include "fuse/shape/classify.h"
#include "fuse/shape/rules.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

static const char good[] =
	"; dutlab shaping rules\n"
	"[model disk]\n"
	"type = hdd\n"
	"rpm = 7200\n"
	"track_to_track = 1ms\n"
	"average_seek = 8.5ms\n"
	"full_stroke = 17ms\n"
	"transfer = 150MB/s\n"
	"capacity = 2T\n"
	"cache = 1M\n"
	"fsync_latency = 4ms\n"
	"\n"
	"[model flash]   ; inline comment\n"
	"type = fixed\n"
	"read_latency = 80us\n"
	"write_latency = 20us\n"
	"barriers = off\n"
	"[fault enospc]\n"
	"type = error\n"
	"errno = ENOSPC\n"
	"nth = 3\n"
	"[rule wal]\n"
	"class = wal\n"
	"op = write, sync\n"
	"model = flash\n"
	"[rule tables]\n"
	"class = heap toast\n"
	"path = base/?*\n"
	"model = disk\n"
	"fault = enospc\n"
	"[rule rest]\n"
	"model = disk\n";

static void test_good_file_exact_structures(void)
{
	struct shape_rules *rs = NULL;
	struct dut_error err = { "" };
	const struct shape_common *cm;
	int r = shape_rules_parse(good, strlen(good), "good.ini", &rs, &err);

	CU_CHECK(r == 0, "parse: %s", err.msg);
	if (r)
		return;
	CU_CHECK(rs->nmodels == 2 && rs->nfaults == 1 && rs->nrules == 3, "counts %u %u %u",
		 rs->nmodels, rs->nfaults, rs->nrules);
	CU_CHECK(strcmp(rs->models[0]->name, "disk") == 0 && rs->models[0]->ops == &shape_model_hdd &&
		 rs->models[0]->line == 2, "model disk");
	cm = rs->models[0]->params;
	CU_CHECK(cm->fsync_ns == 4000000 && cm->barriers, "disk common: %llu %d",
		 (unsigned long long)cm->fsync_ns, cm->barriers);
	CU_CHECK(strcmp(rs->models[1]->name, "flash") == 0 && rs->models[1]->ops == &shape_model_fixed &&
		 rs->models[1]->line == 13, "model flash");
	cm = rs->models[1]->params;
	CU_CHECK(cm->fsync_ns == 0 && !cm->barriers, "flash common");
	CU_CHECK(strcmp(rs->faults[0]->name, "enospc") == 0 && rs->faults[0]->p.type == SHAPE_FAULT_ERROR &&
		 rs->faults[0]->p.err == ENOSPC && rs->faults[0]->p.nth == 3, "fault");

	CU_CHECK(strcmp(rs->rules[0].name, "wal") == 0 && rs->rules[0].line == 22 &&
		 rs->rules[0].class_mask == 1u << SHAPE_CLASS_WAL &&
		 rs->rules[0].op_mask == (1u << SHAPE_OP_WRITE | 1u << SHAPE_OP_FSYNC | 1u << SHAPE_OP_FDATASYNC) &&
		 !rs->rules[0].glob && rs->rules[0].model == rs->models[1] && rs->rules[0].nfaults == 0,
		 "rule wal");
	CU_CHECK(rs->rules[1].class_mask == (1u << SHAPE_CLASS_HEAP | 1u << SHAPE_CLASS_TOAST) &&
		 rs->rules[1].op_mask == SHAPE_OP_ALL && strcmp(rs->rules[1].glob, "base/?*") == 0 &&
		 rs->rules[1].model == rs->models[0] && rs->rules[1].nfaults == 1 &&
		 rs->rules[1].faults[0] == rs->faults[0], "rule tables");
	CU_CHECK(rs->rules[2].class_mask == SHAPE_CLASS_ALL && rs->rules[2].op_mask == SHAPE_OP_ALL &&
		 rs->rules[2].model == rs->models[0], "rule rest");
	shape_rules_free(rs);
}

static void test_first_matching_rule_wins(void)
{
	static const struct {
		const char *path;
		enum shape_op op;
		const char *rule;
	} rows[] = {
		{ "pg_wal/000000010000000000000001", SHAPE_OP_WRITE, "wal" },
		{ "pg_wal/000000010000000000000001", SHAPE_OP_FDATASYNC, "wal" },
		{ "pg_wal/000000010000000000000001", SHAPE_OP_READ, "rest" },   /* op not in wal */
		{ "base/5/16397", SHAPE_OP_READ, "tables" },                   /* '*' spans '/' */
		{ "base/5/16397_fsm", SHAPE_OP_READ, "rest" },                 /* class fsm */
		{ "global/1262", SHAPE_OP_READ, "rest" },                      /* heap, path not base/ */
		{ "postgresql.conf", SHAPE_OP_OPEN, "rest" },
	};
	struct shape_rules *rs = NULL;
	struct dut_error err;

	if (shape_rules_parse(good, strlen(good), "good.ini", &rs, &err) < 0) {
		cu_fail("parse: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		enum shape_class cls = shape_classify(NULL, rows[i].path);
		struct shape_rule *r = shape_rules_match(rs, cls, rows[i].path, rows[i].op);

		CU_CHECK(r && strcmp(r->name, rows[i].rule) == 0, "%s %s: got %s want %s", rows[i].path,
			 shape_op_name(rows[i].op), r ? r->name : "none", rows[i].rule);
	}
	shape_rules_free(rs);
}

/* 16400 an index, 16401 a kind the map calls other, 16402 a toast index, 16403 a sequence */
static int relkind_index(void *ctx, uint32_t ts, uint32_t db, uint32_t rfn, enum relmap_kind *ret)
{
	static const enum relmap_kind kinds[] = { RELMAP_INDEX, RELMAP_OTHER, RELMAP_TOAST_INDEX, RELMAP_SEQUENCE };

	if (ts == 1663 && db == 5 && rfn >= 16400 && rfn < 16400 + DUT_ARRAY_SIZE(kinds)) {
		*ret = kinds[rfn - 16400];
		return 0;
	}
	return -ENOENT;
}

static void test_classifier_uses_relation_map(void)
{
	static const struct { const char *path; enum shape_class want; } rows[] = {
		{ "base/5/16397", SHAPE_CLASS_HEAP },
		{ "base/5/16400", SHAPE_CLASS_INDEX },
		{ "base/5/16400.1", SHAPE_CLASS_INDEX },
		{ "base/5/16400_fsm", SHAPE_CLASS_FSM },
		{ "base/5/16400_vm", SHAPE_CLASS_VM },
		{ "base/5/t3_16500", SHAPE_CLASS_TEMP },
		{ "base/pgsql_tmp/pgsql_tmp123.0", SHAPE_CLASS_TEMP },
		{ "pg_wal/000000010000000000000001", SHAPE_CLASS_WAL },
		{ "pg_xact/0000", SHAPE_CLASS_SLRU },
		{ "pg_multixact/offsets/0000", SHAPE_CLASS_SLRU },
		{ "postgresql.conf", SHAPE_CLASS_OTHER },
		{ "pgdata/base/5/16400", SHAPE_CLASS_INDEX },
		{ "base/5/16401", SHAPE_CLASS_OTHER },     /* as the report classes it (lib/io_class.h) */
		{ "base/5/16402", SHAPE_CLASS_TOAST },
		{ "base/5/16403", SHAPE_CLASS_HEAP },
	};
	const struct shape_classifier c = { relkind_index, NULL };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		enum shape_class got = shape_classify(&c, rows[i].path);

		CU_CHECK(got == rows[i].want, "%s: %s want %s", rows[i].path, shape_class_name(got),
			 shape_class_name(rows[i].want));
	}
}

#define RULE "[rule r]\nmodel = m\n"
#define FIXED "[model m]\ntype = fixed\nread_latency = 1ms\nwrite_latency = 1ms\n"

static void test_bad_input_messages(void)
{
	static const struct { const char *text; const char *want; } rows[] = {
		{ "[model m]\ntype = tape\n" RULE,
		  "t.ini:2: [model m]: type: expected a model type (fixed, bandwidth, queue, hdd, ssd), found \"tape\"" },
		{ FIXED "[rule r]\nmodel = nope\n",
		  "t.ini:6: [rule r]: model: expected the name of a [model] section (defined: m), found \"nope\"" },
		{ "[model m]\ntype = hdd\ntrack_to_track = 1ms\naverage_seek = 8ms\nfull_stroke = 16ms\n"
		  "transfer = 100MB/s\ncapacity = 1T\n" RULE,
		  "t.ini:1: [model m]: missing parameter rpm (spindle speed in revolutions per minute)" },
		{ "[model m]\ntype = hdd\nrpm = 0\n" RULE,
		  "t.ini:3: [model m]: rpm (spindle speed in revolutions per minute): expected a whole number from 1 to 30000, found \"0\"" },
		{ "[model m]\ntype = hdd\nrpm = 40000\n" RULE, "t.ini:3: [model m]: rpm (spindle" },
		{ "[model m]\ntype = hdd\nrpm = -7200\n" RULE, "t.ini:3: [model m]: rpm (spindle speed in revolutions per minute): expected a whole number, found \"-7200\"" },
		{ "[model m]\ntype = fixed\nread_latency = -1ms\n" RULE,
		  "t.ini:3: [model m]: read_latency (latency of a read): expected a duration such as \"8ms\" or \"150us\" from 0 ns to 1 h, found \"-1ms\"" },
		{ "[model m]\ntype = fixed\nread_latency = 2h\nwrite_latency = 1ms\n" RULE,
		  "t.ini:3: [model m]: read_latency (latency of a read): expected a duration such as \"8ms\" or \"150us\" from 0 ns to 1 h, found \"2h\"" },
		{ "[model m]\ntype = fixed\nread_latency = 8 parsecs\n" RULE, "t.ini:3: [model m]: read_latency (latency of a read): expected a duration" },
		{ FIXED "colour = red\n" RULE,
		  "t.ini:5: [model m]: unknown key \"colour\" for a model of type fixed (expected one of: type, fsync_latency, barriers, read_latency," },
		{ FIXED "[rule r]\nmodel = m\nspeed = fast\n",
		  "t.ini:7: [rule r]: unknown key \"speed\" in a rule (expected one of: class, path, op, model, fault)" },
		{ FIXED "[rule r]\nmodel = m\npath =\n",
		  "t.ini:7: [rule r]: path: expected a glob that can match a file, found \"\": an empty glob matches no path" },
		{ FIXED "[rule r]\nmodel = m\npath = /base/*\n", "t.ini:7: [rule r]: path: expected a glob that can match a file, found \"/base/*\": paths are relative" },
		{ FIXED "[rule r]\nmodel = m\npath = pg_wal/\n", "found \"pg_wal/\": a glob ending in '/'" },
		{ FIXED "[rule r]\nmodel = m\npath = base/../x\n", "found \"base/../x\": paths are normalised" },
		{ FIXED "[rule r]\nmodel = m\nclass = heap, indexes\n",
		  "t.ini:7: [rule r]: class: expected classes from heap, index, toast, fsm, vm, wal, slru, temp, other, found \"indexes\"" },
		{ FIXED "[rule r]\nmodel = m\nop = read, seek\n", "t.ini:7: [rule r]: op: expected operations from read, write," },
		{ FIXED "[rule r]\nmodel = m\nop = ,\n", "t.ini:7: [rule r]: op: expected operations" },
		{ FIXED "[model m]\ntype = fixed\n" RULE, "t.ini:5: model \"m\" is already defined at line 1" },
		{ FIXED "[disk d]\n" RULE, "t.ini:5: expected a section [model NAME], [fault NAME] or [rule NAME], found \"[disk d]\"" },
		{ FIXED "[model]\n" RULE, "t.ini:5: expected a name after \"[model\"" },
		{ FIXED "[model m2\n" RULE, "t.ini:5: expected \"]\" to close the section header" },
		{ "type = fixed\n" FIXED RULE, "t.ini:1: expected a [model NAME], [fault NAME] or [rule NAME] header before the first key, found \"type\"" },
		{ FIXED "garbage\n" RULE, "t.ini:5: expected \"key = value\", a [section] header or a comment" },
		{ FIXED "  read_bw = 1MB/s\n" RULE, "t.ini:5: expected a key, a [section] or a comment at the start of the line, found white space" },
		{ FIXED, "t.ini:4: expected at least one [rule NAME] section, found none" },
		{ FIXED "[rule r]\nclass = wal\n", "t.ini:5: [rule r]: missing key model or fault" },
		{ FIXED "[fault f]\ntype = error\nerrno = EWHAT\n" RULE, "t.ini:7: [fault f]: errno: expected an error name such as EIO, ENOSPC or EDQUOT, found \"EWHAT\"" },
		{ FIXED "[fault f]\ntype = error\n" RULE, "t.ini:5: [fault f]: missing key errno" },
		{ FIXED "[fault f]\ntype = error\nerrno = EIO\nprobability = 0%\n" RULE, "t.ini:8: [fault f]: probability: expected a percentage above 0% to 100%" },
		{ FIXED "[fault f]\ntype = error\nerrno = EIO\nnth = 2\nevery = 3\n" RULE, "t.ini:5: [fault f]: nth and every exclude each other" },
		{ FIXED "[fault f]\ntype = unsynced\nnth = 2\n" RULE, "t.ini:5: [fault f]: an unsynced fault acts at a crash" },
		{ FIXED "[fault f]\ntype = unsynced\nsector = 1000\n" RULE, "t.ini:7: [fault f]: sector: expected a power of two from 512 to 64k, found \"1000\"" },
		{ FIXED "[fault f]\ntype = short\n" RULE, "t.ini:5: [fault f]: missing key keep" },
		{ FIXED "[fault f]\ntype = bitflip\n" RULE, "t.ini:6: [fault f]: type: expected error, short, crash or unsynced, found \"bitflip\"" },
		{ FIXED "[rule r]\nfault = nosuch\n", "t.ini:6: [rule r]: fault: expected the name of a [fault] section (defined: none), found \"nosuch\"" },
		{ "[model m]\ntype = hdd\nrpm = 7200\nrpm = 5400\n" RULE, "t.ini:4: [model m]: rpm is set twice" },
		{ FIXED "[rule r]\nmodel = m\nmodel = m\n", "t.ini:7: [rule r]: model is set twice (first at line 6)" },
		{ "[model m]\ntype = hdd\nrpm = 7200\ntrack_to_track = 9ms\naverage_seek = 8ms\nfull_stroke = 16ms\n"
		  "transfer = 100MB/s\ncapacity = 1T\n" RULE,
		  "t.ini:1: [model m]: seek times must satisfy track_to_track <= average_seek <= full_stroke" },
		{ "[model m]\ntype = ssd\nread_latency = 1ms\nwrite_latency = 1ms\ncapacity = 1G\nfill_penalty = 30%=1.0, 20%=2\n" RULE,
		  "t.ini:6: [model m]: fill_penalty: fill levels must increase, found 20% after 30%" },
		{ "[model m]\ntype = ssd\nread_latency = 1ms\nwrite_latency = 1ms\ncapacity = 1G\nslc_size = 1G\n" RULE,
		  "t.ini:1: [model m]: missing parameter slc_write_bw" },
		{ "[model m]\ntype = bandwidth\nburst = 1M\n" RULE, "t.ini:1: [model m]: missing parameter: a bandwidth model needs rate, read_rate or write_rate" },
		{ "[model m]\nrpm = 7200\n" RULE, "t.ini:1: [model m]: missing key type (fixed, bandwidth, queue, hdd, ssd)" },
		{ "[model m]\ntype = queue\nchannels = 300\nlatency = 1ms\n" RULE, "t.ini:3: [model m]: channels (requests served in parallel): expected a whole number from 1 to 256, found \"300\"" },
		{ FIXED "x = 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789\n" RULE,
		  "t.ini:5: line too long: expected at most 198 characters, found 204" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct shape_rules *rs = NULL;
		struct dut_error err = { "" };
		int r = shape_rules_parse(rows[i].text, strlen(rows[i].text), "t.ini", &rs, &err);

		CU_CHECK(r == -EINVAL && rs == NULL, "row %zu: r=%d", i, r);
		CU_CHECK(strstr(err.msg, rows[i].want) != NULL, "row %zu: message\n  got:  %s\n  want: %s", i,
			 err.msg, rows[i].want);
		if (r == 0)
			shape_rules_free(rs);
	}
}

static void test_nul_byte_is_an_error(void)
{
	static const char text[] = FIXED "[rule r]\nmodel = m\0\n";
	struct shape_rules *rs = NULL;
	struct dut_error err = { "" };
	int r = shape_rules_parse(text, sizeof(text) - 1, "t.ini", &rs, &err);

	CU_CHECK(r == -EINVAL && strstr(err.msg, "t.ini:6: expected text, found a NUL byte"), "%d %s", r, err.msg);
}

static void test_load_missing_file(void)
{
	struct shape_rules *rs = NULL;
	struct dut_error err = { "" };
	int r = shape_rules_load("/nonexistent/shape.ini", &rs, &err);

	CU_CHECK(r == -ENOENT && strstr(err.msg, "/nonexistent/shape.ini: cannot read the shaping rules"),
		 "%d %s", r, err.msg);
}

static void test_examples_parse(void)
{
	static const char *const files[] = {
		"fixed.ini", "bandwidth.ini", "queue.ini", "hdd.ini", "ssd.ini", "fault-error.ini",
		"fault-short.ini", "fault-crash.ini", "fault-unsynced.ini",
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(files); i++) {
		char path[4096];
		struct shape_rules *rs = NULL;
		struct dut_error err = { "" };
		int r;

		snprintf(path, sizeof(path), "%s/tools/shape-examples/%s", cu_source_root(), files[i]);
		r = shape_rules_load(path, &rs, &err);
		CU_CHECK(r == 0, "%s: %s", files[i], err.msg);
		shape_rules_free(rs);
	}
}

static const struct cu_test tests[] = {
	{ "good_file_exact_structures", test_good_file_exact_structures },
	{ "first_matching_rule_wins", test_first_matching_rule_wins },
	{ "classifier_uses_relation_map", test_classifier_uses_relation_map },
	{ "bad_input_messages", test_bad_input_messages },
	{ "nul_byte_is_an_error", test_nul_byte_is_an_error },
	{ "load_missing_file", test_load_missing_file },
	{ "examples_parse", test_examples_parse },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "shape_rules", .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devices.conf parser and matcher (udev/devconf.c): table-driven. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tests/cu_main.h"
#include "udev/devconf.h"

static int parse(const char *text, struct devconf **conf, struct devconf_error *err)
{
	memset(err, 0, sizeof(*err));
	*conf = NULL;
	return devconf_parse(text, strlen(text), conf, err);
}

/* Files that parse: the entries come out in order with the values given. */
static void test_parses_valid_files(void)
{
	static const struct {
		const char *text;
		size_t n;
		const char *name0, *serial0, *wwn0, *loop0;
		unsigned line0;
	} rows[] = {
		{ "", 0, NULL, NULL, NULL, NULL, 0 },
		{ "# only a comment\n\n   \t\n", 0, NULL, NULL, NULL, NULL, 0 },
		{ "name=fast0 serial=S4EWNX0N123456\n", 1, "fast0", "S4EWNX0N123456", NULL, NULL, 1 },
		{ "# devices\n\nname=slow1 wwn=0x5000c500a1b2c3d4", 1, "slow1", NULL, "0x5000c500a1b2c3d4", NULL, 3 },
		{ "  serial=X1\tname=a.b_c-d  # trailing comment\n", 1, "a.b_c-d", "X1", NULL, NULL, 1 },
		{ "name=img0 loop_backing=\"/var/tmp/my image.img\"\r\n", 1, "img0", NULL, NULL, "/var/tmp/my image.img", 1 },
		{ "name=both serial=AB#12 wwn=eui.0025385b71b0a2e4\nname=second serial=Z\n", 2, "both", "AB#12", "eui.0025385b71b0a2e4", NULL, 1 },
		{ "name=p serial=S-part3\n", 1, "p", "S-part3", NULL, NULL, 1 },
		{ "name=fast0-partx serial=S\nname=x-part1y serial=T\n", 2, "fast0-partx", "S", NULL, NULL, 1 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct devconf *conf;
		struct devconf_error err;
		int r = parse(rows[i].text, &conf, &err);

		CU_CHECK(r == 0, "row %zu: parse returned %d (%u: %s)", i, r, err.line, err.msg);
		if (r != 0)
			continue;
		CU_CHECK(conf->n_entries == rows[i].n, "row %zu: %zu entries, want %zu", i,
			 conf->n_entries, rows[i].n);
		if (conf->n_entries > 0 && rows[i].n > 0) {
			const struct devconf_entry *e = &conf->entries[0];
			const char *want[DEVCONF_NKEYS] = {
				[DEVCONF_SERIAL] = rows[i].serial0,
				[DEVCONF_WWN] = rows[i].wwn0,
				[DEVCONF_LOOP_BACKING] = rows[i].loop0,
			};

			CU_CHECK(strcmp(e->name, rows[i].name0) == 0, "row %zu: name \"%s\"", i, e->name);
			CU_CHECK(e->line == rows[i].line0, "row %zu: line %u, want %u", i, e->line, rows[i].line0);
			for (int k = 0; k < DEVCONF_NKEYS; k++) {
				bool ok = want[k] ? e->match[k] && strcmp(e->match[k], want[k]) == 0
						  : e->match[k] == NULL;

				CU_CHECK(ok, "row %zu: %s is \"%s\", want \"%s\"", i, devconf_key_name(k),
					 e->match[k] ? e->match[k] : "(none)", want[k] ? want[k] : "(none)");
			}
		}
		devconf_free(conf);
	}
}

/* Files that must be refused, with the line and what the message says. */
static void test_refuses_bad_lines(void)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *msg;   /* substring of the message */
	} rows[] = {
		{ "name=a serial=1 colour=blue\n", 1, "unknown key \"colour\"" },
		{ "name=a serial=1\nname=a serial=2\n", 2, "name \"a\" is already used on line 1" },
		{ "name=a/b serial=1\n", 1, "contains a slash" },
		{ "name=\"a b\" serial=1\n", 1, "contains a blank" },
		{ "# c\nname=lonely\n", 2, "\"lonely\" has no match key" },
		{ "serial=1\n", 1, "no name=" },
		{ "name=a serial=\n", 1, "empty value for serial" },
		{ "name=a serial=1 serial=2\n", 1, "serial given twice" },
		{ "name=a name=b serial=1\n", 1, "name given twice" },
		{ "name=a serial=1\nname=b serial=1\n", 2, "serial=1 already names \"a\" on line 1" },
		{ "name=a wwn=0xABC\nname=b wwn=0xabc\n", 2, "wwn=0xabc already names \"a\"" },
		{ "name=a loop_backing=img.raw\n", 1, "not an absolute path" },
		{ "name=a serial=1 junk\n", 1, "\"junk\" is not key=value" },
		{ "name=a =1\n", 1, "without a key" },
		{ "name=a loop_backing=\"/x y\n", 1, "no closing" },
		{ "name=a loop_backing=\"/x\"y\n", 1, "right after the closing quote" },
		{ "name=a serial=ab\"c\n", 1, "inside the value" },
		{ "name=a serial=1\x01\n", 1, "control character" },
		{ "name=.hidden serial=1\n", 1, "must not start with" },
		{ "name=a*b serial=1\n", 1, "may contain only" },
		{ "name=fast0-part1 serial=1\n", 1, "reserved for partition links" },
		{ "name=x-party-part22 serial=1\n", 1, "reserved for partition links" },
		{ "name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa serial=1\n", 1, "longer than 64" },
		{ "name=ok serial=1\nname=bad serial=2 wwn=\n", 2, "empty value for wwn" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct devconf *conf;
		struct devconf_error err;
		int r = parse(rows[i].text, &conf, &err);

		CU_CHECK(r == -EINVAL, "row %zu: parse returned %d, want -EINVAL", i, r);
		CU_CHECK(conf == NULL, "row %zu: a refused file still produced a result", i);
		CU_CHECK(err.line == rows[i].line, "row %zu: error on line %u, want %u (%s)", i,
			 err.line, rows[i].line, err.msg);
		CU_CHECK(strstr(err.msg, rows[i].msg) != NULL, "row %zu: message \"%s\" lacks \"%s\"",
			 i, err.msg, rows[i].msg);
		devconf_free(conf);
	}
}

/* A NUL byte, an overlong line and too many devices are refused, not truncated. */
static void test_refuses_oversized_input(void)
{
	static char text[(DEVCONF_ENTRIES_MAX + 2) * 32];
	struct devconf *conf = NULL;
	struct devconf_error err;
	size_t len = 0;
	int r;

	r = devconf_parse("name=a serial=1\0x\n", 18, &conf, &err);
	CU_CHECK(r == -EINVAL && strstr(err.msg, "NUL byte"), "NUL byte: %d %s", r, err.msg);

	memset(text, 'x', DEVCONF_LINE_MAX + 1);
	memcpy(text, "# ", 2);
	r = devconf_parse(text, DEVCONF_LINE_MAX + 1, &conf, &err);
	CU_CHECK(r == -EINVAL && err.line == 1 && strstr(err.msg, "line longer"),
		 "long line: %d %u %s", r, err.line, err.msg);
	r = devconf_parse(text, DEVCONF_LINE_MAX, &conf, &err);
	CU_CHECK(r == 0 && conf && conf->n_entries == 0, "a comment of exactly the limit: %d %s", r, err.msg);
	devconf_free(conf);
	conf = NULL;

	for (int i = 0; i <= DEVCONF_ENTRIES_MAX; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "name=d%d serial=s%d\n", i, i);
	r = devconf_parse(text, len, &conf, &err);
	CU_CHECK(r == -EINVAL && err.line == DEVCONF_ENTRIES_MAX + 1 && strstr(err.msg, "more than"),
		 "too many devices: %d line %u %s", r, err.line, err.msg);
	CU_CHECK(conf == NULL, "too many devices: a result was returned");
}

static const char match_conf[] =
	"name=fast0 serial=S4EWNX0N123456\n"
	"name=slow1 wwn=0x5000C500A1B2C3D4\n"
	"name=nvme1 wwn=eui.0025385b71b0a2e4\n"
	"name=img0 loop_backing=/var/tmp/dut0.img\n"
	"name=strict serial=SER9 wwn=0x5000000000000009\n";

/* Which entry a device's identity selects. */
static void test_matches_device_identity(void)
{
	static const struct {
		const char *what;
		struct devconf_ids ids;
		const char *want;   /* NULL: no match */
	} rows[] = {
		{ "short serial", { .serial_short = "S4EWNX0N123456" }, "fast0" },
		{ "full ID_SERIAL", { .serial = "S4EWNX0N123456" }, "fast0" },
		{ "serial is exact (no prefix match)", { .serial_short = "S4EWNX0N12345" }, NULL },
		{ "serial is case-sensitive", { .serial_short = "s4ewnx0n123456" }, NULL },
		{ "model_serial is not the serial",
		  { .serial = "Samsung_SSD_970_S4EWNX0N123456" }, NULL },
		{ "wwn in another case", { .wwn = "0x5000c500a1b2c3d4" }, "slow1" },
		{ "wwn with extension", { .wwn = "0x1", .wwn_ext = "0x5000c500a1b2c3d4" }, "slow1" },
		{ "nvme wwid as ID_WWN", { .wwn = "eui.0025385b71b0a2e4" }, "nvme1" },
		{ "loop backing file", { .loop_backing = "/var/tmp/dut0.img" }, "img0" },
		{ "other backing file", { .loop_backing = "/var/tmp/dut0.img.bak" }, NULL },
		{ "every key must match: both", { .serial_short = "SER9", .wwn = "0x5000000000000009" }, "strict" },
		{ "every key must match: serial only", { .serial_short = "SER9" }, NULL },
		{ "every key must match: wrong wwn", { .serial_short = "SER9", .wwn = "0x5" }, NULL },
		{ "nothing known", { 0 }, NULL },
		{ "empty strings never match", { .serial = "", .serial_short = "", .wwn = "", .wwn_ext = "", .loop_backing = "" }, NULL },
	};
	struct devconf *conf;
	struct devconf_error err;
	int r = parse(match_conf, &conf, &err);

	CU_CHECK(r == 0, "match_conf does not parse: %u: %s", err.line, err.msg);
	if (r)
		return;
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const struct devconf_entry *e = NULL, *o = NULL;

		r = devconf_match(conf, &rows[i].ids, &e, &o);
		if (rows[i].want)
			CU_CHECK(r == 1 && e && strcmp(e->name, rows[i].want) == 0,
				 "%s: got %d %s, want %s", rows[i].what, r, e ? e->name : "-", rows[i].want);
		else
			CU_CHECK(r == 0, "%s: got %d %s, want no match", rows[i].what, r, e ? e->name : "-");
	}
	devconf_free(conf);
}

/* A device that two lines match gets neither name: the caller learns both lines. */
static void test_two_entries_for_one_device_is_refused(void)
{
	static const char text[] = "name=a serial=S1\n# x\nname=b wwn=0x77\n";
	const struct devconf_ids ids = { .serial_short = "S1", .wwn = "0x77" };
	const struct devconf_entry *e = NULL, *o = NULL;
	struct devconf *conf;
	struct devconf_error err;
	int r = parse(text, &conf, &err);

	CU_CHECK(r == 0, "parse: %s", err.msg);
	if (r)
		return;
	r = devconf_match(conf, &ids, &e, &o);
	CU_CHECK(r == -ENOTUNIQ, "got %d, want -ENOTUNIQ", r);
	CU_CHECK(e && o && e->line == 1 && o->line == 3, "lines %u and %u, want 1 and 3",
		 e ? e->line : 0, o ? o->line : 0);
	devconf_free(conf);
}

static void test_name_check(void)
{
	static const struct {
		const char *name;
		bool ok;
	} rows[] = {
		{ "fast0", true }, { "A.b_c-9", true }, { "x-part", true }, { "x-partition1", true },
		{ "", false }, { "a/b", false }, { "..", false }, { "-x", false }, { "a b", false },
		{ "a\tb", false }, { "é", false }, { "x-part0", false }, { "a:b", false },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const char *why = NULL;
		int r = devconf_name_check(rows[i].name, &why);

		CU_CHECK((r == 0) == rows[i].ok, "\"%s\": %d (%s)", rows[i].name, r, why ? why : "ok");
	}
}

static const struct cu_test tests[] = {
	{ "parses_valid_files", test_parses_valid_files },
	{ "refuses_bad_lines", test_refuses_bad_lines },
	{ "refuses_oversized_input", test_refuses_oversized_input },
	{ "matches_device_identity", test_matches_device_identity },
	{ "two_entries_for_one_device_is_refused", test_two_entries_for_one_device_is_refused },
	{ "name_check", test_name_check },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "udev_devconf", .tests = tests };

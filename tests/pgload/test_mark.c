/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgload/mark.c, the dutfs phase markers both halves of pgload use: an
 * explicit control file, one found walking up, none, one refused (a link);
 * what each leaves in the marker for the program to print (nothing here
 * prints), and markers written through a plain file standing in for dutfs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "pgload/mark.h"
#include "tests/cu_main.h"

static char dir[256];

static int make_dir(void)
{
	return cu_tmpdir_make(dir, sizeof(dir), "mark");
}

static int remove_dir(void)
{
	return cu_tmpdir_remove(dir);
}

static const char *at(const char *name)
{
	static char p[2][512];
	static int i;

	i ^= 1;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "we");

	CU_ASSERT_FATAL(f != NULL);
	fclose(f);
}

/* An explicit file: opened or an error with its reason; markers written (a plain file echoes them). */
static void test_explicit_control_file(void)
{
	struct pgl_marker m = { .fd = -1 };
	struct dut_error err = { "" };
	_cleanup_free_ char *text = NULL;
	char want[600];
	size_t len = 0;

	touch(at("control"));
	CU_ASSERT_FATAL(pgl_marker_open(&m, at("control"), NULL, &err) == 0);
	snprintf(want, sizeof(want), "phase markers go to %s", at("control"));
	CU_CHECK(m.fd >= 0 && strcmp(m.where.msg, want) == 0 && !m.refused.msg[0], "where: %s", m.where.msg);
	CU_CHECK(pgl_mark(&m, "init/load start", &err) == 0, "mark: %s", err.msg);
	pgl_marker_close(&m);
	CU_CHECK(m.fd == -1, "closed");
	CU_CHECK(dut_read_small_file(at("control"), 4096, &text, &len) == 0 && strstr(text, "mark init/load start"),
		 "the marker reached the file: \"%s\"", text ? text : "");

	CU_CHECK(pgl_marker_open(&m, at("absent"), NULL, &err) == -ENOENT && m.fd == -1, "absent");
	snprintf(want, sizeof(want), "cannot open the dutfs control file %s: %s", at("absent"), strerror(ENOENT));
	CU_CHECK(strcmp(err.msg, want) == 0, "error: %s", err.msg);
}

/* No control file above the start, none known, one refused (a link), one found. */
static void test_walk_up(void)
{
	struct pgl_marker m = { .fd = -1 };
	struct dut_error err = { "" };
	char want[600];

	CU_ASSERT_FATAL(mkdir(at("pg"), 0700) == 0 && mkdir(at("pg/data"), 0700) == 0);
	CU_CHECK(pgl_marker_open(&m, NULL, at("pg/data"), &err) == 0 && m.fd == -1, "none above");
	snprintf(want, sizeof(want), "no dutfs control file above %s: phase markers are off", at("pg/data"));
	CU_CHECK(strcmp(m.where.msg, want) == 0, "where: %s", m.where.msg);
	CU_CHECK(pgl_mark(&m, "run start", &err) == 0, "a marker without dutfs is a no-op");

	CU_CHECK(pgl_marker_open(&m, NULL, NULL, &err) == 0 && m.fd == -1 &&
		 strcmp(m.where.msg, "no dutfs control file above (unknown data directory): phase markers are off") == 0,
		 "no start: %s", m.where.msg);

	/* a link planted in PGDATA is refused, said once, and the walk goes on */
	CU_ASSERT_FATAL(mkdir(at("pg/data/.dutfs"), 0700) == 0);
	touch(at("elsewhere"));
	CU_ASSERT_FATAL(symlink(at("elsewhere"), at("pg/data/.dutfs/control")) == 0);
	CU_CHECK(pgl_marker_open(&m, NULL, at("pg/data"), &err) == 0 && m.fd == -1, "a link is not a control file");
	snprintf(want, sizeof(want), "ignoring %s: ", at("pg/data/.dutfs/control"));
	CU_CHECK(strncmp(m.refused.msg, want, strlen(want)) == 0, "refused: %s", m.refused.msg);

	/* a regular file of ours above it is found */
	CU_ASSERT_FATAL(mkdir(at("pg/.dutfs"), 0700) == 0);
	touch(at("pg/.dutfs/control"));
	CU_CHECK(pgl_marker_open(&m, NULL, at("pg/data"), &err) == 0 && m.fd >= 0 &&
		 strcmp(m.path, at("pg/.dutfs/control")) == 0, "found: %s", m.path);
	snprintf(want, sizeof(want), "phase markers go to %s", at("pg/.dutfs/control"));
	CU_CHECK(strcmp(m.where.msg, want) == 0 && m.refused.msg[0], "where: %s (the link still said)", m.where.msg);
	pgl_marker_close(&m);
}

static const struct cu_test tests[] = {
	{ "explicit_control_file", test_explicit_control_file },
	{ "walk_up", test_walk_up },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "mark", .init = make_dir, .cleanup = remove_dir, .tests = tests };

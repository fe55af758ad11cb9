/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared memory a killed server leaves (tools/crash/crash_shm.c): its
 * System V segment and its /dev/shm/PostgreSQL.N segments found in
 * /proc/PID/maps text, each once, and nothing else; and the segments a
 * dynamic shared memory control segment lists (pinned ones nobody maps).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/cu_main.h"
#include "tools/crash/crash_shm.h"

/* a postmaster's maps, as Linux 6.1 prints them (PostgreSQL 15, shared_memory_type mmap + one SysV) */
static const char maps[] =
	"55d0c2a00000-55d0c2b2c000 r--p 00000000 fe:01 1180002                    /usr/lib/postgresql/15/bin/postgres\n"
	"7fc3c4a69000-7fc3c4a70000 rw-s 00000000 00:1b 735898                     /dev/shm/PostgreSQL.2706002162\n"
	"7fc3c4b00000-7fc3c4c00000 rw-s 00000000 00:1b 735899                     /dev/shm/PostgreSQL.17 (deleted)\n"
	"7fc3c5000000-7fc3c6000000 rw-s 00000000 00:01 1024                       /dev/zero (deleted)\n"
	"7fc3c6254000-7fc3c6255000 rw-s 00000000 00:01 7111311                    /SYSV0000000e (deleted)\n"
	"7fc3c6256000-7fc3c6257000 rw-s 00000000 00:01 7111311                    /SYSV0000000e (deleted)\n"
	"7fc3c6300000-7fc3c6301000 rw-s 00000000 00:1b 735900                     /dev/shm/PostgreSQL.2706002162\n"
	"7fc3c6400000-7fc3c6401000 rw-s 00000000 00:1b 735901                     /dev/shm/PostgreSQL.x1\n"
	"7fc3c6500000-7fc3c6501000 rw-s 00000000 00:1b 735902                     /dev/shm/other.3\n"
	"7fc3c6600000-7fc3c6601000 rw-p 00000000 00:00 0                          [heap]\n"
	"7fc3c6700000-7fc3c6701000 rw-p 00000000 00:00 0 \n"
	"7fc3c6800000-7fc3c6801000 rw-s 00000000 00:01 42                         /SYSV0052e2c1";

static void test_finds_each_segment_once(void)
{
	struct crash_shm s = { .ndsm = 0 };

	CU_CHECK(crash_shm_from_maps(maps, &s) == 4, "two POSIX and two SysV segments");
	CU_CHECK(s.ndsm == 2 && !strcmp(s.dsm[0], "PostgreSQL.2706002162") && !strcmp(s.dsm[1], "PostgreSQL.17"),
		 "the /dev/shm names, each once, (deleted) or not");
	CU_CHECK(s.nsysv == 2 && s.sysv[0] == 7111311 && s.sysv[1] == 42, "the shmids are the inodes, each once");
	/* a second process of the same server maps the same segments: nothing new */
	CU_CHECK(crash_shm_from_maps(maps, &s) == 0 && s.ndsm == 2 && s.nsysv == 2, "union over processes");
}

static void test_ignores_what_is_not_postgres_shm(void)
{
	struct crash_shm s = { .ndsm = 0 };

	CU_CHECK(crash_shm_from_maps("", &s) == 0, "empty");
	CU_CHECK(crash_shm_from_maps("7f-80 rw-s 00000000 00:1b 9 /dev/shm/PostgreSQL.\n"
				     "7f-80 rw-s 00000000 00:1b 9 /tmp/dev/shm/PostgreSQL.5\n"
				     "7f-80 rw-s 00000000 00:01 9 /SYSV123\n"
				     "7f-80 rw-s 00000000\n", &s) == 0 && !s.ndsm && !s.nsysv,
		 "no digits, another directory, a short SysV name, a cut line");
}

static void test_stops_at_its_capacity(void)
{
	struct crash_shm s = { .ndsm = 0 };
	char line[128];

	for (unsigned i = 0; i < CRASH_SHM_MAX + 5; i++) {
		snprintf(line, sizeof(line), "7f-80 rw-s 00000000 00:1b 9 /dev/shm/PostgreSQL.%u\n", i);
		crash_shm_from_maps(line, &s);
	}
	CU_CHECK(s.ndsm == CRASH_SHM_MAX && !strcmp(s.dsm[CRASH_SHM_MAX - 1], "PostgreSQL.63"), "at most CRASH_SHM_MAX");
}

/* a PostgreSQL 15 control segment: 16-byte header, maxitems 40-byte items */
static size_t control(unsigned char *b, uint32_t magic, uint32_t nitems, uint32_t maxitems)
{
	memset(b, 0, 16 + (size_t)maxitems * 40);
	memcpy(b, &magic, 4);
	memcpy(b + 4, &nitems, 4);
	memcpy(b + 8, &maxitems, 4);
	return 16 + (size_t)maxitems * 40;
}

static void item(unsigned char *b, unsigned i, uint32_t handle, uint32_t refcnt, uint64_t npages)
{
	unsigned char *it = b + 16 + (size_t)i * 40;

	memcpy(it, &handle, 4);
	memcpy(it + 4, &refcnt, 4);
	memcpy(it + 16, &npages, 8);
}

static void test_reads_the_control_segment(void)
{
	static unsigned char b[16 + 674 * 40];
	struct crash_shm s = { .ndsm = 0 };
	size_t len = control(b, 0x9a503d32u, 4, 674);

	CU_CHECK(len == 26976, "the size PostgreSQL 15 gives it with 122 backends");
	item(b, 0, 857369862u, 2, 0);    /* an area the backends map */
	item(b, 1, 0, 0, 0);             /* a free slot */
	item(b, 2, 4000000000u, 1, 0);   /* pinned, mapped by nobody: still a file */
	item(b, 3, 77, 2, 16);           /* in the main shared memory: no file */
	item(b, 4, 88, 2, 0);            /* past nitems */
	CU_CHECK(crash_shm_from_control(b, len, &s) == 2, "two segments in files");
	CU_CHECK(s.ndsm == 2 && !strcmp(s.dsm[0], "PostgreSQL.857369862") && !strcmp(s.dsm[1], "PostgreSQL.4000000000"),
		 "their /dev/shm names, the handle unsigned");
	CU_CHECK(crash_shm_from_control(b, len, &s) == 0 && s.ndsm == 2, "each once");
	CU_CHECK(crash_shm_from_control(b, len - 40, &s) == 0, "a size that does not match maxitems: another layout");
	control(b, 0x9a503d33u, 4, 674);
	CU_CHECK(crash_shm_from_control(b, len, &s) == 0, "another magic: a data segment");
	control(b, 0x9a503d32u, 675, 674);
	CU_CHECK(crash_shm_from_control(b, len, &s) == 0, "more items than slots");
	CU_CHECK(crash_shm_from_control(b, 8, &s) == 0, "shorter than the header");
}

static const struct cu_test tests[] = {
	{ "reads_the_control_segment", test_reads_the_control_segment },
	{ "finds_each_segment_once", test_finds_each_segment_once },
	{ "ignores_what_is_not_postgres_shm", test_ignores_what_is_not_postgres_shm },
	{ "stops_at_its_capacity", test_stops_at_its_capacity },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash_shm", .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memcg: the pure half on mountinfo and /proc/self/cgroup texts of a cgroup
 * v1 host (these build machines) and a cgroup v2 systemd host; then, as
 * root where a memory controller exists, a real budget: a child that reads
 * a file three times the budget leaves at most the budget of it in the page
 * cache, and the cgroup is removed afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/memcg.h"
#include "tests/cu_main.h"

static const char v1_mountinfo[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char v1_cgroup[] =
	"9:name=systemd:/\n8:pids:/\n4:memory:/process_api/731b7e02\n0::/\n";

static const char v2_mountinfo[] =
	"22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
	"26 22 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
	"rw,nsdelegate,memory_recursiveprot\n";
static const char v2_cgroup[] = "0::/user.slice/user-1000.slice/session-3.scope\n";

/* a v1 mount whose root is not the hierarchy's root (a container), with an escaped space */
static const char v1_nested_mountinfo[] =
	"35 31 0:32 /lxc/c1 /sys/fs/cgroup/mem\\040ory rw - cgroup cgroup rw,cpu,memory\n";

static void test_finds_the_v1_memory_mount_and_the_v2_mount(void)
{
	struct dut_memcg_mounts m;

	CU_ASSERT_FATAL(dut_memcg_parse_mounts(v1_mountinfo, &m) == 0);
	CU_CHECK(!strcmp(m.v1_mountpoint, "/sys/fs/cgroup/memory"), "v1: %s", m.v1_mountpoint);
	CU_CHECK(!strcmp(m.v2_mountpoint, "/sys/fs/cgroup/unified"), "v2: %s", m.v2_mountpoint);
	CU_ASSERT_FATAL(dut_memcg_parse_mounts(v2_mountinfo, &m) == 0);
	CU_CHECK(m.v1_mountpoint[0] == '\0', "no v1 memory mount on a v2 host");
	CU_CHECK(!strcmp(m.v2_mountpoint, "/sys/fs/cgroup"), "v2: %s", m.v2_mountpoint);
	CU_ASSERT_FATAL(dut_memcg_parse_mounts(v1_nested_mountinfo, &m) == 0);
	CU_CHECK(!strcmp(m.v1_mountpoint, "/sys/fs/cgroup/mem ory") && !strcmp(m.v1_root, "/lxc/c1"),
		 "escapes undone, root kept: %s %s", m.v1_mountpoint, m.v1_root);
	CU_CHECK(dut_memcg_parse_mounts("1 2 3\n", &m) == -EINVAL, "a short line is refused");
}

static void test_self_path_per_hierarchy(void)
{
	char p[256];

	CU_CHECK(dut_memcg_self_path(v1_cgroup, DUT_MEMCG_V1, p, sizeof(p)) == 0 &&
		 !strcmp(p, "/process_api/731b7e02"), "v1: %s", p);
	CU_CHECK(dut_memcg_self_path(v1_cgroup, DUT_MEMCG_V2, p, sizeof(p)) == 0 && !strcmp(p, "/"),
		 "v2 line of a v1 host: %s", p);
	CU_CHECK(dut_memcg_self_path(v2_cgroup, DUT_MEMCG_V2, p, sizeof(p)) == 0 &&
		 !strcmp(p, "/user.slice/user-1000.slice/session-3.scope"), "v2: %s", p);
	CU_CHECK(dut_memcg_self_path(v2_cgroup, DUT_MEMCG_V1, p, sizeof(p)) == -ENOENT,
		 "no v1 memory line on a v2 host");
}

static void test_child_dirs(void)
{
	static const struct {
		enum dut_memcg_kind kind;
		const char *mountinfo, *self, *name, *want;
		int ret;
	} rows[] = {
		{ DUT_MEMCG_V1, v1_mountinfo, "/process_api/731b7e02", "pg-1",
		  "/sys/fs/cgroup/memory/process_api/731b7e02/pg-1", 0 },
		{ DUT_MEMCG_V1, v1_mountinfo, "/", "pg-1", "/sys/fs/cgroup/memory/pg-1", 0 },
		{ DUT_MEMCG_V1, v1_nested_mountinfo, "/lxc/c1/a", "x", "/sys/fs/cgroup/mem ory/a/x", 0 },
		{ DUT_MEMCG_V1, v1_nested_mountinfo, "/lxc/c10", "x", "", -EINVAL },
		{ DUT_MEMCG_V2, v2_mountinfo, "/user.slice", "pg-1", "/sys/fs/cgroup/dutlab/pg-1", 0 },
		{ DUT_MEMCG_V2, v2_mountinfo, "/", "../etc", "", -EINVAL },
		{ DUT_MEMCG_V2, v2_mountinfo, "/", "a/b", "", -EINVAL },
		{ DUT_MEMCG_V2, v2_mountinfo, "/", "", "", -EINVAL },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_memcg_mounts m;
		char out[512] = "";
		int r;

		CU_ASSERT_FATAL(dut_memcg_parse_mounts(rows[i].mountinfo, &m) == 0);
		r = dut_memcg_child_dir(rows[i].kind, &m, rows[i].self, rows[i].name, out, sizeof(out));
		CU_CHECK(r == rows[i].ret && (r < 0 || !strcmp(out, rows[i].want)),
			 "row %zu: %d %s (want %d %s)", i, r, out, rows[i].ret, rows[i].want);
	}
	CU_CHECK(!strcmp(dut_memcg_limit_file(DUT_MEMCG_V2), "memory.max") &&
		 !strcmp(dut_memcg_limit_file(DUT_MEMCG_V1), "memory.limit_in_bytes"), "limit files");
}

static void test_dir_is_ours(void)
{
	static const struct {
		const char *mountinfo, *dir;
		bool ok;
	} rows[] = {
		{ v1_mountinfo, "/sys/fs/cgroup/memory/process_api/731b7e02/pgload-1", true },
		{ v1_mountinfo, "/sys/fs/cgroup/memory/pgload-1", true },
		{ v1_mountinfo, "/sys/fs/cgroup/memory", false },                /* the mount's root */
		{ v1_mountinfo, "/sys/fs/cgroup/memory/process_api", false },    /* not named pgload- */
		{ v1_mountinfo, "/sys/fs/cgroup/memory/../cpu/pgload-1", false },
		{ v1_mountinfo, "/sys/fs/cgroup/memory//pgload-1", false },
		{ v1_mountinfo, "/sys/fs/cgroup/memoryx/pgload-1", false },
		{ v1_mountinfo, "/sys/fs/cgroup/cpu/pgload-1", false },          /* not the memory hierarchy */
		{ v1_mountinfo, "/sys/fs/cgroup/unified/dutlab/pgload-1", true }, /* v2 below dutlab/ */
		{ v2_mountinfo, "/sys/fs/cgroup/dutlab/pgload-1", true },
		{ v2_mountinfo, "/sys/fs/cgroup/pgload-1", false },
		{ v2_mountinfo, "/sys/fs/cgroup/dutlab/x/pgload-1", false },
		{ v2_mountinfo, "/sys/fs/cgroup/dutlab/pgload-a b", false },
		{ v2_mountinfo, "/tmp/pgload-1", false },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_memcg_mounts m;

		CU_ASSERT_FATAL(dut_memcg_parse_mounts(rows[i].mountinfo, &m) == 0);
		CU_CHECK(dut_memcg_dir_is_ours(&m, rows[i].dir, "pgload-") == rows[i].ok, "row %zu: %s", i,
			 rows[i].dir);
	}
}

/* Pages of fd resident in the page cache (mincore). */
static size_t resident_bytes(int fd, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (len + (size_t)page - 1) / (size_t)page, n = 0;
	_cleanup_free_ unsigned char *vec = malloc(pages);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (!vec || map == MAP_FAILED)
		return (size_t)-1;
	if (mincore(map, len, vec) == 0)
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
	munmap(map, len);
	return n * (size_t)page;
}

static void test_a_budget_bounds_the_page_cache_of_its_members(void)
{
	const size_t limit = 48u << 20, size = 3 * limit;
	struct dut_memcg cg;
	struct dut_error err = { "" };
	char file[] = "/var/tmp/dut-memcg-XXXXXX";
	_cleanup_close_ int fd = -1;
	uint64_t cur, peak;
	int r, status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("\n  (skipped: a real budget needs root)\n");
		return;
	}
	r = dut_memcg_create("dutlab-test-memcg", limit, &cg, &err);
	if (r == -ENOTSUP) {
		printf("\n  (skipped: %s)\n", err.msg);
		return;
	}
	CU_CHECK(r == 0, "create: %s", err.msg);
	if (r < 0)
		return;
	fd = mkstemp(file);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(file);
	{
		_cleanup_free_ char *buf = calloc(1, 1 << 20);

		CU_ASSERT_FATAL(buf != NULL);
		for (size_t off = 0; off < size; off += 1 << 20)
			CU_ASSERT_FATAL(pwrite(fd, buf, 1 << 20, (off_t)off) == 1 << 20);
	}
	CU_ASSERT(fdatasync(fd) == 0);
	CU_ASSERT(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char buf[1 << 16];

		if (dut_memcg_enter(&cg, 0) < 0)
			_exit(2);
		for (off_t off = 0; pread(fd, buf, sizeof(buf), off) > 0; off += (off_t)sizeof(buf))
			;
		_exit(0);
	}
	CU_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_CHECK(dut_memcg_usage(&cg, &cur, &peak) == 0 && cur <= limit && peak <= limit,
		 "usage %llu peak %llu within %zu", (unsigned long long)cur, (unsigned long long)peak,
		 limit);
	size_t res = resident_bytes(fd, size);

	CU_CHECK(res <= limit + (1u << 20), "resident %zu bytes of %zu read, budget %zu", res, size, limit);
	CU_CHECK(res > 0, "the reads did reach the page cache (%zu)", res);
	CU_CHECK(dut_memcg_remove(&cg) == 0 && access(cg.dir, F_OK) < 0, "the cgroup is removed");
}

static const struct cu_test tests[] = {
	{ "finds_the_v1_memory_mount_and_the_v2_mount", test_finds_the_v1_memory_mount_and_the_v2_mount },
	{ "self_path_per_hierarchy", test_self_path_per_hierarchy },
	{ "child_dirs", test_child_dirs },
	{ "dir_is_ours", test_dir_is_ours },
	{ "a_budget_bounds_the_page_cache_of_its_members",
	  test_a_budget_bounds_the_page_cache_of_its_members },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "memcg", .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab pg build|list; see pg_cmd.h. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/pgbin.h"
#include "lib/units.h"
#include "tools/dutlab/pg_cmd.h"

#define EXIT_USAGE 2
#define SCRIPT "dutlab-pg-build"

const char dutlab_pg_usage[] =
	"usage: dutlab pg build [--major N] [--block-size SIZE] [--wal-block-size SIZE] [--jobs N]\n"
	"                       [--suites \"S1 S2 ..\"] [--rebuild]\n"
	"       dutlab pg list [--json]\n"
	"  PostgreSQL built from Debian's source package, for experiments that vary the block size\n"
	"  ([postgres] block_size, wal_block_size) or need a major Debian 12 lacks.\n"
	"  build  fetches postgresql-N's source with a private deb-src list (the system's apt\n"
	"         configuration is not touched) from the first suite that has it (default\n"
	"         \"bookworm trixie forky sid\"), installs missing build dependencies (Debian\n"
	"         packages), builds the server and client programs without documentation and\n"
	"         installs them into the cache, e.g. " DUT_PG_CACHE "/15-bs16k; a build that is\n"
	"         there is reused.  Needs root.  Prints the bindir.\n"
	"  --major N            the major (default 15)\n"
	"  --block-size SIZE    BLCKSZ: 1, 2, 4, 8, 16 or 32 kB, written 16kB (default 8kB)\n"
	"  --wal-block-size SIZE XLOG_BLCKSZ: 1 to 64 kB (default 8kB)\n"
	"  --jobs N             make -j (default: the CPUs)\n"
	"  --rebuild            replace a cached build whose recorded configure options differ\n"
	"  list   the cached builds: key, source version and suite, block sizes, build time, size\n"
	"  The cache is $DUT_PG_CACHE when set (absolute), else " DUT_PG_CACHE ".\n"
	"  Exit status of build: 0 built or reused, 1 failed, 2 usage or a block size PostgreSQL\n"
	"  does not accept, 3 no suite has the major, 4 a cached build with other options.\n";

static bool is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int pg_script_resolve(const char *exe, const char *env, pg_is_exec_fn exec_ok, char *buf, size_t len)
{
	char dir[PATH_MAX];
	const char *slash;
	int w;

	if (env && env[0] == '/') {
		w = snprintf(buf, len, "%s", env);
		return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
	}
	slash = exe && exe[0] == '/' ? strrchr(exe, '/') : NULL;
	if (slash && (size_t)(slash - exe) < sizeof(dir)) {
		memcpy(dir, exe, (size_t)(slash - exe));
		dir[slash - exe] = '\0';
		w = snprintf(buf, len, "%s/pg/" SCRIPT, dir);
		if (w > 0 && (size_t)w < len && exec_ok(buf))
			return 0;
		w = snprintf(buf, len, "%s/../libexec/dutlab/" SCRIPT, dir);
		if (w > 0 && (size_t)w < len && exec_ok(buf))
			return 0;
		snprintf(buf, len, "%s/pg/" SCRIPT " or %s/../libexec/dutlab/" SCRIPT, dir, dir);
		return -ENOENT;
	}
	snprintf(buf, len, "(the program's own path is unknown)");
	return -ENOENT;
}

static int run_build(int argc, char **argv)
{
	char exe[PATH_MAX], script[2 * PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char **args = calloc((size_t)argc + 2, sizeof(*args));

	exe[n > 0 ? n : 0] = '\0';
	if (!args) {
		dut_err("out of memory");
		return 1;
	}
	if (pg_script_resolve(exe, getenv("DUT_PG_BUILD_SCRIPT"), is_exec, script, sizeof(script)) < 0) {
		dut_err("the build script " SCRIPT " is not in %s: reinstall dutlab (or build it with ninja)", script);
		free(args);
		return 1;
	}
	args[0] = script;
	args[1] = "build";
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execv(script, args);
	dut_err("cannot run %s: %s", script, strerror(errno));
	free(args);
	return 1;
}

static uint64_t du_bytes;
static int du_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)flag, (void)f;
	du_bytes += (uint64_t)st->st_blocks * 512u;
	return 0;
}

struct listed {
	char key[256];
	struct dut_pg_build b;
	uint64_t bytes;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->key, ((const struct listed *)b)->key);
}

static int run_list(int argc, char **argv)
{
	const char *cache = dut_pg_cache_root();
	bool json = argc == 2 && strcmp(argv[1], "--json") == 0;
	struct listed *l = NULL;
	size_t n = 0;
	uint64_t total = 0;
	DIR *d;
	struct dirent *de;

	if (argc > 1 && !json) {
		dut_err("pg list: unknown argument \"%s\" (expected --json)", argv[1]);
		return EXIT_USAGE;
	}
	d = opendir(cache);
	while (d && (de = readdir(d))) {
		char dir[PATH_MAX];
		struct dut_pg_build b;
		struct dut_error err;
		struct listed *nl;
		int r;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(l->key) ||
		    snprintf(dir, sizeof(dir), "%s/%s", cache, de->d_name) >= (int)sizeof(dir))
			continue;
		r = dut_pg_build_read(dir, &b, &err);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			dut_warn("%s", err.msg);
			continue;
		}
		if (!(nl = realloc(l, (n + 1) * sizeof(*l)))) {
			dut_err("out of memory");
			free(l);
			closedir(d);
			return 1;
		}
		l = nl;
		snprintf(l[n].key, sizeof(l[n].key), "%s", de->d_name);
		l[n].b = b;
		du_bytes = 0;
		(void)nftw(dir, du_one, 16, FTW_PHYS);
		l[n].bytes = du_bytes;
		total += du_bytes;
		n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(l, n, sizeof(*l), by_key);
	if (json) {
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < n; i++) {
			json_object *o = json_object_new_object();
			char bindir[PATH_MAX + 300];

			snprintf(bindir, sizeof(bindir), "%s/%s/bin", cache, l[i].key);
			json_object_object_add(o, "key", json_object_new_string(l[i].key));
			json_object_object_add(o, "major", json_object_new_int((int)l[i].b.major));
			json_object_object_add(o, "version", json_object_new_string(l[i].b.version));
			json_object_object_add(o, "suite", json_object_new_string(l[i].b.suite));
			json_object_object_add(o, "block_size_kb", json_object_new_int((int)l[i].b.block_kb));
			json_object_object_add(o, "wal_block_size_kb", json_object_new_int((int)l[i].b.wal_block_kb));
			json_object_object_add(o, "build_seconds", json_object_new_int((int)l[i].b.build_seconds));
			json_object_object_add(o, "bytes", json_object_new_int64((int64_t)l[i].bytes));
			json_object_object_add(o, "configure", json_object_new_string(l[i].b.configure));
			json_object_object_add(o, "bindir", json_object_new_string(bindir));
			json_object_array_add(a, o);
		}
		printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(a);
	} else if (!n) {
		printf("no PostgreSQL builds in %s (dutlab pg build makes one)\n", cache);
	} else {
		char sz[DUT_FMT_LEN];

		printf("%-18s %-20s %-9s %6s %6s %8s %10s  %s\n", "KEY", "VERSION", "SUITE", "BLOCK", "WAL",
		       "BUILD", "SIZE", "BINDIR");
		for (size_t i = 0; i < n; i++)
			printf("%-18s %-20s %-9s %4ukB %4ukB %7us %10s  %s/%s/bin\n", l[i].key, l[i].b.version,
			       l[i].b.suite, l[i].b.block_kb, l[i].b.wal_block_kb, l[i].b.build_seconds,
			       dut_format_size(l[i].bytes, sz, sizeof(sz)), cache, l[i].key);
		printf("%zu build%s, %s in %s\n", n, n == 1 ? "" : "s", dut_format_size(total, sz, sizeof(sz)), cache);
	}
	free(l);
	return 0;
}

int dutlab_cmd_pg(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(dutlab_pg_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	/* dutlab pg build --help: the usage, not the script's "unknown option '--help'" */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(dutlab_pg_usage, stdout);
			return 0;
		}
	}
	if (strcmp(argv[1], "build") == 0)
		return run_build(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return run_list(argc - 1, argv + 1);
	dut_err("pg: unknown subcommand \"%s\" (expected build or list; dutlab pg --help)", argv[1]);
	return EXIT_USAGE;
}

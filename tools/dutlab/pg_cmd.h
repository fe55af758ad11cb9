/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab pg build|list: PostgreSQL built from Debian's source package with
 * other block sizes (and majors Debian 12 lacks), cached by major and block
 * sizes in dut_pg_cache_root() (lib/pgbin.h).  build runs the script
 * tools/pg/dutlab-pg-build (installed as libexec/dutlab/dutlab-pg-build);
 * list reads the cache's records.
 */
#ifndef DUT_TOOLS_PG_CMD_H
#define DUT_TOOLS_PG_CMD_H

#include <stdbool.h>
#include <stddef.h>

extern const char dutlab_pg_usage[];
int dutlab_cmd_pg(int argc, char **argv);

typedef bool (*pg_is_exec_fn)(const char *path);
/* Where the build script is (pure): $DUT_PG_BUILD_SCRIPT (env, when
 * absolute), else beside exe in pg/ (the build tree: build/tools/pg/), else
 * exe's ../libexec/dutlab/ (installed).  0, or -ENOENT (buf then says the
 * places tried). */
int pg_script_resolve(const char *exe, const char *env, pg_is_exec_fn is_exec, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure checks and texts for pgload clusters (cluster_check.c, unit-tested):
 * what a state file may say (root acts on it), what --set may pass into
 * postgresql.conf, and the pg_hba.conf / pg_ident.conf pgload writes.
 */
#ifndef PGL_CLUSTER_CHECK_H
#define PGL_CLUSTER_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "pgload/cluster.h"

/* The ident map of pg_ident.conf that pg_hba.conf names. */
#define PGL_IDENT_MAP "pgload"

/* Absolute, no empty, "." or ".." components, no trailing '/', no control characters. */
bool pgl_path_is_normal(const char *path);
/*
 * Make in (absolute, or relative to cwd) absolute and normal: "//" and "."
 * dropped, ".." taken lexically (pgload opens these paths without following
 * links, so the lexical parent is the real one).  -ENAMETOOLONG, -EINVAL.
 */
int pgl_path_normalize(const char *cwd, const char *in, char *out, size_t len);
/* Exactly "/tmp/pgload-" and the 6 letters or digits mkdtemp puts there. */
bool pgl_socket_dir_is_valid(const char *path);
/* A passfile pgload makes: secrets_dir + "/" + 16 hex digits + ".pgpass". */
bool pgl_passfile_is_valid(const char *path, const char *secrets_dir);
/* [a-z0-9_], 1..63 characters: slots, application names. */
bool pgl_simple_name_is_valid(const char *name);

/*
 * Everything a loaded state file says that root acts on (pgdata is the
 * caller's; secrets_dir as for pgl_passfile_is_valid).  -EINVAL with the
 * field and the rule in why.
 */
int pgl_state_check(const struct pgl_cluster *c, const char *secrets_dir, char *why, size_t len);

/*
 * The memory cgroup a state file names: "" (no budget), or a directory
 * dut_memcg_dir_is_ours accepts under the mounts m, named "pgload-" and 16
 * lower-case hex digits, with a budget of at least DUT_MEMCG_MIN_BYTES.
 */
struct dut_memcg_mounts;
int pgl_state_check_memcg(const struct pgl_cluster *c, const struct dut_memcg_mounts *m, char *why,
			  size_t len);

/*
 * Memory budgets.  What the server needs besides shared_buffers (backends'
 * private memory, the catalog caches, and room for the page cache) is at
 * least PGL_MEMORY_MARGIN_BYTES; a smaller budget is refused.  32 MiB keeps
 * a 64 MiB budget (shared_buffers 16 MB) possible.
 */
#define PGL_MEMORY_MARGIN_BYTES (32ull << 20)
/* shared_buffers when a budget is given and none is set: min(128 MiB, budget/4), whole MiB. */
uint64_t pgl_memory_default_shared_buffers(uint64_t budget_bytes);
/* 0, or -EINVAL with why: budget < shared_buffers + margin (or below DUT_MEMCG_MIN_BYTES). */
int pgl_memory_check(uint64_t budget_bytes, uint64_t shared_buffers_bytes, char *why, size_t len);
/* A PostgreSQL memory value (shared_buffers): dut_pg_memory_parse() in lib/units.h. */

/*
 * --set NAME=VALUE: NAME a GUC identifier [A-Za-z_][A-Za-z0-9_.]*, VALUE
 * without control characters (a newline would start a new setting).
 * -EINVAL with the reason in why.
 */
int pgl_set_check(const char *spec, char *why, size_t len);

/*
 * postgresql.conf lines "name = 'value'" for sets checked by pgl_set_check
 * (quotes and backslashes doubled), after header; malloc'd, NULL on ENOMEM.
 */
char *pgl_settings_text(const char *const sets[], unsigned nsets, const char *header);

/* pg_hba.conf: local (and replication) peer with map pgload; the TCP line with tcp. */
int pgl_hba_text(bool tcp, char *buf, size_t len);
/* pg_ident.conf: os_users (NULL-terminated) may be role postgres. */
int pgl_ident_text(const char *const os_users[], char *buf, size_t len);

#endif

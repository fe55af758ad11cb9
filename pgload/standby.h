/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hot standbys of pgload clusters (`pgload cluster standby`, docs/pgload-standby.md).
 *
 * A standby is a pgload cluster (same state file, own private socket
 * directory and port) whose state file also names its primary, its
 * application_name, its replication slot and whether it made itself the
 * synchronous standby.  standby.c does the work (pg_basebackup, start,
 * waiting for pg_stat_replication); standby_conf.c is the pure part
 * (names, postgresql.auto.conf editing), unit-tested.
 */
#ifndef PGL_STANDBY_H
#define PGL_STANDBY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "pgload/cluster.h"

#define PGL_STANDBY_WAIT_S 60       /* bound on "streaming" and on "sync" */

/*
 * Set by the program's SIGINT/SIGTERM handler: waits end early (-EINTR).
 * pg_basebackup, in the same process group, gets the signal itself; pgload
 * stays to drop the slot it made and empty the directory.
 */
extern volatile sig_atomic_t pgl_standby_interrupted;

struct pgl_standby_opts {
	const char *pgdata, *primary_pgdata;
	const char *bindir;             /* NULL: the primary's */
	bool sync;
	unsigned nsets;
	const char *sets[PGL_MAX_SETS]; /* "name=value" for the standby's postgresql.conf */
};

/*
 * Base backup of the running primary, start as a hot standby, wait until the
 * primary's pg_stat_replication shows it streaming (and sync with o->sync).
 * -ENOENT/-EINVAL for a primary that is not a running pgload cluster.
 */
int pgl_standby_create(const struct pgl_standby_opts *o, struct pgl_cluster *ret,
		       struct dut_error *err);
/*
 * Undo on the primary what the standby did: clear synchronous_standby_names
 * if it set it (and it still names it), drop its slot.  The standby must be
 * stopped.  A primary that is gone is fine (0); a stopped one is edited in
 * its files (postgresql.auto.conf, pg_replslot/).
 */
int pgl_standby_release(const struct pgl_cluster *sb, struct dut_error *err);
/* "streaming, sync_state async, replay 0 bytes behind" as the primary sees it. */
int pgl_standby_describe(const struct pgl_cluster *sb, char *buf, size_t len,
			 struct dut_error *err);

/* --- pure (standby_conf.c) --- */

/*
 * application_name of a standby from its data directory: the last path
 * component in lower case, other characters than [a-z0-9_] as '_', at most
 * 40 characters, "standby" when nothing is left; a leading digit gets "s".
 */
void pgl_standby_name_from_dir(const char *pgdata, char *buf, size_t len);
/* The synchronous_standby_names value that names exactly this standby: "\"name\"". */
void pgl_standby_ssn_value(const char *app_name, char *buf, size_t len);
/*
 * Remove from postgresql.auto.conf text (in place) every
 * synchronous_standby_names line whose value is `value`; returns how many.
 */
unsigned pgl_conf_drop_setting(char *text, const char *name, const char *value);

#endif

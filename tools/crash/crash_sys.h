/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab crash: the syscalls of a campaign (children, the server's processes, files). 0 or -errno. */
#ifndef DUTLAB_CRASH_SYS_H
#define DUTLAB_CRASH_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

/* Start argv[0] in its own process group, output appended to log (or /dev/null). */
int crash_spawn(char *const argv[], const char *log, pid_t *ret_pid);
/* 1 and *ret_status (exit code or 128 + signal) when pid ended, 0 while it runs. */
int crash_poll(pid_t pid, int *ret_status);
/* Stop a child's process group: SIGTERM, then SIGKILL after grace_ms; reaps pid. */
void crash_stop_group(pid_t pid, unsigned grace_ms);
/* Kill the postmaster the way a power loss would leave it: SIGKILL to it and
 * every process whose parent it is; wait until they are gone (timeout_ms);
 * then remove the shared memory they had mapped (crash_shm.h). */
int crash_kill_server(pid_t postmaster, unsigned timeout_ms);
/*
 * Make this process the reaper of its orphaned descendants (the postmaster
 * pg_ctl leaves behind, dutfs's daemon), so a killed server is gone as soon
 * as we wait for it instead of when PID 1 gets round to reaping it (every
 * ~2 s in this project's containers: half the time of a state).
 */
int crash_become_subreaper(void);
/* Reap every ended child (between states, when no child of ours is awaited). */
void crash_reap_orphans(void);
/* The postmaster running "postgres -D pgdata" (pg_ctl's way), 0 when none. */
pid_t crash_find_postmaster(const char *pgdata);
/* The first line of PGDATA/postmaster.pid (a regular file, no symbolic link on
 * the way); -ENOENT, -ENODATA when empty, -ESRCH when it names no process
 * running postgres as the file's owner (which is not root). */
int crash_read_postmaster_pid(const char *pgdata, pid_t *ret);
/* Read a file postgres can write (the server log): no symbolic link, regular. */
int crash_read_server_file(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len);
/* The size of a file (0 when it does not exist). */
uint64_t crash_file_size(const char *path);
/* Append text to a file. */
int crash_append_file(const char *path, const char *text);
/* Whether a log file holds needle (a small file read whole, at most 64 MiB). */
bool crash_file_mentions(const char *path, const char *needle, uint64_t from_offset);
/* The value after "key: " in a file of "key: value" lines. */
int crash_read_field(const char *path, const char *key, char *buf, size_t len);
/* Whether dir is on a tmpfs, and its free bytes (*ret_free_bytes); 0 or -errno. */
int crash_tmpfs_free(const char *dir, bool *ret_tmpfs, uint64_t *ret_free_bytes);
uint64_t crash_now_ms(void);
void crash_sleep_ms(unsigned ms);

#endif

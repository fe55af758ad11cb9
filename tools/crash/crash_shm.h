/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared memory a PostgreSQL server leaves behind when it is SIGKILLed
 * (as a power loss leaves it): its System V segment (nattch 0, never
 * removed) and its POSIX dynamic shared memory segments (/dev/shm/
 * PostgreSQL.N).  A clean stop removes them; a crash state's server is
 * killed, and its copy thrown away, so nothing restarted on that data
 * would clean them up: 1 MiB and more per state, in RAM.  Pure: the
 * names are read from /proc/PID/maps text.
 */
#ifndef DUTLAB_CRASH_SHM_H
#define DUTLAB_CRASH_SHM_H

#include <stddef.h>

#define CRASH_SHM_MAX 64
#define CRASH_SHM_NAME 48

struct crash_shm {
	char dsm[CRASH_SHM_MAX][CRASH_SHM_NAME];   /* "PostgreSQL.123", as in /dev/shm */
	size_t ndsm;
	int sysv[CRASH_SHM_MAX];                    /* shmids */
	size_t nsysv;
};

/*
 * Add the segments a /proc/PID/maps text maps (lines ending in
 * /dev/shm/PostgreSQL.N or /SYSVxxxxxxxx, "(deleted)" or not; the SysV
 * shmid is the line's inode) to s, each once; at most CRASH_SHM_MAX of
 * each kind.  The number added.
 */
size_t crash_shm_from_maps(const char *maps, struct crash_shm *s);

/*
 * The segments a dynamic shared memory control segment lists (the one the
 * postmaster maps): PostgreSQL 14 and later (src/backend/storage/ipc/dsm.c:
 * magic, nitems, maxitems, then 40-byte items of handle, refcnt,
 * first_page, npages, a pointer and pinned).  An in-use item (refcnt > 0)
 * outside the main shared memory (npages 0) is a /dev/shm segment, also
 * one no process maps any more (a pinned area).  Buffers that are not such
 * a segment (magic, or the size against maxitems) add nothing.  The number
 * added.
 */
size_t crash_shm_from_control(const void *buf, size_t len, struct crash_shm *s);

#endif

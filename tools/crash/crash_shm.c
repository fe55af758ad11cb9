/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/crash/crash_shm.h"

#define DSM_PREFIX "/dev/shm/PostgreSQL."

static bool all_digits(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

static bool add_dsm(struct crash_shm *s, const char *name, size_t n)
{
	for (size_t i = 0; i < s->ndsm; i++)
		if (strlen(s->dsm[i]) == n && !memcmp(s->dsm[i], name, n))
			return false;
	if (s->ndsm == CRASH_SHM_MAX || n >= CRASH_SHM_NAME)
		return false;
	memcpy(s->dsm[s->ndsm], name, n);
	s->dsm[s->ndsm++][n] = '\0';
	return true;
}

static bool add_sysv(struct crash_shm *s, long id)
{
	for (size_t i = 0; i < s->nsysv; i++)
		if (s->sysv[i] == id)
			return false;
	if (s->nsysv == CRASH_SHM_MAX || id < 0 || id > 0x7fffffff)
		return false;
	s->sysv[s->nsysv++] = (int)id;
	return true;
}

/* One maps line (without its newline): address perms offset dev inode path */
static size_t one_line(const char *line, size_t len, struct crash_shm *s)
{
	const char *p = line, *end = line + len, *inode = NULL, *path;
	size_t field = 0, n;

	while (p < end && field < 5) {
		while (p < end && *p == ' ')
			p++;
		if (field == 4)
			inode = p;
		while (p < end && *p != ' ')
			p++;
		field++;
	}
	while (p < end && *p == ' ')
		p++;
	if (field < 5 || p >= end)
		return 0;
	path = p;
	n = (size_t)(end - path);
	if (n > 10 && !memcmp(end - 10, " (deleted)", 10))
		n -= 10;
	if (n > strlen(DSM_PREFIX) && !memcmp(path, DSM_PREFIX, strlen(DSM_PREFIX)) &&
	    all_digits(path + strlen(DSM_PREFIX), n - strlen(DSM_PREFIX)))
		return add_dsm(s, path + strlen("/dev/shm/"), n - strlen("/dev/shm/"));
	if (n == 13 && !memcmp(path, "/SYSV", 5) && inode)
		return add_sysv(s, strtol(inode, NULL, 10));
	return 0;
}

size_t crash_shm_from_maps(const char *maps, struct crash_shm *s)
{
	size_t added = 0;

	for (const char *p = maps; *p;) {
		size_t n = strcspn(p, "\n");

		added += one_line(p, n, s);
		p += n + (p[n] ? 1 : 0);
	}
	return added;
}

#define DSM_CONTROL_MAGIC 0x9a503d32u
#define DSM_HEADER 16u   /* uint32 magic, nitems, maxitems; items 8-aligned */
#define DSM_ITEM 40u     /* handle, refcnt, first_page, npages, impl_private_pm_handle, pinned */

static uint32_t u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

size_t crash_shm_from_control(const void *buf, size_t len, struct crash_shm *s)
{
	const unsigned char *b = buf;
	uint32_t nitems, maxitems;
	size_t added = 0;

	if (len < DSM_HEADER || u32(b) != DSM_CONTROL_MAGIC)
		return 0;
	nitems = u32(b + 4);
	maxitems = u32(b + 8);
	/* the segment is sized for maxitems exactly: anything else is another layout */
	if (nitems > maxitems || len != DSM_HEADER + (uint64_t)maxitems * DSM_ITEM)
		return 0;
	for (uint32_t i = 0; i < nitems; i++) {
		const unsigned char *it = b + DSM_HEADER + (size_t)i * DSM_ITEM;
		char name[CRASH_SHM_NAME];
		int n;

		if (u32(it + 4) == 0 || u64(it + 16) != 0)
			continue;   /* a free slot, or a piece of the main shared memory */
		n = snprintf(name, sizeof(name), "PostgreSQL.%u", u32(it));
		added += add_dsm(s, name, (size_t)n);
	}
	return added;
}

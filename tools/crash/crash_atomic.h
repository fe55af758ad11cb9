/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's atomicity for a crash campaign (issue 20), from the result
 * document of `dutprobe identify --json`: target.atomic_write, the largest
 * write the device keeps whole across a power loss (NVMe NAWUPF/AWUPF, the
 * kernel's atomic_write_unit_max_bytes, or one logical block).  Torn
 * states tear at that unit, and the report says whether PostgreSQL's page
 * is covered: the block size of the server the campaign runs (8 KiB in
 * Debian's builds, 1 to 32 KiB in a build of `dutlab pg build`).  Pure.
 */
#ifndef DUTLAB_CRASH_ATOMIC_H
#define DUTLAB_CRASH_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* PostgreSQL's page when nothing says otherwise (BLCKSZ of Debian's builds). */
#define CRASH_PG_DEFAULT_PAGE_BYTES 8192u

struct crash_atomic {
	bool have;
	uint64_t bytes;                /* power-fail atomic write unit */
	char source[32];               /* nvme-namespace, nvme-controller, kernel, logical-block */
	char device[256];              /* target.path of the identify document */
};

/*
 * Read doc (a dutprobe identify result document).  -EINVAL with why set when
 * it is not one, or has no atomicity (identify of an old dutprobe).
 */
int crash_atomic_from_json(json_object *doc, struct crash_atomic *ret, char *why, size_t len);
/*
 * The torn-write unit for that atomicity: bytes rounded down to a power of
 * two and clamped to 512..64k (dutfs's range).
 */
uint32_t crash_atomic_sector(const struct crash_atomic *a);
/* The report's sentence about the tear unit and PostgreSQL's pages of page_bytes. */
void crash_atomic_sentence(const struct crash_atomic *a, uint32_t sector, uint32_t page_bytes, char *buf,
			   size_t len);
/*
 * The server's block size from the text of `pg_controldata` ("Database
 * block size:                  8192") into *ret: 0, or -EINVAL when the
 * line is missing or not a power of two from 1 to 32 KiB.
 */
int crash_page_from_controldata(const char *text, uint32_t *ret);
/*
 * The block size a build of `dutlab pg build` records (block_size_kb of its
 * dutlab-build.conf, lib/pgbin.h), in bytes; 0 for no build's record.
 */
uint32_t crash_page_from_build(unsigned block_kb);

#endif

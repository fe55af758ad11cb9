/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's atomicity for a crash campaign (issue 20), from the result
 * document of `dutprobe identify --json`: target.atomic_write, the largest
 * write the device keeps whole across a power loss (NVMe NAWUPF/AWUPF, the
 * kernel's atomic_write_unit_max_bytes, or one logical block).  Torn
 * states tear at that unit, and the report says whether PostgreSQL's page
 * is covered.  Pure.
 */
#ifndef DUTLAB_CRASH_ATOMIC_H
#define DUTLAB_CRASH_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* PostgreSQL's page in the campaign's clusters (Debian's builds: 8 KiB). */
#define CRASH_PG_PAGE_BYTES 8192u

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
/* The report's sentence about the tear unit and PostgreSQL's pages. */
void crash_atomic_sentence(const struct crash_atomic *a, uint32_t sector, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/crash/crash_atomic.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

int crash_atomic_from_json(json_object *doc, struct crash_atomic *ret, char *why, size_t len)
{
	json_object *tool = get(doc, "tool"), *t = get(doc, "target"), *a = get(t, "atomic_write");
	json_object *b = get(a, "power_fail_bytes"), *s = get(a, "source"), *p = get(t, "path");
	const char *name = tool && json_object_is_type(tool, json_type_object) ?
			   json_object_get_string(get(tool, "name")) : json_object_get_string(tool);

	memset(ret, 0, sizeof(*ret));
	if (!name || !strstr(name, "dutprobe") || !t) {
		snprintf(why, len, "not a result document of dutprobe identify --json");
		return -EINVAL;
	}
	if (!b || !json_object_is_type(b, json_type_int) || json_object_get_int64(b) <= 0) {
		snprintf(why, len, "it has no target.atomic_write.power_fail_bytes (the device's atomicity "
			 "is unknown: run dutprobe identify on the block device or a file on it, with this "
			 "version of dutprobe)");
		return -EINVAL;
	}
	ret->have = true;
	ret->bytes = (uint64_t)json_object_get_int64(b);
	snprintf(ret->source, sizeof(ret->source), "%s", s ? json_object_get_string(s) : "unknown");
	snprintf(ret->device, sizeof(ret->device), "%s", p ? json_object_get_string(p) : "");
	return 0;
}

uint32_t crash_atomic_sector(const struct crash_atomic *a)
{
	uint32_t s = 512;

	while (s < 65536 && (uint64_t)s * 2 <= a->bytes)
		s *= 2;
	return s;
}

void crash_atomic_sentence(const struct crash_atomic *a, uint32_t sector, uint32_t page_bytes, char *buf,
			   size_t len)
{
	const unsigned page = page_bytes ? page_bytes : CRASH_PG_DEFAULT_PAGE_BYTES;
	char unit[32];

	if (!a->have) {
		snprintf(buf, len, "%u KiB pages; writes in flight torn at %u bytes (--sector; the device's own unit "
			 "is not known: give --identify with the JSON of `dutprobe identify --json` to use it)",
			 page / 1024, sector);
		return;
	}
	if (a->bytes % 1024 == 0)
		snprintf(unit, sizeof(unit), "%" PRIu64 " KiB", a->bytes / 1024);
	else
		snprintf(unit, sizeof(unit), "%" PRIu64 "-byte", a->bytes);
	snprintf(buf, len, "%u KiB pages on a %s-atomic device (%s, from %s): %s; writes in flight torn at "
		 "%u bytes", page / 1024, unit, a->source, a->device[0] ? a->device : "dutprobe identify",
		 a->bytes >= page ? "a power loss cannot tear a page" :
		 "torn pages are possible, keep full_page_writes on", sector);
}

int crash_page_from_controldata(const char *text, uint32_t *ret)
{
	static const char key[] = "Database block size:";
	const char *p = strstr(text, key);
	unsigned long v;
	char *end;

	if (!p)
		return -EINVAL;
	p += sizeof(key) - 1;
	p += strspn(p, " \t");
	v = strtoul(p, &end, 10);
	if (end == p || (*end && *end != '\n') || v < 1024 || v > 32768 || (v & (v - 1)))
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

uint32_t crash_page_from_build(unsigned block_kb)
{
	return block_kb >= 1 && block_kb <= 32 && !(block_kb & (block_kb - 1)) ? block_kb * 1024u : 0;
}

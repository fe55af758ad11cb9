/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server settings that decide what a storage benchmark measures, as
 * pg_settings reports them (setting + unit), and their report: a human
 * line per setting with the value in readable units ("shared_buffers =
 * 128MB"), and a JSON object { name: { "setting", "unit", "value" } }.
 * Every pgload result carries it.  Pure code: pgconn.c fills it from the server.
 */
#ifndef PGL_SETTINGS_H
#define PGL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

extern const char *const pgl_setting_names[];
extern const size_t pgl_setting_count;

struct pgl_setting {
	const char *name;
	bool present;
	char setting[128];
	char unit[16];
};

struct pgl_settings {
	struct pgl_setting s[24];
	size_t n;
};

void pgl_settings_init(struct pgl_settings *st);
/* Store one pg_settings row; names not in the list are ignored (returns 0). */
int pgl_settings_set(struct pgl_settings *st, const char *name, const char *setting,
		     const char *unit);
const struct pgl_setting *pgl_settings_get(const struct pgl_settings *st, const char *name);
/* block_size as a number; -ENOENT if not reported, -EINVAL if not a number. */
int pgl_settings_block_size(const struct pgl_settings *st, uint32_t *ret);

/*
 * The readable value: setting times unit ("16384" "8kB" -> "128MB",
 * "300" "s" -> "5min"); settings without a unit print as they are;
 * "(not reported)" if absent.
 */
void pgl_setting_pretty(const struct pgl_setting *s, char *buf, size_t len);

void pgl_settings_print(const struct pgl_settings *st, FILE *out);
json_object *pgl_settings_to_json(const struct pgl_settings *st);

#endif

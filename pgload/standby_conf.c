/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure half of the standby support: names and postgresql.auto.conf lines. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pgload/standby.h"

void pgl_standby_name_from_dir(const char *pgdata, char *buf, size_t len)
{
	const char *end = pgdata + strlen(pgdata), *start;
	size_t n = 0;

	while (end > pgdata && end[-1] == '/')
		end--;
	start = end;
	while (start > pgdata && start[-1] != '/')
		start--;
	if (len == 0)
		return;
	for (const char *p = start; p < end && n + 1 < len && n < 40; p++) {
		unsigned char ch = (unsigned char)tolower((unsigned char)*p);

		if (n == 0 && isdigit(ch) && n + 2 < len)
			buf[n++] = 's';
		buf[n++] = (char)((islower(ch) || isdigit(ch)) && ch < 128 ? ch : '_');
	}
	buf[n] = '\0';
	if (n == 0 || strspn(buf, "_") == n)
		snprintf(buf, len, "standby");
}

void pgl_standby_ssn_value(const char *app_name, char *buf, size_t len)
{
	/* Quoted: the name stays one standby name whatever it holds (names made
	 * by pgl_standby_name_from_dir hold no '"'). */
	snprintf(buf, len, "\"%s\"", app_name);
}

/*
 * Parse "name = 'value'" (or an unquoted value) as the server's
 * configuration lexer does for the lines ALTER SYSTEM writes.  Returns 1 and
 * fills key/val when the line is a setting, 0 for comments and blank lines.
 */
static int parse_line(const char *line, size_t n, char *key, size_t klen, char *val, size_t vlen)
{
	size_t i = 0, k = 0, v = 0;

	while (i < n && isspace((unsigned char)line[i]))
		i++;
	while (i < n && (isalnum((unsigned char)line[i]) || line[i] == '_' || line[i] == '.'))
		if (k + 1 < klen)
			key[k++] = line[i++];
		else
			i++;
	key[k] = '\0';
	if (k == 0)
		return 0;
	while (i < n && isspace((unsigned char)line[i]))
		i++;
	if (i < n && line[i] == '=')
		i++;
	while (i < n && isspace((unsigned char)line[i]))
		i++;
	if (i < n && line[i] == '\'') {
		for (i++; i < n; i++) {
			if (line[i] == '\'') {
				if (i + 1 < n && line[i + 1] == '\'')
					i++;
				else
					break;
			}
			if (v + 1 < vlen)
				val[v++] = line[i];
		}
	} else {
		while (i < n && !isspace((unsigned char)line[i]) && line[i] != '#')
			if (v + 1 < vlen)
				val[v++] = line[i++];
			else
				i++;
	}
	val[v] = '\0';
	return 1;
}

unsigned pgl_conf_drop_setting(char *text, const char *name, const char *value)
{
	char *line = text, *out = text;
	unsigned dropped = 0;

	while (*line) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		size_t keep = nl ? n + 1 : n;
		char key[128], val[512];

		if (parse_line(line, n, key, sizeof(key), val, sizeof(val)) &&
		    strcasecmp(key, name) == 0 && strcmp(val, value) == 0) {
			dropped++;
		} else {
			memmove(out, line, keep);
			out += keep;
		}
		line += keep;
	}
	*out = '\0';
	return dropped;
}

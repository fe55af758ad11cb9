/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parsing of sysfs attribute values and /proc/self/mountinfo lines.
 * No I/O here (the USB bridge table is in usb_bridge.c).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"

void dp_strip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

size_t dp_strlcpy(char *dst, const char *src, size_t len)
{
	size_t n = strlen(src);

	if (len) {
		size_t c = n < len - 1 ? n : len - 1;
		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

static const char *skip_ws(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

static int only_ws(const char *s)
{
	return *skip_ws(s) == '\0';
}

int dp_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	s = skip_ws(s);
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (!only_ws(end))
		return -EINVAL;
	*ret = v;
	return 0;
}

int dp_parse_int(const char *s, int *ret)
{
	char *end;
	long v;

	s = skip_ws(s);
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
		return -ERANGE;
	if (end == s || !only_ws(end))
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int dp_parse_hex16(const char *s, uint16_t *ret)
{
	char *end;
	unsigned long v;

	s = skip_ws(s);
	if (!isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno == ERANGE || v > 0xffff)
		return -ERANGE;
	if (!only_ws(end))
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

int dp_parse_scheduler(const char *s, char *buf, size_t len)
{
	const char *open = strchr(s, '['), *close;
	size_t n;

	if (open) {
		close = strchr(open, ']');
		if (!close)
			return -EINVAL;
		open++;
	} else {
		/* a queue without elevator support prints just "none" */
		open = skip_ws(s);
		close = open;
		while (*close && !isspace((unsigned char)*close))
			close++;
	}
	n = (size_t)(close - open);
	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(buf, open, n);
	buf[n] = '\0';
	return 0;
}

static int parse_leading_double(const char *s, const char *unit, double *ret)
{
	char *end;
	double v;

	s = skip_ws(s);
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	v = strtod(s, &end);
	end = (char *)skip_ws(end);
	if (strncmp(end, unit, strlen(unit)) != 0 || v <= 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int dp_parse_link_speed_gts(const char *s, double *ret)
{
	/* "8.0 GT/s PCIe" (>= 4.13), "8 GT/s" (older), "Unknown", "2.5 GT/s PCIe" */
	return parse_leading_double(s, "GT/s", ret);
}

int dp_parse_sata_spd(const char *s, double *ret)
{
	/* "6.0 Gbps"; "<unknown>" when the link is down */
	return parse_leading_double(s, "Gbps", ret);
}

int dp_parse_devnum(const char *s, unsigned *ret_major, unsigned *ret_minor)
{
	unsigned ma, mi;
	int n = 0;

	if (sscanf(s, "%u:%u%n", &ma, &mi, &n) != 2 || !only_ws(s + n))
		return -EINVAL;
	*ret_major = ma;
	*ret_minor = mi;
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static int path_under(const char *path, const char *mp)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return path[0] == '/';
	return strncmp(path, mp, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static void copy_str(char *dst, size_t len, const char *src)
{
	dp_strlcpy(dst, src, len);
}

int dp_mountinfo_find(const char *text, unsigned major, unsigned minor, const char *path,
		      char *mountpoint, size_t mplen, char *fstype, size_t fslen,
		      char *source, size_t srclen)
{
	size_t best_len = 0;
	bool found = false;

	/*
	 * Line: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS
	 * Several lines can match (bind mounts): the longest mount point that
	 * is a prefix of path is the one the path was resolved through.
	 */
	for (const char *next = text; next && *next;) {
		const char *line = next, *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		char buf[4096], mp[PATH_MAX], fs[64], src[PATH_MAX];
		unsigned ma, mi;
		char *sep;

		next = eol ? eol + 1 : NULL;
		if (n == 0 || n >= sizeof(buf))
			continue;
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (sscanf(buf, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mp) != 3)
			continue;
		if (ma != major || mi != minor)
			continue;
		sep = strstr(buf, " - ");
		if (!sep || sscanf(sep + 3, "%63s %4095s", fs, src) != 2)
			continue;
		unescape_octal(mp);
		unescape_octal(src);
		if (!path_under(path, mp) || strlen(mp) < best_len)
			continue;
		best_len = strlen(mp);
		found = true;
		copy_str(mountpoint, mplen, mp);
		copy_str(fstype, fslen, fs);
		copy_str(source, srclen, src);
	}
	return found ? 0 : -ENOENT;
}

const char *dp_fs_magic_name(unsigned long magic)
{
	static const struct { unsigned long magic; const char *name; } fs[] = {
		{ 0xEF53, "ext2/3/4" },     { 0x58465342, "xfs" },     { 0x9123683E, "btrfs" },
		{ 0xF2F52010, "f2fs" },     { 0x2FC12FC1, "zfs" },     { 0x01021994, "tmpfs" },
		{ 0x794C7630, "overlayfs" }, { 0x65735546, "fuse" },   { 0x6969, "nfs" },
		{ 0xFF534D42, "cifs" },     { 0x4D44, "vfat" },        { 0x2011BAB0, "exfat" },
		{ 0x5346544E, "ntfs" },     { 0x858458F6, "ramfs" },   { 0xCA451A4E, "bcachefs" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(fs); i++)
		if (fs[i].magic == magic)
			return fs[i].name;
	return NULL;
}

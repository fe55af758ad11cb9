/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parsing of sysfs attribute values (mountinfo: lib/mountinfo.h).
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

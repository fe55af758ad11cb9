/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Gather the facts that make writing to a block device unsafe: mounts of the
 * device or any of its partitions (mountinfo), holders (device-mapper, md,
 * bcache...), swap, another exclusive opener, and on-disk signatures.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "probe/safety.h"

static const char *sysfs_root(void)
{
	/* The same seam as identify (probe/identify/ident.h): one variable for all of dutprobe. */
	const char *r = getenv("DUTPROBE_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

/* Read a whole small text file into a malloc'ed NUL-terminated buffer. */
static int read_text(const char *path, char **ret)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (cap - len < 4096) {
			char *nb;

			if (cap > (64u << 20))
				return -EFBIG;
			nb = realloc(buf, cap + 65536);
			if (!nb)
				return -ENOMEM;
			buf = nb;
			cap += 65536;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

static void append(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append "; " + formatted text to dst (truncating when full). */
static void append(char *dst, size_t len, const char *fmt, ...)
{
	size_t used = strlen(dst);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used) {
		strcat(dst, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(dst + used, len - used, fmt, ap);
	va_end(ap);
}

/* Names in /sys/dev/block/M:m/holders, comma-separated into out. */
static void list_holders(const char *sysdir, char *out, size_t outlen)
{
	char path[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t used = strlen(out);

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(out + used, outlen - used, "%s%s", used ? ", " : "", de->d_name) >=
		    (int)(outlen - used))
			break;  /* truncated: enough names to explain the refusal */
	}
}

static void check_one(const char *label, const char *sysdir, unsigned maj, unsigned min,
		      const char *mountinfo, struct safety_report *r)
{
	struct mountinfo_entry me;
	char holders[256] = "";

	if (mountinfo && mountinfo_find(mountinfo, maj, min, &me) == 1)
		append(r->mounted, sizeof(r->mounted), "%s is mounted at %s (%s)", label, me.mount_point,
		       me.fstype);
	list_holders(sysdir, holders, sizeof(holders));
	if (holders[0])
		append(r->in_use, sizeof(r->in_use), "%s is held by %s", label, holders);
}

/* /proc/swaps lists device paths: compare by device number. */
static void check_swap(dev_t rdev, const char *label, struct safety_report *r)
{
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL;

	if (read_text("/proc/swaps", &text) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[PATH_MAX];
		struct stat st;

		if (sscanf(line, "%4095s", dev) == 1 && stat(dev, &st) == 0 && S_ISBLK(st.st_mode) &&
		    st.st_rdev == rdev)
			append(r->in_use, sizeof(r->in_use), "%s is in use as swap", label);
	}
}

int safety_examine(const char *dev_path, struct safety_report *ret)
{
	struct safety_report r = { { 0 } };
	_cleanup_free_ char *mountinfo = NULL;
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	char sysdir[PATH_MAX];
	struct stat st;
	struct dirent *de;
	unsigned maj, min;
	int ret_mi;

	if (stat(dev_path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
	ret_mi = read_text("/proc/self/mountinfo", &mountinfo);
	if (ret_mi < 0)
		return ret_mi;

	snprintf(sysdir, sizeof(sysdir), "%s/dev/block/%u:%u", sysfs_root(), maj, min);
	check_one(dev_path, sysdir, maj, min, mountinfo, &r);
	check_swap(st.st_rdev, dev_path, &r);

	/* Partitions: subdirectories of the device's sysfs directory with a "partition" file. */
	d = opendir(sysdir);
	while (d && (de = readdir(d))) {
		char pdir[PATH_MAX], pfile[PATH_MAX + 16], devfile[PATH_MAX + 16], label[300];
		_cleanup_free_ char *devtext = NULL;
		unsigned pmaj, pmin;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(pdir, sizeof(pdir), "%s/%s", sysdir, de->d_name) >= (int)sizeof(pdir))
			continue;
		snprintf(pfile, sizeof(pfile), "%s/partition", pdir);
		snprintf(devfile, sizeof(devfile), "%s/dev", pdir);
		if (access(pfile, F_OK) < 0 || read_text(devfile, &devtext) < 0 ||
		    sscanf(devtext, "%u:%u", &pmaj, &pmin) != 2)
			continue;
		snprintf(label, sizeof(label), "its partition /dev/%s", de->d_name);
		check_one(label, pdir, pmaj, pmin, mountinfo, &r);
		check_swap(makedev(pmaj, pmin), label, &r);
	}

	/*
	 * Another exclusive opener (mount, md, LVM, a program using O_EXCL).
	 * A claim can outlive its process by a moment (an io_uring ring is torn
	 * down asynchronously), so EBUSY is believed only after 1 s of retries.
	 */
	{
		int fd = -1;

		for (int tries = 0; tries < 11; tries++) {
			fd = open(dev_path, O_RDONLY | O_EXCL | O_CLOEXEC);
			if (fd >= 0 || errno != EBUSY || r.mounted[0] || r.in_use[0])
				break;
			if (tries < 10)
				usleep(100 * 1000);
		}
		if (fd >= 0)
			close(fd);
		else if (errno == EBUSY && !r.mounted[0] && !r.in_use[0])
			append(r.in_use, sizeof(r.in_use), "%s is held open exclusively by another program",
			       dev_path);
	}

	/* Signatures in the first blocks. */
	buf = calloc(1, SIG_SCAN_BYTES);
	if (!buf)
		return -ENOMEM;
	{
		_cleanup_close_ int fd = open(dev_path, O_RDONLY | O_CLOEXEC);
		struct sig_hit hits[SIG_MAX_HITS];
		ssize_t n;
		size_t nh;

		if (fd < 0)
			return -errno;
		n = pread(fd, buf, SIG_SCAN_BYTES, 0);
		if (n < 0)
			return -errno;
		nh = sig_detect(buf, (size_t)n, hits, SIG_MAX_HITS);
		for (size_t i = 0; i < nh; i++) {
			char what[160];

			snprintf(what, sizeof(what), "%s (signature at byte %llu)", hits[i].name,
				 (unsigned long long)hits[i].offset);
			append(r.signature, sizeof(r.signature), "%s", what);
		}
	}
	*ret = r;
	return 0;
}

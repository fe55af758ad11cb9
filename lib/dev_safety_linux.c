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
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/blkstack.h"
#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/mountinfo.h"
#include "lib/sysfs_root.h"
#include "lib/units.h"
#include "lib/dev_safety.h"

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
	char path[PATH_MAX + 16];
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

/* Mounted (by number; by /dev name too: btrfs shows an anonymous 0:N), and holders. */
static void check_one(const char *label, const char *sysdir, dev_t dev, const char *name, bool report_holders,
		      const char *mountinfo, struct safety_report *r)
{
	_cleanup_free_ struct dut_mount *me = malloc(sizeof(*me));
	char holders[256] = "", devname[80];
	size_t milen = mountinfo ? strlen(mountinfo) : 0;
	int m = 0;

	snprintf(devname, sizeof(devname), "/dev/%s", name);
	if (mountinfo) {
		m = me ? dut_mountinfo_find_dev(mountinfo, milen, major(dev), minor(dev), me) : -ENOMEM;
		if (m == 0)
			m = dut_mountinfo_find_source(mountinfo, milen, devname, 0, me);
	}
	/* a check that could not run refuses, like a mount it found */
	if (m < 0)
		append(r->mounted, sizeof(r->mounted), "%s: could not read the mount table (%s)", label,
		       strerror(-m));
	else if (m == 1)
		append(r->mounted, sizeof(r->mounted), "%s is mounted at %s (%s)", label, me->mount_point,
		       me->fstype);
	if (!report_holders)
		return;
	list_holders(sysdir, holders, sizeof(holders));
	if (holders[0])
		append(r->in_use, sizeof(r->in_use), "%s is held by %s", label, holders);
}

/* /proc/swaps lists device paths: compare by device number. */
static void check_swap(dev_t rdev, const char *label, struct safety_report *r)
{
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL;

	if (dut_read_text_alloc("/proc/swaps", 64u << 20, &text, NULL) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[PATH_MAX];
		struct stat st;

		if (sscanf(line, "%4095s", dev) == 1 && stat(dev, &st) == 0 && S_ISBLK(st.st_mode) &&
		    st.st_rdev == rdev)
			append(r->in_use, sizeof(r->in_use), "%s is in use as swap", label);
	}
}

/* A device of the stack that another program holds with O_EXCL (one try: the
 * device asked about gets the patient test below). */
static bool held_exclusively(const char *name, dev_t dev)
{
	char path[80];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev)
		return false;   /* no node to try (a test sysfs tree) */
	fd = open(path, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EBUSY;
}

/* The label of stack node i in messages: the path given, "its partition /dev/X", or the chain. */
static void node_label(const struct dut_blkstack *stk, size_t i, const char *dev_path, char *buf, size_t len)
{
	const struct dut_blk_node *nd = &stk->nodes[i];

	if (i == 0)
		snprintf(buf, len, "%s", dev_path);
	else if (nd->rel == DUT_BLK_PARTITION && nd->parent == 0)
		snprintf(buf, len, "its partition /dev/%s", nd->name);
	else
		dut_blkstack_label(stk, i, buf, len);
}

/*
 * The signature read, given up after a timeout: a plain open and pread on a
 * device that does not answer sleep uninterruptibly, and dutprobe sat there
 * with no message (#19).  Both run in a detached thread that owns the path,
 * the descriptor and the buffer; if the caller gives up, whichever side is
 * last frees them (a late completion then lands in memory nobody else uses).
 * A thread rather than io_uring: this file is linked alone into dutlab's
 * stage runner, which has no liburing.
 */
struct sig_read {
	pthread_mutex_t lock;
	pthread_cond_t cond;              /* signalled when done */
	char *path;
	int fd;
	uint8_t *buf;                     /* SIG_SCAN_BYTES */
	ssize_t n;                        /* protected by lock, with err */
	int err;
	bool done, abandoned;             /* protected by lock */
};

static void sig_read_free(struct sig_read *sr)
{
	if (sr->fd >= 0)
		close(sr->fd);
	free(sr->path);
	free(sr->buf);
	pthread_cond_destroy(&sr->cond);
	pthread_mutex_destroy(&sr->lock);
	free(sr);
}

static void *sig_read_main(void *arg)
{
	struct sig_read *sr = arg;
	ssize_t n = -1;
	int err;
	bool last;

	sr->fd = open(sr->path, O_RDONLY | O_CLOEXEC);
	if (sr->fd >= 0)
		n = pread(sr->fd, sr->buf, SIG_SCAN_BYTES, 0);
	err = n < 0 ? errno : 0;
	pthread_mutex_lock(&sr->lock);
	sr->n = n;
	sr->err = err;
	sr->done = true;
	last = sr->abandoned;
	pthread_cond_signal(&sr->cond);
	pthread_mutex_unlock(&sr->lock);
	if (last)
		sig_read_free(sr);
	return NULL;
}

int safety_sig_read(const char *path, uint64_t timeout_ns, uint8_t *buf, size_t *ret_n)
{
	struct sig_read *sr = calloc(1, sizeof(*sr));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t tid;
	struct timespec until;
	int r = 0, e;

	if (!sr)
		return -ENOMEM;
	sr->fd = -1;
	pthread_mutex_init(&sr->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sr->cond, &ca);
	pthread_condattr_destroy(&ca);
	sr->path = strdup(path);
	sr->buf = malloc(SIG_SCAN_BYTES);
	if (!sr->path || !sr->buf) {
		sig_read_free(sr);
		return -ENOMEM;
	}
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&tid, &ta, sig_read_main, sr);
	pthread_attr_destroy(&ta);
	if (e) {
		sig_read_free(sr);
		return -e;
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(timeout_ns / 1000000000ull);
	until.tv_nsec += (long)(timeout_ns % 1000000000ull);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&sr->lock);
	while (!sr->done && r == 0) {
		if (!timeout_ns)
			pthread_cond_wait(&sr->cond, &sr->lock);
		else if (pthread_cond_timedwait(&sr->cond, &sr->lock, &until) == ETIMEDOUT && !sr->done)
			r = -ETIME;
	}
	if (r < 0) {
		sr->abandoned = true;  /* the thread frees sr when the read returns */
		pthread_mutex_unlock(&sr->lock);
		return r;
	}
	pthread_mutex_unlock(&sr->lock);
	if (sr->n < 0)
		r = -sr->err;
	else {
		memcpy(buf, sr->buf, (size_t)sr->n);
		*ret_n = (size_t)sr->n;
	}
	sig_read_free(sr);
	return r;
}

int safety_examine(const char *dev_path, struct safety_report *ret)
{
	return safety_examine_within(dev_path, SAFETY_READ_TIMEOUT_NS, ret);
}

int safety_examine_within(const char *dev_path, uint64_t read_timeout_ns, struct safety_report *ret)
{
	struct safety_report r = { { 0 } };
	_cleanup_free_ char *mountinfo = NULL;
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_free_ struct dut_blkstack *stk = NULL;
	struct stat st;
	int ret_mi;

	if (stat(dev_path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	r.rdev = st.st_rdev;
	ret_mi = dut_read_text_alloc("/proc/self/mountinfo", 64u << 20, &mountinfo, NULL);
	if (ret_mi < 0)
		return ret_mi;

	/* Everything stacked on it or under it: partitions, holders, loop devices
	 * over it (loop takes no claim), what it is a partition of or backed by. */
	stk = calloc(1, sizeof(*stk));
	if (!stk)
		return -ENOMEM;
	if (dut_blkstack_walk(dut_sysfs_root(), st.st_rdev, stk) < 0) {
		const char *base = strrchr(dev_path, '/');

		stk->n = 1;     /* no sysfs directory: the device alone */
		stk->nodes[0] = (struct dut_blk_node){ .dev = st.st_rdev, .parent = -1, .down = true };
		snprintf(stk->nodes[0].name, sizeof(stk->nodes[0].name), "%s", base ? base + 1 : dev_path);
	}
	if (stk->truncated)
		append(r.in_use, sizeof(r.in_use), "%s is part of a stack of more than %d block devices, not all "
		       "of which could be checked", dev_path, DUT_BLKSTACK_MAX);
	for (size_t i = 0; i < stk->n; i++) {
		const struct dut_blk_node *nd = &stk->nodes[i];
		char label[400], sysdir[PATH_MAX];
		size_t before = strlen(r.mounted) + strlen(r.in_use);

		node_label(stk, i, dev_path, label, sizeof(label));
		snprintf(sysdir, sizeof(sysdir), "%s/dev/block/%u:%u", dut_sysfs_root(), major(nd->dev), minor(nd->dev));
		/* a dm/md device's slaves are held by the device itself */
		check_one(label, sysdir, nd->dev, nd->name, nd->rel != DUT_BLK_SLAVE_OF, mountinfo, &r);
		check_swap(nd->dev, label, &r);
		if (i && (nd->rel == DUT_BLK_LOOP_OVER || nd->rel == DUT_BLK_BACKING_OF) &&
		    strlen(r.mounted) + strlen(r.in_use) == before && held_exclusively(nd->name, nd->dev))
			append(r.in_use, sizeof(r.in_use), "%s is held open exclusively by another program", label);
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
		struct sig_hit hits[SIG_MAX_HITS];
		size_t n = 0, nh;
		int rr = safety_sig_read(dev_path, read_timeout_ns, buf, &n);

		if (rr == -ETIME) {
			char d[DUT_FMT_LEN];

			append(r.in_use, sizeof(r.in_use), "%s did not answer a read of its first %u KiB within %s "
			       "(the signature check before writing; --stall-timeout sets the limit): the device is "
			       "not answering, see the kernel log (dmesg)", dev_path, SIG_SCAN_BYTES / 1024,
			       dut_format_duration(read_timeout_ns, d, sizeof(d)));
			r.no_answer = true;
			*ret = r;
			return 0;
		}
		if (rr < 0)
			return rr;
		nh = sig_detect(buf, n, hits, SIG_MAX_HITS);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filesystems of target staging (pure): one ops row per type with its mkfs
 * program and Debian package, the mkfs argv, and the mount(2) flags and data
 * string.  See stage_pure.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "lib/cleanup.h"
#include "tools/run/stage/stage_pure.h"

static size_t put(char out[][STAGE_FS_ARG_LEN], size_t n, const char *s)
{
	snprintf(out[n], STAGE_FS_ARG_LEN, "%s", s);
	return n + 1;
}

/*
 * ext4: no lazy inode table or journal initialisation, so ext4lazyinit does
 * not write in the background while the first configuration is measured.
 */
static size_t ext4_mkfs_args(const struct dut_filesystem *fs, bool keep_blocks, char out[][STAGE_FS_ARG_LEN])
{
	size_t n = 0;

	n = put(out, n, "-q");
	n = put(out, n, "-F");
	if (fs->block_size) {
		n = put(out, n, "-b");
		snprintf(out[n++], STAGE_FS_ARG_LEN, "%u", fs->block_size);
	}
	n = put(out, n, "-E");
	n = put(out, n, keep_blocks ? "nodiscard,lazy_itable_init=0,lazy_journal_init=0"
			    : "lazy_itable_init=0,lazy_journal_init=0");
	return n;
}

static const char *ext4_mount_data(const struct dut_filesystem *fs)
{
	switch (fs->data) {
	case DUT_EXT4_ORDERED:
		return "data=ordered";
	case DUT_EXT4_WRITEBACK:
		return "data=writeback";
	case DUT_EXT4_JOURNAL:
		return "data=journal";
	}
	return NULL;
}

static size_t xfs_mkfs_args(const struct dut_filesystem *fs, bool keep_blocks, char out[][STAGE_FS_ARG_LEN])
{
	size_t n = 0;

	n = put(out, n, "-q");
	n = put(out, n, "-f");
	if (keep_blocks)
		n = put(out, n, "-K");
	if (fs->block_size) {
		n = put(out, n, "-b");
		snprintf(out[n++], STAGE_FS_ARG_LEN, "size=%u", fs->block_size);
	}
	return n;
}

static size_t btrfs_mkfs_args(const struct dut_filesystem *fs, bool keep_blocks, char out[][STAGE_FS_ARG_LEN])
{
	size_t n = 0;

	n = put(out, n, "-q");
	n = put(out, n, "-f");
	if (keep_blocks)
		n = put(out, n, "-K");
	if (fs->block_size) {
		n = put(out, n, "-s");
		snprintf(out[n++], STAGE_FS_ARG_LEN, "%u", fs->block_size);
	}
	return n;
}

static const char *no_mount_data(const struct dut_filesystem *fs)
{
	return NULL;
}

static const struct stage_fs_ops fs_ops[] = {
	{ .type = DUT_FS_EXT4, .mkfs = "mkfs.ext4", .package = "e2fsprogs", .fstype = "ext4",
	  .mkfs_args = ext4_mkfs_args, .mount_data = ext4_mount_data },
	{ .type = DUT_FS_XFS, .mkfs = "mkfs.xfs", .package = "xfsprogs", .fstype = "xfs",
	  .min_bytes = 300ull << 20,        /* xfsprogs >= 5.19: "must be larger than 300MB" */
	  .mkfs_args = xfs_mkfs_args, .mount_data = no_mount_data },
	{ .type = DUT_FS_BTRFS, .mkfs = "mkfs.btrfs", .package = "btrfs-progs", .fstype = "btrfs",
	  .min_bytes = 114294784,           /* btrfs-progs 6.2, single device, default profiles */
	  .mkfs_args = btrfs_mkfs_args, .mount_data = no_mount_data },
};

const struct stage_fs_ops *stage_fs_ops_of(enum dut_fs_type t)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(fs_ops); i++)
		if (fs_ops[i].type == t)
			return &fs_ops[i];
	return NULL;
}

void stage_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

/* Append a copy of s[0..len) to the NULL-terminated argv (*n strings so far). */
static int argv_push(char ***argv, size_t *n, const char *s, size_t len)
{
	char **nv = realloc(*argv, (*n + 2) * sizeof(char *));

	if (!nv)
		return -ENOMEM;
	*argv = nv;
	nv[*n] = strndup(s, len);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

/*
 * mke2fs keeps only its last -E: fold the user's "-E X" / "-EX" (from index
 * user on) into our own -E as "ours,X", so both apply and the user's values
 * win where they name the same option.
 */
static int merge_ext4_extended(char **argv, size_t *n, size_t user)
{
	size_t own = 0;

	for (size_t i = 1; i < user; i++)
		if (!strcmp(argv[i], "-E") && i + 1 < user)
			own = i + 1;
	for (size_t i = user; own && i < *n;) {
		const char *val;
		size_t drop;
		char *merged;

		if (!strcmp(argv[i], "-E") && i + 1 < *n) {
			val = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], "-E", 2) && argv[i][2]) {
			val = argv[i] + 2;
			drop = 1;
		} else {
			i++;
			continue;
		}
		if (asprintf(&merged, "%s,%s", argv[own], val) < 0)
			return -ENOMEM;
		free(argv[own]);
		argv[own] = merged;
		for (size_t k = i; k < i + drop; k++)
			free(argv[k]);
		memmove(&argv[i], &argv[i + drop], (*n + 1 - i - drop) * sizeof(char *));
		*n -= drop;
	}
	return 0;
}

int stage_mkfs_argv(const struct dut_filesystem *fs, const char *prog, const char *device, bool keep_blocks,
		    char ***ret, char *msg, size_t msglen)
{
	const struct stage_fs_ops *ops = stage_fs_ops_of(fs->type);
	char own[STAGE_FS_MAX_ARGS][STAGE_FS_ARG_LEN];
	char **argv = NULL;
	size_t n = 0, nown;
	int r;

	if (!ops) {
		snprintf(msg, msglen, "filesystem %s (type %s) has no mkfs", fs->name ? fs->name : "?",
			 fs->type == DUT_FS_NONE ? "none" : "unknown");
		return -EINVAL;
	}
	if (fs->mkfs_options && strpbrk(fs->mkfs_options, "\"'\\")) {
		snprintf(msg, msglen, "filesystem %s: mkfs-options are split at blanks and passed to %s as they "
			 "are; quotes and backslashes are not supported, found \"%s\"", fs->name ? fs->name : "?",
			 ops->mkfs, fs->mkfs_options);
		return -EINVAL;
	}
	nown = ops->mkfs_args(fs, keep_blocks, own);
	r = argv_push(&argv, &n, prog, strlen(prog));
	for (size_t i = 0; i < nown && r == 0; i++)
		r = argv_push(&argv, &n, own[i], strlen(own[i]));
	for (const char *p = fs->mkfs_options; p && *p && r == 0;) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (len)
			r = argv_push(&argv, &n, p, len);
		p += len;
	}
	if (r == 0 && fs->type == DUT_FS_EXT4)
		r = merge_ext4_extended(argv, &n, 1 + nown);
	if (r == 0)
		r = argv_push(&argv, &n, device, strlen(device));
	if (r < 0) {
		stage_argv_free(argv);
		snprintf(msg, msglen, "out of memory");
		return r;
	}
	*ret = argv;
	return 0;
}

char *stage_argv_join(char *const *argv, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && used + 1 < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* The generic options mount(8) turns into MS_* flags; "set" false clears them. */
static const struct {
	const char *name;
	unsigned long flag;
	bool set;
} mount_flags[] = {
	{ "ro", MS_RDONLY, true },            { "rw", MS_RDONLY, false },
	{ "noatime", MS_NOATIME, true },      { "atime", MS_NOATIME, false },
	{ "nodiratime", MS_NODIRATIME, true }, { "diratime", MS_NODIRATIME, false },
	{ "relatime", MS_RELATIME, true },    { "norelatime", MS_RELATIME, false },
	{ "strictatime", MS_STRICTATIME, true }, { "nostrictatime", MS_STRICTATIME, false },
	{ "lazytime", MS_LAZYTIME, true },    { "nolazytime", MS_LAZYTIME, false },
	{ "sync", MS_SYNCHRONOUS, true },     { "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },
	{ "nosuid", MS_NOSUID, true },        { "nodev", MS_NODEV, true },
	{ "noexec", MS_NOEXEC, true },        { "exec", MS_NOEXEC, false },
	{ "defaults", 0, true },
};

/* Append ",s[0..len)" (no comma when empty) to the malloc'ed *data. */
static int data_append(char **data, const char *s, size_t len)
{
	size_t used = strlen(*data);
	char *nd = realloc(*data, used + len + 2);

	if (!nd)
		return -ENOMEM;
	if (used)
		nd[used++] = ',';
	memcpy(nd + used, s, len);
	nd[used + len] = '\0';
	*data = nd;
	return 0;
}

int stage_mount_options(const struct dut_filesystem *fs, unsigned long *ret_flags, char **ret_data,
			char *msg, size_t msglen)
{
	const struct stage_fs_ops *ops = stage_fs_ops_of(fs->type);
	const char *own = ops ? ops->mount_data(fs) : NULL;
	_cleanup_free_ char *data = strdup("");
	/*
	 * Always nosuid and nodev: the device under test is writable by the
	 * dutlab group (udev/) while root has it mounted, so a crafted
	 * set-uid-root file or device node on it must not work.  PostgreSQL
	 * needs neither.
	 */
	unsigned long flags = MS_NOSUID | MS_NODEV;
	const char *p = fs->mount_options;

	if (!data || (own && data_append(&data, own, strlen(own)) < 0))
		goto out_nomem;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		bool generic = false;

		if (len == 0 || strspn(p, " \t") >= len) {
			snprintf(msg, msglen, "filesystem %s: mount-options \"%s\" has an empty option; expected "
				 "options separated by single commas", fs->name ? fs->name : "?", fs->mount_options);
			return -EINVAL;
		}
		if (fs->type == DUT_FS_EXT4 && len >= 5 && strncmp(p, "data=", 5) == 0) {
			snprintf(msg, msglen, "filesystem %s: mount-options sets %.*s, but the journaling mode is "
				 "the filesystem's data key (data = ordered | writeback | journal)",
				 fs->name ? fs->name : "?", (int)len, p);
			return -EINVAL;
		}
		if ((len == 4 && strncmp(p, "suid", 4) == 0) || (len == 3 && strncmp(p, "dev", 3) == 0)) {
			snprintf(msg, msglen, "filesystem %s: mount-options asks for %.*s; a staged filesystem is "
				 "always mounted nosuid,nodev (others may write the device under test while it is "
				 "mounted, and PostgreSQL needs neither): remove %.*s", fs->name ? fs->name : "?",
				 (int)len, p, (int)len, p);
			return -EINVAL;
		}
		for (size_t i = 0; i < DUT_ARRAY_SIZE(mount_flags); i++) {
			if (strlen(mount_flags[i].name) != len || strncmp(p, mount_flags[i].name, len) != 0)
				continue;
			if (mount_flags[i].set)
				flags |= mount_flags[i].flag;
			else
				flags &= ~mount_flags[i].flag;
			generic = true;
			break;
		}
		if (!generic && data_append(&data, p, len) < 0)
			goto out_nomem;
		p += len;
		if (*p == ',') {
			p++;
			if (!*p) {
				snprintf(msg, msglen, "filesystem %s: mount-options \"%s\" ends with a comma",
					 fs->name ? fs->name : "?", fs->mount_options);
				return -EINVAL;
			}
		}
	}
	*ret_flags = flags;
	*ret_data = TAKE_PTR(data);
	return 0;

out_nomem:
	snprintf(msg, msglen, "out of memory");
	return -ENOMEM;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the pure half of target staging (tools/run/stage/stage_pure.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "tests/cu_main.h"
#include "tools/run/stage/stage_pure.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static const struct dut_filesystem fs_ordered = { .name = "ext4-ordered", .type = DUT_FS_EXT4,
						   .data = DUT_EXT4_ORDERED };
static const struct dut_filesystem fs_journal = { .name = "ext4-journal", .type = DUT_FS_EXT4,
						   .data = DUT_EXT4_JOURNAL };

static void test_mkfs_argv_per_filesystem(void)
{
	static const struct {
		struct dut_filesystem fs;
		bool keep_blocks;
		const char *want;
	} rows[] = {
		{ { .name = "e", .type = DUT_FS_EXT4 }, true,
		  "mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/loop7" },
		{ { .name = "e", .type = DUT_FS_EXT4, .block_size = 1024 }, false,
		  "mkfs.ext4 -q -F -b 1024 -E lazy_itable_init=0,lazy_journal_init=0 /dev/loop7" },
		{ { .name = "e", .type = DUT_FS_EXT4, .data = DUT_EXT4_JOURNAL, .mkfs_options = "-O ^has_journal" },
		  false, "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -O ^has_journal /dev/loop7" },
		/* mke2fs keeps only the last -E: the user's are folded into ours */
		{ { .name = "e", .type = DUT_FS_EXT4, .mkfs_options = "-E lazy_itable_init=1 -m 0 -Estride=16" }, true,
		  "mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0,lazy_itable_init=1,stride=16 "
		  "-m 0 /dev/loop7" },
		{ { .name = "e", .type = DUT_FS_EXT4, .mkfs_options = "-E" }, false,
		  "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -E /dev/loop7" },
		{ { .name = "x", .type = DUT_FS_XFS }, true, "mkfs.xfs -q -f -K /dev/loop7" },
		{ { .name = "x", .type = DUT_FS_XFS, .block_size = 4096, .mkfs_options = "  -m  reflink=0\t-i size=512 " },
		  false, "mkfs.xfs -q -f -b size=4096 -m reflink=0 -i size=512 /dev/loop7" },
		{ { .name = "b", .type = DUT_FS_BTRFS }, true, "mkfs.btrfs -q -f -K /dev/loop7" },
		{ { .name = "b", .type = DUT_FS_BTRFS, .block_size = 4096, .mkfs_options = "-m single" }, false,
		  "mkfs.btrfs -q -f -s 4096 -m single /dev/loop7" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct stage_fs_ops *ops = stage_fs_ops_of(rows[i].fs.type);
		char **argv = NULL, msg[256] = "", got[512];
		int r;

		CU_CHECK(ops != NULL, "row %zu: no ops", i);
		if (!ops)
			continue;
		r = stage_mkfs_argv(&rows[i].fs, ops->mkfs, "/dev/loop7", rows[i].keep_blocks, &argv, msg, sizeof(msg));
		CU_CHECK(r == 0, "row %zu: returned %d (%s)", i, r, msg);
		if (r < 0)
			continue;
		stage_argv_join(argv, got, sizeof(got));
		CU_CHECK(strcmp(got, rows[i].want) == 0, "row %zu: got \"%s\", want \"%s\"", i, got, rows[i].want);
		stage_argv_free(argv);
	}
}

static void test_mkfs_argv_refuses_quotes_and_none(void)
{
	static const struct dut_filesystem rows[] = {
		{ .name = "q", .type = DUT_FS_EXT4, .mkfs_options = "-L \"my label\"" },
		{ .name = "q", .type = DUT_FS_XFS, .mkfs_options = "-L 'x'" },
		{ .name = "q", .type = DUT_FS_BTRFS, .mkfs_options = "-L a\\ b" },
		{ .name = "none", .type = DUT_FS_NONE },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char **argv = NULL, msg[256] = "";
		int r = stage_mkfs_argv(&rows[i], "mkfs", "/dev/x", false, &argv, msg, sizeof(msg));

		CU_CHECK(r == -EINVAL && argv == NULL && msg[0], "row %zu: returned %d, msg \"%s\"", i, r, msg);
	}
}

static void test_filesystem_table(void)
{
	static const struct {
		enum dut_fs_type type;
		const char *mkfs, *package, *fstype;
	} rows[] = {
		{ DUT_FS_EXT4, "mkfs.ext4", "e2fsprogs", "ext4" },
		{ DUT_FS_XFS, "mkfs.xfs", "xfsprogs", "xfs" },
		{ DUT_FS_BTRFS, "mkfs.btrfs", "btrfs-progs", "btrfs" },
	};

	CU_CHECK(stage_fs_ops_of(DUT_FS_NONE) == NULL, "none must have no ops");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct stage_fs_ops *o = stage_fs_ops_of(rows[i].type);

		CU_CHECK(o && !strcmp(o->mkfs, rows[i].mkfs) && !strcmp(o->package, rows[i].package) &&
			 !strcmp(o->fstype, rows[i].fstype), "row %zu (%s)", i, rows[i].mkfs);
	}
}

/* Every staged mount is nosuid,nodev, whatever the options say. */
#define NS (MS_NOSUID | MS_NODEV)

static void test_mount_options_split_flags_from_data(void)
{
	static const struct {
		struct dut_filesystem fs;
		int ret;
		unsigned long flags;
		const char *data;
	} rows[] = {
		{ { .name = "o", .type = DUT_FS_EXT4, .data = DUT_EXT4_ORDERED }, 0, NS, "data=ordered" },
		{ { .name = "w", .type = DUT_FS_EXT4, .data = DUT_EXT4_WRITEBACK }, 0, NS, "data=writeback" },
		{ { .name = "j", .type = DUT_FS_EXT4, .data = DUT_EXT4_JOURNAL, .mount_options = "noatime,barrier=0" },
		  0, NS | MS_NOATIME, "data=journal,barrier=0" },
		{ { .name = "x", .type = DUT_FS_XFS }, 0, NS, "" },
		{ { .name = "x", .type = DUT_FS_XFS, .mount_options = "logbufs=8,nodiratime,lazytime,logbsize=256k" },
		  0, NS | MS_NODIRATIME | MS_LAZYTIME, "logbufs=8,logbsize=256k" },
		{ { .name = "b", .type = DUT_FS_BTRFS, .mount_options = "compress=zstd:1,ssd,sync" },
		  0, NS | MS_SYNCHRONOUS, "compress=zstd:1,ssd" },
		/* later options win, as with mount(8) */
		{ { .name = "b", .type = DUT_FS_BTRFS, .mount_options = "noatime,atime,ro,rw,defaults" }, 0, NS, "" },
		{ { .name = "b", .type = DUT_FS_BTRFS, .mount_options = "nodev,nosuid,noexec,dirsync,strictatime" },
		  0, MS_NODEV | MS_NOSUID | MS_NOEXEC | MS_DIRSYNC | MS_STRICTATIME, "" },
		/* refusals: a staged device is never mounted suid or dev (others may write it) */
		{ { .name = "x", .type = DUT_FS_XFS, .mount_options = "noatime,suid" }, -EINVAL, 0, NULL },
		{ { .name = "x", .type = DUT_FS_XFS, .mount_options = "dev" }, -EINVAL, 0, NULL },
		{ { .name = "j", .type = DUT_FS_EXT4, .data = DUT_EXT4_JOURNAL, .mount_options = "data=ordered" },
		  -EINVAL, 0, NULL },
		{ { .name = "x", .type = DUT_FS_XFS, .mount_options = "noatime,,inode64" }, -EINVAL, 0, NULL },
		{ { .name = "x", .type = DUT_FS_XFS, .mount_options = "noatime," }, -EINVAL, 0, NULL },
		{ { .name = "x", .type = DUT_FS_XFS, .mount_options = ",noatime" }, -EINVAL, 0, NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long flags = 12345;
		char *data = NULL, msg[256] = "";
		int r = stage_mount_options(&rows[i].fs, &flags, &data, msg, sizeof(msg));

		CU_CHECK(r == rows[i].ret, "row %zu (%s): returned %d, want %d (%s)", i,
			 rows[i].fs.mount_options ? rows[i].fs.mount_options : "-", r, rows[i].ret, msg);
		if (r == 0 && rows[i].ret == 0) {
			CU_CHECK(flags == rows[i].flags, "row %zu: flags %#lx, want %#lx", i, flags, rows[i].flags);
			CU_CHECK(data && !strcmp(data, rows[i].data), "row %zu: data \"%s\", want \"%s\"", i,
				 data ? data : "(null)", rows[i].data);
		}
		if (r < 0)
			CU_CHECK(msg[0] && data == NULL && flags == 12345, "row %zu: a refusal must explain itself "
				 "and leave the outputs alone", i);
		free(data);
	}
}

static void test_space_checks(void)
{
	static const struct {
		struct stage_space_facts f;
		int ret;
		const char *msg_has;    /* a fragment the message must have */
	} rows[] = {
		/* directory: need vs free space */
		{ { .type = DUT_TARGET_DIRECTORY, .path = "/d", .fs_dir = "/", .need_bytes = GiB, .free_bytes = GiB },
		  0, NULL },
		{ { .type = DUT_TARGET_DIRECTORY, .path = "/d", .fs_dir = "/", .need_bytes = GiB + 1, .free_bytes = GiB },
		  -ENOSPC, "/ has only 1 GiB free" },
		/* image: need vs size first */
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/", .need_bytes = 2 * GiB,
		    .image_size = GiB, .free_bytes = 100 * GiB }, -ENOSPC, "the image is only 1 GiB" },
		/* image: a new file needs all of its size */
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/var", .image_size = 4 * GiB,
		    .free_bytes = 3 * GiB }, -ENOSPC, "(4 GiB) needs 4 GiB in /var, which has only 3 GiB free" },
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/var", .image_size = 4 * GiB,
		    .free_bytes = 4 * GiB }, 0, NULL },
		/* image: an existing file only what is not allocated yet */
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/var", .image_size = 4 * GiB,
		    .image_allocated = 3 * GiB, .free_bytes = GiB }, 0, NULL },
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/var", .image_size = 4 * GiB,
		    .image_allocated = 3 * GiB, .free_bytes = GiB - 1 }, -ENOSPC, "needs 1 GiB more in /var" },
		/* image larger than asked: nothing more to allocate */
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/var", .image_size = GiB,
		    .image_allocated = 2 * GiB, .free_bytes = 0 }, 0, NULL },
		/* filesystem minimum sizes */
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/", .image_size = 256 * MiB,
		    .free_bytes = GiB, .fs_name = "xfs", .fs_min_bytes = 300 * MiB }, -ENOSPC, "xfs needs at least 300 MiB" },
		{ { .type = DUT_TARGET_IMAGE, .path = "/i.img", .fs_dir = "/", .image_size = 300 * MiB,
		    .free_bytes = GiB, .fs_name = "xfs", .fs_min_bytes = 300 * MiB }, 0, NULL },
		{ { .type = DUT_TARGET_DEVICE, .path = "/dev/sdz", .device_bytes = 64 * MiB, .fs_name = "btrfs",
		    .fs_min_bytes = 114294784 }, -ENOSPC, "btrfs needs at least" },
		/* device: need vs its size */
		{ { .type = DUT_TARGET_DEVICE, .path = "/dev/sdz", .need_bytes = 10 * GiB, .device_bytes = 8 * GiB },
		  -ENOSPC, "the device has only 8 GiB" },
		{ { .type = DUT_TARGET_DEVICE, .path = "/dev/sdz", .need_bytes = 8 * GiB, .device_bytes = 8 * GiB }, 0,
		  NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char msg[512] = "";
		int r = stage_space_check(&rows[i].f, msg, sizeof(msg));

		CU_CHECK(r == rows[i].ret, "row %zu: returned %d, want %d (%s)", i, r, rows[i].ret, msg);
		if (rows[i].msg_has)
			CU_CHECK(strstr(msg, rows[i].msg_has) && strstr(msg, rows[i].f.path),
				 "row %zu: message \"%s\" lacks \"%s\" or the path", i, msg, rows[i].msg_has);
	}
	CU_CHECK(stage_image_missing_bytes(10, 3) == 7 && stage_image_missing_bytes(3, 10) == 0,
		 "missing bytes");
}

static void test_backing_file_text(void)
{
	static const struct {
		const char *text, *want;
		bool deleted;
	} rows[] = {
		{ "/var/tmp/a.img\n", "/var/tmp/a.img", false },
		{ "/var/tmp/a.img (deleted)\n", "/var/tmp/a.img", true },
		{ "/var/tmp/with space.img", "/var/tmp/with space.img", false },
		{ "(deleted)\n", "(deleted)", false },
		{ "\n", "", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char out[256];
		bool del = !rows[i].deleted;

		stage_backing_file_path(rows[i].text, out, sizeof(out), &del);
		CU_CHECK(!strcmp(out, rows[i].want) && del == rows[i].deleted, "row %zu: got \"%s\" deleted=%d", i,
			 out, del);
	}
}

static void test_paths(void)
{
	static const struct {
		const char *base, *path, *want;
	} resolve[] = {
		{ "/etc/dutlab", "/var/tmp/x.img", "/var/tmp/x.img" },
		{ "/etc/dutlab", "img/x.img", "/etc/dutlab/img/x.img" },
		{ "/etc/dutlab/", "x.img", "/etc/dutlab/x.img" },
		{ ".", "x.img", "x.img" },
		{ NULL, "x.img", "x.img" },
		{ "", "x.img", "x.img" },
	};
	static const struct {
		const char *path, *want;
	} dirs[] = {
		{ "/var/tmp/x.img", "/var/tmp" }, { "/x.img", "/" }, { "x.img", "." }, { "a/b", "a" },
		{ "/var/tmp/", "/var" }, { "/var//x", "/var" }, { "/", "/" },
	};
	static const struct {
		const char *root, *name, *want;
	} tmpl[] = {
		{ "/run/dl", "pgdata", "/run/dl/pgdata-XXXXXX" },
		{ "/run/dl", "a b/c", "/run/dl/a_b_c-XXXXXX" },
		{ "/run/dl", "..", "/run/dl/target-XXXXXX" },
		{ "/run/dl", "", "/run/dl/target-XXXXXX" },
		{ "/run/dl", "wal+1.x", "/run/dl/wal+1.x-XXXXXX" },
	};

	for (size_t i = 0; i < sizeof(resolve) / sizeof(resolve[0]); i++) {
		char *got = stage_resolve_path(resolve[i].base, resolve[i].path);

		CU_CHECK(got && !strcmp(got, resolve[i].want), "resolve row %zu: got %s", i, got ? got : "(null)");
		free(got);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char out[256];

		stage_dirname(dirs[i].path, out, sizeof(out));
		CU_CHECK(!strcmp(out, dirs[i].want), "dirname row %zu (%s): got %s", i, dirs[i].path, out);
	}
	for (size_t i = 0; i < sizeof(tmpl) / sizeof(tmpl[0]); i++) {
		char *got = stage_mountpoint_template(tmpl[i].root, tmpl[i].name);

		CU_CHECK(got && !strcmp(got, tmpl[i].want), "template row %zu: got %s", i, got ? got : "(null)");
		free(got);
	}
}

/* The data= mode reaches the mount data for every ext4 built-in. */
static void test_ext4_data_mode_reaches_mount_data(void)
{
	const struct dut_filesystem *rows[] = { &fs_ordered, &fs_journal };
	const char *want[] = { "data=ordered", "data=journal" };

	for (size_t i = 0; i < 2; i++) {
		unsigned long flags;
		char *data = NULL, msg[128];

		CU_CHECK(stage_mount_options(rows[i], &flags, &data, msg, sizeof(msg)) == 0 && data &&
			 !strcmp(data, want[i]), "row %zu: %s", i, data ? data : msg);
		free(data);
	}
}

/* Which existing image files the stage may format (issue #27): table-driven. */
static void test_image_verdict(void)
{
	static uint8_t zero[4096], ext4[4096], text[16] = "root-only=1\n", late[4096];
	struct {
		bool marked;
		uint64_t size;
		const uint8_t *head;
		size_t len;
		int want;
		const char *msg_has;
	} rows[] = {
		{ true, 1 << 20, text, sizeof(text), 0, NULL },           /* dutlab's own, whatever it holds */
		{ false, 0, NULL, 0, 0, NULL },                           /* empty */
		{ false, 64 << 20, zero, sizeof(zero), 0, NULL },         /* truncate -s */
		{ false, 64 << 20, ext4, sizeof(ext4), -EEXIST, "ext2/3/4 filesystem (signature at byte 1080)" },
		{ false, sizeof(text), text, sizeof(text), -EEXIST, "non-zero byte at offset 0" },
		{ false, 64 << 20, late, sizeof(late), -EEXIST, "non-zero byte at offset 4095" },
		{ false, 64 << 20, NULL, 0, -EEXIST, "not read" },        /* never guess */
	};

	ext4[1080] = 0x53;
	ext4[1081] = 0xef;
	late[4095] = 1;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct stage_image_facts f = { .path = "/x/disk.img", .marked = rows[i].marked,
					       .size_bytes = rows[i].size, .head = rows[i].head,
					       .head_len = rows[i].len };
		char msg[512] = "";
		int r = stage_image_verdict(&f, msg, sizeof(msg));

		CU_CHECK(r == rows[i].want, "row %zu: %d, want %d (%s)", i, r, rows[i].want, msg);
		if (rows[i].msg_has)
			CU_CHECK(strstr(msg, rows[i].msg_has) && strstr(msg, "/x/disk.img was not made by dutlab"),
				 "row %zu: %s", i, msg);
	}
}

static const struct cu_test tests[] = {
	{ "image_verdict", test_image_verdict },
	{ "mkfs_argv_per_filesystem", test_mkfs_argv_per_filesystem },
	{ "mkfs_argv_refuses_quotes_and_none", test_mkfs_argv_refuses_quotes_and_none },
	{ "filesystem_table", test_filesystem_table },
	{ "mount_options_split_flags_from_data", test_mount_options_split_flags_from_data },
	{ "ext4_data_mode_reaches_mount_data", test_ext4_data_mode_reaches_mount_data },
	{ "space_checks", test_space_checks },
	{ "backing_file_text", test_backing_file_text },
	{ "paths", test_paths },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "stage", .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test driver for target staging (test-stage.sh): builds a dut_target and a
 * dut_filesystem from options and runs the API.
 *
 *   stage-driver check|cycle --type directory|image|device --path P
 *       [--size BYTES] [--destructive] [--fs NAME] [--block-size N]
 *       [--mkfs-options S] [--mount-options S] [--mnt-root D] [--need BYTES]
 *       [--remove-created-image] [--busy] [--follow-symlinks]
 *
 * check: dut_stage_check(); prints "refused: <errno name>: <message>" and
 *        exits 3 when refused, 0 when accepted.
 * cycle: prepare, print "dir=", "device=", and the mountinfo line of the
 *        mountpoint ("mount=..."), write and fsync 1 MiB into dir, teardown;
 *        a refused prepare prints "refused: ..." and exits 3.
 *        --busy: keep the written file open across the teardown (which
 *        then fails with EBUSY and leaves the mount to the caller).
 * Exit 2: usage or a failed write/teardown.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/run/stage.h"

static const struct dut_filesystem named_fs[] = {
	{ .name = "none", .type = DUT_FS_NONE },
	{ .name = "ext4-ordered", .type = DUT_FS_EXT4, .data = DUT_EXT4_ORDERED },
	{ .name = "ext4-writeback", .type = DUT_FS_EXT4, .data = DUT_EXT4_WRITEBACK },
	{ .name = "ext4-journal", .type = DUT_FS_EXT4, .data = DUT_EXT4_JOURNAL },
	{ .name = "xfs", .type = DUT_FS_XFS },
	{ .name = "btrfs", .type = DUT_FS_BTRFS },
};

static int usage(void)
{
	fprintf(stderr, "usage: stage-driver check|cycle --type directory|image|device --path P [--size BYTES] "
		"[--destructive] [--fs NAME] [--block-size N] [--mkfs-options S] [--mount-options S] "
		"[--mnt-root D] [--need BYTES] [--remove-created-image] [--busy] [--follow-symlinks]\n");
	return 2;
}

static const char *errno_name(int e)
{
	switch (e) {
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case ENOSPC: return "ENOSPC";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ENOTBLK: return "ENOTBLK";
	case ENOTDIR: return "ENOTDIR";
	case EIO: return "EIO";
	case ELOOP: return "ELOOP";
	case EEXIST: return "EEXIST";
	case EMLINK: return "EMLINK";
	default: return "other";
	}
}

/* The mountinfo line whose mount point is dir (for the test to check fstype and options). */
static void print_mountinfo(const char *dir)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	while (f && fgets(line, sizeof(line), f)) {
		char id[32], parent[32], devno[32], root[1024], mp[1024];

		if (sscanf(line, "%31s %31s %31s %1023s %1023s", id, parent, devno, root, mp) == 5 &&
		    strcmp(mp, dir) == 0)
			printf("mount=%s", line);
	}
	if (f)
		fclose(f);
}

static int write_file(const char *dir)
{
	char path[4096];
	static char buf[1 << 20];
	int fd;

	memset(buf, 0x5a, sizeof(buf));
	snprintf(path, sizeof(path), "%s/stage-test.dat", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd) < 0) {
		fprintf(stderr, "stage-driver: writing %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	printf("wrote=%s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },     { "path", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },     { "destructive", no_argument, NULL, 'd' },
		{ "fs", required_argument, NULL, 'f' },       { "block-size", required_argument, NULL, 'b' },
		{ "mkfs-options", required_argument, NULL, 'k' }, { "mount-options", required_argument, NULL, 'o' },
		{ "mnt-root", required_argument, NULL, 'm' }, { "need", required_argument, NULL, 'n' },
		{ "remove-created-image", no_argument, NULL, 'r' }, { "busy", no_argument, NULL, 'B' },
		{ "follow-symlinks", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct dut_target t = { .name = "t" };
	struct dut_filesystem fs = named_fs[0];
	struct dut_stage_spec spec = { .target = &t, .fs = &fs, .base_dir = "." };
	struct dut_stage *st;
	struct dut_error err = { { 0 } };
	const char *cmd;
	bool busy = false;
	int c, r, busy_fd = -1;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "directory"))
				t.type = DUT_TARGET_DIRECTORY;
			else if (!strcmp(optarg, "image"))
				t.type = DUT_TARGET_IMAGE;
			else if (!strcmp(optarg, "device"))
				t.type = DUT_TARGET_DEVICE;
			else
				return usage();
			break;
		case 'p': t.path = optarg; break;
		case 's': t.size_bytes = strtoull(optarg, NULL, 0); break;
		case 'd': t.destructive = true; break;
		case 'f': {
			size_t i;

			for (i = 0; i < sizeof(named_fs) / sizeof(named_fs[0]); i++)
				if (!strcmp(optarg, named_fs[i].name))
					break;
			if (i == sizeof(named_fs) / sizeof(named_fs[0]))
				return usage();
			fs = named_fs[i];
			break;
		}
		case 'b': fs.block_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'k': fs.mkfs_options = optarg; break;
		case 'o': fs.mount_options = optarg; break;
		case 'm': spec.mnt_root = optarg; break;
		case 'n': spec.need_bytes = strtoull(optarg, NULL, 0); break;
		case 'r': spec.remove_created_image = true; break;
		case 'B': busy = true; break;
		case 'L': spec.follow_symlinks = true; break;
		default: return usage();
		}
	}
	if (!t.path)
		return usage();
	if (!strcmp(cmd, "check")) {
		r = dut_stage_check(&spec, &err);
		if (r < 0) {
			printf("refused: %s: %s\n", errno_name(-r), err.msg);
			return 3;
		}
		printf("ok\n");
		return 0;
	}
	if (strcmp(cmd, "cycle"))
		return usage();
	r = dut_stage_prepare(&spec, &st, &err);
	if (r < 0) {
		printf("refused: %s: %s\n", errno_name(-r), err.msg);
		return 3;
	}
	printf("dir=%s\ndevice=%s\n", dut_stage_dir(st) ? dut_stage_dir(st) : "",
	       dut_stage_device(st) ? dut_stage_device(st) : "");
	if (dut_stage_mkfs_command(st))
		printf("mkfs=%s\nmount_options=%s\n", dut_stage_mkfs_command(st), dut_stage_mount_options(st));
	if (dut_stage_dir(st))
		print_mountinfo(dut_stage_dir(st));
	if (dut_stage_device(st) && !strncmp(dut_stage_device(st), "/dev/loop", 9)) {
		char path[256], dio[16] = "?";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/block/%s/loop/dio", dut_stage_device(st) + 5);
		f = fopen(path, "re");
		if (f && fgets(dio, sizeof(dio), f))
			dio[strcspn(dio, "\n")] = '\0';
		if (f)
			fclose(f);
		printf("loop_dio=%s\n", dio);
	}
	fflush(stdout);
	if (dut_stage_dir(st) && write_file(dut_stage_dir(st)) < 0) {
		dut_stage_teardown(st, &err);
		return 2;
	}
	if (busy && dut_stage_dir(st)) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/stage-test.dat", dut_stage_dir(st));
		busy_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	r = dut_stage_teardown(st, &err);
	if (busy_fd >= 0)
		close(busy_fd);
	if (r < 0) {
		printf("teardown failed: %s: %s\n", errno_name(-r), err.msg);
		return 2;
	}
	printf("teardown=ok\n");
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syscall half of target staging, below stage_linux.c: running a
 * program (exec_linux.c) and loop devices (loop_linux.c).  0 or -errno.
 */
#ifndef DUTLAB_RUN_STAGE_SYS_H
#define DUTLAB_RUN_STAGE_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* sysfs root: lib/sysfs_root.h ($DUTPROBE_SYSFS_ROOT, the seam dutprobe's safety checks read too). */
const char *stage_sysfs_root(void);

/* A whole small text file (a /proc or /sys file: size unknown up front),
 * malloc'ed and NUL-terminated.  At most 16 MiB. */
int stage_read_text(const char *path, char **ret);

/* Find an executable by name in $PATH, then /usr/sbin and /sbin (root's
 * PATH sometimes lacks them); with DUT_STAGE_PROGRAM_PATH set (tests), only
 * in that list.  0 with the full path in out, or -ENOENT. */
int stage_find_program(const char *name, char *out, size_t len);

/*
 * Run argv[0] (a full path; lib/spawn.h) with stdin from /dev/null and
 * stdout+stderr into out (NUL-terminated; the first outlen-1 bytes, the
 * rest is read and dropped).  0 when the program ran: *ret_status is its
 * wait status (exit 127 with "cannot run ARGV0: REASON" in out when the
 * exec failed); -errno when no child could be made.
 */
int stage_run(char *const argv[], char *out, size_t outlen, int *ret_status);

/*
 * The loop device the file want (stat of it: same device and inode; by
 * name when the backing file is deleted) is attached to: 1 with
 * "/dev/loopN" in dev, 0 when none, -errno when /sys/block cannot be read.
 */
int stage_loop_find(const struct stat *want, const char *path, char *dev, size_t devlen);

/*
 * Attach image_fd to a free loop device (LOOP_CTL_GET_FREE, then
 * LOOP_CONFIGURE; LOOP_SET_FD + LOOP_SET_STATUS64 on kernels before 5.8)
 * with autoclear and a size limit of size_bytes, direct I/O when the
 * backing filesystem allows it.  name goes into lo_file_name.  0 with the
 * device's path in dev and an open O_RDWR fd on it in *ret_fd (the device
 * stays attached while some fd or mount holds it).
 */
int stage_loop_attach(int image_fd, uint64_t size_bytes, const char *name, char *dev, size_t devlen,
		      int *ret_fd, char *msg, size_t msglen);

/*
 * Close loop_fd and wait (bounded, ~2 s) until the autoclear detached dev;
 * if it did not, LOOP_CLR_FD.  0, or -EBUSY when it is still attached
 * (someone else holds it open).
 */
int stage_loop_detach(int loop_fd, const char *dev);

/* ---- image files (image_linux.c) ---- */

enum stage_image_mode {
	STAGE_IMAGE_CHECK,      /* read-only, no side effects; a missing file is fine (fd -1) */
	STAGE_IMAGE_CREATE,     /* read-write; created (0600) when missing */
};

struct stage_image {
	int dir_fd;             /* O_PATH: the directory that holds the image */
	int fd;                 /* the image, or -1 (CHECK: it does not exist) */
	char name[256];         /* its name in dir_fd */
	struct stat st;         /* fstat of fd */
	bool created;           /* CREATE made the file */
};

void stage_image_init(struct stage_image *im);
void stage_image_close(struct stage_image *im);
/*
 * Open the image at path.  Unless follow_symlinks, every directory on the
 * way and the file itself are opened with O_NOFOLLOW: a symbolic link
 * anywhere is refused (-ELOOP).  Refuses what is not a regular file
 * (-EINVAL), a file with more than one name (-EMLINK), and one that another
 * user owns or group/others may write (-EPERM).  msg says why.
 */
int stage_image_open(const char *path, enum stage_image_mode mode, bool follow_symlinks,
		     struct stage_image *ret, char *msg, size_t msglen);
/* May dutlab format this file?  Reads the marker xattr and the first MiB;
 * stage_image_verdict() decides.  0 (also for a file CREATE made), -EEXIST. */
int stage_image_vet(const struct stage_image *im, const char *path, char *msg, size_t msglen);
/* Set the marker xattr (STAGE_IMAGE_XATTR).  0 or -errno (-EOPNOTSUPP). */
int stage_image_mark(const struct stage_image *im);
/* unlinkat the name, if it is still the file that was opened (-ESTALE otherwise). */
int stage_image_unlink(const struct stage_image *im);

#endif

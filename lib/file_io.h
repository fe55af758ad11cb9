/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small whole-file reads (configuration, rules, experiments) and atomic writes. */
#ifndef DUT_FILE_IO_H
#define DUT_FILE_IO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Read the whole regular file at path, at most max_bytes long, into a new
 * NUL-terminated buffer (*ret_buf, free() it; *ret_len excludes the NUL).
 * Returns 0 or -errno: -EINVAL if path is not a regular file, -EFBIG if it
 * is larger than max_bytes, else the errno of open/fstat/read.  A FIFO
 * or device is refused without blocking.  A file
 * that shrinks while read yields what was there.  Callers print their own
 * messages.
 */
int dut_read_small_file(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len);

/*
 * Read path until end of file, whatever its st_size says (files under /proc,
 * /sys and cgroupfs report 0 or 4096), into a new NUL-terminated buffer of
 * at most max_bytes (*ret_len, may be NULL, excludes the NUL).  0 or -errno:
 * -EFBIG past max_bytes, else the errno of open/read (EOPNOTSUPP: a pressure
 * file with psi=0, for example).
 */
int dut_read_text_alloc(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len);
/* The same into buf (len bytes with the NUL): -EFBIG when the file does not fit. */
int dut_read_text(const char *path, char *buf, size_t len);

/* dut_read_fd_alloc() flags */
enum {
	DUT_READ_CUT = 1u << 0,  /* past max_bytes: keep the first max_bytes, drop the rest (no -EFBIG) */
};

/*
 * Read fd from where it stands until end of file, into a new NUL-terminated
 * buffer of at most max_bytes (*ret_buf, free() it; *ret_len, may be NULL,
 * excludes the NUL).  The one read-to-EOF loop: whole files whatever their
 * st_size says, stdin, /proc.  EINTR and short reads are retried; the
 * buffer grows by doubling, never past max_bytes + 1.  0 or -errno: -EFBIG
 * past max_bytes (unless flags has DUT_READ_CUT; SIZE_MAX means no bound),
 * -ENOMEM, else the errno of read.  fd stays open.
 */
int dut_read_fd_alloc(int fd, size_t max_bytes, unsigned flags, char **ret_buf, size_t *ret_len);

/*
 * The end of the file open at fd, for a log's last lines in a message: its
 * last len - 1 bytes (all of it when shorter) into buf, NUL-terminated.
 * pread: fd's offset is not moved.  Bytes read or -errno (-EINVAL when len
 * is 0); buf is "" on failure.
 */
ssize_t dut_read_tail(int fd, char *buf, size_t len);

/* read(2) until len bytes or end of file, retrying on EINTR and short reads: bytes read or -errno. */
ssize_t dut_read_full(int fd, void *buf, size_t len);

/* write(2) all of len bytes, retrying on EINTR and short writes; 0 or -errno. */
int dut_write_all(int fd, const void *buf, size_t len);

/*
 * Replace path with buf atomically and durably: a new temporary file in the
 * same directory (created with mode, minus the umask), write, fsync,
 * rename over path, fsync of the directory.  A reader sees the old or the
 * new content, never half of it, and after a crash or power loss the file
 * holds one of the two.  Returns 0 or -errno; the temporary file is removed
 * on failure.  A path that names a device, FIFO or socket (directly or
 * through a link) is written in place and never replaced (so `--json
 * /dev/null` run as root leaves /dev/null a device); a directory is -EISDIR.
 */
int dut_write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode);

/* fsync the directory that holds path (after a rename into it): 0 or -errno. */
int dut_fsync_parent_dir(const char *path);

#endif

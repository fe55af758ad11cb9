/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File operations for a root process inside trees that another user can
 * write (a PostgreSQL data directory owned by postgres, /var/tmp).
 *
 * The rule: root never follows a name that someone else could have replaced.
 * Every function here resolves paths without following symbolic links in any
 * component (openat2 with RESOLVE_NO_SYMLINKS, or a component-by-component
 * walk with O_NOFOLLOW where the kernel lacks openat2), checks the type and
 * owner of what it opened on the file descriptor (fstat, never a separate
 * stat of the path), and changes ownership and mode with fchown/fchmod.
 *
 * All functions return 0 (or a file descriptor) or -errno:
 *   -ELOOP    a component is a symbolic link
 *   -EINVAL   the object is not of the expected type (regular file, directory)
 *   -EPERM    the object is owned by someone other than the expected owner
 *   -EACCES   a directory that must be private is writable by group or others
 * and the errno of the failing syscall otherwise.  dut_fs_safe_strerror()
 * turns the first four into words that name the rule that was broken.
 */
#ifndef DUT_FS_SAFE_H
#define DUT_FS_SAFE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define DUT_ANY_OWNER ((uid_t)-1)

/*
 * Open path with flags (O_RDONLY, O_WRONLY, O_DIRECTORY, O_PATH ...; O_CREAT
 * is not allowed: use dut_write_file_at) without following a symbolic link
 * in any component.  A relative path is resolved against the current
 * directory.  Returns the fd (O_CLOEXEC) or -errno.
 */
int dut_open_nofollow(const char *path, int flags);

/*
 * Open path read-only (no symlinks anywhere) and require a regular file
 * owned by owner (DUT_ANY_OWNER: any).  *ret_st (may be NULL) is the fstat
 * of the opened file.  Returns the fd or -errno.
 */
int dut_open_regular(const char *path, uid_t owner, struct stat *ret_st);

/*
 * Read the whole regular file at path (no symlinks, owned by owner or
 * DUT_ANY_OWNER, at most max_bytes) into a new NUL-terminated buffer.
 * Returns 0 or -errno (-EFBIG when larger than max_bytes).
 */
int dut_read_file_owned(const char *path, uid_t owner, size_t max_bytes, char **ret_buf,
			size_t *ret_len);

/*
 * Replace dirfd/name with a new regular file holding buf: a temporary file
 * made with O_EXCL in the same directory, written, fchown'd to uid:gid
 * ((uid_t)-1 / (gid_t)-1 keep the creator's), fchmod'ed to mode, fsynced,
 * then renamed over name.  A symbolic link or file planted at name is
 * replaced, never followed or truncated.  name must be one component.
 */
int dut_write_file_at(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		      uid_t uid, gid_t gid);

/* dut_write_file_at on the directory of path (opened without symlinks). */
int dut_write_file_nofollow(const char *path, const void *buf, size_t len, mode_t mode,
			    uid_t uid, gid_t gid);

/*
 * Copy the regular file src (no symlinks, owned by owner or DUT_ANY_OWNER,
 * read to its end whatever st_size says, at most max_bytes; a larger file
 * is cut and its tail dropped) to dst with
 * dut_write_file_nofollow semantics (mode, owned by the caller).
 */
int dut_copy_file_safe(const char *src, uid_t owner, const char *dst, mode_t mode,
		       size_t max_bytes);

/*
 * Remove dirfd/name and everything below it, fd-relative: no symbolic link
 * is followed (a link is removed as a link), and no mount point below name
 * is entered (its contents stay; the removal of that directory fails with
 * EBUSY and the first error is returned after the rest was removed).
 * A name that does not exist is success.
 */
int dut_remove_tree_at(int dirfd, const char *name);

/* dut_remove_tree_at for a path whose parent is opened without symlinks. */
int dut_remove_tree(const char *path);

/*
 * Make sure path is a directory that only the caller (the effective uid)
 * controls, creating missing components with mode (minus the umask, then
 * fchmod to mode for the last one).  Every existing component must be a
 * real directory (no symlink) owned by root or the caller and either not
 * writable by group and others or sticky (like /tmp); the last one must be
 * owned by the caller and not writable by group or others.  On failure
 * *ret_bad (may be NULL, PATH_MAX bytes) names the component that broke
 * the rule.
 */
int dut_ensure_private_dir(const char *path, mode_t mode, char *ret_bad, size_t bad_len);

/*
 * Whether only root and the caller could have put path where it is: path
 * (links resolved) and every directory above it owned by root or the
 * effective uid and writable by no group or other user, a sticky directory
 * (like /tmp, where others cannot rename or replace entries they do not own)
 * aside.  0, or -EPERM with *ret_bad (may be NULL; PATH_MAX bytes) the
 * resolved component at fault and *ret_why "owned by another user" or
 * "writable by other users"; -errno if a component cannot be examined.
 */
int dut_path_trusted(const char *path, char *ret_bad, size_t bad_len, const char **ret_why);

/* Words for the rule an -errno from these functions broke, else strerror. */
const char *dut_fs_safe_strerror(int neg_errno);

#endif

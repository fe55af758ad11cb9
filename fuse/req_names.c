/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The names of the request kinds dutfs counts (stats.json "requests"), apart
 * from the ops table in fs.c so that the tracer need not call into fs.c. */
#include "fuse/dutfs.h"

const char *const dutfs_req_names[DUTFS_REQ_KINDS] = {
	[DUTFS_REQ_LOOKUP] = "lookup", [DUTFS_REQ_FORGET] = "forget",
	[DUTFS_REQ_GETATTR] = "getattr", [DUTFS_REQ_SETATTR] = "setattr",
	[DUTFS_REQ_READLINK] = "readlink", [DUTFS_REQ_MKNOD] = "mknod",
	[DUTFS_REQ_MKDIR] = "mkdir", [DUTFS_REQ_SYMLINK] = "symlink", [DUTFS_REQ_LINK] = "link",
	[DUTFS_REQ_UNLINK] = "unlink", [DUTFS_REQ_RMDIR] = "rmdir", [DUTFS_REQ_RENAME] = "rename",
	[DUTFS_REQ_STATFS] = "statfs", [DUTFS_REQ_OPEN] = "open", [DUTFS_REQ_CREATE] = "create",
	[DUTFS_REQ_READ] = "read", [DUTFS_REQ_WRITE] = "write", [DUTFS_REQ_FLUSH] = "flush",
	[DUTFS_REQ_RELEASE] = "release", [DUTFS_REQ_FSYNC] = "fsync",
	[DUTFS_REQ_FALLOCATE] = "fallocate", [DUTFS_REQ_OPENDIR] = "opendir",
	[DUTFS_REQ_READDIR] = "readdir", [DUTFS_REQ_READDIRPLUS] = "readdirplus",
	[DUTFS_REQ_RELEASEDIR] = "releasedir", [DUTFS_REQ_FSYNCDIR] = "fsyncdir",
	[DUTFS_REQ_READ_PAGE_FILL] = "read_page_fill",
	[DUTFS_REQ_WRITE_SPLICED] = "write_spliced",
};

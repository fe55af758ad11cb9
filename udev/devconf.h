/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devices.conf: which block devices are devices under test, and their names.
 *
 *     # name      match keys (every key given on a line must match)
 *     name=fast0  serial=S4EWNX0N123456
 *     name=slow1  wwn=0x5000c500a1b2c3d4
 *     name=img0   loop_backing=/var/lib/dutlab/dut0.img
 *
 * One device per line, key=value tokens separated by blanks; a value may be
 * "double quoted" to hold blanks (no escapes).  A token that starts with '#'
 * starts a comment.  Pure code: parsing and matching do no I/O, so the
 * helper's main reads the file and the device identity and calls these.
 */
#ifndef DUT_UDEV_DEVCONF_H
#define DUT_UDEV_DEVCONF_H

#include <stddef.h>

enum devconf_key {
	DEVCONF_SERIAL,        /* ID_SERIAL_SHORT or ID_SERIAL, exact */
	DEVCONF_WWN,           /* ID_WWN or ID_WWN_WITH_EXTENSION, any case */
	DEVCONF_LOOP_BACKING,  /* a loop device's loop/backing_file, exact */
	DEVCONF_NKEYS,
};

#define DEVCONF_NAME_MAX 64
#define DEVCONF_ENTRIES_MAX 1024
#define DEVCONF_LINE_MAX 4096

struct devconf_entry {
	char *name;                    /* [A-Za-z0-9._-], see devconf_name_check() */
	char *match[DEVCONF_NKEYS];    /* NULL: key not given on this line */
	unsigned line;                 /* 1-based line in the file */
};

struct devconf {
	struct devconf_entry *entries;
	size_t n_entries;
};

struct devconf_error {
	unsigned line;   /* 0: not about one line */
	char msg[320];
};

/* What udev knows about the device; NULL or "" = unknown (never matches). */
struct devconf_ids {
	const char *serial;        /* ID_SERIAL */
	const char *serial_short;  /* ID_SERIAL_SHORT */
	const char *wwn;           /* ID_WWN */
	const char *wwn_ext;       /* ID_WWN_WITH_EXTENSION */
	const char *loop_backing;  /* ATTR{loop/backing_file} */
};

const char *devconf_key_name(enum devconf_key key);

/*
 * Parse the whole file text.  On error returns -EINVAL (or -ENOMEM) and
 * fills *err with the line and a message meant for the user; *ret is
 * written only on success.  The file is all or nothing: one bad line
 * and no device matches, so a typo never marks the wrong disk.
 */
int devconf_parse(const char *text, size_t len, struct devconf **ret,
		  struct devconf_error *err);

void devconf_free(struct devconf *conf);

/*
 * Find the entry whose match keys all match ids.  Returns 1 and sets
 * *ret_entry on a match, 0 when nothing matches, -ENOTUNIQ when two
 * entries match the same device (then *ret_entry and *ret_other name
 * them, and the caller must treat the device as unmatched).
 */
int devconf_match(const struct devconf *conf, const struct devconf_ids *ids,
		  const struct devconf_entry **ret_entry,
		  const struct devconf_entry **ret_other);

/* 0 if name can be /dev/dut/<name>, else -EINVAL with the reason in why. */
int devconf_name_check(const char *name, const char **why);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scope-bound cleanup helpers (the systemd pattern).  A variable declared
 * with one of these is released when it goes out of scope:
 *
 *     _cleanup_free_ char *buf = malloc(n);
 *     _cleanup_close_ int fd = open(path, O_RDONLY);
 *
 * To hand ownership out, take it: `*ret = TAKE_PTR(buf);` / `TAKE_FD(fd)`.
 */
#ifndef DUT_CLEANUP_H
#define DUT_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void dut_freep(void *p)
{
	free(*(void **)p);
}

static inline void dut_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void dut_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void dut_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_free_ _cleanup_(dut_freep)
#define _cleanup_close_ _cleanup_(dut_closep)
#define _cleanup_fclose_ _cleanup_(dut_fclosep)
#define _cleanup_closedir_ _cleanup_(dut_closedirp)

/* Define a cleanup helper for a type with a free function: DUT_DEFINE_FREEP(struct foo *, foo_free) */
#define DUT_DEFINE_FREEP(type, func)                    \
	static inline void func##p(type *p)             \
	{                                               \
		if (*p)                                 \
			func(*p);                       \
	}

#define TAKE_PTR(p)                             \
	({                                      \
		__typeof__(p) _tp = (p);        \
		(p) = NULL;                     \
		_tp;                            \
	})

#define TAKE_FD(fd)                             \
	({                                      \
		int _tf = (fd);                 \
		(fd) = -1;                      \
		_tf;                            \
	})

#define DUT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif

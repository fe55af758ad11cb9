/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LD_PRELOAD seam for test-probe-swap.sh: the race of issue #27 (finding 3)
 * made deterministic.  When dutprobe opens SWAP_LINK for I/O (O_DIRECT:
 * target_open(), after the safety checks), the symbolic link is first
 * re-pointed at SWAP_TO, as an attacker racing the checks would do.  Once.
 */
/* both open and open64 are defined here: no redirection of one to the other */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);

static int swapped;

static void maybe_swap(const char *path, int flags)
{
	const char *link = getenv("SWAP_LINK"), *to = getenv("SWAP_TO");

	if (swapped || !link || !to || strcmp(path, link) != 0 || !(flags & O_DIRECT))
		return;
	swapped = 1;
	unlink(link);
	(void)!symlink(to, link);
}

static int real_open(const char *name, const char *path, int flags, mode_t mode)
{
	int (*fn)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);

	maybe_swap(path, flags);
	return fn(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return real_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return real_open("open64", path, flags, mode);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page_fill: make the kernel fill a file's page cache without a read
 * syscall, then read it once (test-fill.sh checks the syscall view's trace).
 *
 *     page_fill FILE_ON_MOUNT BACKING_FILE     prints our pid
 *
 * posix_fadvise(WILLNEED) of 8 KiB at 80 KiB and readahead(2) of 16 KiB at
 * 160 KiB (kernel page-cache fills, no syscall read), one pread of 8 KiB at
 * 80 KiB, and a read fault on a private mapping of 64 KiB at 1 MiB; the
 * pread and the mapped bytes must equal the backing file's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PREAD_OFF (80 * 1024)
#define MAP_OFF (1024 * 1024)
#define MAP_LEN (64 * 1024)

static int fail(const char *what)
{
	fprintf(stderr, "page_fill: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	static char got[8192], want[MAP_LEN];
	unsigned char *map;
	int fd, bfd, r;

	if (argc != 3) {
		fprintf(stderr, "usage: page_fill FILE_ON_MOUNT BACKING_FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	bfd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || bfd < 0)
		return fail("open");
	r = posix_fadvise(fd, PREAD_OFF, 8192, POSIX_FADV_WILLNEED);
	if (r) {
		errno = r;
		return fail("posix_fadvise(WILLNEED)");
	}
	if (readahead(fd, 160 * 1024, 16384) < 0)
		return fail("readahead");
	if (pread(fd, got, sizeof(got), PREAD_OFF) != (ssize_t)sizeof(got) ||
	    pread(bfd, want, sizeof(got), PREAD_OFF) != (ssize_t)sizeof(got))
		return fail("pread");
	if (memcmp(got, want, sizeof(got))) {
		fprintf(stderr, "page_fill: pread at %d: data differ from the backing file\n", PREAD_OFF);
		return 1;
	}
	map = mmap(NULL, MAP_LEN, PROT_READ, MAP_PRIVATE, fd, MAP_OFF);
	if (map == MAP_FAILED)
		return fail("mmap(MAP_PRIVATE, PROT_READ)");
	if (pread(bfd, want, MAP_LEN, MAP_OFF) != MAP_LEN)
		return fail("pread of the backing file");
	if (memcmp(map + 4096, want + 4096, 4096)) {
		fprintf(stderr, "page_fill: mapped page at %d: data differ from the backing file\n",
			MAP_OFF + 4096);
		return 1;
	}
	munmap(map, MAP_LEN);
	close(fd);
	close(bfd);
	printf("%d\n", (int)getpid());
	return 0;
}

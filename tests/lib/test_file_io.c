/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file_io: dut_read_small_file(), dut_read_text*(), dut_read_fd_alloc(),
 * dut_read_tail() and dut_write_file_atomic() on real files in a temporary
 * directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "tests/cu_main.h"

static char dir[256];

static int make_dir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/dut-file-io-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void)
{
	static const char *const files[] = { "small", "empty", "nul", "fifo", "atomic", "big", "log" };
	char p[300];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/subdir", dir);
	rmdir(p);
	return rmdir(dir) < 0 ? -1 : 0;
}

static const char *path_of(const char *name)
{
	static char p[300];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *name, const char *data, size_t len)
{
	_cleanup_close_ int fd = open(path_of(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, data, len) == (ssize_t)len);
}

struct row {
	const char *name;
	size_t max;
	int want;           /* return value */
	const char *data;   /* wanted content when want == 0 */
	size_t len;
};

static void test_reads_and_refuses(void)
{
	static const char nul[] = "a\0b";
	const struct row rows[] = {
		{ "small", 1u << 20, 0, "[x]\nk = v\n", 10 },
		{ "small", 10, 0, "[x]\nk = v\n", 10 },       /* exactly the cap */
		{ "small", 9, -EFBIG, NULL, 0 },
		{ "empty", 0, 0, "", 0 },
		{ "nul", 3, 0, nul, 3 },
		{ "missing", 100, -ENOENT, NULL, 0 },
		{ "subdir", 100, -EINVAL, NULL, 0 },
		{ "fifo", 100, -EINVAL, NULL, 0 },        /* must not block */
	};

	write_file("small", "[x]\nk = v\n", 10);
	write_file("empty", "", 0);
	write_file("nul", nul, 3);
	CU_ASSERT_FATAL(mkdir(path_of("subdir"), 0700) == 0);
	CU_ASSERT_FATAL(mkfifo(path_of("fifo"), 0600) == 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		_cleanup_free_ char *buf = NULL;
		size_t len = 12345;
		int r = dut_read_small_file(path_of(w->name), w->max, &buf, &len);

		CU_CHECK(r == w->want, "row %zu (%s, max %zu): r=%d, want %d", i, w->name, w->max, r, w->want);
		if (r != 0 || w->want != 0) {
			CU_CHECK(buf == NULL && len == 12345, "row %zu: outputs touched on failure", i);
			continue;
		}
		CU_CHECK(buf && len == w->len && memcmp(buf, w->data, len) == 0 && buf[len] == '\0',
			 "row %zu (%s): got %zu bytes, want %zu", i, w->name, len, w->len);
	}
}

/* Replaces the old content, leaves no temporary file, keeps the mode. */
static void test_atomic_write(void)
{
	static const char *const texts[] = { "first version\n", "", "2nd\n" };
	char p[300], q[300];
	struct stat st;

	snprintf(p, sizeof(p), "%s/atomic", dir);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;

		CU_CHECK(dut_write_file_atomic(p, texts[i], strlen(texts[i]), 0640) == 0, "write %zu", i);
		CU_CHECK(dut_read_small_file(p, 100, &buf, &len) == 0 && len == strlen(texts[i]) &&
			 memcmp(buf, texts[i], len) == 0, "read back %zu", i);
	}
	CU_ASSERT_EQUAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777 & ~(mode_t)0640, 0);  /* no more than 0640 */
	snprintf(q, sizeof(q), "%s/atomic.tmp.%ld.0", dir, (long)getpid());
	CU_ASSERT_NOT_EQUAL(access(q, F_OK), 0);
	/* a directory that does not exist: -ENOENT, nothing created */
	snprintf(q, sizeof(q), "%s/nodir/x", dir);
	CU_ASSERT_EQUAL(dut_write_file_atomic(q, "x", 1, 0644), -ENOENT);
	CU_ASSERT_EQUAL(dut_write_file_atomic("", "x", 1, 0644), -EINVAL);
	CU_ASSERT_EQUAL(dut_write_file_atomic(p, NULL, 1, 0644), -EINVAL);
}

static void test_device_is_refused(void)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;

	CU_CHECK(dut_read_small_file("/dev/null", 100, &buf, &len) == -EINVAL, "/dev/null was read");
	CU_CHECK(dut_read_small_file("", 100, &buf, &len) == -ENOENT, "empty path was read");
}

/* A FIFO (standing in for /dev/null) is written in place, not renamed over; a directory is refused. */
static void test_atomic_write_leaves_special_files(void)
{
	char p[300];
	struct stat st;
	int rfd;

	snprintf(p, sizeof(p), "%s/fifo", dir);
	unlink(p);
	CU_ASSERT_FATAL(mkfifo(p, 0600) == 0);
	rfd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);       /* a reader, so the write does not block */
	CU_ASSERT_FATAL(rfd >= 0);
	CU_CHECK(dut_write_file_atomic(p, "x", 1, 0644) == 0, "a FIFO is written");
	CU_CHECK(stat(p, &st) == 0 && S_ISFIFO(st.st_mode), "and is still a FIFO");
	char c = 0;
	CU_CHECK(read(rfd, &c, 1) == 1 && c == 'x', "the reader got the byte");
	close(rfd);
	unlink(p);
	CU_CHECK(dut_write_file_atomic(dir, "x", 1, 0644) == -EISDIR, "a directory is refused");
	/* a private copy of /dev/null (a regression must not cost the machine its own) */
	snprintf(p, sizeof(p), "%s/null", dir);
	if (geteuid() == 0 && mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		CU_CHECK(dut_write_file_atomic(p, "x", 1, 0644) == 0 && stat(p, &st) == 0 &&
			 S_ISCHR(st.st_mode), "a null device, written as root, stays a device");
		unlink(p);
	}
}

/* Read until EOF, not st_size: a /proc file (size 0), a bound, a buffer that is one byte short. */
static void test_read_text_until_eof(void)
{
	_cleanup_free_ char *text = NULL, *big = malloc(100000);
	char buf[16];
	size_t len = 0;

	CU_ASSERT_FATAL(big != NULL);
	CU_CHECK(dut_read_text_alloc("/proc/self/status", 1u << 20, &text, &len) == 0 && len > 0 &&
		 strstr(text, "Name:") && strlen(text) == len, "a /proc file (st_size 0) is read whole");
	free(TAKE_PTR(text));
	for (size_t i = 0; i < 100000; i++)
		big[i] = (char)('a' + i % 26);
	write_file("big", big, 100000);
	CU_CHECK(dut_read_text_alloc(path_of("big"), 100000, &text, &len) == 0 && len == 100000 &&
		 memcmp(text, big, len) == 0 && text[len] == '\0', "100000 bytes past the first buffer size");
	free(TAKE_PTR(text));
	CU_CHECK(dut_read_text_alloc(path_of("big"), 99999, &text, &len) == -EFBIG && !text, "bound");
	CU_CHECK(dut_read_text_alloc(path_of("missing"), 10, &text, NULL) == -ENOENT, "missing");

	write_file("small", "0123456789abcde", 15);      /* 15 bytes + NUL fill 16 */
	CU_CHECK(dut_read_text(path_of("small"), buf, sizeof(buf)) == 0 && strcmp(buf, "0123456789abcde") == 0,
		 "exactly the buffer: %s", buf);
	write_file("small", "0123456789abcdef", 16);
	CU_CHECK(dut_read_text(path_of("small"), buf, sizeof(buf)) == -EFBIG && strcmp(buf, "0123456789abcde") == 0,
		 "one byte more: -EFBIG with the first 15 in buf");
	CU_CHECK(dut_read_text(path_of("empty"), buf, sizeof(buf)) == 0 && buf[0] == '\0', "empty");
	CU_CHECK(dut_read_text(path_of("missing"), buf, sizeof(buf)) == -ENOENT, "missing");
}

/* From where fd stands to end of file, bounded: cut or -EFBIG past the bound, outputs untouched on failure. */
static void test_read_fd_alloc_bounds(void)
{
	static const struct {
		off_t from;
		size_t max;
		unsigned flags;
		int want;
		const char *data;
	} rows[] = {
		{ 0, 100, 0, 0, "0123456789" },
		{ 0, 10, 0, 0, "0123456789" },            /* exactly the bound */
		{ 0, 9, 0, -EFBIG, NULL },
		{ 0, 4, DUT_READ_CUT, 0, "0123" },          /* the head kept, the rest dropped */
		{ 0, 0, DUT_READ_CUT, 0, "" },
		{ 6, 4, 0, 0, "6789" },                   /* from the offset, not from 0 */
		{ 10, 0, 0, 0, "" },                      /* at end of file */
		{ 0, SIZE_MAX, 0, 0, "0123456789" },      /* no bound */
	};

	write_file("small", "0123456789", 10);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		_cleanup_close_ int fd = open(path_of("small"), O_RDONLY | O_CLOEXEC);
		_cleanup_free_ char *buf = NULL;
		size_t len = 12345;
		int r;

		CU_ASSERT_FATAL(fd >= 0 && lseek(fd, rows[i].from, SEEK_SET) == rows[i].from);
		r = dut_read_fd_alloc(fd, rows[i].max, rows[i].flags, &buf, &len);
		CU_CHECK(r == rows[i].want, "row %zu: r=%d, want %d", i, r, rows[i].want);
		if (rows[i].want < 0) {
			CU_CHECK(!buf && len == 12345, "row %zu: outputs touched on failure", i);
			continue;
		}
		CU_CHECK(buf && len == strlen(rows[i].data) && strcmp(buf, rows[i].data) == 0,
			 "row %zu: got \"%s\" (%zu bytes)", i, buf ? buf : "(null)", len);
	}
}

/* Past the first buffer and its doublings; a pipe (no st_size); a /proc file (st_size 0). */
static void test_read_fd_alloc_grows(void)
{
	_cleanup_free_ char *big = malloc(300000), *text = NULL;
	_cleanup_close_ int fd = -1;
	int p[2];
	size_t len = 0;

	CU_ASSERT_FATAL(big != NULL);
	for (size_t i = 0; i < 300000; i++)
		big[i] = (char)('a' + i % 26);
	write_file("big", big, 300000);
	fd = open(path_of("big"), O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_CHECK(dut_read_fd_alloc(fd, 300000, 0, &text, &len) == 0 && len == 300000 &&
		 memcmp(text, big, len) == 0 && text[len] == '\0', "300000 bytes: %zu", len);
	free(TAKE_PTR(text));
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_CHECK(dut_read_fd_alloc(fd, 299999, 0, &text, &len) == -EFBIG && !text, "one past a grown bound");

	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	CU_ASSERT_FATAL(write(p[1], "through a pipe\n", 15) == 15);
	close(p[1]);
	CU_CHECK(dut_read_fd_alloc(p[0], 1000, 0, &text, NULL) == 0 && strcmp(text, "through a pipe\n") == 0,
		 "a pipe is read to its end");
	close(p[0]);
	free(TAKE_PTR(text));

	close(TAKE_FD(fd));
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_CHECK(dut_read_fd_alloc(fd, 1u << 20, 0, &text, &len) == 0 && len > 0 && strlen(text) == len,
		 "a /proc file (st_size 0) is read whole");
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A signal that interrupts the read (no SA_RESTART) does not end it: the data that comes later is read. */
static void test_read_fd_alloc_retries_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	_cleanup_free_ char *text = NULL;
	int p[2], status = 0, r;
	pid_t child;

	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		close(p[0]);
		usleep(200000);        /* well after the parent's alarm */
		_exit(write(p[1], "late", 4) == 4 ? 0 : 1);
	}
	close(p[1]);
	alarms = 0;
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_FATAL(sigaction(SIGALRM, &sa, &old) == 0);
	CU_ASSERT_FATAL(setitimer(ITIMER_REAL, &it, NULL) == 0);
	r = dut_read_fd_alloc(p[0], 100, 0, &text, NULL);
	sigaction(SIGALRM, &old, NULL);
	close(p[0]);
	waitpid(child, &status, 0);
	CU_CHECK(alarms == 1, "the alarm interrupted the read (%d)", (int)alarms);
	CU_CHECK(r == 0 && text && strcmp(text, "late") == 0, "r=%d, text \"%s\"", r, text ? text : "(null)");
	CU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer wrote");
}

/* The end of a log: its last len - 1 bytes, the offset left where it was; not a FIFO. */
static void test_read_tail(void)
{
	static const struct {
		size_t len;
		ssize_t want;
		const char *data;
	} rows[] = {
		{ 5, 4, "ine\n" },
		{ 100, 16, "first\nlast line\n" },         /* shorter than the buffer: all of it */
		{ 15, 14, "rst\nlast line\n" },
		{ 1, 0, "" },
	};
	_cleanup_close_ int fd = -1, ffd = -1;
	char buf[100] = "x";

	write_file("log", "first\nlast line\n", 16);
	fd = open(path_of("log"), O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ssize_t n = dut_read_tail(fd, buf, rows[i].len);

		CU_CHECK(n == rows[i].want && strcmp(buf, rows[i].data) == 0,
			 "row %zu: %zd \"%s\", want %zd \"%s\"", i, n, buf, rows[i].want, rows[i].data);
	}
	CU_CHECK(lseek(fd, 0, SEEK_CUR) == 0, "the offset did not move");
	CU_CHECK(dut_read_tail(fd, buf, 0) == -EINVAL, "no room for the NUL");
	write_file("empty", "", 0);
	close(TAKE_FD(fd));
	fd = open(path_of("empty"), O_RDONLY | O_CLOEXEC);
	CU_CHECK(dut_read_tail(fd, buf, sizeof(buf)) == 0 && buf[0] == '\0', "empty file");
	unlink(path_of("fifo"));
	CU_ASSERT_FATAL(mkfifo(path_of("fifo"), 0600) == 0);
	ffd = open(path_of("fifo"), O_RDWR | O_CLOEXEC);    /* O_RDWR: the open does not wait for a writer */
	CU_ASSERT_FATAL(ffd >= 0);
	CU_CHECK(dut_read_tail(ffd, buf, sizeof(buf)) == -EINVAL && buf[0] == '\0', "a FIFO is refused, not read");
}

static const struct cu_test tests[] = {
	{ "reads_and_refuses", test_reads_and_refuses },
	{ "atomic_write_leaves_special_files", test_atomic_write_leaves_special_files },
	{ "device_is_refused", test_device_is_refused },
	{ "atomic_write", test_atomic_write },
	{ "read_text_until_eof", test_read_text_until_eof },
	{ "read_fd_alloc_bounds", test_read_fd_alloc_bounds },
	{ "read_fd_alloc_grows", test_read_fd_alloc_grows },
	{ "read_fd_alloc_retries_eintr", test_read_fd_alloc_retries_eintr },
	{ "read_tail", test_read_tail },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "file_io", .init = make_dir, .cleanup = remove_dir, .tests = tests };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The signature read before writing (lib/dev_safety_linux.c,
 * safety_sig_read()): it must give up after its timeout when the device
 * does not answer, where a plain open and pread sleep as long as the
 * device does (#19).  A FIFO with no writer stands in for that device: its
 * open blocks until a writer comes.  A helper thread becomes the writer
 * after 3 s, so a read without a timeout fails the test instead of hanging it.
 *
 *   gives_up_on_a_device_that_does_not_answer  -ETIME within the timeout
 *   reads_a_device_that_answers                a file: its bytes, 0
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/dev_safety.h"
#include "tests/cu_main.h"

#define MS 1000000ull

static uint8_t buf[SIG_SCAN_BYTES];

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* After 3 s: open the FIFO for writing, write a few bytes, close (the reader gets them, then EOF). */
static void *late_writer(void *arg)
{
	const char *path = arg;
	int fd;

	usleep(3000 * 1000);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "late", 4) < 0)
			perror("late_writer");
		close(fd);
	}
	return NULL;
}

static void test_gives_up_on_a_device_that_does_not_answer(void)
{
	char dir[] = "/tmp/test-probe-sigread.XXXXXX", fifo[64];
	pthread_t tid;
	size_t n = 0;
	uint64_t t0, took;
	int r;

	signal(SIGPIPE, SIG_IGN);  /* the reader may be gone when the late writer writes */
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/dev", dir);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	CU_ASSERT_FATAL(pthread_create(&tid, NULL, late_writer, fifo) == 0);
	t0 = mono_ns();
	r = safety_sig_read(fifo, 200 * MS, buf, &n);
	took = mono_ns() - t0;
	CU_CHECK(r == -ETIME, "a read that does not answer returned %d (%s) with %zu bytes after %llu ms, want -ETIME "
		 "after 200 ms", r, strerror(-r), n, (unsigned long long)(took / MS));
	CU_CHECK(took >= 200 * MS && took < 2000 * MS, "gave up after %llu ms, want 200 ms",
		 (unsigned long long)(took / MS));
	/* the writer lets the abandoned open and read finish: the thread then frees its memory */
	pthread_join(tid, NULL);
	usleep(100 * 1000);
	unlink(fifo);
	rmdir(dir);
}

static void test_reads_a_device_that_answers(void)
{
	char path[] = "/tmp/test-probe-sigread.XXXXXX";
	static uint8_t data[SIG_SCAN_BYTES + 4096];
	size_t n = 0;
	int fd, r;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, data, sizeof(data)) == (ssize_t)sizeof(data));
	close(fd);
	r = safety_sig_read(path, 5000 * MS, buf, &n);
	CU_CHECK(r == 0 && n == SIG_SCAN_BYTES, "read returned %d, %zu bytes, want 0 and %u", r, n, SIG_SCAN_BYTES);
	CU_CHECK(memcmp(buf, data, SIG_SCAN_BYTES) == 0, "the bytes read are not the file's");
	r = safety_sig_read(path, 0, buf, &n);  /* no limit */
	CU_CHECK(r == 0 && n == SIG_SCAN_BYTES, "without a limit: %d, %zu bytes", r, n);
	unlink(path);
	r = safety_sig_read(path, 5000 * MS, buf, &n);
	CU_CHECK(r == -ENOENT, "a missing path: %d, want -ENOENT", r);
}

static const struct cu_test tests[] = {
	{ "gives_up_on_a_device_that_does_not_answer", test_gives_up_on_a_device_that_does_not_answer },
	{ "reads_a_device_that_answers", test_reads_a_device_that_answers },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_sigread", .tests = tests };

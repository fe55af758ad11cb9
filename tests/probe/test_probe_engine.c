/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The io_uring engine's error paths (probe/engine_uring.c), through its ops
 * seam (engine_uring_set_ops) against pipes: a read from a pipe stays in
 * flight until someone writes, so "I/O in flight that does not complete"
 * needs no device, and a writer thread makes reads complete at a set pace.
 *
 *   tick_tag_survives_liburing_timeout_filter  ring without IORING_FEAT_EXT_ARG
 *       (liburing then eats CQEs tagged LIBURING_UDATA_TIMEOUT): no false stall
 *       on a slow but moving run, and a real stall is still declared
 *   ring_error_in_flight_keeps_buffers  a ring that fails with I/O in flight:
 *       the run ends with that error, the buffers are not freed, the file stays
 *       registered (unregistering would wait for the I/O)
 *   ring_error_keeps_earlier_error      an I/O error, then the ring fails: the
 *       I/O error is the run's error
 *   stall_record_names_inflight         what a stall records: count, oldest age
 *       and offset, the block layer's count (fake sysfs), the cancel's answer
 *   stall_description                   probe_stall_describe() table
 *   seq_submits_each_io_alone           a sequential job hands the kernel one
 *       SQE per submit (adjacent blocks submitted together are merged into
 *       bigger requests by the block layer's plug); a random job still batches
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "probe/engine.h"
#include "probe/probe.h"
#include "tests/cu_main.h"

#define MS 1000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- the fake ring: the real one, with counters and injected failures --- */
static struct {
	bool hide_ext_arg;        /* clear IORING_FEAT_EXT_ARG after setup */
	unsigned real_cqes;       /* CQEs the engine reaps from the real ring before waits fail */
	int wait_error;           /* then return this (0: never fail) */
	unsigned waits, buffers_freed, files_unregistered, exits;
	unsigned submits, max_sqes_per_submit;  /* submits that carried SQEs; the most SQEs in one */
	void *buffers[8];         /* what register_buffers saw: the I/O buffers */
	unsigned nbuffers;
} fake;

static int fake_queue_init_params(unsigned entries, struct io_uring *ring, struct io_uring_params *p)
{
	int r = io_uring_queue_init_params(entries, ring, p);

	if (r == 0 && fake.hide_ext_arg)
		ring->features &= ~IORING_FEAT_EXT_ARG;  /* liburing now acts as on 5.10 */
	return r;
}

/*
 * Fails once the engine has reaped real_cqes CQEs (the CQ head, which only
 * the engine advances on a fresh ring), not after a count of waits: the
 * engine may reap a CQE by peeking without waiting (a loaded machine lets
 * the pipe's writer run before the engine's first wait), and then a wait
 * counted as "the one that sees it" would block on reads that never come.
 */
static int fake_wait_cqe(struct io_uring *ring, struct io_uring_cqe **ret)
{
	fake.waits++;
	if (fake.wait_error && *ring->cq.khead >= fake.real_cqes)
		return fake.wait_error;
	return io_uring_wait_cqe(ring, ret);
}

static int fake_submit(struct io_uring *ring)
{
	unsigned n = io_uring_sq_ready(ring);

	if (n) {
		fake.submits++;
		if (n > fake.max_sqes_per_submit)
			fake.max_sqes_per_submit = n;
	}
	return io_uring_submit(ring);
}

static int fake_register_buffers(struct io_uring *ring, const struct iovec *iov, unsigned n)
{
	/* the block starts at iov[0]: kept reachable here, so a leak checker stays quiet when it is leaked */
	if (fake.nbuffers < 8)
		fake.buffers[fake.nbuffers++] = iov[0].iov_base;
	return io_uring_register_buffers(ring, iov, n);
}

static int fake_unregister_files(struct io_uring *ring)
{
	fake.files_unregistered++;
	return io_uring_unregister_files(ring);
}

static void fake_queue_exit(struct io_uring *ring)
{
	fake.exits++;
	io_uring_queue_exit(ring);
}

static void fake_buffers_free(void *mem)
{
	fake.buffers_freed++;
	for (unsigned i = 0; i < fake.nbuffers; i++)
		if (fake.buffers[i] == mem)
			fake.buffers[i] = NULL;
	free(mem);
}

static const struct engine_uring_ops fake_ops = {
	.queue_init_params = fake_queue_init_params,
	.submit = fake_submit,
	.submit_and_wait = io_uring_submit_and_wait,
	.wait_cqe = fake_wait_cqe,
	.register_buffers = fake_register_buffers,
	.register_files = io_uring_register_files,
	.unregister_files = fake_unregister_files,
	.queue_exit = fake_queue_exit,
	.buffers_free = fake_buffers_free,
};

static void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	engine_uring_set_ops(&fake_ops);
}

/* Buffers the engine leaked on purpose: freed once the kernel is done (the pipe closed, the ring gone). */
static void fake_release_leaked(void)
{
	usleep(100 * 1000);  /* the ring is torn down asynchronously */
	for (unsigned i = 0; i < fake.nbuffers; i++)
		free(fake.buffers[i]);
	fake.nbuffers = 0;
	engine_uring_set_ops(NULL);
}

/* --- a pipe whose reads complete when a writer thread writes --- */
struct writer {
	int fd;
	size_t chunk;             /* bytes per write; 0 = close the pipe instead */
	uint64_t every_ns;        /* pace; 0 = one write only */
	uint64_t first_ns;        /* delay before the first */
	volatile int stop;
	pthread_t tid;
};

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	char buf[4096];

	memset(buf, 0x5a, sizeof(buf));
	for (uint64_t t = 0; t < wr->first_ns && !wr->stop; t += MS)
		usleep(1000);
	if (!wr->chunk) {
		close(wr->fd);  /* EOF: every read in flight completes with 0 */
		return NULL;
	}
	do {
		if (write(wr->fd, buf, wr->chunk) < 0)
			break;
		if (!wr->every_ns)
			break;
		usleep((useconds_t)(wr->every_ns / 1000));
	} while (!wr->stop);
	return NULL;
}

static void job_on_pipe(struct engine_job *j, int fd, unsigned qd)
{
	memset(j, 0, sizeof(*j));
	j->fd = fd;
	j->pattern = PROBE_SEQ;
	j->dir = PROBE_READ;
	j->bs_bytes = 512;
	j->qd = qd;
	j->threads = 1;
	j->span_bytes = 1u << 20;
	j->wrap = true;
	j->fixed_files = j->fixed_bufs = true;
	j->seed = 1;
}

static void test_tick_tag_survives_liburing_timeout_filter(void)
{
	struct engine_job j;
	struct engine_result r;
	struct writer wr = { .chunk = 512, .every_ns = 3 * MS };
	int p[2];

	/*
	 * 1. Reads complete every 3 ms; the watchdog ticks every 500 ms, and
	 * the loop spends most of its time waiting, so a tick's CQE arrives
	 * during a wait.  The 2 s timeout leaves a loaded machine room: only a
	 * swallowed tick can end this run early.
	 */
	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	fake_reset();
	fake.hide_ext_arg = true;
	wr.fd = p[1];
	CU_ASSERT_FATAL(pthread_create(&wr.tid, NULL, writer_main, &wr) == 0);
	job_on_pipe(&j, p[0], 1);
	j.stall_ns = 2000 * MS;
	j.time_limit_ns = 1200 * MS;
	CU_ASSERT_FATAL(engine_run(&j, &r) == 0);
	CU_CHECK(r.error == 0, "a moving run without EXT_ARG ended with error %d (%s; %s): the watchdog's CQE "
		 "was taken for liburing's own timeout", r.error, strerror(-r.error),
		 r.stall.stall_ns ? "declared as a stall" : "as a failed ring");
	CU_CHECK(r.ios > 10, "only %llu reads completed", (unsigned long long)r.ios);
	engine_result_free(&r);
	wr.stop = 1;
	pthread_join(wr.tid, NULL);
	close(p[1]);
	close(p[0]);
	fake_release_leaked();

	/*
	 * 2. Nobody writes: the stall must still be declared (the ticks reach
	 * the loop).  The writer closes the pipe after 3 s, so a blind
	 * watchdog fails this check instead of hanging the test.
	 */
	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	fake_reset();
	fake.hide_ext_arg = true;
	job_on_pipe(&j, p[0], 2);
	j.stall_ns = 40 * MS;
	{
		struct writer closer = { .fd = p[1], .chunk = 0, .first_ns = 3000 * MS };
		uint64_t t0 = mono_ns();

		CU_ASSERT_FATAL(pthread_create(&closer.tid, NULL, writer_main, &closer) == 0);
		CU_ASSERT_FATAL(engine_run(&j, &r) == 0);
		closer.stop = 1;
		CU_CHECK(r.error == -ENGINE_ESTALL, "no data for 40 ms without EXT_ARG: error %d, want the stall",
			 r.error);
		CU_CHECK(mono_ns() - t0 < 1000 * MS, "the stall took %llu ms to be declared",
			 (unsigned long long)((mono_ns() - t0) / MS));
		engine_result_free(&r);
		pthread_join(closer.tid, NULL);  /* it closed p[1] */
	}
	close(p[0]);
	fake_release_leaked();
}

static void test_ring_error_in_flight_keeps_buffers(void)
{
	struct engine_job j;
	struct engine_result r;
	int p[2];

	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	fake_reset();
	fake.wait_error = -EBADR;  /* the first wait fails: 4 reads are in flight */
	job_on_pipe(&j, p[0], 4);
	CU_ASSERT_FATAL(engine_run(&j, &r) == 0);
	CU_CHECK(r.error == -EBADR, "error %d, want the ring's -EBADR", r.error);
	CU_CHECK(!r.error_at_offset, "a ring error was reported at an offset (%llu)",
		 (unsigned long long)r.error_offset);
	CU_CHECK(r.abandoned_ios == 4, "%u I/Os reported abandoned, want 4", r.abandoned_ios);
	CU_CHECK(fake.buffers_freed == 0, "the buffers of 4 reads in flight were freed");
	CU_CHECK(fake.files_unregistered == 0, "the file was unregistered with reads in flight");
	CU_CHECK(fake.exits == 1, "queue_exit called %u times", fake.exits);
	engine_result_free(&r);
	close(p[1]);  /* the reads complete (EOF) into the leaked buffers */
	close(p[0]);
	fake_release_leaked();
}

static void test_ring_error_keeps_earlier_error(void)
{
	struct engine_job j;
	struct engine_result r;
	struct writer wr = { .chunk = 100, .first_ns = 20 * MS };  /* one short read */
	int p[2];

	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	fake_reset();
	fake.real_cqes = 1;        /* the short read is reaped, then the ring fails */
	fake.wait_error = -EBADR;
	wr.fd = p[1];
	CU_ASSERT_FATAL(pthread_create(&wr.tid, NULL, writer_main, &wr) == 0);
	job_on_pipe(&j, p[0], 4);
	CU_ASSERT_FATAL(engine_run(&j, &r) == 0);
	pthread_join(wr.tid, NULL);
	CU_CHECK(r.error == -EIO, "error %d, want the short read's -EIO (the ring's later -EBADR must not replace it)",
		 r.error);
	CU_CHECK(r.error_at_offset, "the short read's error has no offset");
	CU_CHECK(r.abandoned_ios == 3, "%u I/Os reported abandoned, want 3", r.abandoned_ios);
	CU_CHECK(fake.buffers_freed == 0, "buffers freed with 3 reads in flight");
	engine_result_free(&r);
	close(p[1]);
	close(p[0]);
	fake_release_leaked();
}

static void test_stall_record_names_inflight(void)
{
	char root[] = "/tmp/test-probe-engine.XXXXXX", path[512], link[512];
	struct engine_job j;
	struct engine_result r;
	struct engine_stall last;
	struct stat st;
	const char *msg;
	FILE *f;
	int p[2];

	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	CU_ASSERT_FATAL(fstat(p[0], &st) == 0);
	CU_ASSERT_FATAL(mkdtemp(root) != NULL);
	/*
	 * The block layer's count, faked: the pipe's st_dev stands for the
	 * device; /sys/dev/block/M:m is a link to the device's directory, as in sysfs.
	 */
	snprintf(path, sizeof(path), "%s/devices", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/fake0", root);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/dev", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/block", root);
	mkdir(path, 0755);
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", root, major(st.st_dev), minor(st.st_dev));
	CU_ASSERT_FATAL(symlink("../../devices/fake0", link) == 0);
	snprintf(path, sizeof(path), "%s/devices/fake0/inflight", root);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "       3        5\n");
	fclose(f);
	setenv("DUTPROBE_SYSFS_ROOT", root, 1);

	fake_reset();
	job_on_pipe(&j, p[0], 2);
	j.stall_ns = 40 * MS;
	CU_ASSERT_FATAL(engine_run(&j, &r) == 0);
	CU_CHECK(r.error == -ENGINE_ESTALL, "error %d, want the stall", r.error);
	CU_CHECK(r.error_at_offset && r.error_offset == r.stall.oldest_offset, "stall offset %llu (at offset: %d)",
		 (unsigned long long)r.error_offset, r.error_at_offset);
	CU_CHECK(r.stall.inflight == 2 && r.stall.has_oldest, "in flight %u (oldest known: %d), want 2",
		 r.stall.inflight, r.stall.has_oldest);
	CU_CHECK(r.stall.oldest_age_ns >= 40 * MS, "oldest age %llu ns, under the 40 ms timeout",
		 (unsigned long long)r.stall.oldest_age_ns);
	CU_CHECK(r.stall.stall_ns == 40 * MS && r.stall.row.qd == 2 && r.stall.row.bs_bytes == 512,
		 "row or timeout not recorded");
	CU_CHECK(r.stall.dev_known && r.stall.dev_reads == 3 && r.stall.dev_writes == 5 &&
			 strcmp(r.stall.dev_name, "fake0") == 0,
		 "block layer count: known %d, %llu reads %llu writes on \"%s\", want 3 and 5 on fake0",
		 r.stall.dev_known, (unsigned long long)r.stall.dev_reads, (unsigned long long)r.stall.dev_writes,
		 r.stall.dev_name);
	/* a pipe read waits in io_uring (poll), so the cancel takes both back */
	CU_CHECK(r.stall.cancel_answered && r.stall.cancel_res >= 2, "cancel answered %d res %d, want >= 2",
		 r.stall.cancel_answered, r.stall.cancel_res);
	CU_CHECK(r.abandoned_ios == 0 && fake.buffers_freed == 1, "cancelled reads: abandoned %u, freed %u",
		 r.abandoned_ios, fake.buffers_freed);
	CU_CHECK(engine_last_stall(&last) && last.inflight == 2, "engine_last_stall does not hold the stall");
	msg = probe_io_strerror(-ENGINE_ESTALL);
	CU_CHECK(strstr(msg, "row SEQ512 Q2T1 R") && strstr(msg, "2 I/Os in flight") &&
			 strstr(msg, "3 reads and 5 writes in flight on fake0") &&
			 strstr(msg, "/sys/block/fake0/inflight"),
		 "probe_io_strerror: %s", msg);
	engine_result_free(&r);
	unsetenv("DUTPROBE_SYSFS_ROOT");
	unlink(path);
	unlink(link);
	snprintf(path, sizeof(path), "%s/devices/fake0", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/devices", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev/block", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev", root);
	rmdir(path);
	rmdir(root);
	close(p[1]);
	close(p[0]);
	fake_release_leaked();
}

static void test_stall_description(void)
{
	/* a macro, not a const object: clang wants constant initializers in a static table */
#define W8 { .pattern = PROBE_SEQ, .dir = PROBE_WRITE, .bs_bytes = 1u << 20, .qd = 8, .threads = 1 }
	static const struct {
		const char *name;
		struct engine_stall st;
		const char *want[4];
		const char *never;
	} rows[] = {
		{ "at the device, not cancellable, abandoned",
		  { .stall_ns = 20000 * MS, .row = W8, .inflight = 8, .has_oldest = true, .oldest_age_ns = 21000 * MS,
		    .oldest_offset = 1048576, .dev_known = true, .dev_major = 259, .dev_minor = 0, .dev_name = "nvme0n1", .dev_writes = 8,
		    .cancel_answered = true, .cancel_res = 0, .abandoned_ios = 8 },
		  { "row SEQ1M Q8T1 W", "8 I/Os in flight, the oldest for 21", "at offset 1048576",
		    "0 reads and 8 writes in flight on nvme0n1 (259:0, /sys/block/nvme0n1/inflight)" },
		  "cancelled what" },
		{ "none in flight: no offset",
		  { .stall_ns = 20000 * MS, .row = W8, .dev_known = true, .dev_major = 8, .dev_minor = 16,
		    .cancel_answered = true, .cancel_res = -ENOENT },
		  { "dutprobe had none in flight", "none in flight on 8:16 (/sys/dev/block/8:16/inflight)",
		    "nothing waits for the device",
		    "nothing could be cancelled" },
		  "offset" },
		{ "lost above the block layer",
		  { .stall_ns = 1000 * MS, .row = W8, .inflight = 1, .has_oldest = true, .oldest_age_ns = 1000 * MS,
		    .dev_known = true, .dev_major = 7, .dev_minor = 0 },
		  { "1 I/O in flight", "wait above it", "no answer", "cannot be cancelled" },
		  "stopped waiting" },
		{ "a partition: /sys/class/block",
		  { .stall_ns = 1000 * MS, .row = W8, .inflight = 1, .has_oldest = true, .oldest_age_ns = 1000 * MS,
		    .dev_known = true, .dev_major = 254, .dev_minor = 1, .dev_name = "vda1", .dev_partition = true,
		    .dev_reads = 1 },
		  { "1 read and 0 writes in flight on vda1 (254:1, /sys/class/block/vda1/inflight)" },
		  "/sys/block/" },
		{ "no block device (FUSE)",
		  { .stall_ns = 1000 * MS, .row = W8, .inflight = 4, .has_oldest = true, .oldest_age_ns = 1000 * MS,
		    .cancel_answered = true, .cancel_res = -EINVAL },
		  { "no block layer count", "before 5.19", "4 I/Os", "--stall-timeout (1 s)" },
		  "/sys/dev/block" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[1024];

		probe_stall_describe(&rows[i].st, buf, sizeof(buf));
		for (size_t k = 0; k < 4 && rows[i].want[k]; k++)
			CU_CHECK(strstr(buf, rows[i].want[k]) != NULL, "%s: no \"%s\" in: %s", rows[i].name,
				 rows[i].want[k], buf);
		CU_CHECK(strstr(buf, rows[i].never) == NULL, "%s: \"%s\" in: %s", rows[i].name, rows[i].never, buf);
	}
}
#undef W8

/*
 * Reads of a small file that the page cache holds complete inside the
 * submit, so every wake-up reaps a whole queue and a batching loop would
 * submit qd SQEs at once.  The file is opened without O_DIRECT so the test
 * runs on tmpfs too: the submit path is the same.
 */
static void test_seq_submits_each_io_alone(void)
{
	static const struct {
		const char *name;
		enum probe_pattern pattern;
		unsigned max_sqes;        /* the most SQEs one submit may carry */
		unsigned min_max_sqes;    /* ...and the least that some submit must */
	} rows[] = {
		{ "sequential: one I/O per submit", PROBE_SEQ, 1, 1 },
		{ "random: the whole queue in one submit", PROBE_RAND, 8, 8 },
	};
	char path[] = "/tmp/test-probe-engine.XXXXXX";
	static char block[64 << 10];
	int fd;

	fd = mkostemp(path, O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	memset(block, 0x5a, sizeof(block));
	for (int i = 0; i < 16; i++)
		CU_ASSERT_FATAL(write(fd, block, sizeof(block)) == (ssize_t)sizeof(block));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct engine_job j = {
			.fd = fd, .pattern = rows[i].pattern, .dir = PROBE_READ, .bs_bytes = 4096, .qd = 8,
			.threads = 1, .span_bytes = 1u << 20, .wrap = true, .time_limit_ns = 50 * MS,
			.fixed_files = true, .fixed_bufs = true, .seed = 1,
		};
		struct engine_result r;

		fake_reset();
		CU_ASSERT_FATAL(engine_run(&j, &r) == 0);
		CU_CHECK(r.error == 0, "%s: error %d", rows[i].name, r.error);
		CU_CHECK(r.ios > 100, "%s: only %llu reads", rows[i].name, (unsigned long long)r.ios);
		CU_CHECK(fake.max_sqes_per_submit <= rows[i].max_sqes && fake.max_sqes_per_submit >= rows[i].min_max_sqes,
			 "%s: up to %u SQEs in one submit (%u submits), want %u-%u", rows[i].name,
			 fake.max_sqes_per_submit, fake.submits, rows[i].min_max_sqes, rows[i].max_sqes);
		engine_result_free(&r);
		engine_uring_set_ops(NULL);
	}
	close(fd);
}

static const struct cu_test tests[] = {
	{ "tick_tag_survives_liburing_timeout_filter", test_tick_tag_survives_liburing_timeout_filter },
	{ "ring_error_in_flight_keeps_buffers", test_ring_error_in_flight_keeps_buffers },
	{ "ring_error_keeps_earlier_error", test_ring_error_keeps_earlier_error },
	{ "stall_record_names_inflight", test_stall_record_names_inflight },
	{ "stall_description", test_stall_description },
	{ "seq_submits_each_io_alone", test_seq_submits_each_io_alone },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_engine", .tests = tests };

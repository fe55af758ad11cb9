/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The io_uring transport: whether to try it (the fuse module's enable_uring,
 * with the $DUTFS_FUSE_PARAMS_DIR seam), the queue count, why it fell back,
 * and what stats.json says.  The rings themselves: uring_linux.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse/uring.h"
#include "fuse/uring_priv.h"

#define PARAMS_DIR_DEFAULT "/sys/module/fuse/parameters"
#define CPU_POSSIBLE "/sys/devices/system/cpu/possible"

static const char *params_dir(void)
{
	const char *d = getenv("DUTFS_FUSE_PARAMS_DIR");

	return d && *d ? d : PARAMS_DIR_DEFAULT;
}

/* 1 on, 0 off, -errno unreadable */
static int param_read(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = (int)read(fd, &c, 1);
	close(fd);
	if (r != 1)
		return r < 0 ? -errno : -EIO;
	return c == 'Y' || c == 'y' || c == '1';
}

static int param_write_on(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, "Y", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

void dutfs_transport_fall_back(struct dutfs_transport *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->reason, sizeof(t->reason), fmt, ap);
	va_end(ap);
	t->try_uring = false;
}

void dutfs_transport_decide(struct dutfs_transport *t)
{
	char path[512];
	int on;

	snprintf(path, sizeof(path), "%s/enable_uring", params_dir());
	on = param_read(path);
	if (on < 0) {
		dutfs_transport_fall_back(t, "this kernel has no FUSE over io_uring (%s: %s; it needs Linux 6.14+ "
			  "with CONFIG_FUSE_IO_URING)", path, strerror(-on));
		return;
	}
	if (on)
		return;
	if (t->mode == DUTFS_TRANSPORT_AUTO) {
		dutfs_transport_fall_back(t, "the fuse module's enable_uring is off (--transport uring as root turns it on)");
		return;
	}
	if (geteuid() != 0) {
		dutfs_transport_fall_back(t, "the fuse module's enable_uring is off and only root may turn it on (%s)", path);
		return;
	}
	on = param_write_on(path);
	if (on < 0) {
		dutfs_transport_fall_back(t, "cannot turn on the fuse module's enable_uring (%s: %s)", path, strerror(-on));
		return;
	}
	snprintf(t->param_note, sizeof(t->param_note),
		 "dutfs turned the fuse module's enable_uring on (it stays on)");
}

unsigned dutfs_transport_possible_cpus(void)
{
	char buf[256];
	ssize_t n;
	int fd = open(CPU_POSSIBLE, O_RDONLY | O_CLOEXEC);
	unsigned c = 0;

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			c = dutfs_uring_cpu_count(buf);
		}
		close(fd);
	}
	if (!c) {
		long s = sysconf(_SC_NPROCESSORS_CONF);

		c = s > 0 ? (unsigned)s : 1;
	}
	return c;
}

/* ---- what was chosen ---- */

bool dutfs_transport_is_uring(const struct dutfs_transport *t)
{
	return t && t->uring_on;
}

void dutfs_transport_get_info(const struct dutfs_transport *t, struct dutfs_transport_info *ret)
{
	*ret = (struct dutfs_transport_info){
		.name = dutfs_transport_is_uring(t) ? "uring" : "dev",
		.requested = dutfs_transport_mode_name(t ? t->mode : DUTFS_TRANSPORT_DEV),
		.reason = t && !t->uring_on ? t->reason : "",
		.param_note = t ? t->param_note : "",
		.queues = t && t->uring_on ? t->queues : 0,
		.threads_per_queue = t && t->uring_on ? t->threads_per_queue : 0,
		.entries_per_thread = t && t->uring_on ? t->entries_per_thread : 0,
	};
}

/* Requests served per queue (qid = CPU): where the kernel put them. */
static struct json_object *queue_requests_json(const struct dutfs_transport *t)
{
	struct json_object *a = json_object_new_array();

	for (unsigned q = 0; a && q < t->queues; q++) {
		uint64_t n = 0;

		for (unsigned k = 0; k < t->nrts; k++)
			if (t->rts[k].qid == q)
				n += atomic_load_explicit(&t->rts[k].nreq, memory_order_relaxed);
		json_object_array_add(a, json_object_new_uint64(n));
	}
	return a;
}

struct json_object *dutfs_transport_stats_json(const struct dutfs_transport *t)
{
	struct dutfs_transport_info i;
	struct json_object *o = json_object_new_object();
	uint64_t nreq = 0, nerr = 0;

	if (!o)
		return NULL;
	dutfs_transport_get_info(t, &i);
	for (unsigned k = 0; t && k < t->nrts; k++) {
		nreq += atomic_load_explicit(&t->rts[k].nreq, memory_order_relaxed);
		nerr += atomic_load_explicit(&t->rts[k].nerr, memory_order_relaxed);
	}
	json_object_object_add(o, "name", json_object_new_string(i.name));
	json_object_object_add(o, "requested", json_object_new_string(i.requested));
	if (i.reason[0])
		json_object_object_add(o, "fallback_reason", json_object_new_string(i.reason));
	if (i.param_note[0])
		json_object_object_add(o, "enable_uring", json_object_new_string(i.param_note));
	if (dutfs_transport_is_uring(t)) {
		json_object_object_add(o, "queues", json_object_new_int((int)i.queues));
		json_object_object_add(o, "threads_per_queue", json_object_new_int((int)i.threads_per_queue));
		json_object_object_add(o, "entries_per_thread", json_object_new_int((int)i.entries_per_thread));
		json_object_object_add(o, "ring_requests", json_object_new_uint64(nreq));
		json_object_object_add(o, "ring_errors", json_object_new_uint64(nerr));
		json_object_object_add(o, "queue_requests", queue_requests_json(t));
	}
	return o;
}

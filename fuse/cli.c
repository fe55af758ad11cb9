/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/cli.h"
#include "lib/trace.h"
#include "lib/units.h"

const char dutfs_cli_usage[] =
	"usage: dutfs BACKING_DIR MOUNTPOINT [--trace FILE] [--view device|syscall] [-f]\n"
	"             [--trace-max SIZE [--trace-segments N]]\n"
	"             [--pidfile FILE] [--threads N] [-o FUSE_OPTS] [--debug]\n"
	"             [--backing-cache drop|keep] [--stats-mode MODE]\n"
	"             [--shape RULES.ini [--relmap FILE] [--preimage-max SIZE]]\n"
	"             [--transport dev|uring|auto] [--uring-entries N] [--nice N]\n"
	"\n"
	"Mount a tracing passthrough of BACKING_DIR on MOUNTPOINT.\n"
	"  --trace FILE     write a binary I/O trace (without it nothing is traced)\n"
	"  --trace-max SIZE keep the trace within SIZE (e.g. 2G): when the newest of its\n"
	"                   segments is full it becomes FILE.N and the oldest is removed;\n"
	"                   FILE.seconds keeps every second's counts and latencies\n"
	"  --trace-segments N  segments of --trace-max (default 4, 2 to 64)\n"
	"  --view device    page cache and writeback cache on (default): the trace shows\n"
	"                   what would reach the device\n"
	"  --view syscall   direct_io: the trace shows every read and write issued\n"
	"  -f               stay in the foreground\n"
	"  --pidfile FILE   write the daemon's pid to FILE\n"
	"  --threads N      maximum FUSE worker threads (default 16)\n"
	"  --nice N         nice value of the threads that serve requests, -20 to 19\n"
	"                   (default: the caller's; below 0 they run before the\n"
	"                   processes whose reads wait on them; needs root or CAP_SYS_NICE)\n"
	"  -o OPTS          extra FUSE mount options\n"
	"  --debug          log every FUSE request (implies -f)\n"
	"  --backing-cache drop|keep  obsolete, no effect (the device view's backing\n"
	"                   I/O is O_DIRECT: the backing files keep no copy)\n"
	"  --stats-mode MODE  permissions of MOUNTPOINT/.dutfs/stats.json: 0400 (default,\n"
	"                   the mounting user), 0440 (and its group) or 0444 (everyone)\n"
	"  --shape FILE     shape I/O with the device models and faults of FILE\n"
	"                   (docs/shaping.md); control commands crash, recover, reload\n"
	"  --relmap FILE    relation map JSON: tells heap from index for --shape rules\n"
	"  --preimage-max SIZE  memory for the old content of unsynced writes (default\n"
	"                   512M); writes beyond it fail with ENOSPC\n"
	"  --transport dev  requests through reads and writes of /dev/fuse (default)\n"
	"  --transport uring  FUSE over io_uring (Linux 6.14+); as root dutfs turns the\n"
	"                   fuse module's enable_uring on if it is off; falls back to\n"
	"                   /dev/fuse, saying why, where the kernel does not offer it\n"
	"  --transport auto io_uring if the kernel already offers it, else /dev/fuse\n"
	"                   (default of --transport: $DUTFS_TRANSPORT, else dev)\n"
	"  --uring-entries N  ring entries per ring thread (default 1; 8 with --shape)\n"
	"Stop with `umount MOUNTPOINT` or SIGTERM.  Live statistics: MOUNTPOINT/.dutfs/stats.json\n";

const char *dutfs_view_name(enum dutfs_view v)
{
	return v == DUTFS_VIEW_SYSCALL ? "syscall" : "device";
}

const char *dutfs_transport_mode_name(enum dutfs_transport_mode m)
{
	return m == DUTFS_TRANSPORT_URING ? "uring" : m == DUTFS_TRANSPORT_AUTO ? "auto" : "dev";
}

int dutfs_transport_mode_parse(const char *opt, const char *v, enum dutfs_transport_mode *ret,
			       struct dut_error *err)
{
	static const enum dutfs_transport_mode modes[] = {
		DUTFS_TRANSPORT_DEV, DUTFS_TRANSPORT_URING, DUTFS_TRANSPORT_AUTO,
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(v, dutfs_transport_mode_name(modes[i]))) {
			*ret = modes[i];
			return 0;
		}
	}
	dut_error_set(err, "%s: \"%s\" is not a transport (use dev, uring or auto)", opt, v);
	return -EINVAL;
}

static int append_opts(struct dutfs_cli *c, const char *v, struct dut_error *err)
{
	size_t old = c->fuse_opts ? strlen(c->fuse_opts) : 0;
	size_t add = strlen(v);
	char *n;

	if (add == 0) {
		dut_error_set(err, "-o needs a non-empty option list (e.g. -o ro)");
		return -EINVAL;
	}
	n = realloc(c->fuse_opts, old + add + 2);
	if (!n)
		return -ENOMEM;
	if (old)
		n[old++] = ',';
	memcpy(n + old, v, add + 1);
	c->fuse_opts = n;
	return 0;
}

static int parse_threads(const char *v, unsigned *ret, struct dut_error *err)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || n < 1 || n > DUTFS_THREADS_MAX) {
		dut_error_set(err, "--threads: \"%s\" is not a number of threads from 1 to %u", v,
			      DUTFS_THREADS_MAX);
		return -EINVAL;
	}
	*ret = (unsigned)n;
	return 0;
}

/* Options that take a value, long and short forms. */
enum opt_id { OPT_TRACE, OPT_VIEW, OPT_PIDFILE, OPT_THREADS, OPT_O, OPT_SHAPE, OPT_RELMAP,
	      OPT_PREIMAGE_MAX, OPT_BACKING_CACHE, OPT_STATS_MODE, OPT_TRANSPORT, OPT_URING_ENTRIES,
	      OPT_TRACE_MAX, OPT_TRACE_SEGMENTS, OPT_NICE };
static const struct {
	const char *name;
	enum opt_id id;
} value_opts[] = {
	{ "--trace", OPT_TRACE }, { "--view", OPT_VIEW }, { "--pidfile", OPT_PIDFILE },
	{ "--threads", OPT_THREADS }, { "-o", OPT_O }, { "--shape", OPT_SHAPE },
	{ "--relmap", OPT_RELMAP }, { "--preimage-max", OPT_PREIMAGE_MAX },
	{ "--backing-cache", OPT_BACKING_CACHE }, { "--stats-mode", OPT_STATS_MODE },
	{ "--transport", OPT_TRANSPORT }, { "--uring-entries", OPT_URING_ENTRIES },
	{ "--trace-max", OPT_TRACE_MAX }, { "--trace-segments", OPT_TRACE_SEGMENTS },
	{ "--nice", OPT_NICE },
};

/* An octal mode that reads only and lets the owner read: 0400, 0440, 0444, 0404. */
static int parse_stats_mode(const char *v, unsigned *ret, struct dut_error *err)
{
	char *end;
	unsigned long m;

	errno = 0;
	m = strtoul(v, &end, 8);
	if (errno || end == v || *end || v[0] == '-' || (m & ~0444ul) || !(m & 0400)) {
		dut_error_set(err, "--stats-mode: \"%s\" is not a read-only octal mode that includes "
			      "the owner (use 0400, 0440 or 0444)", v);
		return -EINVAL;
	}
	*ret = (unsigned)m;
	return 0;
}

static int apply_value(struct dutfs_cli *c, enum opt_id id, const char *name, const char *v,
		       struct dut_error *err)
{
	switch (id) {
	case OPT_TRACE:
	case OPT_PIDFILE:
	case OPT_SHAPE:
	case OPT_RELMAP:
		if (!*v) {
			dut_error_set(err, "%s needs a file name", name);
			return -EINVAL;
		}
		if (id == OPT_TRACE)
			c->trace_path = v;
		else if (id == OPT_PIDFILE)
			c->pidfile = v;
		else if (id == OPT_SHAPE)
			c->shape_path = v;
		else
			c->relmap_path = v;
		return 0;
	case OPT_VIEW:
		if (!strcmp(v, "device")) {
			c->view = DUTFS_VIEW_DEVICE;
		} else if (!strcmp(v, "syscall")) {
			c->view = DUTFS_VIEW_SYSCALL;
		} else {
			dut_error_set(err, "--view: \"%s\" is not a view (use device or syscall)", v);
			return -EINVAL;
		}
		return 0;
	case OPT_BACKING_CACHE:
		if (!strcmp(v, "drop") || !strcmp(v, "keep")) {
			c->backing_cache_given = true;
			return 0;
		}
		dut_error_set(err, "--backing-cache: \"%s\" is not drop or keep", v);
		return -EINVAL;
	case OPT_THREADS:
		return parse_threads(v, &c->threads, err);
	case OPT_STATS_MODE:
		return parse_stats_mode(v, &c->stats_mode, err);
	case OPT_PREIMAGE_MAX:
		if (dut_parse_size(v, &c->preimage_max_bytes, err) < 0 || c->preimage_max_bytes == 0) {
			dut_error_set(err, "--preimage-max: \"%s\" is not a size such as 512M or 2G", v);
			return -EINVAL;
		}
		return 0;
	case OPT_O:
		return append_opts(c, v, err);
	case OPT_TRACE_MAX:
		if (dut_parse_size(v, &c->trace_max_bytes, err) < 0 || c->trace_max_bytes == 0) {
			dut_error_set(err, "--trace-max: \"%s\" is not a size such as 512M or 2G", v);
			return -EINVAL;
		}
		return 0;
	case OPT_TRACE_SEGMENTS: {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (errno || end == v || *end || v[0] == '-' || n < 2 || n > DUT_TRACE_SEGMENTS_MAX) {
			dut_error_set(err, "--trace-segments: \"%s\" is not a number from 2 to %u", v,
				      DUT_TRACE_SEGMENTS_MAX);
			return -EINVAL;
		}
		c->trace_segments = (unsigned)n;
		return 0;
	}
	case OPT_TRANSPORT:
		c->transport_given = true;
		return dutfs_transport_mode_parse(name, v, &c->transport, err);
	case OPT_URING_ENTRIES: {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (errno || end == v || *end || v[0] == '-' || n < 1 || n > DUTFS_URING_ENTRIES_MAX) {
			dut_error_set(err, "--uring-entries: \"%s\" is not a number from 1 to %u", v,
				      DUTFS_URING_ENTRIES_MAX);
			return -EINVAL;
		}
		c->uring_entries = (unsigned)n;
		return 0;
	}
	case OPT_NICE: {
		char *end;
		long n;

		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || end == v || *end || n < -20 || n > 19) {
			dut_error_set(err, "--nice: \"%s\" is not a nice value from -20 to 19", v);
			return -EINVAL;
		}
		c->nice = (int)n;
		c->nice_given = true;
		return 0;
	}
	}
	return -EINVAL;
}

static int parse_one(struct dutfs_cli *c, int argc, char *const argv[], int *i,
		     unsigned *npos, struct dut_error *err)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-f") || !strcmp(a, "--foreground")) {
		c->foreground = true;
		return 0;
	}
	if (!strcmp(a, "--debug") || !strcmp(a, "-d")) {
		c->debug = true;
		c->foreground = true;
		return 0;
	}
	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		c->help = true;
		return 0;
	}
	if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
		c->version = true;
		return 0;
	}
	for (size_t k = 0; k < sizeof(value_opts) / sizeof(value_opts[0]); k++) {
		const char *n = value_opts[k].name;
		size_t nl = strlen(n);

		if (strncmp(a, n, nl))
			continue;
		if (a[nl] == '=' && n[1] == '-')
			return apply_value(c, value_opts[k].id, n, a + nl + 1, err);
		if (a[nl] == '\0') {
			if (*i + 1 >= argc) {
				dut_error_set(err, "%s needs a value", n);
				return -EINVAL;
			}
			return apply_value(c, value_opts[k].id, n, argv[++*i], err);
		}
		if (!strcmp(n, "-o")) /* "-oallow_other" */
			return apply_value(c, OPT_O, n, a + nl, err);
	}
	if (a[0] == '-' && a[1] != '\0') {
		dut_error_set(err, "unknown option \"%s\" (see dutfs --help)", a);
		return -EINVAL;
	}
	if (*npos == 0)
		c->backing = a;
	else if (*npos == 1)
		c->mountpoint = a;
	else {
		dut_error_set(err, "unexpected argument \"%s\": dutfs takes BACKING_DIR and MOUNTPOINT only", a);
		return -EINVAL;
	}
	++*npos;
	return 0;
}

/* --trace-max needs --trace, and room for its segments. */
static int check_trace_max(const struct dutfs_cli *c, struct dut_error *err)
{
	unsigned nseg = c->trace_segments ? c->trace_segments : DUT_TRACE_SEGMENTS_DEFAULT;

	if ((c->trace_max_bytes || c->trace_segments) && !c->trace_path) {
		dut_error_set(err, "%s bounds the trace file: give --trace FILE too",
			      c->trace_max_bytes ? "--trace-max" : "--trace-segments");
		return -EINVAL;
	}
	if (c->trace_segments && !c->trace_max_bytes) {
		dut_error_set(err, "--trace-segments only serves --trace-max (give --trace-max SIZE too)");
		return -EINVAL;
	}
	if (c->trace_max_bytes && c->trace_max_bytes / nseg < DUT_TRACE_SEGMENT_MIN_BYTES) {
		dut_error_set(err, "--trace-max: %llu bytes is too small for %u segments of at least "
			      "1 MiB (give at least %uM, or fewer --trace-segments)",
			      (unsigned long long)c->trace_max_bytes, nseg, nseg);
		return -EINVAL;
	}
	return 0;
}

int dutfs_cli_parse(int argc, char *const argv[], struct dutfs_cli *ret, struct dut_error *err)
{
	struct dutfs_cli c = { .view = DUTFS_VIEW_DEVICE, .threads = DUTFS_THREADS_DEFAULT,
			       .stats_mode = DUTFS_STATS_MODE_DEFAULT, .nice = DUTFS_NICE_DEFAULT };
	unsigned npos = 0;
	int r;

	for (int i = 1; i < argc; i++) {
		r = parse_one(&c, argc, argv, &i, &npos, err);
		if (r < 0) {
			dutfs_cli_free(&c);
			return r;
		}
	}
	if (!c.help && !c.version && (c.relmap_path || c.preimage_max_bytes) && !c.shape_path) {
		dut_error_set(err, "%s only serves --shape rules (give --shape RULES.ini too)",
			      c.relmap_path ? "--relmap" : "--preimage-max");
		dutfs_cli_free(&c);
		return -EINVAL;
	}
	if (!c.help && !c.version && check_trace_max(&c, err) < 0) {
		dutfs_cli_free(&c);
		return -EINVAL;
	}
	if (!c.help && !c.version && npos < 2) {
		dut_error_set(err, "missing %s (usage: dutfs BACKING_DIR MOUNTPOINT [--trace FILE] ...)",
			      npos == 0 ? "BACKING_DIR and MOUNTPOINT" : "MOUNTPOINT");
		dutfs_cli_free(&c);
		return -EINVAL;
	}
	*ret = c;
	return 0;
}

void dutfs_cli_free(struct dutfs_cli *c)
{
	free(c->fuse_opts);
	c->fuse_opts = NULL;
}

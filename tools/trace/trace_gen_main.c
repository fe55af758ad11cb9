/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-gen: write a synthetic dutfs trace (tools/trace/trace_gen.h), for the
 * streaming report's tests and benchmarks (docs/soak.md).
 *
 *   trace-gen [--records N] [--seed S] [--threads T] [--round-recs N]
 *             [--frame-recs N] [--files N] [--pids N] [--markers N]
 *             [--gap-ns NS] [--disorder PCT] [--stragglers ROUNDS] [--ties]
 *             [--unknown-ids] [--dutfs-heavy] [--no-footer] [--v1.0]
 *             [--compact] [--v2.0] [--cut BYTES] FILE
 *
 * --compact writes a 2.1 trace (CSPAN and CRECORDS frames, what dutfs
 * writes), --v2.0 a 2.0 one (CRECORDS frames without CSPAN, what dutfs
 * wrote before 2.1), else 1.1 (48-byte RECORDS frames); the records are
 * the same.
 *
 * --cut keeps only the first BYTES bytes (a trace whose writer was killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/trace/trace_gen.h"

struct sink {
	int fd;
	uint64_t left;                 /* --cut: bytes still to write */
};

static int sink_write(void *ctx, const void *p, size_t n)
{
	struct sink *s = ctx;
	const char *c = p;

	if (n > s->left)
		n = (size_t)s->left;
	s->left -= n;
	while (n > 0) {
		ssize_t k = write(s->fd, c, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static uint64_t num(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-' ||
	    (*end && (end[1] || !strchr("kMG", *end)))) {
		fprintf(stderr, "trace-gen: --%s \"%s\": expected a number (suffix k, M or G allowed)\n", opt, s);
		exit(2);
	}
	return v * (*end == 'k' ? 1000ull : *end == 'M' ? 1000000ull : *end == 'G' ? 1000000000ull : 1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "records", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' }, { "round-recs", required_argument, NULL, 'r' },
		{ "frame-recs", required_argument, NULL, 'F' }, { "files", required_argument, NULL, 'f' },
		{ "pids", required_argument, NULL, 'p' }, { "markers", required_argument, NULL, 'm' },
		{ "gap-ns", required_argument, NULL, 'g' }, { "disorder", required_argument, NULL, 'd' },
		{ "stragglers", required_argument, NULL, 'S' }, { "ties", no_argument, NULL, 'T' },
		{ "unknown-ids", no_argument, NULL, 'u' }, { "dutfs-heavy", no_argument, NULL, 'H' },
		{ "no-footer", no_argument, NULL, 'N' }, { "v1.0", no_argument, NULL, 'V' },
		{ "cut", required_argument, NULL, 'c' }, { "compact", no_argument, NULL, 'C' },
		{ "v2.0", no_argument, NULL, '2' }, { NULL, 0, NULL, 0 },
	};
	struct trace_gen_opts o = { .records = 100000 };
	struct sink sk = { .left = UINT64_MAX };
	int c, r, idx;

	while ((c = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		const char *name = c == '?' ? "" : opts[idx].name;

		switch (c) {
		case 'n': o.records = num(name, optarg); break;
		case 's': o.seed = num(name, optarg); break;
		case 't': o.threads = (unsigned)num(name, optarg); break;
		case 'r': o.round_recs = (unsigned)num(name, optarg); break;
		case 'F': o.frame_recs = (unsigned)num(name, optarg); break;
		case 'f': o.files = (unsigned)num(name, optarg); break;
		case 'p': o.pids = (unsigned)num(name, optarg); break;
		case 'm': o.markers = (unsigned)num(name, optarg); break;
		case 'g': o.mean_gap_ns = num(name, optarg); break;
		case 'd': o.disorder_pct = (unsigned)num(name, optarg); break;
		case 'S': o.stragglers = (unsigned)num(name, optarg); break;
		case 'T': o.ties = true; break;
		case 'u': o.unknown_ids = true; break;
		case 'H': o.dutfs_heavy = true; break;
		case 'N': o.no_footer = true; break;
		case 'V': o.v1_0 = true; break;
		case 'C': o.compact = true; break;
		case '2': o.compact = o.v2_0 = true; break;
		case 'c': sk.left = num(name, optarg); break;
		default:
			fprintf(stderr, "usage: trace-gen [options] FILE (see tools/trace/trace_gen_main.c)\n");
			return 2;
		}
	}
	if (o.v1_0 && o.compact) {
		fprintf(stderr, "trace-gen: --v1.0 excludes --compact and --v2.0 (compact frames are 2.x)\n");
		return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: trace-gen [options] FILE (see tools/trace/trace_gen_main.c)\n");
		return 2;
	}
	sk.fd = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (sk.fd < 0) {
		fprintf(stderr, "trace-gen: cannot create %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	r = trace_gen(&o, sink_write, &sk);
	if (r == 0 && close(sk.fd) < 0)
		r = -errno;
	if (r < 0) {
		fprintf(stderr, "trace-gen: %s: %s\n", argv[optind], strerror(-r));
		return 1;
	}
	return 0;
}

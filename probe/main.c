/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe: raw device tests over io_uring with O_DIRECT, and identify.
 * main only parses arguments, checks write safety and wires the parts.
 *
 * Exit status: 0 done, 1 failed / refused / interrupted, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/units.h"
#include "probe/identify/identify.h"
#include "probe/probe.h"
#include "lib/dev_safety.h"

#define EXIT_USAGE 2

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* The first Ctrl-C asks the test to stop and print what it has; a second one kills. */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;   /* no SA_RESTART: a blocked io_uring_enter returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

struct command {
	const char *name;
	const char *summary;
	const struct probe_test_ops *test;     /* a test, run by run_test() */
	int (*main)(int argc, char **argv);    /* or a command with its own main */
};

static const struct command commands[] = {
	{ .name = "identify", .summary = "what the device is, and what its link can carry",
	  .main = dutprobe_identify_main },
	{ .name = "bench", .test = &probe_bench_ops },
	{ .name = "slc", .test = &probe_slc_ops },
	{ .name = "fill", .test = &probe_fill_ops },
	{ .name = "trim", .test = &probe_trim_ops },
};

enum {
	OPT_JSON = 1000, OPT_SIZE, OPT_DESTRUCTIVE, OPT_FORCE, OPT_QUICK, OPT_FIXED_FILES,
	OPT_NO_FIXED_FILES, OPT_FIXED_BUFS, OPT_NO_FIXED_BUFS, OPT_SQPOLL, OPT_SEED, OPT_STALL, OPT_HELP,
};

static const struct option common_opts[] = {
	{ "json", required_argument, NULL, OPT_JSON },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "destructive", no_argument, NULL, OPT_DESTRUCTIVE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "fixed-files", no_argument, NULL, OPT_FIXED_FILES },
	{ "no-fixed-files", no_argument, NULL, OPT_NO_FIXED_FILES },
	{ "fixed-bufs", no_argument, NULL, OPT_FIXED_BUFS },
	{ "no-fixed-bufs", no_argument, NULL, OPT_NO_FIXED_BUFS },
	{ "sqpoll", no_argument, NULL, OPT_SQPOLL },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "stall-timeout", required_argument, NULL, OPT_STALL },
	{ "help", no_argument, NULL, OPT_HELP },
};

static const char common_help[] =
	"TARGET is a block device, a partition, or a regular file.\n"
	"\n"
	"Options every test takes:\n"
	"  --size SIZE         create the file with this size (or extend it); on a device,\n"
	"                      use only its first SIZE bytes\n"
	"  --json FILE         also write the result document (dutlab-result JSON); - = stdout\n"
	"  --destructive       allow writing to a block device (everything on it is lost)\n"
	"  --force             also write to a device that carries a filesystem, partition\n"
	"                      table or other signature (never to a mounted or busy one)\n"
	"  --quick             tiny durations and spans (tests, smoke runs)\n"
	"  --no-fixed-files    do not register the file with io_uring (default: registered)\n"
	"  --no-fixed-bufs     do not register the buffers with io_uring (default: registered)\n"
	"  --sqpoll            let a kernel thread poll the submission queue\n"
	"  --seed N            seed of the random offsets (default 1)\n"
	"  --stall-timeout T   stop when no I/O completes for T (default 60s, longer than\n"
	"                      the kernel's own NVMe/SCSI command timeout of 30 s; 0 = wait\n"
	"                      forever); the run then ends with an error naming the stall\n"
	"  --help              this text\n"
	"\n"
	"Files need no flag.  I/O is always O_DIRECT; Ctrl-C stops and prints what was measured.\n";

static void usage_main(FILE *out)
{
	fprintf(out, "usage: dutprobe COMMAND [OPTIONS] TARGET\n       dutprobe --version\n\ncommands:\n");
	for (size_t i = 0; i < DUT_ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].test ? commands[i].test->summary : commands[i].summary);
	fprintf(out, "\n'dutprobe COMMAND --help' describes a command.\n");
}

static void usage_test(const struct probe_test_ops *t, FILE *out)
{
	fprintf(out, "usage: dutprobe %s [OPTIONS] TARGET\n%s\n\n%s\n%s", t->name, t->summary, t->help,
		common_help);
}

/* Common options first, then the test's own, in one getopt_long table. */
static struct option *merge_opts(const struct option *own)
{
	size_t n_own = 0, n_common = DUT_ARRAY_SIZE(common_opts);
	struct option *all;

	while (own && own[n_own].name)
		n_own++;
	all = calloc(n_common + n_own + 1, sizeof(*all));
	if (!all)
		return NULL;
	memcpy(all, common_opts, sizeof(common_opts));
	if (n_own)
		memcpy(all + n_common, own, n_own * sizeof(*own));
	return all;
}

static int common_opt(struct probe_common *co, int opt, const char *arg, struct dut_error *err)
{
	switch (opt) {
	case OPT_JSON:
		co->json_path = arg;
		return 0;
	case OPT_SIZE:
		if (probe_parse_size_opt("--size", arg, &co->size_bytes, err) < 0)
			return -EINVAL;
		if (!co->size_bytes) {
			dut_error_set(err, "--size must be more than 0");
			return -EINVAL;
		}
		return 0;
	case OPT_DESTRUCTIVE:
		co->destructive = true;
		return 0;
	case OPT_FORCE:
		co->force = true;
		return 0;
	case OPT_QUICK:
		co->quick = true;
		return 0;
	case OPT_FIXED_FILES:
	case OPT_NO_FIXED_FILES:
		co->fixed_files = opt == OPT_FIXED_FILES;
		return 0;
	case OPT_FIXED_BUFS:
	case OPT_NO_FIXED_BUFS:
		co->fixed_bufs = opt == OPT_FIXED_BUFS;
		return 0;
	case OPT_SQPOLL:
		co->sqpoll = true;
		return 0;
	case OPT_STALL:
		return probe_parse_duration_opt("--stall-timeout", arg, &co->stall_ns, err) < 0 ? -EINVAL : 0;
	case OPT_SEED: {
		char *end;

		errno = 0;
		co->seed = strtoull(arg, &end, 0);
		if (!*arg || *end || errno) {
			dut_error_set(err, "--seed \"%s\": expected a number", arg);
			return -EINVAL;
		}
		return 0;
	}
	}
	return -ENOENT;
}

/*
 * Refuse to write to a block device unless it is explicitly allowed and
 * nothing uses it.  Returns 0 when writing may go ahead; *seen says what
 * was checked, for open_matches_checks().
 */
static int check_write_safety(const struct probe_test_ops *t, const struct probe_common *co,
			      struct safety_seen *seen)
{
	struct safety_report rep;
	struct stat st;
	int r;

	*seen = (struct safety_seen){ .is_blk = false };
	if (stat(co->target, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;  /* files need no flag; target_open() reports missing paths */
	if (!co->destructive) {
		dut_err("'%s' writes to %s, which is a block device: everything on it would be lost; add --destructive if that is intended (nothing was written)",
			t->name, co->target);
		return -EPERM;
	}
	/* the signature read answers within --stall-timeout, like every I/O dutprobe makes */
	r = safety_examine_within(co->target, co->stall_ns, &rep);
	if (r < 0) {
		dut_err("cannot check whether %s is in use: %s; refusing to write", co->target, strerror(-r));
		return r;
	}
	*seen = (struct safety_seen){ .is_blk = true, .rdev = rep.rdev };
	if (rep.no_answer) {
		dut_err("%s; refusing to write (nothing was written)", rep.in_use);
		return -ETIME;
	}
	if (rep.mounted[0] || rep.in_use[0]) {
		dut_err("%s%s%s; refusing to write (--force does not override a mounted or busy device: unmount it first)",
			rep.mounted, rep.mounted[0] && rep.in_use[0] ? "; " : "", rep.in_use);
		return -EBUSY;
	}
	if (rep.signature[0] && !co->force) {
		dut_err("%s carries data: %s; refusing to write (add --force to destroy it)", co->target,
			rep.signature);
		return -EEXIST;
	}
	if (rep.signature[0])
		dut_warn("%s carries %s; overwriting it (--force)", co->target, rep.signature);
	return 0;
}

/*
 * The path is looked up again by open(): it must still be what the checks
 * examined (a link switched to another device in between would otherwise
 * be written without any check).  The descriptor is what gets written.
 */
static int open_matches_checks(const struct probe_target *target, const struct safety_seen *seen)
{
	struct stat st;
	char was[64], now[64];

	if (fstat(target->fd, &st) < 0) {
		dut_err("cannot examine the opened %s: %s; refusing to write", target->path, strerror(errno));
		return -errno;
	}
	if (safety_same_target(seen, st.st_mode, st.st_rdev))
		return 0;
	if (seen->is_blk)
		snprintf(was, sizeof(was), "block device %u:%u", major(seen->rdev), minor(seen->rdev));
	else
		snprintf(was, sizeof(was), "not a block device");
	if (S_ISBLK(st.st_mode))
		snprintf(now, sizeof(now), "block device %u:%u", major(st.st_rdev), minor(st.st_rdev));
	else
		snprintf(now, sizeof(now), "not a block device");
	dut_err("%s changed while it was checked (checked: %s; opened: %s); refusing to write (nothing was written; run again)",
		target->path, was, now);
	return -ESTALE;
}

static int write_json(const struct probe_test_ops *t, const void *result, struct probe_ctx *ctx,
		      int argc, char **argv)
{
	struct dut_result *doc = dut_result_new("dutprobe", DUT_VERSION);
	struct dut_host host;
	int r;

	if (!doc)
		return -ENOMEM;
	r = dut_result_set_command(doc, argc, argv);
	if (r == 0 && dut_host_probe(&host) == 0)
		r = dut_result_set_host(doc, &host);
	if (r == 0)
		r = probe_json_target(ctx, doc);
	if (r == 0)
		r = t->render_json(result, ctx, doc);
	if (r == 0)
		r = dut_result_write_file(doc, ctx->co.json_path);
	dut_result_free(doc);
	return r;
}

static int run_test(const struct probe_test_ops *t, int argc, char **argv)
{
	_cleanup_free_ struct option *opts = merge_opts(t->longopts);
	_cleanup_free_ void *cfg = calloc(1, t->cfg_size);
	struct probe_ctx ctx = { .co = { .fixed_files = true, .fixed_bufs = true, .seed = 1,
						.stall_ns = PROBE_STALL_DEFAULT_NS } };
	struct target_opts to = { 0 };
	struct safety_seen seen = { .is_blk = false };
	struct dut_error err = { { 0 } };
	void *result = NULL;
	int c, r, status;

	if (!opts || !cfg) {
		dut_err("out of memory");
		return 1;
	}
	t->init(cfg);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == OPT_HELP) {
			usage_test(t, stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			dut_err("%s: unknown option or missing value: %s (see 'dutprobe %s --help')", t->name,
				argv[optind - 1], t->name);
			return EXIT_USAGE;
		}
		r = common_opt(&ctx.co, c, optarg, &err);
		if (r == -ENOENT)
			r = t->parse_opt(cfg, c, optarg, &err);
		if (r < 0) {
			dut_err("%s", err.msg);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		dut_err("%s: %s (usage: dutprobe %s [OPTIONS] TARGET)", t->name,
			optind >= argc ? "no TARGET given" : "more than one TARGET given", t->name);
		return EXIT_USAGE;
	}
	ctx.co.target = argv[optind];
	if (t->finish(cfg, &ctx.co, &err) < 0) {
		dut_err("%s", err.msg);
		return EXIT_USAGE;
	}
	to.writes = t->writes(cfg);
	to.size_bytes = ctx.co.size_bytes;
	if (to.writes && check_write_safety(t, &ctx.co, &seen) < 0)
		return 1;
	r = target_open(ctx.co.target, &to, &ctx.target, &err);
	if (r < 0) {
		dut_err("%s", err.msg);
		return (r == -EINVAL || r == -ENOENT || r == -EISDIR) ? EXIT_USAGE : 1;
	}
	if (to.writes && open_matches_checks(&ctx.target, &seen) < 0) {
		if (ctx.target.new_file)
			unlink(ctx.target.path);
		target_close(&ctx.target);
		return 1;
	}
	r = t->check_target(cfg, &ctx.target, &err);
	if (r < 0) {
		dut_err("%s", err.msg);
		/* A refused run leaves nothing behind: not even the file it just made. */
		if (ctx.target.new_file)
			unlink(ctx.target.path);
		target_close(&ctx.target);
		return EXIT_USAGE;
	}
	if (dutprobe_link_ceiling(ctx.target.path, &ctx.ceiling_bytes_per_s, ctx.ceiling_desc,
				  sizeof(ctx.ceiling_desc)) < 0) {
		ctx.ceiling_bytes_per_s = 0;
		snprintf(ctx.ceiling_desc, sizeof(ctx.ceiling_desc), "unknown");
	}
	ctx.stop = &stop_requested;
	install_signals();
	r = t->run(cfg, &ctx, &result, &err);
	if (r < 0) {
		dut_err("%s", err.msg);
		target_close(&ctx.target);
		return 1;
	}
	t->render_human(result, &ctx, stdout);
	fflush(stdout);
	status = t->exit_status(result);
	if (ctx.co.json_path) {
		r = write_json(t, result, &ctx, argc, argv);
		if (r < 0) {
			dut_err("cannot write the result document %s: %s", ctx.co.json_path, strerror(-r));
			status = 1;
		}
	}
	if (stop_requested)
		dut_err("interrupted: the figures above are partial");
	t->free_result(result);
	target_close(&ctx.target);
	return status;
}

int main(int argc, char **argv)
{
	dut_log_init("dutprobe", DUT_LOG_INFO);
	if (argc < 2) {
		usage_main(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("dutprobe %s\n", DUT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage_main(stdout);
		return 0;
	}
	for (size_t i = 0; i < DUT_ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (commands[i].main)
			return commands[i].main(argc - 1, argv + 1);
		return run_test(commands[i].test, argc - 1, argv + 1);
	}
	dut_err("unknown command \"%s\" (commands: identify, bench, slc, fill, trim; see 'dutprobe --help')",
		argv[1]);
	return EXIT_USAGE;
}

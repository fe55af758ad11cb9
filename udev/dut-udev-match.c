/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dut-udev-match: tell udev whether a block device is a device under test.
 *
 * udev cannot read a configuration file, so 61-dutlab.rules runs
 *
 *     IMPORT{program}="dut-udev-match --config /etc/dutlab/devices.conf \
 *         --serial='$env{ID_SERIAL}' ... --loop-backing='$attr{loop/backing_file}'"
 *
 * and this prints DUT_NAME=<name> when one line of the file matches the
 * device (udev imports it as a property).  No file: no match, exit 0.  A bad
 * file: "<file>:<line>: what is wrong" on stderr (udev logs it), no match,
 * exit 1, so a typo never marks the wrong disk.
 *
 * --check validates the file and lists its devices, for the administrator.
 *
 * Exit status: 0 done (match or not), 1 bad or unreadable file or an
 * ambiguous match, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "udev/devconf.h"

#define PROG "dut-udev-match"
#define EXIT_USAGE 2
#define CONF_SIZE_MAX (1024 * 1024)

DUT_DEFINE_FREEP(struct devconf *, devconf_free)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --config FILE [--serial=ID_SERIAL] [--serial-short=ID_SERIAL_SHORT]\n"
		"                      [--wwn=ID_WWN] [--wwn-ext=ID_WWN_WITH_EXTENSION] [--loop-backing=PATH]\n"
		"       " PROG " --check [--config FILE]\n"
		"\n"
		"Prints DUT_NAME=<name> when a line of FILE (default " DUT_DEVICES_CONF ")\n"
		"matches the device described by the other options (udev runs this from\n"
		"61-dutlab.rules); --check validates FILE and lists its devices.\n");
}

static int load(const char *path, struct devconf **ret)
{
	_cleanup_free_ char *text = NULL;
	struct devconf_error err = { 0 };
	size_t len = 0;
	int r;

	/* -ENOENT as is (no file = no device under test), -EINVAL not a regular file, -EFBIG */
	r = dut_read_small_file(path, CONF_SIZE_MAX, &text, &len);
	if (r == -ENOENT)
		return r;
	if (r == -EINVAL)
		fprintf(stderr, "%s: not a regular file\n", path);
	else if (r == -EFBIG)
		fprintf(stderr, "%s: larger than %d bytes; is this the right file?\n", path, CONF_SIZE_MAX);
	else if (r < 0)
		fprintf(stderr, "%s: cannot read: %s\n", path, strerror(-r));
	if (r < 0)
		return r;
	r = devconf_parse(text, len, ret, &err);
	if (r == -EINVAL) {
		if (err.line)
			fprintf(stderr, "%s:%u: %s; no device is marked until this is fixed\n",
				path, err.line, err.msg);
		else
			fprintf(stderr, "%s: %s; no device is marked until this is fixed\n", path, err.msg);
	} else if (r < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
	}
	return r;
}

static int check(const char *path)
{
	_cleanup_(devconf_freep) struct devconf *conf = NULL;
	int r = load(path, &conf);

	if (r == -ENOENT) {
		fprintf(stderr, "%s does not exist: no device is marked as under test "
			"(copy devices.conf.sample there and add your devices)\n", path);
		return 1;
	}
	if (r < 0)
		return 1;
	printf("%s: %zu device%s\n", path, conf->n_entries, conf->n_entries == 1 ? "" : "s");
	for (size_t i = 0; i < conf->n_entries; i++) {
		const struct devconf_entry *e = &conf->entries[i];

		printf("  /dev/dut/%s (line %u):", e->name, e->line);
		for (int k = 0; k < DEVCONF_NKEYS; k++)
			if (e->match[k])
				printf(" %s=%s", devconf_key_name(k), e->match[k]);
		putchar('\n');
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_SERIAL = 256, OPT_SERIAL_SHORT, OPT_WWN, OPT_WWN_EXT, OPT_LOOP };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "serial", required_argument, NULL, OPT_SERIAL },
		{ "serial-short", required_argument, NULL, OPT_SERIAL_SHORT },
		{ "wwn", required_argument, NULL, OPT_WWN },
		{ "wwn-ext", required_argument, NULL, OPT_WWN_EXT },
		{ "loop-backing", required_argument, NULL, OPT_LOOP },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	_cleanup_(devconf_freep) struct devconf *conf = NULL;
	const struct devconf_entry *e = NULL, *other = NULL;
	struct devconf_ids ids = { 0 };
	const char *path = NULL;
	int do_check = 0, c, r;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': path = optarg; break;
		case 'C': do_check = 1; break;
		case OPT_SERIAL: ids.serial = optarg; break;
		case OPT_SERIAL_SHORT: ids.serial_short = optarg; break;
		case OPT_WWN: ids.wwn = optarg; break;
		case OPT_WWN_EXT: ids.wwn_ext = optarg; break;
		case OPT_LOOP: ids.loop_backing = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (do_check)
		return check(path ? path : DUT_DEVICES_CONF);
	if (!path) {
		fprintf(stderr, PROG ": --config FILE is required (udev passes it from 61-dutlab.rules)\n");
		return EXIT_USAGE;
	}

	r = load(path, &conf);
	if (r == -ENOENT)
		return 0;   /* rules installed, no devices listed yet */
	if (r < 0)
		return 1;
	r = devconf_match(conf, &ids, &e, &other);
	if (r == -ENOTUNIQ) {
		fprintf(stderr, "%s:%u: this device also matches \"%s\" on line %u; "
			"one device cannot have two names, so neither applies\n",
			path, other->line, e->name, e->line);
		return 1;
	}
	if (r > 0)
		printf("DUT_NAME=%s\n", e->name);
	return 0;
}

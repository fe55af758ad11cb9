/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing chart files and running gnuplot on them (lib/spawn.h, one process per chart).
 *
 * The run directory may belong to another user than the one reporting (root
 * on a shared machine, issue #27), who can plant links in charts/ or make
 * charts/ a link.  So charts/ is opened once without following a link, and
 * every file is written into a private work directory inside it (mode 0700,
 * ours), where gnuplot also runs; the finished files are then renamed into
 * charts/, which replaces whatever name was there (a link included) and never
 * writes through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/spawn.h"
#include "tools/report/chart.h"

#define GNUPLOT_TIMEOUT_S 60

/* charts/ and the private work directory in it, with the names written there */
struct chart_dirs {
	int dfd;                   /* charts/ */
	int wfd;                   /* charts/.render-PID-N */
	char wname[64];
	struct stat wst;
};

static int write_text(int dirfd, const char *name, const char *text)
{
	size_t len = strlen(text);
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int r = 0;

	if (fd < 0)
		return -errno;
	while (len && r == 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			text += n, len -= (size_t)n;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* Move name from the work directory into charts/ (replacing a file or link there). */
static int publish(const struct chart_dirs *d, const char *name)
{
	return renameat(d->wfd, name, d->dfd, name) < 0 ? -errno : 0;
}

static int dirs_open(const char *dir, struct chart_dirs *d)
{
	struct stat st;
	int r;

	d->dfd = d->wfd = -1;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	d->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->dfd < 0)
		return errno == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) ? -ELOOP : -errno;
	for (unsigned attempt = 0;; attempt++) {
		snprintf(d->wname, sizeof(d->wname), ".render-%ld-%u", (long)getpid(), attempt);
		if (mkdirat(d->dfd, d->wname, 0700) == 0)
			break;
		if (errno != EEXIST || attempt >= 100)
			goto out_errno;
	}
	d->wfd = openat(d->dfd, d->wname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* the owner of charts/ may have swapped ours for a directory of theirs */
	if (d->wfd < 0 || fstat(d->wfd, &d->wst) < 0)
		goto out_errno;
	if (d->wst.st_uid != geteuid() || (d->wst.st_mode & 0077)) {
		r = -EPERM;
		goto out_close;
	}
	return 0;

out_errno:
	r = -errno;
out_close:
	if (d->wfd >= 0)
		close(d->wfd);
	close(d->dfd);
	d->dfd = d->wfd = -1;
	return r;
}

/* Empty and remove the work directory (only if the name is still ours), close both. */
static void dirs_close(struct chart_dirs *d, const struct charts *cs)
{
	struct stat st;

	if (d->wfd >= 0) {
		for (size_t i = 0; i < cs->n; i++) {
			static const char *const ext[] = { "gp", "png", "log" };
			const struct chart *c = &cs->v[i];
			char p[300];

			for (size_t e = 0; e < DUT_ARRAY_SIZE(ext); e++) {
				snprintf(p, sizeof(p), "%s.%s", c->name, ext[e]);
				unlinkat(d->wfd, p, 0);
			}
			for (size_t k = 0; k < c->ndata; k++)
				unlinkat(d->wfd, c->data[k].file, 0);
		}
		if (fstatat(d->dfd, d->wname, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == d->wst.st_dev &&
		    st.st_ino == d->wst.st_ino)
			unlinkat(d->dfd, d->wname, AT_REMOVEDIR);
		close(d->wfd);
	}
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = d->wfd = -1;
}

/*
 * An executable named prog: itself when it has a '/', else searched in the
 * absolute directories of PATH.  The result is absolute: gnuplot is started
 * after a chdir, where a relative name would find another program.
 */
static bool find_program(const char *prog, char *buf, size_t n)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		char *abs = realpath(prog, NULL);
		bool ok = abs && access(abs, X_OK) == 0 && strlen(abs) < n;

		if (ok)
			snprintf(buf, n, "%s", abs);
		free(abs);
		return ok;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchrnul(p, ':');

		/* an empty or relative entry (the current directory) is skipped */
		snprintf(buf, n, "%.*s/%s", (int)(e - p), p, prog);
		if (*p == '/' && access(buf, X_OK) == 0)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

static int set_why(struct chart *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int set_why(struct chart *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(c->why_not);
	va_start(ap, fmt);
	n = vasprintf(&c->why_not, fmt, ap);
	va_end(ap);
	if (n < 0) {
		c->why_not = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* gnuplot NAME.gp in the work directory, stderr to NAME.log; why_not set when no PNG came out. */
static int run_gnuplot(struct chart *c, const struct chart_dirs *d, const char *gnuplot)
{
	char gp[300], log[300], png[300];
	/* no shell; -d: no ~/.gnuplot or gnuplotrc, whose commands would run with our privileges */
	char *argv[] = { (char *)"gnuplot", (char *)"-d", gp, NULL };
	struct dut_spawn_opts o = { .path = gnuplot, .stdin_inherit = true, .cwd_fd = d->wfd };
	struct dut_child child;
	struct stat st;
	int status, logfd, r;

	snprintf(gp, sizeof(gp), "%s.gp", c->name);
	snprintf(log, sizeof(log), "%s.log", c->name);
	snprintf(png, sizeof(png), "%s.png", c->name);
	logfd = openat(d->wfd, log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	o.out = logfd >= 0 ? (struct dut_spawn_out){ .how = DUT_SPAWN_FD, .fd = logfd }
			   : (struct dut_spawn_out){ .how = DUT_SPAWN_INHERIT };
	o.err = logfd >= 0 ? (struct dut_spawn_out){ .how = DUT_SPAWN_STDOUT }
			   : (struct dut_spawn_out){ .how = DUT_SPAWN_INHERIT };
	r = dut_spawn(argv, &o, &child);
	if (logfd >= 0)
		close(logfd);
	if (r < 0)
		return set_why(c, "cannot start %s: %s", gnuplot, strerror(-r));
	/* a hung gnuplot dies of SIGALRM, as the alarm() it used to get before its exec did */
	if ((r = dut_child_wait(&child, GNUPLOT_TIMEOUT_S * 1000000000ull, SIGALRM)) < 0)
		return set_why(c, "cannot wait for %s: %s", gnuplot, strerror(-r));
	status = child.status;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || fstatat(d->wfd, png, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size == 0) {
		/* the log is kept only for failures */
		if (publish(d, log) < 0)
			return set_why(c, "gnuplot failed and its log could not be kept: %s", strerror(errno));
		if (WIFSIGNALED(status))
			return set_why(c, "gnuplot was killed (%s); see charts/%s", strsignal(WTERMSIG(status)), log);
		if (WEXITSTATUS(status) == 127)
			return set_why(c, "%s could not be started; see charts/%s", gnuplot, log);
		if (WEXITSTATUS(status) != 0)
			return set_why(c, "gnuplot exited with status %d; see charts/%s", WEXITSTATUS(status), log);
		return set_why(c, "gnuplot wrote no image (%s); see charts/%s", png, log);
	}
	if (publish(d, png) < 0)
		return set_why(c, "cannot move %s into charts/: %s", png, strerror(errno));
	unlinkat(d->wfd, log, 0);
	unlinkat(d->dfd, log, 0);   /* the log of an earlier failure is not this one's */
	c->rendered = true;
	return 0;
}

/* Write one chart's script and data into the work directory and draw it (have: gnuplot found). */
static int render_one(struct chart *c, const struct chart_dirs *d, const char *prog, const char *gnuplot,
		      bool have)
{
	char gp[300], old[300];
	int r;

	c->rendered = false;
	/* an image left by an earlier report must not pass for this one (unlinkat: a link itself goes) */
	snprintf(old, sizeof(old), "%s.png", c->name);
	if (unlinkat(d->dfd, old, 0) < 0 && errno != ENOENT)
		return -errno;
	snprintf(gp, sizeof(gp), "%s.gp", c->name);
	if ((r = write_text(d->wfd, gp, c->script)) < 0)
		return r;
	for (size_t k = 0; k < c->ndata; k++)
		if ((r = write_text(d->wfd, c->data[k].file, c->data[k].text)) < 0)
			return r;
	if (!have)
		r = set_why(c, "%s is not installed (apt-get install %s); the data and script are in "
			    "charts/ to draw it later", prog, CHART_APT_PACKAGE);
	else
		r = run_gnuplot(c, d, gnuplot);
	if (r < 0)
		return r;
	/* the script and data stay next to the image, to redraw it by hand */
	if ((r = publish(d, gp)) < 0)
		return r;
	for (size_t k = 0; k < c->ndata; k++)
		if ((r = publish(d, c->data[k].file)) < 0)
			return r;
	return 0;
}

int charts_render(struct charts *cs, const char *dir)
{
	const char *prog = getenv("DUTLAB_GNUPLOT");
	struct chart_dirs d;
	char gnuplot[4096];
	bool have;
	int r = 0;

	if (!prog || !*prog)
		prog = "gnuplot";
	if ((r = dirs_open(dir, &d)) < 0)
		return r;
	have = find_program(prog, gnuplot, sizeof(gnuplot));
	for (size_t i = 0; r == 0 && i < cs->n; i++)
		r = render_one(&cs->v[i], &d, prog, gnuplot, have);
	dirs_close(&d, cs);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing chart files and running gnuplot on them (fork/exec, one process per chart). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "tools/chart.h"

#define GNUPLOT_TIMEOUT_S 60

static int write_text(const char *dir, const char *name, const char *text)
{
	char p[4096];
	FILE *f;
	int r = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	if (!f)
		return -errno;
	if (fputs(text, f) == EOF)
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

/* An executable named prog: itself when it has a '/', else searched on PATH. */
static bool find_program(const char *prog, char *buf, size_t n)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(buf, n, "%s", prog);
		return access(buf, X_OK) == 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchrnul(p, ':');

		snprintf(buf, n, "%.*s/%s", (int)(e - p), *p == ':' ? "." : p, prog);
		if (e > p && access(buf, X_OK) == 0)
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

/* gnuplot NAME.gp in dir, stderr to NAME.log; false with why_not set when no PNG came out. */
static int run_gnuplot(struct chart *c, const char *dir, const char *gnuplot)
{
	char gp[300], log[300], png[4096];
	struct stat st;
	pid_t pid;
	int status;

	snprintf(gp, sizeof(gp), "%s.gp", c->name);
	snprintf(log, sizeof(log), "%s.log", c->name);
	pid = fork();
	if (pid < 0)
		return set_why(c, "cannot start %s: %s", gnuplot, strerror(errno));
	if (pid == 0) {
		int fd;

		if (chdir(dir) < 0)
			_exit(126);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
		}
		alarm(GNUPLOT_TIMEOUT_S);   /* SIGALRM survives exec: a hung gnuplot dies */
		/* no shell; -d: no ~/.gnuplot or gnuplotrc, whose commands would run with our privileges */
		execl(gnuplot, "gnuplot", "-d", gp, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return set_why(c, "cannot wait for %s: %s", gnuplot, strerror(errno));
	snprintf(png, sizeof(png), "%s/%s.png", dir, c->name);
	if (WIFSIGNALED(status))
		return set_why(c, "gnuplot was killed (%s); see charts/%s", strsignal(WTERMSIG(status)), log);
	if (WEXITSTATUS(status) == 127)
		return set_why(c, "%s could not be started; see charts/%s", gnuplot, log);
	if (WEXITSTATUS(status) != 0)
		return set_why(c, "gnuplot exited with status %d; see charts/%s", WEXITSTATUS(status), log);
	if (stat(png, &st) < 0 || st.st_size == 0)
		return set_why(c, "gnuplot wrote no image (%s.png); see charts/%s", c->name, log);
	c->rendered = true;
	snprintf(png, sizeof(png), "%s/%s", dir, log);   /* the log is kept only for failures */
	unlink(png);
	return 0;
}

int charts_render(struct charts *cs, const char *dir)
{
	const char *prog = getenv("DUTLAB_GNUPLOT");
	char gnuplot[4096];
	bool have;
	int r;

	if (!prog || !*prog)
		prog = "gnuplot";
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	have = find_program(prog, gnuplot, sizeof(gnuplot));
	for (size_t i = 0; i < cs->n; i++) {
		struct chart *c = &cs->v[i];
		char gp[300], old[4096];

		c->rendered = false;
		/* an image left by an earlier report must not pass for this one */
		snprintf(old, sizeof(old), "%s/%s.png", dir, c->name);
		if (unlink(old) < 0 && errno != ENOENT)
			return -errno;
		snprintf(gp, sizeof(gp), "%s.gp", c->name);
		if ((r = write_text(dir, gp, c->script)) < 0)
			return r;
		for (size_t d = 0; d < c->ndata; d++)
			if ((r = write_text(dir, c->data[d].file, c->data[d].text)) < 0)
				return r;
		if (!have)
			r = set_why(c, "%s is not installed (apt-get install %s); the data and script are in "
				    "charts/ to draw it later", prog, CHART_APT_PACKAGE);
		else
			r = run_gnuplot(c, dir, gnuplot);
		if (r < 0)
			return r;
	}
	return 0;
}

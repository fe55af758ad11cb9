/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Children of the runner and its signals.
 *
 * SIGINT, SIGTERM and SIGHUP only set run_signal_received.  Each child runs
 * in a process group of its own, so a Ctrl-C at the terminal reaches the
 * runner alone; the runner then forwards SIGINT to the child's group (pgload
 * stops and writes what it measured), escalates to SIGTERM and SIGKILL if
 * the child lingers, then does the same to what is left of the child's
 * process group, and unwinds its cleanup stack.  Teardown commands run
 * "uninterruptible": a second Ctrl-C does not cut a cluster stop or an
 * unmount short (each still has a timeout).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/redact.h"
#include "lib/spawn.h"
#include "tools/run/runner_sys.h"

volatile sig_atomic_t run_signal_received;

static void on_signal(int sig)
{
	run_signal_received = sig;
}

void run_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a sleep or a blocking read returns early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

uint64_t run_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void run_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int run_spawn(char *const argv[], const char *log_path, bool inherit, pid_t *ret_pid)
{
	struct dut_spawn_opts o = {
		.err = { .how = DUT_SPAWN_STDOUT },
		.signals = DUT_SPAWN_SIG_ALL,
		.new_pgroup = true,
	};
	struct dut_child c;
	int r, st;

	if (log_path) {
		/* logs are in the root-owned run directory: never through a link, not for others to read */
		o.out = (struct dut_spawn_out){ .how = DUT_SPAWN_PATH, .path = log_path,
						.flags = O_CREAT | O_APPEND | O_NOFOLLOW, .mode = RUN_PRIVATE_FILE_MODE };
	} else if (inherit) {
		o.out.how = DUT_SPAWN_INHERIT;
		o.err.how = DUT_SPAWN_INHERIT;
	}
	if ((r = dut_spawn(argv, &o, &c)) < 0)
		return r;
	if (c.fail != DUT_SPAWN_OK) {
		/* as posix_spawn did: a program that could not start is an error, not a status */
		while (waitpid(c.pid, &st, 0) < 0 && errno == EINTR)
			;
		return -c.fail_errno;
	}
	*ret_pid = c.pid;
	return 0;
}

/*
 * A stopped child may leave members of its process group behind (pgload
 * interrupted during cluster init leaves runuser and initdb writing into the
 * mount): they go too, SIGTERM then SIGKILL, before the teardown unmounts.
 * Only after a stop: a child that ends by itself may leave a daemon on
 * purpose (dutfs).
 */
static void reap_group(pid_t pgid, uint64_t grace_ns)
{
	uint64_t t0 = run_now_ns();
	int stage = 0;

	while (kill(-pgid, 0) == 0) {
		uint64_t since = run_now_ns() - t0;

		if (stage == 0) {
			kill(-pgid, SIGTERM);
			stage = 1;
		} else if (stage == 1 && since > grace_ns) {
			kill(-pgid, SIGKILL);
			stage = 2;
		} else if (stage == 2 && since > grace_ns + 5000000000ull) {
			break;  /* unkillable (D state): the teardown reports what stays busy */
		}
		run_sleep_ms(50);
	}
}

int run_command(char *const argv[], const struct run_cmd_opts *o, int *ret_status)
{
	uint64_t t0 = run_now_ns(), stop_at = 0;
	int stage = 0;          /* signals sent: 0 none, 1 SIGINT, 2 SIGTERM, 3 SIGKILL */
	bool interrupted = false, timed_out = false;
	pid_t pid;
	int st, r;

	if (o->log_path && !o->no_header) {
		/* a header, so a log with several commands says which wrote what */
		int fd = run_open_log(o->log_path);
		FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;

		if (fd >= 0 && !f)
			close(fd);
		if (f) {
			fputs("$", f);
			for (size_t i = 0; argv[i]; i++) {
				char *red = dut_redact_arg(argv[i]);

				fprintf(f, " %s", red ? red : "***");
				free(red);
			}
			fputc('\n', f);
			fclose(f);
		}
	}
	r = run_spawn(argv, o->log_path, o->inherit_output, &pid);
	if (r < 0)
		return r;
	for (;;) {
		int w = dut_wait_pid_nohang(pid, &st);
		uint64_t now = run_now_ns();

		if (w == 1)
			break;
		if (w < 0)
			return w;
		if (!stop_at && o->interruptible && run_signal_received) {
			interrupted = true;
			stop_at = now;
		}
		if (!stop_at && o->timeout_ns && now - t0 > o->timeout_ns) {
			timed_out = true;
			stop_at = now;
		}
		if (!stop_at && o->tick)
			o->tick(o->tick_ctx, now);
		if (stop_at) {
			/* the child's whole group: pgload's worker processes too */
			uint64_t since = now - stop_at;

			if (stage == 0) {
				kill(-pid, SIGINT);
				stage = 1;
			} else if (stage == 1 && since > o->grace_ns) {
				kill(-pid, SIGTERM);
				stage = 2;
			} else if (stage == 2 && since > 2 * o->grace_ns) {
				kill(-pid, SIGKILL);
				stage = 3;
			}
		}
		run_sleep_ms(20);
	}
	if (stop_at)
		reap_group(pid, o->grace_ns);
	*ret_status = dut_wait_code(st);
	if (interrupted)
		return -EINTR;
	if (timed_out)
		return -ETIMEDOUT;
	return 0;
}

int run_open_log(const char *path)
{
	/* the run directory is root's: O_NOFOLLOW keeps it that way for the last name */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, RUN_PRIVATE_FILE_MODE);

	return fd < 0 ? -errno : fd;
}

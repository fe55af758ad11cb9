#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the dutlab run integration tests: prerequisites (exit 77 with
# the reason when one is missing), a private work directory, and checks
# that a run left nothing behind.
set -uo pipefail

DUTLAB=${1:?usage: $0 path/to/dutlab}
PGBIN=/usr/lib/postgresql/15/bin

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (dutfs, loop devices, mkfs, PostgreSQL as user postgres)"
[ -x "$PGBIN/initdb" ] || skip "PostgreSQL 15 is not installed ($PGBIN/initdb)"
id postgres >/dev/null 2>&1 || skip "there is no user postgres"
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
command -v losetup >/dev/null || skip "losetup is not installed"
[ -x "$DUTLAB" ] || fail "$DUTLAB is not built"

WORK=$(mktemp -d /var/tmp/dutlab-it-run.XXXXXX) || fail "mktemp"
chmod 755 "$WORK"

# Whatever happens to the test, nothing of it stays: stop runs, clusters,
# mounts and loop devices under $WORK.
it_cleanup() {
	local p
	[ -n "${RUN_PID:-}" ] && kill -TERM "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
	for p in $(pgrep -f -- "$WORK" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	awk -v w="$WORK" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
	for img in "$WORK"/*.img; do
		[ -e "$img" ] || continue
		losetup -j "$img" -O NAME -n 2>/dev/null | while read -r d; do losetup -d "$d"; done
	done
	rm -rf "$WORK"
}
trap it_cleanup EXIT

# mounts whose mountpoint or source mentions one of the run's paths
it_leftovers() { # RUNDIR
	local run=$1 bad=0 img
	if grep -q -- "$WORK" /proc/self/mountinfo || grep -q -- "$run" /proc/self/mountinfo; then
		echo "left mounted:"; grep -- "$WORK\|$run" /proc/self/mountinfo; bad=1
	fi
	if grep -q "dutlab-$RUN_DUTLAB_PID/" /proc/self/mountinfo 2>/dev/null; then
		echo "left mounted under /run/dutlab-$RUN_DUTLAB_PID"; bad=1
	fi
	for img in "$WORK"/*.img; do
		[ -e "$img" ] || continue
		if [ -n "$(losetup -j "$img" 2>/dev/null)" ]; then
			echo "loop device still attached: $(losetup -j "$img")"; bad=1
		fi
	done
	if pgrep -f -- "$WORK" >/dev/null || pgrep -f -- "/run/dutlab-$RUN_DUTLAB_PID/" >/dev/null; then
		echo "processes left:"; pgrep -af -- "$WORK"; pgrep -af -- "/run/dutlab-$RUN_DUTLAB_PID/"; bad=1
	fi
	[ ! -e "/run/dutlab-$RUN_DUTLAB_PID" ] || { echo "/run/dutlab-$RUN_DUTLAB_PID is still there"; bad=1; }
	return $bad
}

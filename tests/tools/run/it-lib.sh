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
# A test that starts more (a server of its own) defines it_cleanup_first.
it_cleanup() {
	local p
	[ -n "${RUN_PID:-}" ] && kill -TERM "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
	declare -F it_cleanup_first >/dev/null && it_cleanup_first
	for p in $(pgrep -f -- "$WORK" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	awk -v w="$WORK" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
	for img in "$WORK"/*.img; do
		[ -e "$img" ] || continue
		losetup -j "$img" -O NAME -n 2>/dev/null | while read -r d; do losetup -d "$d"; done
	done
	# IT_KEEP=1: keep the work directory (the run, its report) to look at a failure
	[ -n "${IT_KEEP:-}" ] && { echo "kept $WORK"; return; }
	rm -rf "$WORK"
}
trap it_cleanup EXIT
# meson stops a test that overran with SIGTERM: exit, so the EXIT trap cleans up
trap 'exit 130' INT
trap 'exit 143' TERM

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

# ---- shipped experiments in a small variant (it-run-<experiment>.sh) ----

EXPERIMENTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../tools/experiments" && pwd)

# The shipped tools/experiments/NAME.ini with its targets' images in $WORK
# (relative shape paths made absolute), then the sed expressions given:
# it_small NAME SED-ARGS... > small.ini
it_small() { # NAME [sed args...]
	local name=$1 src=$EXPERIMENTS/$1.ini
	shift
	[ -f "$src" ] || fail "no $src"
	sed -e "s|^path = /var/tmp/dutlab/experiments/|path = $WORK/|" \
	    -e "s|^shape = \([^/]\)|shape = $EXPERIMENTS/\1|" "$@" "$src"
}

# dry-run (which must pass its checks), then the run in the background so
# the cleanup trap can stop it; sets RUN (the run directory) and TOOK (s).
it_run_small() { # INI
	local ini=$1 out rc t0
	# IT_REUSE=RUNDIR (a run this test made before, kept with IT_KEEP=1):
	# check that run's report again, as the build now renders it
	if [ -n "${IT_REUSE:-}" ]; then
		RUN=$IT_REUSE TOOK=0 RUN_DUTLAB_PID=0
		echo "checking the run in $RUN again"
		return
	fi
	out=$("$DUTLAB" run "$ini" --dry-run --out "$WORK/dry" 2>&1) || fail "dry-run refused: $out"
	grep -q 'checks passed' <<<"$out" || fail "dry-run: $out"
	head -1 <<<"$out"
	RUN=$WORK/run
	t0=$(date +%s)
	"$DUTLAB" run "$ini" --out "$RUN" >"$WORK/out.txt" 2>&1 &
	RUN_PID=$!
	RUN_DUTLAB_PID=$RUN_PID
	wait "$RUN_PID"; rc=$?; RUN_PID=
	TOOK=$(( $(date +%s) - t0 ))
	echo "the run took $TOOK s"
	[ "$rc" -eq 0 ] || { tail -30 "$WORK/out.txt"; fail "dutlab run exited $rc"; }
	[ "$(jq -r .status "$RUN/manifest.json")" = complete ] || fail "manifest status $(jq -r .status "$RUN/manifest.json")"
}

# The report of the run as a DBA reads it: dutlab report succeeds; every
# result document the manifest names exists and was read (no "not used"
# note); the Answer section comes first and has numbers; every step of
# the experiment has its section.  Sets REPORT (report.md).
it_check_report() { # STEP...
	local f s n=0
	"$DUTLAB" report "$RUN" >"$WORK/report.txt" 2>&1 || fail "dutlab report failed: $(tail -5 "$WORK/report.txt")"
	REPORT=$RUN/report.md
	[ -s "$REPORT" ] || fail "no report.md"
	for f in $(jq -r '.configs[] as $c | $c.reps[] as $r | $r.steps[] | .results[]? | "\($r.dir)/\(.)"' "$RUN/manifest.json"); do
		[ -s "$RUN/$f" ] || fail "the manifest names $f, which is not there"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "the manifest names no result document"
	! grep -qi "not used\|rejected\|unreadable\|nesting too deep" "$REPORT" ||
		fail "a document of the run was not read: $(grep -i "not used\|rejected\|unreadable\|nesting" "$REPORT" | head -5)"
	[ "$(grep -m1 '^## ' "$REPORT")" = "## Answer" ] || fail "the report does not open with its Answer: $(grep -m1 '^## ' "$REPORT")"
	it_section Answer | grep -qE '^\|.*\| [0-9][0-9,]*(\.[0-9]+)? \|' || fail "the Answer has no figure: $(it_section Answer)"
	for s in "$@"; do
		grep -q "^## Step $s (" "$REPORT" || fail "report.md has no section for step $s"
		! it_step "$s" | grep -q "No table for this step" || fail "step $s: no table: $(it_step "$s")"
	done
	echo "ok: $n result documents read; the Answer and the sections of $* are there"
}

# A section of report.md from its heading to the next "## " heading.  (The
# status is always 0: under pipefail, "it_step X | grep -q Y" must not fail
# because grep -q stopped reading and awk got SIGPIPE.)
it_section() { # HEADING (after "## ")
	awk -v h="## $1" 'index($0, h) == 1 { on = 1; print; next } on && /^## / { exit } on' "$REPORT" || true
}
it_step() { # STEP
	awk -v h="## Step $1 (" 'index($0, h) == 1 { on = 1; print; next } on && /^## / { exit } on' "$REPORT" || true
}

# The table rows of a step's section whose first cell is CONFIG (an ERE; default any).
it_rows() { # STEP [CONFIG]
	it_step "$1" | grep -E "^\| ${2:-[^|]+} \|" | grep -v '^| --- ' || true
}

# Fail unless some row of STEP's tables matches ERE.
it_expect() { # STEP ERE WHAT
	it_step "$1" | grep -qE -- "$2" || fail "step $1: $3: $(it_step "$1" | head -40)"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab crash as root never works in a directory another user controls
# (docs/crash.md "Safety").  The attacker is user nobody (runuser); each case
# is named for the behaviour it guards:
#   var_root_nobody    the var root (DUTLAB_VAR_ROOT, /var/tmp/dutlab) made by
#                      nobody: refused, nothing mounted, nothing made there
#   workdir_symlink    --workdir a symbolic link to a root directory: refused
#   workdir_nobody     --workdir a directory of nobody's: refused
#   workdir_under_nobody  --workdir to be made in a directory of nobody's: refused
#   scratch_nobody     --scratch a directory of nobody's: refused
#   pgload_links       pgload (as the campaign runs it, as root) with the relmap
#                      and the ack log planted as links to a root file: the
#                      file is neither overwritten nor appended to
#   run_step_workdir   dutlab run's crash step on a directory target in a
#                      sticky dir, its work directory made first by nobody:
#                      refused, nothing mounted
# Usage: it-crash-safety.sh DUTLAB PGLOAD.  IT_CASES="a b" runs only those.
set -u
PGLOAD=${2:?usage: $0 path/to/dutlab path/to/pgload}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../run/it-lib.sh"

command -v runuser >/dev/null || skip "runuser is not installed (util-linux)"
id nobody >/dev/null 2>&1 || skip "there is no user nobody"
[ -x "$PGLOAD" ] || fail "$PGLOAD is not built"
failures=0
case_fail() { echo "FAIL: $CASE: $*"; failures=$((failures + 1)); }
as_nobody() { runuser -u nobody -- "$@"; }

victim=$WORK/victim
echo "ROOT-ONLY-SECRET-$$" >"$victim"
chmod 600 "$victim"
victim_intact() {
	[ "$(cat "$victim")" = "ROOT-ONLY-SECRET-$$" ] && [ "$(stat -c %a:%U "$victim")" = 600:root ] ||
		case_fail "$victim was changed: $(stat -c %a:%U "$victim"): $(head -c 200 "$victim")"
}
# mounts whose mount point is under $WORK
mounted() { awk -v w="$WORK" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo; }

# dutlab crash ARGS... (a one-state campaign) > $WORK/out.txt; sets rc.  A
# refusal is immediate; the old code went on to make the template (timeout).
crash() {
	timeout "${IT_CRASH_TIMEOUT:-60}" "$DUTLAB" crash --states 1 --controls 0 --duration 2 --json "$WORK/r.json" "$@" \
		>"$WORK/out.txt" 2>&1
	rc=$?
}
expect_refused() { # WHAT
	[ "$rc" -eq 3 ] || case_fail "dutlab crash exited $rc with $1, expected 3 (refused): $(tail -3 "$WORK/out.txt")"
	grep -q "refusing" "$WORK/out.txt" || case_fail "no refusal message: $(tail -3 "$WORK/out.txt")"
	[ -z "$(mounted)" ] || case_fail "mounted: $(mounted)"
}

case_var_root_nobody() {
	local vr=$WORK/var-nobody
	mkdir "$vr" && chown nobody:nogroup "$vr"
	as_nobody mkdir "$vr/planted"
	DUTLAB_VAR_ROOT=$vr crash
	expect_refused "a var root of nobody's"
	grep -q "$vr" "$WORK/out.txt" || case_fail "the message does not name $vr: $(tail -2 "$WORK/out.txt")"
	[ "$(find "$vr" -mindepth 1 | wc -l)" = 1 ] ||
		case_fail "something was made in $vr: $(find "$vr" -mindepth 1)"
}

case_workdir_symlink() {
	mkdir "$WORK/real" && ln -s "$WORK/real" "$WORK/link"
	crash --workdir "$WORK/link"
	expect_refused "a --workdir that is a symlink"
	[ -z "$(find "$WORK/real" -mindepth 1)" ] || case_fail "something was made through the link"
}

case_workdir_nobody() {
	mkdir "$WORK/wnob" && chown nobody:nogroup "$WORK/wnob"
	crash --workdir "$WORK/wnob"
	expect_refused "a --workdir of nobody's"
	[ -z "$(find "$WORK/wnob" -mindepth 1)" ] || case_fail "something was made in $WORK/wnob"
}

case_workdir_under_nobody() {
	mkdir "$WORK/pnob" && chown nobody:nogroup "$WORK/pnob"
	crash --workdir "$WORK/pnob/w"
	expect_refused "a --workdir under a directory of nobody's"
	[ ! -e "$WORK/pnob/w" ] || case_fail "$WORK/pnob/w was made"
}

case_scratch_nobody() {
	mkdir "$WORK/snob" && chown nobody:nogroup "$WORK/snob"
	crash --workdir "$WORK/w-scratch" --scratch "$WORK/snob"
	expect_refused "a --scratch of nobody's"
	[ -z "$(find "$WORK/snob" -mindepth 1)" ] || case_fail "something was made in $WORK/snob"
}

it_cleanup_first() {
	[ -f "$WORK/pg/pgdata/postmaster.pid" ] && "$PGLOAD" cluster stop --pgdata "$WORK/pg/pgdata" >/dev/null 2>&1
	return 0
}

case_pgload_links() {
	local pgdata=$WORK/pg/pgdata nob=$WORK/pl
	mkdir -p "$WORK/pg" "$nob" && chown nobody:nogroup "$nob"
	as_nobody ln -s "$victim" "$nob/relmap.json"
	as_nobody ln -s "$victim" "$nob/ack.log"
	"$PGLOAD" cluster init --pgdata "$pgdata" --bindir "$PGBIN" >"$WORK/pg.txt" 2>&1 ||
		{ case_fail "pgload cluster init failed: $(tail -3 "$WORK/pg.txt")"; return; }
	"$PGLOAD" init --pgdata "$pgdata" -s 1 -q >"$WORK/init.txt" 2>&1 ||
		{ case_fail "pgload init failed: $(tail -3 "$WORK/init.txt")"; return; }
	"$PGLOAD" ledger init --pgdata "$pgdata" --relmap "$nob/relmap.json" -q >"$WORK/rel.txt" 2>&1 ||
		case_fail "pgload ledger init failed: $(tail -2 "$WORK/rel.txt")"
	"$PGLOAD" init --pgdata "$pgdata" -s 1 --jobs 1 --ack-log "$nob/ack.log" -q >"$WORK/ack.txt" 2>&1 &&
		case_fail "pgload init appended to an --ack-log that is a link"
	grep -q "ack-log" "$WORK/ack.txt" || case_fail "no message naming the ack log: $(tail -2 "$WORK/ack.txt")"
	victim_intact
	# the link was replaced by root's own file, never followed
	[ -f "$nob/relmap.json" ] && [ ! -L "$nob/relmap.json" ] || case_fail "$nob/relmap.json is still a link"
	"$PGLOAD" cluster stop --pgdata "$pgdata" >/dev/null 2>&1
}

case_run_step_workdir() {
	local st=$WORK/sticky
	mkdir "$st" && chmod 1777 "$st"
	as_nobody mkdir "$st/dutlab-crash-crash"
	as_nobody ln -s /etc "$st/dutlab-crash-crash/mnt"
	cat >"$WORK/step.ini" <<INI
[experiment]
name = csec
[target work]
type = directory
path = $st
[dutfs]
view = off
[step crash]
type = crash
states = 1
controls = 0
duration = 2s
INI
	timeout 120 "$DUTLAB" run "$WORK/step.ini" --out "$WORK/run" >"$WORK/out.txt" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] || case_fail "dutlab run exited 0 with a step work directory of nobody's"
	grep -rq "refusing the work directory" "$WORK/out.txt" "$WORK/run" 2>/dev/null ||
		case_fail "no refusal of $st/dutlab-crash-crash: $(tail -5 "$WORK/out.txt")"
	[ -z "$(mounted)" ] || case_fail "mounted: $(mounted)"
	[ "$(find "$st/dutlab-crash-crash" -mindepth 1 | wc -l)" = 1 ] ||
		case_fail "something was made in $st/dutlab-crash-crash: $(find "$st/dutlab-crash-crash" -mindepth 1)"
}

for CASE in ${IT_CASES:-var_root_nobody workdir_symlink workdir_nobody workdir_under_nobody scratch_nobody \
	pgload_links run_step_workdir}; do
	echo "case $CASE"
	"case_$CASE"
	victim_intact
done
[ "$failures" -eq 0 ] || fail "$failures failure(s)"
echo "PASS"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab run as root on a shared machine (issue #27): what user postgres or
# any local user plants does not make root read, copy, follow or chmod for
# them.  A stand-in pgload (DUT_BUILD_ROOT) makes the cluster's files as an
# attacker would leave them, so no PostgreSQL runs and each case takes
# seconds:
#   server_log_link   pgdata/pgload_server.log is postgres's symlink to a
#                     root 0600 file: its content is not copied, it is unchanged
#   server_log_copy   a real server log is copied, 0600, in a 0750 run directory
#                     with a 0600 manifest
#   state_*           a pgload_state.json of postgres's, or with a socket_dir
#                     with ".." or "'": the repetition fails, naming the file
#   var_root_*        the runs root (DUTLAB_VAR_ROOT, the test seam for
#                     /var/tmp/dutlab) made by nobody, 0777, or a symlink: refused
#                     before anything is written, naming the directory
#   var_root_fresh    a missing runs root is made 0755 root, the run in it 0750
#   out_*             --out under a directory of nobody's, or a symlink: refused
#   view_off_closed   view = off under a directory postgres cannot search:
#                     refused with the directory, and its mode is unchanged
#   target_writable   a directory target of mode 0777: the run's data is not put there
#   setting_control   a [postgres] set value with a control character: refused
#                     with file:line
# IT_CASES="a b" runs only those cases.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
PGUSER_UID=$(id -u postgres)
failures=0
case_fail() { echo "FAIL: $CASE: $*"; failures=$((failures + 1)); }

# ---- the stand-in pgload ----
FAKE=$WORK/build
mkdir -p "$FAKE/pgload" "$WORK/t"
cat >"$FAKE/pgload/pgload" <<'SH'
#!/bin/bash
# FAKE_STATE: ok | pgowned | dotdot | quote; FAKE_LOG: link | regular
pgdata=
prev=
for a in "$@"; do [ "$prev" = --pgdata ] && pgdata=$a; prev=$a; done
case "$1 $2" in
"cluster init")
	mkdir -p "$pgdata" && chown postgres: "$pgdata" && chmod 700 "$pgdata"
	dir=/tmp/pgload-abc123
	[ "$FAKE_STATE" = dotdot ] && dir=/tmp/pgload-x/../../etc/x
	[ "$FAKE_STATE" = quote ] && dir="/tmp/pgload-a' pa"
	printf '{"schema":"pgload-cluster","schema_version":1,"pgdata":"%s","socket_dir":"%s","port":5432}\n' \
		"$pgdata" "$dir" >"$pgdata/pgload_state.json"
	chmod 644 "$pgdata/pgload_state.json"
	[ "$FAKE_STATE" = pgowned ] && chown postgres: "$pgdata/pgload_state.json"
	if [ "$FAKE_LOG" = link ]; then
		# what user postgres can do in its own data directory
		setpriv --reuid=postgres --regid=postgres --clear-groups ln -s "$FAKE_VICTIM" "$pgdata/pgload_server.log"
	else
		echo "LOG:  database system is ready to accept connections" >"$pgdata/pgload_server.log"
		chown postgres: "$pgdata/pgload_server.log"
		chmod 600 "$pgdata/pgload_server.log"
	fi
	exit 0 ;;
"cluster stop") exit 0 ;;
"cluster destroy") rm -rf "$pgdata"; exit 0 ;;
"cluster --help") echo "cluster init|stop|destroy"; exit 0 ;;
esac
[ "$1" = init ] && exit 0
echo "fake pgload: $*" >&2
exit 2
SH
chmod 755 "$FAKE/pgload/pgload"
export DUT_BUILD_ROOT=$FAKE

victim=$WORK/victim
echo "ROOT-ONLY-SECRET-$$" >"$victim"
chmod 600 "$victim"
export FAKE_VICTIM=$victim

experiment() { # FILE [extra [postgres] lines]
	cat >"$1" <<INI
[experiment]
name = sec
[target work]
type = directory
path = $WORK/t
[dutfs]
view = off
[postgres]
${2:-}
[step load]
type = oltp-init
scale = 1
INI
}
experiment "$WORK/sec.ini"

# dutlab run ... > $WORK/out.txt; sets rc
run_dutlab() {
	timeout 300 "$DUTLAB" run "$@" >"$WORK/out.txt" 2>&1
	rc=$?
}

case_server_log_link() {
	local run=$WORK/run-link log
	FAKE_STATE=ok FAKE_LOG=link run_dutlab "$WORK/sec.ini" --out "$run"
	log=$(find "$run" -name postgres.log 2>/dev/null | head -1)
	if [ -n "$log" ] && grep -q ROOT-ONLY-SECRET "$log"; then
		case_fail "the victim's content was copied into $log ($(stat -c %a "$log"))"
	fi
	[ "$(cat "$victim")" = "ROOT-ONLY-SECRET-$$" ] && [ "$(stat -c %a:%U "$victim")" = 600:root ] ||
		case_fail "the victim changed: $(stat -c %a:%U "$victim")"
	grep -q "not copying the server log" "$WORK/out.txt" || case_fail "no word on the refused server log"
}

case_server_log_copy() {
	local run=$WORK/run-copy log
	FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/sec.ini" --out "$run"
	[ "$rc" -eq 0 ] || { case_fail "dutlab run exited $rc"; return; }
	log=$(find "$run" -name postgres.log | head -1)
	[ -n "$log" ] && grep -q "ready to accept" "$log" || { case_fail "no server log copied"; return; }
	[ "$(stat -c %a "$log")" = 600 ] || case_fail "postgres.log is $(stat -c %a "$log"), expected 600"
	[ "$(stat -c %a "$run")" = 750 ] || case_fail "the run directory is $(stat -c %a "$run"), expected 750"
	[ "$(stat -c %a "$run/manifest.json")" = 600 ] || case_fail "manifest.json is $(stat -c %a "$run/manifest.json")"
	for f in "$run"/*/rep1/*.log; do
		[ "$(stat -c %a "$f")" = 600 ] || case_fail "$f is $(stat -c %a "$f"), expected 600"
	done
	jq -e '.configs[0].reps[0].artifacts.server_log' "$run/manifest.json" >/dev/null ||
		case_fail "server_log is not in the manifest"
	[ ! -e "$WORK/t/dutlab-run" ] || case_fail "$WORK/t/dutlab-run was not removed"
}

state_case() { # MODE WORD
	local run=$WORK/run-state-$1
	FAKE_STATE=$1 FAKE_LOG=regular run_dutlab "$WORK/sec.ini" --out "$run"
	[ "$rc" -ne 0 ] || case_fail "dutlab run accepted a state file with $2 (exit 0)"
	grep -q "refusing the cluster state file .*pgload_state.json" "$WORK/out.txt" ||
		case_fail "no refusal naming pgload_state.json: $(grep 'rep 1 failed' "$WORK/out.txt")"
}
case_state_pgowned() { state_case pgowned "owner postgres"; }
case_state_dotdot() { state_case dotdot "socket_dir .."; }
case_state_quote() { state_case quote "socket_dir with a quote"; }

var_case() { # how the var root was made: $1 = description
	DUTLAB_VAR_ROOT=$vt FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/sec.ini"
	[ "$rc" -ne 0 ] || case_fail "dutlab run ran with a runs root $1"
	grep -q "refusing $vt .*remove it, or chown root and chmod go-w" "$WORK/out.txt" ||
		case_fail "no refusal naming $vt: $(tail -3 "$WORK/out.txt")"
}
case_var_root_nobody() {
	vt=$WORK/vt-nobody
	mkdir "$vt" && chown nobody:nogroup "$vt"
	var_case "owned by nobody"
	[ -z "$(find "$vt" -mindepth 1)" ] || case_fail "something was written into $vt: $(find "$vt" -mindepth 1)"
}
case_var_root_0777() {
	vt=$WORK/vt-0777
	mkdir "$vt" && chmod 777 "$vt"
	var_case "of mode 0777"
	[ -z "$(find "$vt" -mindepth 1)" ] || case_fail "something was written into $vt"
}
case_var_root_link() {
	vt=$WORK/vt-link
	mkdir "$WORK/elsewhere"
	ln -s "$WORK/elsewhere" "$vt"
	var_case "that is a symlink"
	[ -z "$(find "$WORK/elsewhere" -mindepth 1)" ] || case_fail "something was written through $vt"
}

case_var_root_fresh() {
	vt=$WORK/vt-fresh
	DUTLAB_VAR_ROOT=$vt FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/sec.ini"
	[ "$rc" -eq 0 ] || { case_fail "dutlab run exited $rc with a fresh runs root"; return; }
	[ "$(stat -c %a:%U "$vt")" = 755:root ] && [ "$(stat -c %a:%U "$vt/runs")" = 755:root ] ||
		case_fail "$vt or $vt/runs is not 755 root: $(stat -c %a:%U "$vt" "$vt/runs" | tr '\n' ' ')"
	for d in "$vt"/runs/sec-*; do
		[ "$(stat -c %a:%U "$d")" = 750:root ] || case_fail "$d is $(stat -c %a:%U "$d"), expected 750:root"
	done
}

case_out_nobody() {
	mkdir "$WORK/nob" && chown nobody:nogroup "$WORK/nob"
	FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/sec.ini" --out "$WORK/nob/run"
	[ "$rc" -ne 0 ] || case_fail "dutlab run wrote a run under a directory of nobody's"
	grep -q "refusing the run directory $WORK/nob/run: $WORK/nob" "$WORK/out.txt" ||
		case_fail "no refusal naming $WORK/nob: $(tail -2 "$WORK/out.txt")"
	[ ! -e "$WORK/nob/run" ] || case_fail "$WORK/nob/run was made"
}
case_out_link() {
	mkdir "$WORK/outdst"
	ln -s "$WORK/outdst" "$WORK/outlink"
	FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/sec.ini" --out "$WORK/outlink"
	[ "$rc" -ne 0 ] || case_fail "dutlab run wrote a run through a symlink"
	grep -q "refusing the run directory $WORK/outlink" "$WORK/out.txt" ||
		case_fail "no refusal naming $WORK/outlink: $(tail -2 "$WORK/out.txt")"
	[ -z "$(find "$WORK/outdst" -mindepth 1)" ] || case_fail "something was written through $WORK/outlink"
}

case_view_off_closed() {
	mkdir -p "$WORK/closed/t" && chmod 700 "$WORK/closed"
	sed "s|path = $WORK/t|path = $WORK/closed/t|" "$WORK/sec.ini" >"$WORK/closed.ini"
	FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/closed.ini" --out "$WORK/run-closed"
	[ "$(stat -c %a "$WORK/closed")" = 700 ] || case_fail "$WORK/closed was changed to $(stat -c %a "$WORK/closed")"
	[ "$rc" -ne 0 ] || case_fail "dutlab run accepted a target postgres cannot reach"
	grep -q "user postgres cannot search $WORK/closed (owner root, mode 0700)" "$WORK/out.txt" ||
		case_fail "no refusal naming $WORK/closed: $(tail -2 "$WORK/out.txt")"
}

case_target_writable() {
	mkdir -p "$WORK/open" && chmod 777 "$WORK/open"
	sed "s|path = $WORK/t|path = $WORK/open|" "$WORK/sec.ini" >"$WORK/open.ini"
	FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/open.ini" --out "$WORK/run-open"
	[ "$rc" -ne 0 ] || case_fail "dutlab run put the run's data in a world-writable directory"
	grep -q "$WORK/open is writable by other users: that user could replace" "$WORK/out.txt" ||
		case_fail "no refusal naming $WORK/open: $(grep 'failed' "$WORK/out.txt" | head -1)"
	[ ! -e "$WORK/open/dutlab-run" ] || case_fail "$WORK/open/dutlab-run was made"
}

# A directory of another user's (mode 0755): its owner can rename dutlab-run and
# put a link there while root works in it; and a root directory inside it too.
case_target_owned() {
	mkdir -p "$WORK/theirs/inner" && chown nobody "$WORK/theirs" && chmod 755 "$WORK/theirs"
	for d in theirs theirs/inner; do
		sed "s|path = $WORK/t|path = $WORK/$d|" "$WORK/sec.ini" >"$WORK/owned.ini"
		FAKE_STATE=ok FAKE_LOG=regular run_dutlab "$WORK/owned.ini" --out "$WORK/run-owned-${d#*/}"
		[ "$rc" -ne 0 ] || case_fail "dutlab run put the run's data under a directory nobody owns ($d)"
		grep -q "$WORK/theirs is owned by another user: that user could replace" "$WORK/out.txt" ||
			case_fail "no refusal naming $WORK/theirs for $d: $(grep 'failed' "$WORK/out.txt" | head -1)"
		[ ! -e "$WORK/$d/dutlab-run" ] || case_fail "$WORK/$d/dutlab-run was made"
	done
}

case_setting_control() {
	experiment "$WORK/ctl.ini" "set = work_mem = 4MB$(printf '\001')listen_addresses = '*'"
	run_dutlab "$WORK/ctl.ini" --dry-run
	[ "$rc" -ne 0 ] || case_fail "a setting value with a control character was accepted"
	grep -q "ctl.ini:9: \[postgres\]: set: the value of work_mem has a control character" "$WORK/out.txt" ||
		case_fail "no refusal with file:line: $(tail -2 "$WORK/out.txt")"
}

all="server_log_link server_log_copy state_pgowned state_dotdot state_quote var_root_nobody var_root_0777
var_root_link var_root_fresh out_nobody out_link view_off_closed target_writable target_owned setting_control"
for CASE in ${IT_CASES:-$all}; do
	before=$failures
	"case_$CASE"
	[ "$failures" -eq "$before" ] && { echo "ok: $CASE"; [ -z "${IT_VERBOSE:-}" ] || cat "$WORK/out.txt"; } || { echo "--- output of $CASE:"; cat "$WORK/out.txt"; }
	rm -rf "$WORK/t/dutlab-run"
done
[ "$failures" -eq 0 ] || fail "$failures check(s) failed"
echo "PASS: nothing planted was followed, copied, or let through"

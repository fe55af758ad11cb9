#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regression (issue #27): an output file of dutlab (export -o, report --json,
# compare --json) is replaced only by a complete output, through a temporary
# file renamed over it; a failing command leaves it byte-identical; a device,
# FIFO or stdout is written in place and never unlinked or renamed over (the
# old export truncated -o FILE first and unlinked it on any error: as root,
# `dutlab export -o /dev/null --phase nosuch` deleted /dev/null).
# usage: export-output.sh DUTLAB MKTRACE   (DUT_SOURCE_ROOT: the source tree)
set -u
DUTLAB=$1
MKTRACE=$2
FIX=${DUT_SOURCE_ROOT:-.}/tests/tools/fixtures/compare
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a character device node of its own, made with mknod)"; exit 77; }
TMP=$(mktemp -d /tmp/export-output.XXXXXX) || exit 99
catpid=
trap '[ -n "$catpid" ] && kill "$catpid" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 99' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$MKTRACE" "$TMP/t.dtr" >/dev/null || exit 99
printf 'not a trace at all\n' >"$TMP/bad.dtr"
printf 'precious: not an export\n' >"$TMP/keep.orig"
# a twin of /dev/null of our own (char 1,3): the old code's unlink hits it, not the system's
mknod "$TMP/null" c 1 3 || exit 99
nulltwin() { [ -c "$TMP/null" ] && [ "$(stat -c %t:%T "$TMP/null")" = "1:3" ]; }

# expect_kept NAME EXIT ARGS...: the command fails with EXIT and $K is what it was
expect_kept() {
	name=$1 want=$2
	shift 2
	cp -p "$TMP/keep.orig" "$TMP/keep"
	ino=$(stat -c %i "$TMP/keep")
	"$DUTLAB" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = "$want" ] || { fail "$name: exit $rc, expected $want"; cat "$TMP/err"; }
	[ -f "$TMP/keep" ] || { fail "$name: the existing output file was removed"; return; }
	cmp -s "$TMP/keep" "$TMP/keep.orig" || fail "$name: the existing output file was changed"
	[ "$(stat -c %i "$TMP/keep")" = "$ino" ] || fail "$name: the existing output file was replaced"
	ls "$TMP"/keep?* 2>/dev/null | grep -v keep.orig && fail "$name: a temporary file was left"
}
K=$TMP/keep
expect_kept "export unknown --phase" 1 export "$TMP/t.dtr" --format csv --phase nosuch -o "$K"
grep -qF 'no phase marker "nosuch"' "$TMP/err" || fail "export unknown --phase: no message naming it"
expect_kept "export fio of a non-I/O op" 1 export "$TMP/t.dtr" --format fio --ops open -o "$K"
expect_kept "export unknown --ops" 2 export "$TMP/t.dtr" --format csv --ops nosuch -o "$K"
expect_kept "export unreadable trace" 1 export "$TMP/bad.dtr" --format csv -o "$K"
expect_kept "export missing trace" 1 export "$TMP/none.dtr" --format csv -o "$K"
expect_kept "report --json, missing trace" 1 report "$TMP/none.dtr" --json "$K"

# a failing export into a device: the node stays, nothing renamed over it
"$DUTLAB" export "$TMP/t.dtr" --format csv --phase nosuch -o "$TMP/null" >/dev/null 2>&1
nulltwin || fail "export -o DEVICE, failing: the device node was removed or replaced"
# a successful one writes into it in place
"$DUTLAB" export "$TMP/t.dtr" --format csv -o "$TMP/null" 2>"$TMP/err" || { fail "export -o DEVICE: exit $?"; cat "$TMP/err"; }
nulltwin || fail "export -o DEVICE: the device node was removed or replaced"
# the system's /dev/null, only once its twin survived (an old build would delete it)
if nulltwin; then
	"$DUTLAB" export "$TMP/t.dtr" --format csv --phase nosuch -o /dev/null >/dev/null 2>&1
	[ -c /dev/null ] || { fail "export -o /dev/null: /dev/null is no longer a character device"; }
fi

# a FIFO: written in place (a reader gets the CSV), never removed
mkfifo "$TMP/fifo" || exit 99
cat "$TMP/fifo" >"$TMP/fifo.out" &
catpid=$!
"$DUTLAB" export "$TMP/t.dtr" --format csv -o "$TMP/fifo" 2>"$TMP/err" || { fail "export -o FIFO: exit $?"; cat "$TMP/err"; }
wait "$catpid"
catpid=
[ -p "$TMP/fifo" ] || fail "export -o FIFO: the FIFO was removed or replaced"
head -1 "$TMP/fifo.out" | grep -q '^ts_ns,rel_ns,op,' || fail "export -o FIFO: the reader got no CSV"
# failing: --phase is checked before the FIFO is opened (the old code blocked there for a reader)
timeout 10 "$DUTLAB" export "$TMP/t.dtr" --format csv --phase nosuch -o "$TMP/fifo" >/dev/null 2>&1
[ $? = 1 ] || fail "export -o FIFO, failing: not exit 1 at once (blocked opening the FIFO?)"
[ -p "$TMP/fifo" ] || fail "export -o FIFO, failing: the FIFO was removed"

# stdout: -, /dev/stdout
"$DUTLAB" export "$TMP/t.dtr" --format csv -o - >"$TMP/dash.csv" 2>"$TMP/err" || fail "export -o -: exit $?"
"$DUTLAB" export "$TMP/t.dtr" --format csv -o /dev/stdout >"$TMP/devstdout.csv" 2>"$TMP/err" ||
	{ fail "export -o /dev/stdout: exit $?"; cat "$TMP/err"; }
[ -L /dev/stdout ] || [ -c /dev/stdout ] || fail "export -o /dev/stdout: /dev/stdout was replaced"
"$DUTLAB" export "$TMP/t.dtr" --format csv >"$TMP/plain.csv" 2>/dev/null
[ -s "$TMP/plain.csv" ] && cmp -s "$TMP/plain.csv" "$TMP/dash.csv" && cmp -s "$TMP/plain.csv" "$TMP/devstdout.csv" ||
	fail "export -o - and -o /dev/stdout differ from stdout"
# appending to a log through /dev/stdout keeps what the log held
printf 'log line\n' >"$TMP/log"
"$DUTLAB" export "$TMP/t.dtr" --format csv -o /dev/stdout >>"$TMP/log" 2>/dev/null || fail "export -o /dev/stdout >>: exit $?"
[ "$(head -1 "$TMP/log")" = "log line" ] || fail "export -o /dev/stdout >> LOG: the log lost its first line"

# a successful export replaces an existing file, keeps its mode, leaves no temporary file
cp "$TMP/keep.orig" "$K"
chmod 0640 "$K"
"$DUTLAB" export "$TMP/t.dtr" --format csv -o "$K" 2>"$TMP/err" || { fail "export -o FILE: exit $?"; cat "$TMP/err"; }
cmp -s "$K" "$TMP/plain.csv" || fail "export -o FILE: the file is not the export"
[ "$(stat -c %a "$K")" = 640 ] || fail "export -o FILE: mode $(stat -c %a "$K"), was 640"
ls "$TMP"/keep?* 2>/dev/null | grep -v keep.orig && fail "export -o FILE: a temporary file was left"
"$DUTLAB" export "$TMP/t.dtr" --format csv -o "$TMP/new.csv" 2>/dev/null && cmp -s "$TMP/new.csv" "$TMP/plain.csv" ||
	fail "export -o NEWFILE: not written"

# through a link to a regular file: the file gets the export, the link stays
printf 'old\n' >"$TMP/target.csv"
ln -s "$TMP/target.csv" "$TMP/link.csv"
"$DUTLAB" export "$TMP/t.dtr" --format csv -o "$TMP/link.csv" 2>/dev/null || fail "export -o LINK: exit $?"
[ -L "$TMP/link.csv" ] && cmp -s "$TMP/target.csv" "$TMP/plain.csv" || fail "export -o LINK: not written through the link"
# a directory is refused, and stays
mkdir "$TMP/adir"
"$DUTLAB" export "$TMP/t.dtr" --format csv -o "$TMP/adir" >/dev/null 2>"$TMP/err" && fail "export -o DIR: exit 0"
[ -d "$TMP/adir" ] && grep -q "Is a directory" "$TMP/err" || fail "export -o DIR: not refused as a directory"

# report --json and compare --json into a device: written in place, not renamed over
"$DUTLAB" report "$TMP/t.dtr" --json "$TMP/null" >/dev/null 2>"$TMP/err" || { fail "report --json DEVICE: exit $?"; cat "$TMP/err"; }
nulltwin || fail "report --json DEVICE: the device node was replaced"
"$DUTLAB" compare "$FIX/oltp-a.json" "$FIX/oltp-b.json" --json "$TMP/null" >/dev/null 2>"$TMP/err" ||
	{ fail "compare --json DEVICE: exit $?"; cat "$TMP/err"; }
nulltwin || fail "compare --json DEVICE: the device node was replaced"
# ... and into a file: replaced whole
cp "$TMP/keep.orig" "$K"
"$DUTLAB" report "$TMP/t.dtr" --json "$K" >/dev/null 2>&1 && grep -q '"schema": *"dutlab-result"' "$K" ||
	fail "report --json FILE: not written"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "export-output: all checks passed"

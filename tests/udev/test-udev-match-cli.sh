#!/bin/bash
# dut-udev-match from the command line, as udev runs it: match, no match,
# no file, a bad file (message names file:line, nothing printed on stdout),
# an ambiguous match, --check, usage errors.  Needs no root.
HELPER=$1
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$HELPER" ] || { echo "harness error: dut-udev-match not found at '$HELPER'"; exit 99; }

WORK=$(mktemp -d /var/tmp/dutlab-udev-cli.XXXXXX) || exit 99
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
CONF=$WORK/devices.conf

# run WANT_STATUS ARGS...: stdout in $OUT, stderr in $ERR.
run() {
	local want=$1
	shift
	"$HELPER" "$@" >"$WORK/out" 2>"$WORK/err"
	local got=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
	[ "$got" = "$want" ] || { echo "stdout: $OUT"; echo "stderr: $ERR"; fail "exit $got, want $want: $*"; }
}
# udev passes every identity option, empty when the property is unset.
as_udev() {
	local want=$1 serial=$2 short=$3 wwn=$4 wwn_ext=$5 loop=$6
	run "$want" --config "$CONF" --serial="$serial" --serial-short="$short" \
		--wwn="$wwn" --wwn-ext="$wwn_ext" --loop-backing="$loop"
}
expect_out() { [ "$OUT" = "$1" ] || fail "stdout \"$OUT\", want \"$1\""; }
expect_err() { case "$ERR" in *"$1"*) ;; *) echo "stderr: $ERR"; fail "stderr lacks \"$1\"" ;; esac; }

# No file: nothing marked, silently (the rules may be installed before the file).
as_udev 0 "" "S4EWNX0N123456" "" "" ""
expect_out ""
[ -z "$ERR" ] || fail "a missing file should be silent, got: $ERR"

cat >"$CONF" <<'CONF'
# test devices
name=fast0 serial=S4EWNX0N123456
name=slow1 wwn=0x5000c500a1b2c3d4   # SATA disk

name=img0 loop_backing="/var/tmp/with blank.img"
CONF
as_udev 0 "Samsung_SSD_970_EVO_S4EWNX0N123456" "S4EWNX0N123456" "eui.1" "eui.1" ""
expect_out "DUT_NAME=fast0"
as_udev 0 "ST4000_ZZZ" "ZZZ" "0x5000C500A1B2C3D4" "0x5000C500A1B2C3D4" ""
expect_out "DUT_NAME=slow1"
as_udev 0 "" "" "" "" "/var/tmp/with blank.img"
expect_out "DUT_NAME=img0"
as_udev 0 "" "" "" "" ""
expect_out ""
as_udev 0 "OTHER" "OTHER" "0x1" "0x1" "/var/tmp/other.img"
expect_out ""
[ -z "$ERR" ] || fail "a non-matching device should be silent, got: $ERR"

run 0 --check --config "$CONF"
expect_out "$CONF: 3 devices
  /dev/dut/fast0 (line 2): serial=S4EWNX0N123456
  /dev/dut/slow1 (line 3): wwn=0x5000c500a1b2c3d4
  /dev/dut/img0 (line 5): loop_backing=/var/tmp/with blank.img"

# Two lines for one device: neither name, both lines named.
echo "name=dup wwn=0x77" >"$WORK/dup.conf"
cat "$CONF" >>"$WORK/dup.conf"
run 1 --config "$WORK/dup.conf" --serial-short=S4EWNX0N123456 --wwn=0x77
expect_out ""
expect_err "dup.conf:3: this device also matches \"dup\" on line 1"

# A bad line: the whole file is ignored, the message says file:line.
printf 'name=fast0 serial=S4EWNX0N123456\nname=slow1 wnn=0x5000c500a1b2c3d4\n' >"$CONF"
as_udev 1 "" "S4EWNX0N123456" "" "" ""
expect_out ""
expect_err "devices.conf:2: unknown key \"wnn\""
expect_err "no device is marked until this is fixed"
run 1 --check --config "$CONF"
expect_err "devices.conf:2: unknown key"

for bad in "name=a/b serial=1|devices.conf:1: name \"a/b\" contains a slash" \
	   "name=a serial=1\nname=a serial=2|devices.conf:2: name \"a\" is already used on line 1" \
	   "# c\nname=x|devices.conf:2: \"x\" has no match key" \
	   "name=\"a b\" serial=1|contains a blank"; do
	printf "${bad%%|*}\n" >"$CONF"
	as_udev 1 "" "1" "" "" ""
	expect_out ""
	expect_err "${bad#*|}"
done

# Not a file, unreadable, missing for --check, usage errors.
run 1 --config "$WORK" --serial-short=1
expect_err "not a regular file"
run 1 --check --config "$WORK/nonexistent.conf"
expect_err "does not exist: no device is marked"
run 2 --serial-short=1
expect_err "--config FILE is required"
run 2 --config "$CONF" stray
expect_err "unexpected argument \"stray\""
run 2 --bogus
run 0 --help
case "$OUT" in *"usage: dut-udev-match"*) ;; *) fail "--help prints no usage" ;; esac
echo "PASS"

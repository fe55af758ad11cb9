#!/bin/bash
# dutprobe's answers to bad input: clear messages and exit status 2 (usage)
# or 1 (refused), never a crash, never a write.  Needs no root.
DUTPROBE=$1
. "$(dirname "$0")/probe-test-lib.sh"

run 2 "$DUTPROBE"
run 0 "$DUTPROBE" --version
expect_msg "dutprobe "
run 0 "$DUTPROBE" --help
for cmd in bench slc fill trim; do
	run 0 "$DUTPROBE" $cmd --help
	expect_msg "usage: dutprobe $cmd"
done
run 2 "$DUTPROBE" frobnicate x
expect_msg 'unknown command "frobnicate"'
run 2 "$DUTPROBE" bench
expect_msg "no TARGET given"
run 2 "$DUTPROBE" bench "$WORK/a" "$WORK/b" --size 1M
expect_msg "more than one TARGET"
run 2 "$DUTPROBE" bench "$WORK/missing" --quick
expect_msg "does not exist; give --size SIZE"
run 2 "$DUTPROBE" bench "$WORK" --quick
expect_msg "is a directory"
run 2 "$DUTPROBE" bench /dev/null --quick
expect_msg "neither a regular file nor a block device"
run 2 "$DUTPROBE" bench "$WORK/f" --size 1M --bogus
expect_msg "unknown option"
run 2 "$DUTPROBE" bench "$WORK/f" --size 12parsecs
expect_msg "--size"
run 2 "$DUTPROBE" bench "$WORK/f" --size 1M --row "RND4K Q0 R"
expect_msg "queue depth"
run 2 "$DUTPROBE" bench "$WORK/f" --size 1M --rows "SEQ1M R,,W"
run 2 "$DUTPROBE" bench "$WORK/f" --size 1M --row "RND1000 R"
expect_msg "not a multiple of 512"
run 2 "$DUTPROBE" fill "$WORK/f" --size 1M --levels 30%,120%
expect_msg "level 120% is above 100%"
run 2 "$DUTPROBE" fill "$WORK/f" --size 1M --levels 2M
expect_msg "larger than the span"
run 2 "$DUTPROBE" fill "$WORK/f" --size 1M --ss "iops"
expect_msg "expected iops:N%"
run 2 "$DUTPROBE" trim "$WORK/f" --size 1M --offset 100
expect_msg "multiples of the logical block size"
run 2 "$DUTPROBE" trim "$WORK/f" --size 1M --offset 512K --length 1M
expect_msg "reach past the end"
[ ! -e "$WORK/missing" ] || fail "a refused run created a file"
run 2 "$DUTPROBE" slc "$WORK/new" --size 1M --bs 1000
expect_msg "--bs 1000 and --offset 0 must be multiples of the logical block size"
[ ! -e "$WORK/new" ] || fail "a run refused after creating its file left the file behind"
# Another user's file (made first in a shared directory): never written, only read.
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
	dd if=/dev/urandom of="$WORK/theirs" bs=64K count=16 status=none && chown nobody "$WORK/theirs"
	SUM=$(md5sum <"$WORK/theirs")
	run 1 "$DUTPROBE" bench "$WORK/theirs" --quick --rows "RND4K Q1 W"
	expect_msg "refusing to write to another user's file"
	run 1 "$DUTPROBE" slc "$WORK/theirs" --size 1M
	expect_msg "refusing to write to another user's file"
	run 0 "$DUTPROBE" bench "$WORK/theirs" --quick --read-only --rows "RND4K Q1"
	[ "$(md5sum <"$WORK/theirs")" = "$SUM" ] || fail "another user's file was changed"
fi
# tmpfs: no device behind it.
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	T=$(mktemp -u /dev/shm/dutprobe-test.XXXXXX)
	run 2 "$DUTPROBE" bench "$T" --size 1M --quick
	expect_msg "no O_DIRECT support on tmpfs"
	[ ! -e "$T" ] || { rm -f "$T"; fail "the refused tmpfs file was left behind"; }
fi
echo "PASS"

#!/bin/bash
# The open/stat race of dutprobe (issue #27, finding 3): the target is a
# symbolic link to a blank loop device when the safety checks look at it,
# and is re-pointed at another device (one with a filesystem) right before
# dutprobe opens it for I/O (swap-open-preload.so, LD_PRELOAD).  dutprobe
# must refuse, as the opened device is not the one that was checked, and
# the other device must be unchanged.  Root only.
#   test-probe-swap.sh DUTPROBE PRELOAD_SO
DUTPROBE=$1
PRELOAD=$2
. "$(dirname "$0")/probe-test-lib.sh"
need_root
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 (e2fsprogs) is not installed"
[ -f "$PRELOAD" ] || { echo "harness error: no $PRELOAD"; exit 99; }

A=$(new_loop 32M) || fail "cannot set up a loop device"
LOOPS+=("$A")
B=$(new_loop 32M) || fail "cannot set up a loop device"
LOOPS+=("$B")
mkfs.ext4 -q -F "$B" || fail "mkfs.ext4"
before=$(sha256sum <"$B")
ln -s "$A" "$WORK/dev"

# without the swap the link is fine (A is blank)
run 0 "$DUTPROBE" trim "$WORK/dev" --destructive --length 1M
run 1 env LD_PRELOAD="$PRELOAD" SWAP_LINK="$WORK/dev" SWAP_TO="$B" "$DUTPROBE" trim "$WORK/dev" --destructive
expect_msg "$WORK/dev changed while it was checked (checked: block device $(stat -c '%t:%T' "$A" | awk -F: '{printf "%d:%d", strtonum("0x"$1), strtonum("0x"$2)}')"
[ "$(readlink "$WORK/dev")" = "$B" ] || fail "the preload did not swap the link"
[ "$(sha256sum <"$B")" = "$before" ] || fail "the other device was written"
echo "PASS"

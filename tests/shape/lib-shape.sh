# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the shaping tests (sourced, bash), on top of tests/fuse/lib.sh
# (skips, the cleanup stack, dut_mount/dut_umount, PostgreSQL helpers).
#
# - shape_need_dutfs: root, /dev/fuse, a dutfs that knows --shape (else 77).
# - shape_ctl MNT CMD: one control command; fails the test unless the status
#   read back is "ok".
# - expect_within NAME MEASURED CONFIGURED PCT: records a failed check (the
#   test goes on, so one run shows every figure) unless
#   |measured - configured| <= PCT% of configured; expect_range takes a
#   lower and an upper percentage.  shape_finish exits 1 when any check
#   failed.

. "$(dirname "${BASH_SOURCE[0]}")/../fuse/lib.sh"

DUTPROBE=${DUTPROBE:-$DUT_BUILD_ROOT/probe/dutprobe}
PGLOAD=${PGLOAD:-$DUT_BUILD_ROOT/pgload/pgload}
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}
SHAPE_FAILED=0

shape_need_dutfs() {
	dut_need_root
	dut_need_dutfs
	"$DUTFS" --help 2>&1 | grep -q -- '--shape' \
		|| dut_skip "$DUTFS has no --shape option yet (the shaping daemon is not built in)"
}

shape_need_tool() { # PATH (a program of this build)
	[ -x "$1" ] || dut_skip "$1 is not built (ninja -C BUILD $(basename "$1"))"
}

# Write one command to the control file, read the status back.
shape_ctl() { # MNT COMMAND
	local st
	printf '%s\n' "$2" >"$1/.dutfs/control" || die "writing \"$2\" to $1/.dutfs/control failed"
	st=$(cat "$1/.dutfs/control") || die "reading $1/.dutfs/control back failed"
	[ "$st" = ok ] || die "control command \"$2\" on $1: status \"$st\", want \"ok\""
}

# The "shape" member of the live statistics, as JSON.
shape_stats() { # MNT
	jq -c '.shape' "$1/.dutfs/stats.json"
}

# expect_range NAME MEASURED CONFIGURED LO_PCT HI_PCT: passes when
# configured * (1 - LO_PCT/100) <= measured <= configured * (1 + HI_PCT/100)
expect_range() {
	local name=$1 got=$2 want=$3 lo=$4 hi=$5 verdict tol
	if awk -v g="$got" -v w="$want" -v lo="$lo" -v hi="$hi" \
		'BEGIN { exit !(g != "" && g >= w * (1 - lo / 100) && g <= w * (1 + hi / 100)) }'; then
		verdict=ok
	else
		verdict=FAIL
		SHAPE_FAILED=1
	fi
	if [ "$lo" = "$hi" ]; then tol="+-$lo%"; else tol="-$lo%/+$hi%"; fi
	printf '%s: %-34s measured %10.4g  configured %10.4g  (%s)  %s\n' \
		"$DUT_TEST_NAME" "$name" "$got" "$want" "$tol" "$verdict"
}

# expect_within NAME MEASURED CONFIGURED PCT
expect_within() { expect_range "$1" "$2" "$3" "$4" "$4"; }

shape_finish() {
	[ "$SHAPE_FAILED" = 0 ] || die "some figures are outside their tolerance (see above)"
	say "PASS"
}

# Shared helpers for the dutprobe integration tests (sourced; bash).
# Usage in a test: DUTPROBE=$1; . "$(dirname "$0")/probe-test-lib.sh"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ -x "$DUTPROBE" ] || { echo "harness error: dutprobe not found at '$DUTPROBE'"; exit 99; }

WORK=$(mktemp -d /var/tmp/dutprobe-test.XXXXXX) || exit 99
LOOPS=()
MOUNTS=()
PIDS=()     # background dutprobe runs: stopped before the devices go away
cleanup() {
	local m l p
	for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (loop devices)"
	command -v losetup >/dev/null || skip "losetup (util-linux) is not installed"
	[ -e /dev/loop-control ] || skip "no loop device support (/dev/loop-control missing)"
}

need_jq() {
	command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
}

# new_loop SIZE [SECTOR_SIZE]: a direct-I/O loop device over a fresh image; prints its path.
new_loop() {
	local img dev
	img=$(mktemp "$WORK/img.XXXXXX") || return 1
	truncate -s "$1" "$img" || return 1
	dev=$(losetup --direct-io=on ${2:+--sector-size "$2"} -f --show "$img") || return 1
	echo "$dev"
}

# run EXPECTED_STATUS CMD...: run, keep stdout+stderr in $OUT, check the exit status.
run() {
	local want=$1
	shift
	OUT=$("$@" 2>&1)
	local got=$?
	if [ "$got" != "$want" ]; then
		echo "--- output of: $*"
		echo "$OUT"
		fail "exit status $got, want $want: $*"
	fi
}

# expect_msg TEXT: $OUT contains TEXT.
expect_msg() {
	case "$OUT" in
	*"$1"*) ;;
	*) echo "--- output:"; echo "$OUT"; fail "output lacks \"$1\"" ;;
	esac
}

# json_check FILE JQ_EXPR DESCRIPTION: the expression must be true.
json_check() {
	jq -e "$2" "$1" >/dev/null || { jq . "$1" | head -60; fail "$3 ($2)"; }
}

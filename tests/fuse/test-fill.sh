#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test (issue #17): in the syscall view the kernel's page-cache
# fills (posix_fadvise WILLNEED, readahead(2), a fault on a private mapping)
# are served with the right data but are not in the trace; the trace holds
# exactly the one pread of page_fill.c, and stats.json counts the fills in
# requests.read_page_fill.
#
#     test-fill.sh PAGE_FILL_BINARY
. "$(dirname "$0")/lib.sh"

PF=${1:?usage: test-fill.sh PAGE_FILL_BINARY}
DUT_TEST_NAME=syscall-page-fill
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs
dut_need_prog jq jq
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB): ninja -C BUILD tools/dutlab"

dut_tmpdir
mkdir -p "$T/backing"
head -c $((4 << 20)) /dev/urandom >"$T/backing/f" || die "cannot write the backing file"
dut_mount "$T/backing" "$T/mnt" --view syscall --trace "$T/trace.dtr"

pid=$(timeout 60 "$PF" "$T/mnt/f" "$T/backing/f") || die "page_fill failed (see above)"
# fadvise and readahead(2) fills are asynchronous: wait (bounded) for all three
fills=0
for _ in $(seq 50); do
	fills=$(jq -r '.requests.read_page_fill // 0' "$T/mnt/.dutfs/stats.json") || die "cannot read stats.json"
	[ "$fills" -ge 3 ] && break
	sleep 0.1
done
fail=""
[ "$fills" -ge 3 ] || fail="stats.json counts $fills page-cache fills (requests.read_page_fill); expected at least 3 (fadvise, readahead, fault)"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"

"$DUTLAB" export "$T/trace.dtr" --format csv --ops read -o "$T/reads.csv" 2>"$T/export.err" \
	|| { cat "$T/export.err" >&2; die "dutlab export failed"; }
got=$(awk -F, 'NR > 1 && $5 == "f" { print $8, $9, $12 }' "$T/reads.csv")
if [ "$got" != "81920 8192 $pid" ]; then
	printf 'reads of f in the trace (offset len pid):\n%s\n' "$got" >&2
	fail="${fail:+$fail; }expected exactly the pread of 8192 bytes at 81920 by pid $pid in the trace; page-cache fills must not be traced"
fi
[ -z "$fail" ] || die "$fail"
say "trace: only the pread; $fills page-cache fills served untraced, data correct"
say "PASS"

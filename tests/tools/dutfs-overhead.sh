#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutfs's own time in the trace (issue #17): a real mount, syscall view,
# one rule sending shaped/ to a fixed 2 ms model, plain/ without a rule.
# 4 KiB O_DIRECT reads with dd, alternated between the two directories
# (ROUNDS rounds of N reads each, so that the machine's load hits both alike).
# From `dutlab report TRACE --by file --json` (the report's own numbers):
#   - every read of both files carries dutfs_ns (requests == read ops);
#   - shaped lat_ns p50 is the model's 2 ms plus the backing call:
#     2 ms <= p50 <= 2 ms + plain lat p50 + LAT_SLACK_US (the timer thread's
#     wake-up is in lat_ns, as docs/trace-format.md says);
#   - the shaping delay is NOT dutfs time: shaped dutfs_ns p50 <=
#     max(3 x plain dutfs_ns p50, plain dutfs_ns p50 + 200 us);
#   - the human report prints the dutfs time table with both figures;
#   - opens and creates (raw reply path) carry dutfs_ns too: every OPEN
#     record (the dd opens) and the CREATE of a new file (tracestat).
# The medians are printed, so a run shows what dutfs costs on this machine.
# usage: dutfs-overhead.sh DUTLAB TRACESTAT   (needs root, /dev/fuse, dutfs with --shape, jq)
. "$(dirname "$0")/../shape/lib-shape.sh"
DUT_TEST_NAME=dutfs-overhead
DUTLAB=${1:-$DUTLAB}
TRACESTAT=${2:-$DUT_BUILD_ROOT/tests/tools/tracestat}

MODEL_MS=2
ROUNDS=3
N=200            # reads per directory and round
LAT_SLACK_US=1000

shape_need_dutfs
dut_need_prog jq jq
dut_need_prog dd dd
[ -x "$DUTLAB" ] || dut_skip "$DUTLAB is not built"
[ -x "$TRACESTAT" ] || dut_skip "$TRACESTAT is not built"

dut_tmpdir
cat >"$T/rules.ini" <<EOF
[model fixed2]
type = fixed
read_latency = ${MODEL_MS}ms
write_latency = ${MODEL_MS}ms

[rule shaped]
path = shaped/*
model = fixed2
EOF
for d in plain shaped; do
	mkdir -p "$T/backing/$d"
	dd if=/dev/urandom of="$T/backing/$d/f" bs=1M count=4 status=none || die "cannot write $T/backing/$d/f"
done
dut_mount "$T/backing" "$T/mnt" --view syscall --shape "$T/rules.ini" --trace "$T/trace.dtr"

for r in $(seq 1 $ROUNDS); do
	for d in plain shaped; do
		timeout 120 dd if="$T/mnt/$d/f" of=/dev/null bs=4k count=$N iflag=direct status=none \
			|| die "dd of $T/mnt/$d/f failed (round $r)"
	done
done
: >"$T/mnt/plain/created" || die "cannot create $T/mnt/plain/created"
dut_umount "$T/mnt" || die "the unmount had to be forced; the trace may be incomplete"

"$DUTLAB" report "$T/trace.dtr" --by file --top 0 --json "$T/report.json" >"$T/report.txt" 2>"$T/report.err" \
	|| { cat "$T/report.err" >&2; die "dutlab report failed"; }
# file FIELD: one figure of the report's row for DIR/f
row() { # DIR JQ-PATH
	jq -r --arg n "$1/f" ".phases[0].extra.files[] | select(.name == \$n) | $2" "$T/report.json"
}
want_ops=$((ROUNDS * N))
for d in plain shaped; do
	ops=$(row $d .read.ops)
	withd=$(row $d '.dutfs_ns.requests // 0')
	[ "$ops" = "$want_ops" ] || die "$d/f: $ops reads in the trace, want $want_ops"
	[ "$withd" = "$ops" ] || die "$d/f: $withd of $ops reads carry dutfs_ns (want all)"
done
plain_lat=$(row plain '.read.latency_ns.p50')
shaped_lat=$(row shaped '.read.latency_ns.p50')
plain_d=$(row plain '.dutfs_ns.p50')
shaped_d=$(row shaped '.dutfs_ns.p50')
plain_share=$(row plain '.dutfs_ns.share_pct')
shaped_share=$(row shaped '.dutfs_ns.share_pct')
say "unshaped: lat_ns p50 $plain_lat, dutfs_ns p50 $plain_d (share ${plain_share}%)"
say "shaped ${MODEL_MS} ms: lat_ns p50 $shaped_lat, dutfs_ns p50 $shaped_d (share ${shaped_share}%)"

lat_lo=$((MODEL_MS * 1000000))
lat_hi=$((MODEL_MS * 1000000 + plain_lat + LAT_SLACK_US * 1000))
d_hi=$(( plain_d * 3 > plain_d + 200000 ? plain_d * 3 : plain_d + 200000 ))
check() { # NAME GOT LO HI
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then v=ok; else v=FAIL; SHAPE_FAILED=1; fi
	printf '%s: %-40s %10s ns  in [%s, %s]  %s\n' "$DUT_TEST_NAME" "$1" "$2" "$3" "$4" "$v"
}
check "shaped read lat_ns p50" "$shaped_lat" "$lat_lo" "$lat_hi"
check "shaped read dutfs_ns p50" "$shaped_d" 1 "$d_hi"
check "unshaped read dutfs_ns p50" "$plain_d" 1 "$lat_lo"

for op in open create; do
	read -r n withd med <<<"$("$TRACESTAT" "$T/trace.dtr" $op)" || die "tracestat $op failed"
	say "$op records: $n, with dutfs_ns: $withd, median dutfs_ns $med"
	[ "$n" -ge 1 ] && [ "$withd" = "$n" ] || die "$op: $withd of $n records carry dutfs_ns (want all, at least 1)"
done
sed -n '/^dutfs time (dutfs/,/^$/p' "$T/report.txt"
grep -q '^dutfs time (dutfs' "$T/report.txt" || { cat "$T/report.txt"; die "the human report has no dutfs time table"; }
grep -q 'not recorded' "$T/report.txt" && { cat "$T/report.txt"; die "the human report says dutfs time was not recorded"; }
shape_finish

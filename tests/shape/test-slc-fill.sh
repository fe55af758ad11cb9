#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutprobe finds what the ssd model was configured with, through a dutfs
# mount in the syscall view, with 1, 4 and 8 channels: a model's rates are
# the device's whatever its channel count (channels add concurrency, not
# capacity).  One mount per channel count, one model per directory:
#
#   slc/    ssd with a 132 MiB SLC cache (half way through an 8 MiB
#           window) written at 100 MB/s and native
#           flash at 20 MB/s, N channels, no recovery.  `dutprobe slc`
#           (1 MiB writes, QD8, 8 MiB windows) over 192 MiB: the cache size
#           it reports, and the bandwidths before and after that knee (the
#           medians of the plateaus), within 10% of the configuration; its
#           95% interval holds the configured size.
#   fill/   ssd with write_latency N ms, write_bw 400 MB/s,
#           capacity 64 MiB and fill_penalty 30%=1.0, 90%=2.5, N channels.  `dutprobe fill`
#           at 30% and 90% of a 64 MiB file (16 KiB random writes, QD 4N,
#           at least 8): IOPS at each level within 10% of N / ((write_latency
#           + 16 KiB / write_bw) * penalty) (the latency overlaps across
#           channels; the 41 us transfers on the shared link stay below it
#           up to N = 8), and the IOPS ratio 30% : 90% within 10% of 2.5.
#
# At QD >= 4N the model's channels are never idle, so throughput is
# the model's and the FUSE round trip is hidden; 10% is left for the
# windowing of the measurement and a loaded machine.  The rates are modest
# on purpose: when the backing file system stalls (dirty-page throttling
# of a busy shared disk), replies come out late and then in a burst, and
# single 8 MiB windows read 2x the rate (seen at 200 MB/s: 62 then 330
# MB/s); the plateau medians absorb that, a spurious knee would not.
. "$(dirname "$0")/lib-shape.sh"
DUT_TEST_NAME=shape-slc-fill

MiB=1048576
SLC_BYTES=$((132 * MiB))   # mid-window: 16.5 windows of 8 MiB
SLC_BW=100000000          # 100MB/s
NATIVE_BW=20000000        # 20MB/s
SPAN=$((192 * MiB))
FILL_CAP=$((64 * MiB))
FILL_BW=400000000         # 400MB/s
FILL_BS=16384
PEN_LO=1.0
PEN_HI=2.5
TOL=10

shape_need_dutfs
shape_need_tool "$DUTPROBE"
dut_need_prog jq jq

dut_tmpdir
for N in ${SHAPE_CHANNELS:-1 4 8}; do
QD=$((4 * N < 8 ? 8 : 4 * N))
# N ms per write: about 1,000 IOPS whatever N, as with one channel.  A
# request's backing write is hidden inside its model time, so a longer one
# hides a longer stall of the backing disk: at 2,000-3,800 IOPS on a busy
# machine one run in three came out 10-17% low)
FILL_LAT_NS=$((N * 1000000))
T0=$T; T=$T0/ch$N; mkdir -p "$T"
cat >"$T/rules.ini" <<EOF
[model slc]
type = ssd
read_latency = 0
write_latency = 0
write_bw = $((NATIVE_BW / 1000000))MB/s
slc_size = $((SLC_BYTES / MiB))MiB
slc_write_bw = $((SLC_BW / 1000000))MB/s
channels = $N
capacity = 4G

[model filling]
type = ssd
read_latency = 0
write_latency = $((FILL_LAT_NS / 1000))us
write_bw = $((FILL_BW / 1000000))MB/s
channels = $N
capacity = $((FILL_CAP / MiB))MiB
fill_penalty = 30%=$PEN_LO, 90%=$PEN_HI

[rule slc]
path = slc/*
model = slc

[rule fill]
path = fill/*
model = filling
EOF
mkdir -p "$T/backing/slc" "$T/backing/fill"
dut_mount "$T/backing" "$T/mnt" --view syscall --shape "$T/rules.ini"
echo "== $N channel(s), fill at QD $QD"

# ---- SLC ----
timeout 120 "$DUTPROBE" slc "$T/mnt/slc/f" --size $((SPAN / MiB))M --span $((SPAN / MiB))M \
	--bs 1M --qd 8 --window 8M --json "$T/slc.json" >"$T/slc.out" 2>&1 \
	|| { cat "$T/slc.out" >&2; die "dutprobe slc failed"; }
cat "$T/slc.out"
cache=$(jq -r '.phases[0].metrics.cache_bytes.value // empty' "$T/slc.json")
[ -n "$cache" ] || die "dutprobe found no cache knee: $(jq -r '.phases[0].extra.no_knee_reason' "$T/slc.json")"
# The knee dutprobe took for the cache (a slow start on a loaded machine can
# add a knee before it): the one at cache_bytes.
knee() { jq -r --argjson c "$cache" "[.phases[0].extra.knees[] | select(.bytes_at == \$c)][0].$1 / 1e6" "$T/slc.json"; }
before=$(knee bw_before)
after=$(knee bw_after)
expect_within "N=$N: SLC cache size (MiB)" "$(awk -v c="$cache" -v m=$MiB 'BEGIN { printf "%.1f", c / m }')" \
	$((SLC_BYTES / MiB)) $TOL
expect_within "N=$N: write bw in SLC (MB/s)" "$before" $((SLC_BW / 1000000)) $TOL
expect_within "N=$N: write bw after SLC (MB/s)" "$after" $((NATIVE_BW / 1000000)) $TOL
lo=$(jq -r --argjson c "$cache" "[.phases[0].extra.knees[] | select(.bytes_at == \$c)][0].ci95_lo_bytes" "$T/slc.json")
hi=$(jq -r --argjson c "$cache" "[.phases[0].extra.knees[] | select(.bytes_at == \$c)][0].ci95_hi_bytes" "$T/slc.json")
if [ "$lo" -le $SLC_BYTES ] && [ $SLC_BYTES -le "$hi" ]; then
	say "N=$N: 95% interval $((lo / MiB))..$((hi / MiB)) MiB holds the configured $((SLC_BYTES / MiB)) MiB: ok"
else
	say "N=$N: 95% interval $lo..$hi bytes does not hold the configured $SLC_BYTES: FAIL"
	SHAPE_FAILED=1
fi

# ---- fill penalty ----
timeout 150 "$DUTPROBE" fill "$T/mnt/fill/f" --size $((FILL_CAP / MiB))M --span $((FILL_CAP / MiB))M \
	--levels 30%,90% --qd $QD --bs $((FILL_BS / 1024))K --round-time 2s --max-rounds 6 \
	--ss iops:10%@3 --json "$T/fill.json" >"$T/fill.out" 2>&1 \
	|| { cat "$T/fill.out" >&2; die "dutprobe fill failed"; }
cat "$T/fill.out"
lo=$(jq -r '.phases[] | select(.name == "level_30%") | .metrics.iops_qd'$QD'.value' "$T/fill.json")
hi=$(jq -r '.phases[] | select(.name == "level_90%") | .metrics.iops_qd'$QD'.value' "$T/fill.json")
# service = (write_latency + bs / write_bw) * penalty, N of them at once
want_lo=$(awk -v l=$FILL_LAT_NS -v b=$FILL_BS -v r=$FILL_BW -v p=$PEN_LO -v n=$N 'BEGIN { printf "%.1f", n * 1e9 / ((l + b * 1e9 / r) * p) }')
want_hi=$(awk -v l=$FILL_LAT_NS -v b=$FILL_BS -v r=$FILL_BW -v p=$PEN_HI -v n=$N 'BEGIN { printf "%.1f", n * 1e9 / ((l + b * 1e9 / r) * p) }')
expect_within "N=$N: IOPS at 30% fill" "$lo" "$want_lo" $TOL
expect_within "N=$N: IOPS at 90% fill" "$hi" "$want_hi" $TOL
ratio=$(awk -v a="$lo" -v b="$hi" 'BEGIN { if (b > 0) printf "%.3f", a / b }')
expect_within "N=$N: IOPS ratio 30% : 90%" "$ratio" "$(awk -v a=$PEN_HI -v b=$PEN_LO 'BEGIN { print a / b }')" $TOL
dut_umount "$T/mnt"
T=$T0
done
shape_finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test (issue #17): in the device view, what the trace shows as
# reaching the device is served by the device, not by the backing file's
# page cache.
#
# PostgreSQL 15 (shared_buffers 16MB) on the device view: pgbench -i, then a
# first pass reads the accounts table and its index (pg_prewarm 'read'), so a
# backing page cache would now hold them.  Then the mount's page cache is
# emptied (posix_fadvise DONTNEED on the mount's files, as memory pressure
# would evict them; the backing files are left alone) and a cold
# select-only run (pgbench -S, 1 client) reads through the mount.  Checks:
# - fincore: the backing files hold at most $MAX_BACKING_MIB MiB of page cache
#   (buffered backing I/O: about the data set);
# - the median traced READ latency of the cold run is at least half the
#   O_DIRECT QD1 8 KiB random read latency (p50) that dutprobe bench measures
#   on a file of the same backing file system (buffered: a few µs, a page-cache
#   copy);
# - at most a tenth of those reads carry flag 0x10 (buffered).
. "$(dirname "$0")/lib.sh"

DUT_TEST_NAME=devread
SCALE=${DEVREAD_SCALE:-5}
MAX_BACKING_MIB=8
DUTPROBE=${DUTPROBE:-$DUT_BUILD_ROOT/probe/dutprobe}
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs
dut_need_pg
dut_need_prog fincore fincore
dut_need_prog python3 python3
[ -x "$DUTPROBE" ] || dut_skip "dutprobe is not built ($DUTPROBE)"
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB)"

dut_tmpdir
dut_mount "$T/backing" "$T/mnt" --trace "$T/trace.dtr"
PGLOG=$T/postgres.log
pg_setup "$T/mnt/pgdata"
pg_initdb
PGOPTS="-c shared_buffers=16MB -c autovacuum=off"
pg_start "$PGOPTS"
pg_bench -i -s "$SCALE" -q postgres >"$T/init.log" 2>&1 || { tail "$T/init.log"; die "pgbench -i failed"; }
# first pass: everything the cold run will read goes through the backing once
psql_q "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null || die "CREATE EXTENSION pg_prewarm failed"
psql_q "SELECT pg_prewarm('pgbench_accounts', 'read') + pg_prewarm('pgbench_accounts_pkey', 'read')" \
	>/dev/null || die "pg_prewarm failed"
pg_stop || die "PostgreSQL did not stop"

# Drop the mount's pages (clean now: the shutdown checkpoint synced them) and
# only those: the backing files keep whatever the backing I/O left cached.
python3 - "$T/mnt/pgdata" <<'EOF' || die "could not drop the mount's page cache"
import os, sys
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(d, f), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
EOF
# resident bytes of all regular files below DIR
resident_bytes() { find "$1" -type f -print0 | xargs -0 -r fincore -nbr -o RES | awk '{ s += $1 } END { print s + 0 }'; }
mount_res=$(resident_bytes "$T/mnt/pgdata/base")
say "mount's page cache after the drop: $((mount_res >> 20)) MiB of base/"
[ "$mount_res" -le $((4 << 20)) ] || die "the mount still caches $((mount_res >> 20)) MiB; the cold run would not be cold"

echo "mark cold" >"$T/mnt/.dutfs/control" || die "mark cold failed"
pg_start "$PGOPTS"
pg_bench -n -S -c 1 -T 5 postgres >"$T/select.log" 2>&1 || { tail "$T/select.log"; die "pgbench -S failed"; }
echo "mark end" >"$T/mnt/.dutfs/control" || die "mark end failed"
pg_stop || die "PostgreSQL did not stop"

back_res=$(resident_bytes "$T/backing/pgdata")
data_bytes=$(du -sb "$T/backing/pgdata/base" | awk '{ print $1 }')
say "backing files' page cache after the cold run: $((back_res >> 20)) MiB (data set $((data_bytes >> 20)) MiB)"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"

"$DUTPROBE" bench --row "RND8K Q1T1 R" --size 64M --time 2s --reps 1 --warmup 200ms \
	--json "$T/probe.json" "$T/probe.dat" >"$T/probe.log" 2>&1 || { cat "$T/probe.log"; die "dutprobe bench failed"; }
probe_p50=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases"][0]["latency"]["io"]["p50"])' "$T/probe.json") \
	|| die "no p50 in dutprobe's result"

"$DUTLAB" export "$T/trace.dtr" --format csv --ops read --phase cold -o "$T/cold.csv" \
	|| die "dutlab export of the cold phase failed"
# count, median lat_ns, reads flagged buffered (0x10)
read -r n med buffered < <(python3 - "$T/cold.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lat = [int(r["lat_ns"]) for r in rows]
buf = sum(1 for r in rows if int(r["flags"], 0) & 0x10)
print(len(lat), int(statistics.median(lat)) if lat else 0, buf)
EOF
) || die "could not read $T/cold.csv"
say "cold select-only run: $n traced reads, median $((med / 1000)) us, $buffered flagged buffered;" \
	"dutprobe O_DIRECT RND8K Q1 p50 $((probe_p50 / 1000)) us"

[ "$n" -ge 50 ] || die "only $n reads reached dutfs in the cold run; the mount's cache was not cold"
[ "$back_res" -le $((MAX_BACKING_MIB << 20)) ] ||
	die "the backing files hold $((back_res >> 20)) MiB in their page cache (at most $MAX_BACKING_MIB expected): backing reads are buffered, so a read the mount's cache evicted is served from memory, not the device"
[ $((med * 2)) -ge "$probe_p50" ] ||
	die "median traced read latency $med ns is under half the device's O_DIRECT QD1 read latency $probe_p50 ns: the trace shows page-cache copies, not the device"
[ $((buffered * 10)) -le "$n" ] || die "$buffered of $n reads went buffered (flag 0x10)"
say "PASS"

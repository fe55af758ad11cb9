#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: where the device view keeps written data in memory.
# - the backing I/O is O_DIRECT (issue #17): after 80 MiB and a 1000-byte
#   tail written through the mount, the backing file holds (almost) nothing in
#   the page cache, the mount's page cache holds the data, and the data reads
#   back intact; only the tail (writeback's short last page) went buffered and
#   its write record carries flag 0x10;
# - --backing-cache (obsolete) is accepted with a warning and changes nothing;
# - a backing file system without O_DIRECT (ramfs): a warning at mount time,
#   the data is intact and every read and write record carries 0x10;
# - --pidfile: the daemon removes its pid file at exit only while it still
#   names the daemon (a script that unmounts and mounts again with the same
#   pid file keeps the new daemon's pid).
. "$(dirname "$0")/lib.sh"

DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs
dut_need_prog fincore fincore
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB)"

dut_tmpdir
head -c $(((80 << 20) + 1000)) /dev/urandom >"$T/src" || die "cannot make test data"

# resident KiB of FILE in the page cache
resident_kib() { fincore -nbo RES "$1" | awk '{ printf "%d\n", $1 / 1024 }'; }

# Write 64 MiB and fsync, then the rest (16 MiB and 1000 bytes) and fsync.
write_through() { # MNT NAME
	dd if="$T/src" of="$1/$2" bs=1M count=64 conv=fsync status=none || die "writing $1/$2 failed"
	dd if="$T/src" of="$1/$2" bs=1M skip=64 seek=64 conv=notrunc,fsync status=none \
		|| die "appending to $1/$2 failed"
}

# "WRITES BUFFERED TAIL_FLAGS" of the write records of TRACE: TAIL_FLAGS are
# those of the write that reaches furthest (the tail at EOF).  Not the last
# record: the final fsync's writeback runs on several worker threads, so the
# tail's record can come before others of that writeback.
write_flags() { # TRACE
	"$DUTLAB" export "$1" --format csv --ops write -o "$1.csv" 2>/dev/null || die "dutlab export $1 failed"
	awk -F, 'NR > 1 { n++; f = $13 + 0; if (int(f / 16) % 2) b++; e = $8 + $9; if (e >= end) { end = e; tail = f } }
		END { print n + 0, b + 0, tail + 0 }' "$1.csv"
}

dut_mount "$T/backing" "$T/mnt" --trace "$T/direct.dtr" 2>"$T/mount.err"
write_through "$T/mnt" direct
back=$(resident_kib "$T/backing/direct")
front=$(resident_kib "$T/mnt/direct")
say "O_DIRECT backing: backing copy $back KiB resident, mount $((front >> 10)) MiB (of 80)"
[ "$back" -le 64 ] || die "the backing file keeps $back KiB of 80 MiB in memory; its I/O should bypass the page cache"
[ "$front" -ge $((72 << 10)) ] || die "the mount's page cache holds only $front KiB of 80 MiB just written"
cmp "$T/src" "$T/mnt/direct" || die "data read through the mount differs from what was written"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"
cmp "$T/src" "$T/backing/direct" || die "the backing file differs from what was written"
! grep -qi "warning" "$T/mount.err" || die "unexpected warning at mount: $(cat "$T/mount.err")"
read -r n buffered last <<<"$(write_flags "$T/direct.dtr")"
say "O_DIRECT backing: $n write records, $buffered flagged buffered (0x10), the tail's flags $last"
[ "$n" -ge 2 ] && [ "$buffered" -ge 1 ] && [ "$buffered" -le 2 ] ||
	die "expected the short last page (and nothing else) to go buffered: $buffered of $n writes flagged 0x10"
[ $((last & 16)) -ne 0 ] || die "the last write (the 1000-byte tail at EOF) is not flagged buffered"

dut_mount "$T/backing" "$T/mnt" --backing-cache keep 2>"$T/mount.err"
grep -q -- "--backing-cache is obsolete and ignored" "$T/mount.err" ||
	die "no warning for --backing-cache (stderr: $(cat "$T/mount.err"))"
write_through "$T/mnt" kept
back=$(resident_kib "$T/backing/kept")
say "--backing-cache keep (ignored): backing copy $back KiB resident"
[ "$back" -le 64 ] || die "with the ignored --backing-cache keep the backing file holds $back KiB"
cmp "$T/src" "$T/mnt/kept" || die "data read through the mount differs from what was written"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"

# ramfs takes no O_DIRECT: buffered, said once at mount time, every record flagged
mkdir -p "$T/ram"
mount -t ramfs ramfs "$T/ram" || dut_skip "cannot mount a ramfs"
dut_defer "umount '$T/ram'"
dut_mount "$T/ram" "$T/mnt" --trace "$T/ram.dtr" 2>"$T/mount.err"
grep -q "refuses O_DIRECT" "$T/mount.err" || die "no warning for a backing file system without O_DIRECT (stderr: $(cat "$T/mount.err"))"
[ "$(grep -c "refuses O_DIRECT" "$T/mount.err")" -eq 1 ] || die "the O_DIRECT warning was repeated"
write_through "$T/mnt" ram
cmp "$T/src" "$T/mnt/ram" || die "data read through the mount (ramfs backing) differs from what was written"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"
cmp "$T/src" "$T/ram/ram" || die "the ramfs backing file differs from what was written"
read -r n buffered last <<<"$(write_flags "$T/ram.dtr")"
say "ramfs backing: $n write records, $buffered flagged buffered"
[ "$n" -ge 1 ] && [ "$buffered" -eq "$n" ] || die "on ramfs only $buffered of $n writes are flagged buffered (0x10)"

# --pidfile: removed at exit; kept when it names another process by then
mkdir -p "$T/mnt2"
timeout 30 "$DUTFS" "$T/backing" "$T/mnt2" --pidfile "$T/p" || die "mount with --pidfile failed"
dut_defer "dut_is_mounted '$T/mnt2' && umount -l '$T/mnt2'"
pid=$(cat "$T/p")
timeout 30 umount "$T/mnt2" || die "umount failed"
dut_wait_pid "$pid" 30 || die "dutfs $pid did not exit after umount"
[ ! -e "$T/p" ] || die "dutfs left its pid file behind"
timeout 30 "$DUTFS" "$T/backing" "$T/mnt2" --pidfile "$T/p" || die "mount with --pidfile failed"
pid=$(cat "$T/p")
echo 1 >"$T/p" # as if a newer daemon had written it
timeout 30 umount "$T/mnt2" || die "umount failed"
dut_wait_pid "$pid" 30 || die "dutfs $pid did not exit after umount"
[ "$(cat "$T/p" 2>/dev/null)" = 1 ] || die "dutfs removed a pid file that named another process"
say "PASS"

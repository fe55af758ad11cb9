#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: where the device view keeps written data in memory.
# - --backing-cache drop (the default): after the data is on disk, the
#   backing file's copy leaves the page cache (every 8 MiB written, dutfs
#   drops what is clean), while the mount's page cache still holds it and
#   the data reads back intact;
# - --backing-cache keep: the backing copy stays;
# - --pidfile: the daemon removes its pid file at exit only while it still
#   names the daemon (a script that unmounts and mounts again with the same
#   pid file keeps the new daemon's pid).
. "$(dirname "$0")/lib.sh"

dut_need_root
dut_need_dutfs
dut_need_prog fincore fincore

dut_tmpdir
head -c $((80 << 20)) /dev/urandom >"$T/src" || die "cannot make test data"

# resident MiB of FILE in the page cache
resident_mib() { fincore -nbo RES "$1" | awk '{ printf "%d\n", $1 / 1048576 }'; }

# Write 64 MiB and fsync (all clean), then 16 MiB more and fsync: the
# sweeps of the second part find the first 64 MiB clean.
write_through() { # MNT NAME
	dd if="$T/src" of="$1/$2" bs=1M count=64 conv=fsync status=none || die "writing $1/$2 failed"
	dd if="$T/src" of="$1/$2" bs=1M skip=64 seek=64 count=16 conv=notrunc,fsync status=none \
		|| die "appending to $1/$2 failed"
}

dut_mount "$T/backing" "$T/mnt"
write_through "$T/mnt" dropped
back=$(resident_mib "$T/backing/dropped")
front=$(resident_mib "$T/mnt/dropped")
say "--backing-cache drop: backing copy $back MiB resident, mount $front MiB (of 80)"
[ "$back" -le 32 ] || die "the backing file keeps $back MiB of 80 in memory; dutfs should have dropped the clean pages"
[ "$front" -ge 72 ] || die "the mount's page cache holds only $front MiB of 80 just written"
cmp "$T/src" "$T/mnt/dropped" || die "data read through the mount differs from what was written"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"

dut_mount "$T/backing" "$T/mnt" --backing-cache keep
write_through "$T/mnt" kept
back=$(resident_mib "$T/backing/kept")
say "--backing-cache keep: backing copy $back MiB resident (of 80)"
[ "$back" -ge 72 ] || die "with --backing-cache keep the backing file holds only $back MiB of 80"
cmp "$T/src" "$T/mnt/kept" || die "data read through the mount differs from what was written"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"
cmp "$T/src" "$T/backing/dropped" || die "the backing file differs from what was written"

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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regression tests of issue #27: what a local user other than root may do
# through a dutfs mounted by root (allow_other, default_permissions).
#
#     test-privs.sh killpriv|groups|stale|stats device|syscall
#
# killpriv  a setuid (and a group-exec setgid) file written or truncated
#           through the mount by nobody loses those bits, as on ext4;
#           written by root it keeps them
# groups    creations use the caller's supplementary groups, never the
#           daemon's (root's) own
# stale     a chmod made on the backing file directly is enforced on the
#           next open through the mount, although the kernel's attribute
#           cache still shows the old mode
# stats     stats.json is readable only by the mounting user (unless
#           --stats-mode says otherwise); concurrent opens share one
#           rendering and are capped (EMFILE)
. "$(dirname "$0")/lib.sh"

SUB=${1:?usage: test-privs.sh killpriv|groups|stale|stats device|syscall}
VIEW=${2:?usage: test-privs.sh SUB device|syscall}
DUT_TEST_NAME="privs-$SUB-$VIEW"

dut_need_root
dut_need_dutfs
dut_need_prog setpriv setpriv
id nobody >/dev/null 2>&1 || dut_skip "no user nobody"

# Groups no account on this machine uses (setpriv sets them by number).
G_CALLER=54321 # a supplementary group of the caller
G_ROOT=54322   # a supplementary group of the daemon only

dut_tmpdir
B=$T/backing
M=$T/mnt
mkdir -p "$B" "$M"

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
mode_of() { stat -c %a "$1"; }

# expect_mode FILE MODE WHAT: the mode on the backing file and through the mount
expect_mode() {
	local b m
	b=$(mode_of "$B/$1") m=$(mode_of "$M/$1")
	[ "$b" = "$2" ] || die "$3: backing $1 has mode $b, expected $2"
	[ "$m" = "$2" ] || die "$3: $M/$1 shows mode $m through the mount, expected $2 (backing $b)"
	say "ok   $3: mode $b"
}

# new_file NAME MODE: a file made through the mount by root
new_file() {
	printf 'original' >"$M/$1" || die "cannot create $M/$1"
	chmod "$2" "$M/$1" || die "chmod $2 $M/$1 failed"
}

sub_killpriv() {
	dut_mount "$B" "$M" --view "$VIEW"
	new_file w_suid 4777
	as_nobody dd if=/dev/zero of="$M/w_suid" bs=512 count=1 conv=notrunc status=none \
		|| die "nobody could not write $M/w_suid (mode 4777)"
	expect_mode w_suid 777 "write by nobody clears S_ISUID"

	new_file w_sgid 2777
	as_nobody dd if=/dev/zero of="$M/w_sgid" bs=512 count=1 conv=notrunc status=none \
		|| die "nobody could not write $M/w_sgid"
	expect_mode w_sgid 777 "write by nobody clears S_ISGID of a group-exec file"

	new_file w_direct 6777
	as_nobody dd if=/dev/zero of="$M/w_direct" bs=4096 count=1 oflag=direct conv=notrunc status=none \
		|| die "nobody could not write $M/w_direct with O_DIRECT"
	expect_mode w_direct 777 "O_DIRECT write by nobody clears S_ISUID and S_ISGID"

	new_file t_suid 4777
	as_nobody truncate -s 0 "$M/t_suid" || die "nobody could not truncate $M/t_suid"
	expect_mode t_suid 777 "truncate(2) by nobody clears S_ISUID"

	new_file o_suid 4777
	as_nobody sh -c ": >'$M/o_suid'" || die "nobody could not open $M/o_suid with O_TRUNC"
	expect_mode o_suid 777 "open(O_TRUNC) by nobody clears S_ISUID"

	new_file c_suid 4755
	chown nobody "$M/c_suid" || die "chown nobody $M/c_suid failed"
	expect_mode c_suid 755 "chown clears S_ISUID"

	# root (CAP_FSETID) keeps the bits, as on ext4
	new_file r_suid 4777
	dd if=/dev/zero of="$M/r_suid" bs=512 count=1 conv=notrunc status=none || die "root could not write"
	expect_mode r_suid 4777 "write by root keeps S_ISUID"
	# and the data of nobody's writes arrived
	[ "$(head -c 8 "$B/w_suid" | tr -d '\0' | wc -c)" -eq 0 ] || die "nobody's write did not reach $B/w_suid"
}

sub_groups() {
	# The daemon runs with a supplementary group of its own (G_ROOT).
	printf '#!/bin/sh\nexec setpriv --groups=%s -- %s "$@"\n' "$G_ROOT" "$DUTFS" >"$T/dutfs-wrap"
	chmod 755 "$T/dutfs-wrap"
	DUTFS=$T/dutfs-wrap dut_mount "$B" "$M" --view "$VIEW"
	grep -Eq "^Groups:.*\b$G_ROOT\b" "/proc/$(cat "$M.pid")/status" \
		|| die "the daemon does not have group $G_ROOT (setpriv wrapper failed)"

	# 1. a directory writable by a supplementary group of the caller only
	mkdir "$M/grp" && chgrp "$G_CALLER" "$M/grp" && chmod 0770 "$M/grp" || die "cannot make $M/grp"
	setpriv --reuid=nobody --regid=nogroup --groups="$G_CALLER" -- touch "$M/grp/f" \
		|| die "nobody with supplementary group $G_CALLER cannot create in a 0770 directory of that group"
	[ "$(stat -c %u:%g "$B/grp/f")" = "65534:65534" ] \
		|| die "$B/grp/f belongs to $(stat -c %u:%g "$B/grp/f"), expected nobody:nogroup"
	setpriv --reuid=nobody --regid=nogroup --groups="$G_CALLER" -- mkdir "$M/grp/d" \
		|| die "nobody with supplementary group $G_CALLER cannot mkdir there"
	setpriv --reuid=nobody --regid=nogroup --groups="$G_CALLER" -- ln -s target "$M/grp/l" \
		|| die "nobody with supplementary group $G_CALLER cannot symlink there"
	setpriv --reuid=nobody --regid=nogroup --groups="$G_CALLER" -- mkfifo "$M/grp/p" \
		|| die "nobody with supplementary group $G_CALLER cannot mknod there"
	setpriv --reuid=nobody --regid=nogroup --groups="$G_CALLER" -- ln "$M/grp/f" "$M/grp/h" \
		|| die "nobody with supplementary group $G_CALLER cannot hard-link there"
	say "ok   creations use the caller's supplementary groups"

	# 2. the daemon's own groups give nothing: the kernel's cached attributes
	# still say 0777 while the backing directory is 0770 root:G_ROOT
	mkdir "$M/rootgrp" && chmod 0777 "$M/rootgrp" || die "cannot make $M/rootgrp"
	stat "$M/rootgrp" >/dev/null
	chgrp "$G_ROOT" "$B/rootgrp" && chmod 0770 "$B/rootgrp" || die "cannot change $B/rootgrp"
	for op in "touch $M/rootgrp/f" "mkdir $M/rootgrp/d" "ln -s x $M/rootgrp/l" "mkfifo $M/rootgrp/p" \
		  "ln $M/grp/f $M/rootgrp/h"; do
		if as_nobody $op 2>"$T/err"; then
			die "nobody could '$op' in a directory writable only by the daemon's group $G_ROOT"
		fi
		grep -qi "permission denied" "$T/err" || die "'$op' failed, but not with EACCES: $(cat "$T/err")"
	done
	[ -z "$(ls -A "$B/rootgrp")" ] || die "$B/rootgrp is not empty: $(ls -A "$B/rootgrp")"
	say "ok   the daemon's supplementary groups are not used (EACCES)"
}

sub_stale() {
	dut_mount "$B" "$M" --view "$VIEW"
	new_file s 0666
	as_nobody cat "$M/s" >/dev/null || die "nobody cannot read a 0666 file"
	chmod 000 "$B/s" || die "chmod on the backing file failed"
	if as_nobody cat "$M/s" >/dev/null 2>"$T/err"; then
		die "nobody read $M/s after its backing file was made mode 000"
	fi
	grep -qi "permission denied" "$T/err" || die "the refused read failed, but not with EACCES: $(cat "$T/err")"
	if as_nobody sh -c "printf x >>'$M/s'" 2>/dev/null; then
		die "nobody wrote $M/s after its backing file was made mode 000"
	fi
	cat "$M/s" >/dev/null || die "root cannot read $M/s any more"
	say "ok   an open is checked against the backing file's current mode"
}

# count of a numeric key in stats.json (read by root)
stat_num() { grep -o "\"$1\": *[0-9]*" "$M/.dutfs/stats.json" | head -1 | sed 's/.*: *//'; }

sub_stats() {
	dut_need_prog python3 python3
	dut_mount "$B" "$M" --view "$VIEW"
	[ "$(mode_of "$M/.dutfs/stats.json")" = 400 ] || die "stats.json has mode $(mode_of "$M/.dutfs/stats.json"), expected 400"
	if as_nobody cat "$M/.dutfs/stats.json" >/dev/null 2>&1; then
		die "nobody can read stats.json by default"
	fi
	head -c 1 "$M/.dutfs/stats.json" >/dev/null || die "root cannot read stats.json"
	say "ok   stats.json is private by default"

	# Many concurrent opens: one shared rendering, and a cap.
	python3 - "$M/.dutfs/stats.json" >"$T/opens" <<'EOF' || die "the open test failed: $(cat "$T/opens")"
import errno, json, os, sys, time
path = sys.argv[1]
fds, err = [], None
for i in range(4096):
    try:
        fds.append(os.open(path, os.O_RDONLY))
    except OSError as e:
        err = e.errno
        break
# a fresh rendering (older than its sharing interval) while the others are open
os.close(fds.pop())
time.sleep(0.2)
fds.append(os.open(path, os.O_RDONLY))
doc = json.loads(os.read(fds[-1], 1 << 24))
ctl = doc.get("control", {})
print(len(fds), errno.errorcode.get(err, err), ctl.get("open_files"), ctl.get("snapshots"), ctl.get("renders"))
EOF
	read -r n err open_files snaps renders <"$T/opens"
	say "opens before refusal: $n ($err); stats: open_files $open_files, snapshots $snaps, renders $renders"
	[ "$err" = EMFILE ] || die "opening stats.json 4096 times was not refused with EMFILE (got $err after $n)"
	[ "$n" -ge 16 ] && [ "$n" -le 1024 ] || die "the cap let $n opens through (expected 16..1024)"
	[ "$snaps" != None ] && [ "$snaps" -le $((n / 8)) ] \
		|| die "$n open copies of stats.json hold $snaps snapshots (expected one shared, at most $((n / 8)))"
	[ "$open_files" = "$n" ] || die "stats.json counts $open_files open control files, expected $n"
	# all closed: nothing stays pinned
	sleep 0.2
	[ "$(stat_num snapshots)" -le 1 ] || die "after the readers closed, $(stat_num snapshots) snapshots remain"
	dut_umount "$M" || die "dutfs needed a forced unmount"

	dut_mount "$B" "$M" --view "$VIEW" --stats-mode 0444
	as_nobody cat "$M/.dutfs/stats.json" >/dev/null || die "--stats-mode 0444: nobody cannot read stats.json"
	say "ok   --stats-mode 0444 makes it public"
}

case $SUB in
killpriv | groups | stale | stats) "sub_$SUB" ;;
*) die "unknown sub-test $SUB" ;;
esac
dut_umount "$M" || die "dutfs needed a forced unmount"
say "PASS"

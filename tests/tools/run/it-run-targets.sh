#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab run and its targets (issue #18):
#   missing_dir    a directory target that does not exist is refused, with
#                  the filesystem it would have landed on, and not created
#                  (dry run and run alike)
#   resolved       --dry-run of an experiment named by a relative path shows
#                  the resolved paths: the absolute target, the image, the
#                  mount points and the shape file
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"

# ---- missing_dir ----
cat >"$WORK/missing.ini" <<INI
[experiment]
name = missing
[target work]
type = directory
path = $WORK/not-mounted/pg
[step load]
type = oltp-init
scale = 1
INI
for mode in --dry-run run; do
	args=(run "$WORK/missing.ini")
	[ "$mode" = --dry-run ] && args+=(--dry-run) || args+=(--out "$WORK/run-missing")
	"$DUTLAB" "${args[@]}" >"$WORK/out.txt" 2>&1
	rc=$?
	cat "$WORK/out.txt"
	[ "$rc" -ne 0 ] || fail "missing_dir ($mode): exit 0 for a missing directory target"
	grep -q "target work: directory $WORK/not-mounted/pg does not exist; dutlab run does not create it, since it would be made on the .* filesystem mounted at " "$WORK/out.txt" ||
		fail "missing_dir ($mode): no refusal naming the directory and the filesystem it would land on"
	[ ! -e "$WORK/not-mounted" ] || fail "missing_dir ($mode): $WORK/not-mounted was created"
done
[ ! -e "$WORK/run-missing" ] || fail "missing_dir: a refused run made its run directory"
echo "PASS: missing_dir"

# ---- resolved ----
mkdir -p "$WORK/exp/data" "$WORK/elsewhere"
cp "$here/../../../tools/shape-examples/ssd.ini" "$WORK/exp/slow.ini" || fail "no tools/shape-examples/ssd.ini"
cat >"$WORK/exp/paths.ini" <<INI
[experiment]
name = paths
[target work]
type = directory
path = data
[target disk]
type = image
path = disk.img
size = 1536M
filesystem = ext4-ordered
shape = slow.ini
[dutfs]
view = device
[tablespace ts]
target = disk
[step load]
type = oltp-init
scale = 1
INI
# the experiment by a relative path, from another directory
(cd "$WORK" && "$DUTLAB" run exp/paths.ini --dry-run) >"$WORK/out.txt" 2>&1
cat "$WORK/out.txt"
fs=$(stat -f -c %T "$WORK/exp/data")
want=(
	"resolved paths ("
	"    target work: directory $WORK/exp/data (on "
	"      the run's data: $WORK/exp/data/dutlab-run, through dutfs (view device) mounted at /run/dutlab-<pid>/mnt-0"
	"    target disk: image $WORK/exp/disk.img (made by the run; a loop device at run time)"
	"      ext4-ordered made on it, mounted at /run/dutlab-<pid>/stage/disk-XXXXXX"
	"      the run's data: <mount>/dutlab-run, through dutfs (view device) mounted at /run/dutlab-<pid>/mnt-1"
	"      shape file: $WORK/exp/slow.ini"
)
for w in "${want[@]}"; do
	grep -qF -- "$w" "$WORK/out.txt" || fail "resolved: no line with: $w"
done
grep -q "target work: directory $WORK/exp/data (on [a-z0-9]*, mounted at /" "$WORK/out.txt" ||
	fail "resolved: the directory target's filesystem (stat says $fs) is not shown"
[ ! -e "$WORK/exp/disk.img" ] || fail "resolved: the dry run made the image"
echo "PASS: resolved"

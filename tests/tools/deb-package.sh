#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: dpkg-buildpackage builds dutlab_<version>_<arch>.deb
# from a copy of the source tree, lintian finds no error in it, it holds the
# four programs, the man pages, the udev rules, the shipped experiments and
# the shaping examples, and unpacked into a throwaway root (never installed
# on this machine) its programs run and its dutlab finds its siblings beside
# itself: a dry run of an installed experiment passes its checks.
#   deb-package.sh SOURCEDIR
set -uo pipefail
src=${1:?usage: $0 SOURCEDIR}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
for p in dpkg-buildpackage dh lintian scdoc meson; do
	command -v $p >/dev/null || skip "$p is not installed (tools/setup installs debhelper, lintian, scdoc)"
done
[ -f "$src/debian/control" ] || fail "no $src/debian/control"
work=$(mktemp -d /var/tmp/dutlab-deb.XXXXXX) || fail mktemp
trap 'rm -rf "$work"' EXIT
mkdir "$work/dutlab"
# the tracked (and new, not ignored) files only: no build trees
if [ -d "$src/.git" ] || git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && tar --null -T - -cf -) | tar -x -C "$work/dutlab" || fail "copying the source"
else
	tar -C "$src" --exclude='./build*' --exclude='./obj-*' -cf - . | tar -x -C "$work/dutlab" || fail "copying the source"
fi
(cd "$work/dutlab" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -40 "$work/build.log"; fail "dpkg-buildpackage failed (log above)"; }
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
deb="$work/dutlab_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "no $deb; built: $(ls "$work")"
lintian --fail-on error --tag-display-limit 0 "$deb" >"$work/lintian.txt" 2>&1 ||
	{ cat "$work/lintian.txt"; fail "lintian found errors in $deb"; }
echo "lintian: $(grep -c '^E:' "$work/lintian.txt") errors, $(grep -c '^W:' "$work/lintian.txt") warnings"
grep '^W:' "$work/lintian.txt" | head -20
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$work/contents"
for f in /usr/bin/dutlab /usr/bin/dutfs /usr/bin/dutprobe /usr/bin/pgload \
	 /usr/share/man/man1/dutlab.1.gz /usr/share/man/man1/dutfs.1.gz /usr/share/man/man1/dutprobe.1.gz \
	 /usr/share/man/man1/pgload.1.gz /usr/share/man/man5/dutlab-experiment.5.gz \
	 /usr/share/man/man5/dutfs-shape.5.gz \
	 /usr/share/dutlab/experiments/fs-oltp.ini /usr/share/dutlab/experiments/shape/hdd-whole-disk.ini \
	 /usr/share/dutlab/shape-examples/ssd.ini /usr/share/doc/dutlab/copyright; do
	grep -qx -- "$f" "$work/contents" || fail "$deb has no $f"
done
# udev's directory is where udev.pc says (/lib/udev on Debian 12, /usr/lib/udev later)
grep -qE '^(/usr)?/lib/udev/rules.d/61-dutlab.rules$' "$work/contents" || fail "$deb has no udev rules"
grep -qE '^(/usr)?/lib/udev/dut-udev-match$' "$work/contents" || fail "$deb has no dut-udev-match"
for e in fill-iops fs-dss fs-oltp hot-standby placement slc-restore; do
	grep -qx "/usr/share/dutlab/experiments/$e.ini" "$work/contents" || fail "$deb lacks experiment $e.ini"
done
! grep -q '^/usr/bin/bench-trace$' "$work/contents" || fail "$deb ships the bench-trace benchmark"
dpkg-deb -f "$deb" Depends | grep -q fuse3 || fail "Depends lacks fuse3: $(dpkg-deb -f "$deb" Depends)"
root="$work/root"
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x"
out=$("$root/usr/bin/dutlab" --version 2>&1) || fail "the packaged dutlab --version failed: $out"
grep -q "$version" <<<"$out" || fail "dutlab --version says '$out', not $version"
"$root/usr/bin/dutprobe" --version >/dev/null 2>&1 || fail "the packaged dutprobe --version failed"
MANWIDTH=80 man -l "$root/usr/share/man/man1/dutlab.1.gz" 2>&1 | grep -q "dutlab - " || fail "the packaged dutlab.1 does not render"
if [ "$(id -u)" -eq 0 ]; then
	# the unpacked dutlab must use the unpacked siblings, not a build tree
	# or the PATH; placement.ini names its shape files relative to itself
	exp="$root/usr/share/dutlab/experiments/placement.ini"
	out=$(env -u DUT_BUILD_ROOT PATH=/usr/sbin:/usr/bin:/sbin:/bin "$root/usr/bin/dutlab" run --dry-run "$exp" \
		--out "$work/dry" 2>&1)
	rc=$?
	grep -q "cannot find dutfs" <<<"$out" && fail "the packaged dutlab did not find its siblings: $out"
	[ $rc -eq 0 ] || { echo "$out" | tail -20; fail "dry run of the packaged placement.ini: exit $rc"; }
	grep -q "$root/usr/share/dutlab/experiments/shape/hdd-whole-disk.ini" <<<"$out" ||
		echo "note: the dry run does not print the shape file's path"
fi
echo "PASS: $(basename "$deb"): lintian clean of errors, $(wc -l <"$work/contents") paths, programs run unpacked"

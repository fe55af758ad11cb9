#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages render without warnings (man -l), and every long option a
# program's --help lists is in its man page: a page that falls behind its
# program fails here.
#   man-pages.sh BUILDDIR
set -uo pipefail
b=${1:?usage: $0 BUILDDIR}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; bad=1; }
command -v man >/dev/null || skip "man is not installed (apt-get install man-db)"
ls "$b"/*.1 >/dev/null 2>&1 || skip "no man pages in $b (scdoc is not installed: apt-get install scdoc, or tools/setup)"
bad=0
for p in dutfs.1 dutprobe.1 pgload.1 dutlab.1 dutlab-experiment.5 dutfs-shape.5; do
	[ -s "$b/$p" ] || { fail "$p was not built"; continue; }
	err=$(MANWIDTH=80 man --warnings -l "$b/$p" 2>&1 >/dev/null)
	[ -z "$err" ] || fail "$p: man -l warns: $err"
	text=$(MANWIDTH=80 man -l "$b/$p" 2>/dev/null | col -b)
	for s in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		grep -q "^$s" <<<"$text" || fail "$p has no $s section"
	done
	name=${p%.*}
	grep -q "^ *$name - " <<<"$text" || fail "$p: NAME does not start with '$name - '"
done
# every --option of the programs' help texts is in their pages
opts_of() { grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }
check() { # page helptext-command...
	local page=$1 o text
	shift
	text=$(MANWIDTH=200 man -l "$b/$page" 2>/dev/null | col -b)
	for o in $("$@" 2>&1 | opts_of); do
		[ "$o" = --help ] && continue
		grep -q -- "$o" <<<"$text" || fail "$page does not mention $o (in: $*)"
	done
}
check dutfs.1 "$b/fuse/dutfs" --help
check pgload.1 "$b/pgload/pgload" --help
check pgload.1 "$b/pgload/pgload" cluster --help
check dutlab.1 "$b/tools/dutlab" --help
for c in run report export compare results crash; do check dutlab.1 "$b/tools/dutlab" $c --help; done
for c in identify bench slc fill trim; do check dutprobe.1 "$b/probe/dutprobe" $c --help; done
[ $bad -eq 0 ] || exit 1
echo "PASS: 6 man pages render cleanly and cover their programs' options"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regression (issue #27): `dutlab report RUNDIR` run by root on a run
# directory an unprivileged user owns writes nothing outside RUNDIR/charts.
# The user plants symbolic links where the charts' files go (NAME.gp,
# NAME.dat, NAME.log, NAME.png pointing at root's files), or makes charts/
# itself a link to a directory of root's: root's files stay byte-identical,
# the charts are still drawn (the links replaced by files), and a charts link
# is refused with a message.
# usage: report-charts-links.sh DUTLAB   (DUT_SOURCE_ROOT: the source tree)
set -u
DUTLAB=$1
FIX=${DUT_SOURCE_ROOT:-.}/tests/tools/fixtures
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed (apt-get install gnuplot-nox)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the attack is a user's run directory reported by root)"; exit 77; }
TMP=$(mktemp -d /tmp/report-links.XXXXXX) || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 99' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

chmod 0755 "$TMP"
mkdir -m 0700 "$TMP/root" || exit 99
for v in gp dat log png; do printf 'root file %s\n' "$v" >"$TMP/root/victim.$v"; done
cp -r "$TMP/root" "$TMP/root.orig"

R=$TMP/run
cp -r "$FIX/rundir-probe" "$R" && chown -R nobody:nogroup "$R" || exit 99
C=fill-fill-c00-file-ext4
S=slc-slc-c00-file-ext4-1
as_user mkdir "$R/charts" || exit 99
for v in gp dat log png; do
	as_user ln -s "$TMP/root/victim.$v" "$R/charts/$C.$v" || exit 99
	as_user ln -s "$TMP/root/victim.$v" "$R/charts/$S.$v" || exit 99
done
"$DUTLAB" report "$R" >"$TMP/out" 2>"$TMP/err" || { fail "report: exit $?"; cat "$TMP/err"; }
diff -r "$TMP/root.orig" "$TMP/root" >/dev/null || { fail "root's files were written through the links"; diff -r "$TMP/root.orig" "$TMP/root"; }
grep -qF "2 of 2 charts drawn" "$TMP/out" || { fail "not every chart was drawn"; cat "$TMP/out" "$TMP/err"; }
for f in "$R/charts/$C.png" "$R/charts/$C.gp" "$R/charts/$C.dat" "$R/charts/$S.png"; do
	[ -f "$f" ] && [ ! -L "$f" ] || fail "$f is not a regular file of the report"
done
ls -a "$R/charts" | grep -q '^\.render' && fail "a work directory was left in charts/"

# a gnuplot that fails: its log lands in charts/ (not through the planted link)
as_user ln -sf "$TMP/root/victim.log" "$R/charts/$C.log"
printf '#!/bin/sh\necho "bad plot" >&2\nexit 3\n' >"$TMP/badplot"
chmod +x "$TMP/badplot"
DUTLAB_GNUPLOT="$TMP/badplot" "$DUTLAB" report "$R" >/dev/null 2>&1 || fail "failing gnuplot: exit $?"
diff -r "$TMP/root.orig" "$TMP/root" >/dev/null || fail "failing gnuplot: root's log victim was written"
grep -q "bad plot" "$R/charts/$C.log" 2>/dev/null || fail "failing gnuplot: the log is not in charts/"

# charts/ itself a link to a directory of root's: refused, nothing written there
R2=$TMP/run2
cp -r "$FIX/rundir-probe" "$R2" && chown -R nobody:nogroup "$R2" || exit 99
mkdir -m 0755 "$TMP/rootdir" || exit 99
as_user ln -s "$TMP/rootdir" "$R2/charts" || exit 99
"$DUTLAB" report "$R2" >"$TMP/out2" 2>"$TMP/err2" && fail "charts link: exit 0"
[ -z "$(ls -A "$TMP/rootdir")" ] || { fail "charts link: files written into the linked directory"; ls -la "$TMP/rootdir"; }
grep -q "charts.*symbolic link" "$TMP/err2" || { fail "charts link: no message saying so"; cat "$TMP/err2"; }

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "report-charts-links: all checks passed"

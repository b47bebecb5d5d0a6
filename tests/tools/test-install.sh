#!/usr/bin/env bash
# `meson install --destdir D` gives a working disksched: the man pages, the plot scripts
# (which the installed binary finds beside its own prefix, not in the source tree), and
# the nbdkit plugins and filter in the folders `nbdkit --dump-config` names.
. "$TESTS_SRCDIR/lib.sh"
requires meson nbdkit /usr/bin/python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || skip "python3-matplotlib is not installed"
[ -n "${BUILD_ROOT:-}" ] || skip "BUILD_ROOT is not set"
make_tmpdir
D=$TMPDIR_TEST/destdir
meson install -C "$BUILD_ROOT" --destdir "$D" --no-rebuild --quiet >"$TMPDIR_TEST/install.log" 2>&1 \
  || fail "meson install: $(tail -5 "$TMPDIR_TEST/install.log")"

bin=$(find "$D" -path '*/bin/disksched' -type f | head -1)
[ -x "$bin" ] || fail "no bin/disksched under $D"
prefix=$(dirname "$(dirname "$bin")")
for page in disksched nbdkit-disksched-filter nbdkit-diskemu-plugin nbdkit-uring-plugin; do
  [ -s "$prefix/share/man/man1/$page.1" ] || fail "no man page $page.1 under $prefix/share/man/man1"
done
grep -q "model list" "$prefix/share/man/man1/disksched.1" || fail "disksched.1 has no 'model list'"
plots=$prefix/share/disksched/plots
for s in plot_sweep.py figure.py plot_dn13.py plot_gp93.py plot_hong03.py access_map.py \
         validate_cdf.py seek_plot.py; do
  [ -s "$plots/$s" ] || fail "no plot script $s in $plots"
done
config=$(nbdkit --dump-config)
plugindir=$(sed -n 's/^plugindir=//p' <<<"$config")
filterdir=$(sed -n 's/^filterdir=//p' <<<"$config")
for f in "$plugindir/nbdkit-diskemu-plugin.so" "$plugindir/nbdkit-uring-plugin.so" \
         "$filterdir/nbdkit-disksched-filter.so"; do
  [ -s "$D$f" ] || fail "not installed where nbdkit looks: $f"
done

# The installed binary draws a sweep's plot with the installed scripts ...
"$bin" sweep --sched fcfs --rates 20,40 --reps 1 --requests 200 --threads 1 -q \
  -o "$TMPDIR_TEST/sw" >"$TMPDIR_TEST/sw.log" 2>&1 || fail "installed sweep: $(cat "$TMPDIR_TEST/sw.log")"
[ -s "$TMPDIR_TEST/sw/sweep.png" ] || fail "the installed sweep drew no plot: $(cat "$TMPDIR_TEST/sw.log")"
# ... and they are what it uses: without the installed plot_sweep.py it draws none,
# and says which file it looked for.
rm "$plots/plot_sweep.py"
"$bin" sweep --sched fcfs --rates 20,40 --reps 1 --requests 200 --threads 1 -q \
  -o "$TMPDIR_TEST/sw2" >"$TMPDIR_TEST/sw2.log" 2>&1 || true
[ ! -e "$TMPDIR_TEST/sw2/sweep.png" ] || fail "a plot without the installed script: from the source tree?"
grep -q "$plots/plot_sweep.py" "$TMPDIR_TEST/sw2.log" || fail "no word of the missing script: $(cat "$TMPDIR_TEST/sw2.log")"
# The tools' own plots too (model map draws with access_map.py).
"$bin" model map hp97560 --from 0:0:0 -o "$TMPDIR_TEST/map.png" >/dev/null \
  || fail "installed model map"
[ -s "$TMPDIR_TEST/map.png" ] || fail "installed model map drew no plot"
echo "install: man pages, plot scripts, nbdkit modules in place; the installed sweep plots"

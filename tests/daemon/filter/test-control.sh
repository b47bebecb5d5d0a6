#!/usr/bin/env bash
# The control socket under load: while 200 requests queue behind a 2 ms device, the
# scheduler is shown, switched five times (once to a spec that is refused) and its
# statistics read; no request is lost or failed, and the log names each scheduler.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
ctl="$TMPDIR_TEST/ctl.sock"
lat="$TMPDIR_TEST/lat.csv"

cat > "$TMPDIR_TEST/switcher.sh" <<SH
set -e
D="$DISKSCHED"
/usr/bin/python3 - "\$uri" <<'PY' &
import os, random, sys, time
sys.path.insert(0, "$here")
import nbdio
h = nbdio.connect(sys.argv[1])
rng = random.Random(3)
# Three batches (100, 50, 50), the later two each after a switch the switcher reports by
# a file, so the log names three schedulers however slow the host is.
for n, after in ((100, None), (50, "$TMPDIR_TEST/switched-1"), (50, "$TMPDIR_TEST/switched-2")):
    while after and not os.path.exists(after):
        time.sleep(0.01)
    reqs = [nbdio.Request("read", rng.randrange(0, 2**20) * 512, 8192) for _ in range(n)]
    nbdio.run(h, reqs, 48)
    assert all(r.ok for r in reqs), "a request failed"
print("client: 200 requests ok")
PY
client=\$!
# Wait until a queue has formed.
for _ in \$(seq 100); do
  q=\$("\$D" ctl "$ctl" show --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["queued"])')
  [ "\$q" -gt 5 ] && break
  sleep 0.05
done
"\$D" ctl "$ctl" show
"\$D" ctl "$ctl" switch asatf:w=30
touch "$TMPDIR_TEST/switched-1"
"\$D" ctl "$ctl" switch look
if "\$D" ctl "$ctl" switch zsptf 2>"$TMPDIR_TEST/refused"; then echo "zsptf accepted on hp97560"; exit 1; fi
grep -q MEMS "$TMPDIR_TEST/refused"
"\$D" ctl "$ctl" switch satf
"\$D" ctl "$ctl" period fixed
[ "\$("\$D" ctl "$ctl" show --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["rotation_refine"])')" = False ]
"\$D" ctl "$ctl" period refine
"\$D" ctl "$ctl" tracks fixed
[ "\$("\$D" ctl "$ctl" show --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["track_refine"])')" = False ]
"\$D" ctl "$ctl" tracks refine
if "\$D" ctl "$ctl" period sometimes 2>"$TMPDIR_TEST/refused"; then echo "period sometimes accepted"; exit 1; fi
grep -q "refine" "$TMPDIR_TEST/refused"
"\$D" ctl "$ctl" switch sstf
touch "$TMPDIR_TEST/switched-2"
wait \$client
"\$D" ctl "$ctl" stats --json > "$TMPDIR_TEST/stats.json"
# The refined geometry, saved for the next run: a bare name goes into sched-save-dir, a
# path must lie in it.
"\$D" ctl "$ctl" save refined.json
if "\$D" ctl "$ctl" save 2>/dev/null; then echo "save without a path accepted"; exit 1; fi
if (cd / && "\$D" ctl "$ctl" save tmp/x.json 2>"$TMPDIR_TEST/refused"); then
  echo "save outside sched-save-dir accepted"; exit 1
fi
grep -q "not in the save directory" "$TMPDIR_TEST/refused"
# A FIFO nobody reads at the name: refused at once, and the daemon keeps answering.
mkfifo "$TMPDIR_TEST/fifo.json"
if timeout 10 "\$D" ctl "$ctl" save "$TMPDIR_TEST/fifo.json" 2>"$TMPDIR_TEST/refused"; then
  echo "save into a FIFO accepted"; exit 1
fi
grep -q "is a FIFO" "$TMPDIR_TEST/refused"
timeout 10 "\$D" ctl "$ctl" show >/dev/null
SH
timeout 90 nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" --filter=delay memory 1G rdelay=2ms \
  sched=fcfs sched-geometry=hp97560 sched-control="$ctl" sched-log="$lat" \
  sched-save-dir="$TMPDIR_TEST" --run "uri=\"\$uri\" bash '$TMPDIR_TEST/switcher.sh'" || fail "control run failed"
/usr/bin/python3 - "$TMPDIR_TEST/stats.json" "$lat" <<'PY' || fail "stats or log wrong"
import csv, json, sys
s = json.load(open(sys.argv[1]))
print(s)
assert s["requests"] == 200 and s["errors"] == 0, s
assert s["switches"] == 4, s
assert s["scheduler"].startswith("sstf"), s
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 200 and not any(r["error"] for r in rows)
used = {r["scheduler"].split(":")[0] for r in rows}
print("schedulers in the log:", sorted(used))
assert "fcfs" in used and len(used) >= 3, used
PY
# The saved profile loads, with the period the filter used.
"$DISKSCHED" model show "$TMPDIR_TEST/refined.json" | grep -q '^rotation_ms' \
  || fail "the saved profile does not load"
/usr/bin/python3 - "$TMPDIR_TEST/stats.json" "$TMPDIR_TEST/refined.json" <<'PY' || fail "saved profile wrong"
import json, sys
s, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert p["schema"] == "disksched-geometry" and p["heads"] == 19, p.keys()
# timescale 1: the model's period is the real one the filter reported
assert abs(p["rotation_ms"] - s["rotation_ms"]) < 1e-9 * s["rotation_ms"], (p["rotation_ms"], s["rotation_ms"])
print("saved profile: rotation_ms", p["rotation_ms"], "track phases", len(p.get("track_phase", [])))
PY
[ ! -e "$ctl" ] || fail "the control socket was not removed at exit"

# A daemonized server (nbdkit forks; the parent exits) keeps serving the socket.
sock="$TMPDIR_TEST/nbd.sock"
nbdkit -U "$sock" -P "$TMPDIR_TEST/pid" --filter="$DISKSCHED_FILTER" memory 16M \
  sched=look sched-control="$ctl"
for _ in $(seq 100); do [ -s "$TMPDIR_TEST/pid" ] && break; sleep 0.1; done
pid=$(cat "$TMPDIR_TEST/pid")
out=$("$DISKSCHED" ctl "$ctl" show 2>&1) || { kill "$pid"; fail "daemonized: $out"; }
kill "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
echo "$out" | grep -q '^scheduler .*look' || fail "daemonized show: $out"
echo ok

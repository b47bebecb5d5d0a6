#!/usr/bin/env bash
# `disksched sched list [--json]` and `sched check`: every algorithm of issue 3 is
# listed with its parameters, and bad specs fail naming what was wrong.
. "$TESTS_SRCDIR/lib.sh"
[ -x "${DISKSCHED:-}" ] || skip "disksched is not built"
make_tmpdir

"$DISKSCHED" sched list --json > "$TMPDIR_TEST/list.json"
/usr/bin/python3 - "$TMPDIR_TEST/list.json" <<'PY' || fail "sched list --json"
import json, sys
algs = json.load(open(sys.argv[1]))
assert isinstance(algs, list) and algs, "not a non-empty list"
names = {}
for a in algs:
    for key in ("name", "description", "params", "aliases", "source"):
        assert key in a, f"{a.get('name')}: no '{key}'"
    assert a["description"], f"{a['name']}: empty description"
    for p in a["params"]:
        for key in ("name", "unit", "default", "description", "type"):
            assert key in p, f"{a['name']}.{p.get('name')}: no '{key}'"
        if p["type"] == "choice":
            assert p["default"] in p["choices"], f"{a['name']}.{p['name']}: default not a choice"
        else:
            assert "min" in p and "max" in p, f"{a['name']}.{p['name']}: no range"
    for n in [a["name"]] + a["aliases"]:
        assert n not in names, f"'{n}' listed twice"
        names[n] = a
# Every algorithm the issue names, by canonical name or alias.
want = ["fcfs", "sstf", "scan", "look", "cscan", "clook", "vr", "sswt", "satf", "sptf", "stf",
        "asatf", "asptf", "satfuf", "satfdf", "satfgdf", "bsatf", "lbsatf", "oat", "gstf",
        "wstf", "zsptf", "ztsptf", "zfcfs", "priority"]
missing = [n for n in want if n not in names]
assert not missing, f"missing: {missing}"
# SCAN and C-SCAN are algorithms of their own, not aliases of LOOK and C-LOOK.
for n in ["scan", "look", "cscan", "clook"]:
    assert names[n]["name"] == n, f"'{n}' is an alias of '{names[n]['name']}'"
assert any(p["name"] == "zone" and p["default"] == "120x1200" for p in names["zsptf"]["params"])
assert {p["name"] for p in names["priority"]["params"]} >= {"variant", "timeout", "queues", "high"}
# Which algorithms can starve a request is said; priority's default timeout bounds it.
starving = {a["name"] for a in algs if "can starve a request" in a["description"]}
assert starving == {"sstf", "satf", "vr", "gstf", "zsptf", "priority", "qos"}, starving
assert "timeout=0 or expired=mix" in names["priority"]["description"]
assert [p["default"] for p in names["priority"]["params"] if p["name"] == "expired"] == ["alternate"]
assert [p["default"] for p in names["priority"]["params"] if p["name"] == "timeout"] == [500]
print(f"{len(algs)} algorithms listed")
PY

out=$("$DISKSCHED" sched list)
for n in fcfs sswt priority zsptf; do
  grep -q "^$n " <<<"$out" || fail "human list lacks $n"
done
# A paper's name for a parameter setting says what it sets; test oracles are not offered.
grep -q "^zsptf .*pzsptf (= pyramid=on)" <<<"$out" || fail "human list lacks the pzsptf preset"
! grep -q "search=cells|scan" <<<"$out" || fail "human list offers the search= test oracle"
[ "$("$DISKSCHED" sched check 'pzsptf' --model mems)" = \
  "zsptf:zone=120x1200,pyramid=on,merge4_below=80,merge16_below=20" ] || fail "pzsptf preset"
grep -q "threshold=0..1000000000 dispatches (default 600)" <<<"$out" || fail "human list lacks sswt's threshold"

[ "$("$DISKSCHED" sched check 'Elevator')" = "look:by=cyl" ] || fail "alias Elevator"
[ "$("$DISKSCHED" sched check 'SCAN')" = "scan:by=cyl" ] || fail "SCAN"
[ "$("$DISKSCHED" sched check 'zsptf:zone=60x600' --model mems)" = \
  "zsptf:zone=60x600,pyramid=off,merge4_below=80,merge16_below=20" ] || fail "zsptf zone"

check_error() {  # SPEC EXPECTED-TEXT...
  local spec=$1; shift
  local err
  if err=$("$DISKSCHED" sched check "$spec" 2>&1); then fail "'$spec' was accepted"; fi
  for t in "$@"; do grep -qF -- "$t" <<<"$err" || fail "'$spec': error lacks '$t': $err"; done
}
check_error 'nosuch' "unknown scheduler 'nosuch'" "fcfs"
check_error 'sswt:thresh=3' "'thresh'" "threshold"
check_error 'vr:r=2' "r=2" "[0, 1]"
check_error 'priority:timeout=5kg' "'kg'" "ms"
check_error 'zsptf' "MEMS"
check_error 'priority:timeout=500' "timeout=500" "write 500ms"
echo "ok"

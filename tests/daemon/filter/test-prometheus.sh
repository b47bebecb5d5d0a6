#!/usr/bin/env bash
# Prometheus metrics: 60 reads and 40 writes through the filter, then the control
# socket's `metrics` text and the file (rewritten at an interval, last at shutdown)
# are parsed with prometheus_client's own parser: counters per op and class add up to
# the requests, histograms are cumulative and end at their count, every series has the
# disk label, and the rotation gauges are the geometry's (sched-refine=off: not
# refined). Bad keys stop start-up.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
/usr/bin/python3 -c 'import prometheus_client.parser' 2>/dev/null ||
  skip "python3-prometheus-client is not installed (apt-get install python3-prometheus-client)"
make_tmpdir
d=$TMPDIR_TEST
here="$TESTS_SRCDIR/daemon/filter"
mkdir "$d/textfile"

cat > "$d/client.sh" <<SH
set -e
/usr/bin/python3 - "\$uri" <<'PY'
import random, sys
sys.path.insert(0, "$here")
import nbdio
h = nbdio.connect(sys.argv[1])
rng = random.Random(5)
reqs = [nbdio.Request("read", rng.randrange(0, 2**20) * 512, 4096) for _ in range(60)]
reqs += [nbdio.Request("write", rng.randrange(0, 2**20) * 512, data=bytes(4096)) for _ in range(40)]
nbdio.run(h, reqs, 16)
assert all(r.ok for r in reqs), "a request failed"
PY
"$DISKSCHED" ctl "$d/ctl.sock" metrics > "$d/ctl.prom"
SH
timeout 90 nbdkit -U "$(nbdkit_sock)" -t 16 --filter="$DISKSCHED_FILTER" --filter=delay memory 1G rdelay=1ms wdelay=1ms \
  sched=sstf sched-geometry=hp97560 sched-refine=off sched-control="$d/ctl.sock" sched-log="$d/lat.csv" \
  sched-metrics="$d/textfile/disksched-sdx.prom" sched-metrics-interval=100ms \
  --run "uri=\"\$uri\" bash '$d/client.sh'" || fail "metrics run failed"

ls -A "$d/textfile" | grep -v '^disksched-sdx.prom$' && fail "temporary files left: $(ls -A "$d/textfile")"
/usr/bin/python3 - "$d/ctl.prom" "$d/textfile/disksched-sdx.prom" <<'PY' || fail "metrics wrong"
import sys
from prometheus_client.parser import text_string_to_metric_families

for path in sys.argv[1:]:
    fams = {f.name: f for f in text_string_to_metric_families(open(path).read())}
    def samples(name):
        return [s for f in fams.values() for s in f.samples if s.name == name]
    for f in fams.values():
        for s in f.samples:
            assert s.labels.get("disk") == "disksched-sdx", (path, s)
    assert fams["disksched_requests"].type == "counter", fams["disksched_requests"].type
    by_op = {}
    for s in samples("disksched_requests_total"):
        by_op[s.labels["op"]] = by_op.get(s.labels["op"], 0) + s.value
        assert s.labels["class"] in ("critical", "limited", "noncritical"), s
    assert by_op == {"read": 60, "write": 40}, (path, by_op)
    assert sum(s.value for s in samples("disksched_request_errors_total")) == 0
    for h in ("disksched_response_seconds", "disksched_service_seconds",
              "disksched_prediction_error_seconds", "disksched_dispatch_queue_length"):
        assert fams[h].type == "histogram", (h, fams[h].type)
        series = {}
        for s in samples(h + "_bucket"):
            key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
            series.setdefault(key, []).append((float(s.labels["le"]), s.value))
        counts = {tuple(sorted(s.labels.items())): s.value for s in samples(h + "_count")}
        assert series and set(series) == set(counts), (h, series.keys(), counts.keys())
        for key, buckets in series.items():
            values = [v for _, v in sorted(buckets)]
            assert values == sorted(values), (h, key, values)
            assert buckets[-1][0] == float("inf") and values[-1] == counts[key], (h, key)
    assert sum(s.value for s in samples("disksched_response_seconds_count")) == 100
    assert samples("disksched_dispatch_queue_length_count")[0].value == 100
    assert samples("disksched_prediction_error_seconds_count")[0].value == 100
    assert samples("disksched_device_open")[0].value == 1
    assert abs(samples("disksched_rotation_period_seconds")[0].value - 0.01499) < 2e-4
    # sched-refine=off: the profile's period, no drift (the delay filter does not rotate).
    assert samples("disksched_rotation_drift_ratio")[0].value == 0
    assert samples("disksched_dispatched_requests_total")[0].value == 100
    info = samples("disksched_scheduler_info")[0]
    assert info.labels["scheduler"].startswith("sstf") and info.value == 1, info
    # The response includes the 1 ms delay: no reply faster than the device.
    fast = [s for s in samples("disksched_service_seconds_bucket") if s.labels["le"] == "0.0005"]
    assert all(s.value == 0 for s in fast), fast
PY
grep -q '^disksched_log_records_written_total{disk="disksched-sdx"} 100$' "$d/textfile/disksched-sdx.prom" ||
  fail "log records: $(grep log_records "$d/textfile/disksched-sdx.prom")"

# Bad keys name themselves and what was expected.
if nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1M sched-metrics-interval=5ms --run true 2> "$d/err"; then
  fail "sched-metrics-interval=5ms accepted"
fi
grep -q "sched-metrics-interval=5ms: expected a duration of at least 100ms" "$d/err" || fail "interval error: $(cat "$d/err")"
if nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1M sched-metrics="$d/no/such/dir/m.prom" --run true 2> "$d/err"; then
  fail "a metrics file in a missing directory accepted"
fi
grep -q "sched-metrics=$d/no/such/dir/m.prom: cannot write" "$d/err" || fail "path error: $(cat "$d/err")"
echo OK

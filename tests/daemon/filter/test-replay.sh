#!/usr/bin/env bash
# `disksched replay` issues exactly the arrivals `disksched sim` simulates (same spec,
# device, seed, replication): same offsets in the same order at the same relative
# times; it reports the summary keys; closed workloads run; bad options are named.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit /usr/bin/python3
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "the diskemu plugin was not built"
make_tmpdir
ts=0.05

nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=hp97560 timescale=$ts \
  sched=fcfs sched-geometry=hp97560 sched-timescale=$ts sched-log="$TMPDIR_TEST/filter.csv" \
  --run "'$DISKSCHED' replay --nbd \"\$uri\" --workload uniform --rate 30 --warmup 10 \
         --requests 60 --seed 7 --rep 2 --timescale $ts --log '$TMPDIR_TEST/replay.csv' \
         --quiet --json > '$TMPDIR_TEST/replay.json'" || fail "replay failed"
# sim --log holds the requests of replication 0: replay it too (the run above, with
# --rep 2, must see other arrivals).
"$DISKSCHED" sim --sched fcfs --rate 30 --warmup 10 --requests 60 --seed 7 --reps 1 \
  --model hp97560 --log "$TMPDIR_TEST/sim.csv" --json > /dev/null || fail "sim failed"
nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=hp97560 timescale=$ts \
  sched=fcfs sched-geometry=hp97560 sched-timescale=$ts \
  --run "'$DISKSCHED' replay --nbd \"\$uri\" --workload uniform --rate 30 --warmup 10 \
         --requests 60 --seed 7 --rep 0 --timescale $ts --log '$TMPDIR_TEST/replay0.csv' \
         --quiet --json > /dev/null" || fail "replay rep 0 failed"

/usr/bin/python3 - "$TMPDIR_TEST" $ts <<'PY' || fail "replay and sim differ"
import csv, json, sys
d, ts = sys.argv[1], float(sys.argv[2])
j = json.load(open(f"{d}/replay.json"))
for k in ("requests", "mean_ms", "p95_ms", "p99_ms", "max_ms", "mean_queue_len",
          "prediction_within_sector", "throughput_per_s", "saturated"):
    assert k in j, f"replay JSON has no {k}"
assert j["requests"] == 60 and j["errors"] == 0 and not j["saturated"], j
# The client measures issue -> completion (server queueing included): named as such.
assert "mean_response_client_ms" in j and "mean_service_ms" not in j, sorted(j)
sim = list(csv.DictReader(open(f"{d}/sim.csv")))
rep = sorted(csv.DictReader(open(f"{d}/replay0.csv")), key=lambda r: int(r["id"]))
rep2 = sorted(csv.DictReader(open(f"{d}/replay.csv")), key=lambda r: int(r["id"]))
assert len(sim) == len(rep) == 60, (len(sim), len(rep))
assert [int(r["offset"]) for r in sim] == [int(r["offset"]) for r in rep], "different offsets"
assert [int(r["offset"]) for r in rep2] != [int(r["offset"]) for r in rep], "--rep ignored"
t0s, t0r = float(sim[0]["arrival_ms"]), int(rep[0]["arrive_ns"])
for s, r in zip(sim, rep):
    live = (int(r["arrive_ns"]) - t0r) / 1e6 / ts
    assert abs(live - (float(s["arrival_ms"]) - t0s)) < 0.01, (s, r)
print("ok: 60 arrivals identical to the simulator's (offsets and times)")
PY
# The filter saw warm-up, measured and keep-warm requests: at least 70.
n=$(($(wc -l < "$TMPDIR_TEST/filter.csv") - 1))
[ "$n" -ge 70 ] || fail "the filter logged $n requests"

nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=hp97560 timescale=$ts \
  sched=sstf sched-timescale=$ts \
  --run "'$DISKSCHED' replay --nbd \"\$uri\" --workload closed:n=4,think=2ms --requests 50 \
         --timescale $ts --quiet --json > '$TMPDIR_TEST/closed.json'" || fail "closed replay"
grep -q '"requests": 50' "$TMPDIR_TEST/closed.json" || fail "closed: $(cat "$TMPDIR_TEST/closed.json")"
# The text says what the client measured, not "service".
nbdkit -U "$(nbdkit_sock)" -t 8 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=hp97560 timescale=$ts \
  sched=fcfs --run "'$DISKSCHED' replay --nbd \"\$uri\" --workload closed:n=2,think=1ms \
         --requests 20 --timescale $ts --quiet > '$TMPDIR_TEST/closed.txt'" || fail "replay text"
grep -q "mean response (client: issue to completion)" "$TMPDIR_TEST/closed.txt" \
  || fail "replay text: $(cat "$TMPDIR_TEST/closed.txt")"
! grep -q "mean service" "$TMPDIR_TEST/closed.txt" || fail "replay still says 'mean service'"

out=$("$DISKSCHED" replay --nbd "nbd+unix:///?socket=$TMPDIR_TEST/none" --workload uniform 2>&1) \
  && fail "replay without --rate succeeded"
echo "$out" | grep -q -- '--rate' || fail "no --rate in: $out"
out=$("$DISKSCHED" replay --nbd "nbd+unix:///?socket=$TMPDIR_TEST/none" --workload bogus --rate 5 2>&1) \
  && fail "replay of a bogus workload succeeded"
echo "$out" | grep -q 'bogus' || fail "the bad workload is not named: $out"
echo ok

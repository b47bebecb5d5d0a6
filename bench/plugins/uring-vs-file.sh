#!/usr/bin/env bash
# The uring plugin against nbdkit's own file plugin, on the same file.
#
# Settings: a 1 GiB file of random data in $SCRATCH (default /var/tmp; a real file
# system), buffered I/O in both plugins (the file plugin has no O_DIRECT), nbdkit
# --threads 32 so a depth of 32 reaches the plugin; fio's nbd engine, 4 KiB random reads
# and random writes at queue depth 1 and 32, RUNTIME seconds each (default 5), REPS
# repetitions alternating the plugins (default 3), medians reported. Also one row for
# uring direct=true (O_DIRECT through registered bounce buffers), which the file plugin
# cannot do. Prints IOPS and completion latency p50 / p99 side by side, and uring's
# IOPS as a ratio of file's (target: >= 1.0 at depth 32).
#
# Usage: uring-vs-file.sh PATH-TO-nbdkit-uring-plugin.so
set -euo pipefail
PLUGIN=${1:?usage: $0 PATH-TO-nbdkit-uring-plugin.so}
RUNTIME=${RUNTIME:-5}
REPS=${REPS:-3}
SIZE_MB=${SIZE_MB:-1024}
command -v fio >/dev/null || { echo "fio is not installed" >&2; exit 1; }
T=$(mktemp -d "${SCRATCH:-/var/tmp}/uring-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
echo "preparing a ${SIZE_MB} MiB file ..." >&2
head -c "${SIZE_MB}M" /dev/urandom > disk.img
sync disk.img

results=$T/results.txt
: > "$results"
run() {   # run LABEL RW DEPTH NBDKIT-PLUGIN-ARGS...
  local label=$1 rw=$2 depth=$3; shift 3
  nbdkit -U - --threads 32 "$@" --run "export uri; fio --name=b --ioengine=nbd --uri=\"\$uri\" \
    --rw=$rw --bs=4k --iodepth=$depth --size=${SIZE_MB}m --runtime=$RUNTIME --time_based \
    --norandommap --randrepeat=0 --output-format=json --output=$T/out.json"
  /usr/bin/python3 - "$label" "$rw" "$depth" "$T/out.json" >> "$results" <<'PY'
import json, sys
label, rw, depth, path = sys.argv[1:5]
j = json.load(open(path))["jobs"][0]
d = j["read" if rw == "randread" else "write"]
p = d["clat_ns"]["percentile"]
print(label, rw, depth, d["iops"], p["50.000000"] / 1000, p["99.000000"] / 1000)
PY
}

for rep in $(seq 1 "$REPS"); do
  for rw in randread randwrite; do
    for depth in 1 32; do
      echo "rep $rep/$REPS: $rw depth $depth ..." >&2
      run file "$rw" "$depth" file disk.img
      run uring "$rw" "$depth" "$PLUGIN" disk.img
      run uring-direct "$rw" "$depth" "$PLUGIN" disk.img direct=true
    done
  done
done

/usr/bin/python3 - "$results" "$RUNTIME" "$REPS" "$SIZE_MB" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(label, rw, depth, col):
    v = [float(r[col]) for r in rows if r[0] == label and r[1] == rw and r[2] == depth]
    return statistics.median(v)
print("uring vs file plugin: 4 KiB random I/O, fio nbd engine, %s MiB file, %s s x %s reps, "
      "medians" % (sys.argv[4], sys.argv[2], sys.argv[3]))
print("%-10s %5s | %10s %8s %8s | %10s %8s %8s | %6s | %10s %8s %8s" % (
    "", "depth", "file IOPS", "p50 us", "p99 us", "uring IOPS", "p50 us", "p99 us", "ratio",
    "direct IOPS", "p50 us", "p99 us"))
for rw in ("randread", "randwrite"):
    for depth in ("1", "32"):
        f = [med("file", rw, depth, c) for c in (3, 4, 5)]
        u = [med("uring", rw, depth, c) for c in (3, 4, 5)]
        d = [med("uring-direct", rw, depth, c) for c in (3, 4, 5)]
        print("%-10s %5s | %10.0f %8.1f %8.1f | %10.0f %8.1f %8.1f | %6.2f | %10.0f %8.1f %8.1f" % (
            rw, depth, f[0], f[1], f[2], u[0], u[1], u[2], u[0] / f[0], d[0], d[1], d[2]))
PY

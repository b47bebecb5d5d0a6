#!/usr/bin/env bash
# The uring plugin against nbdkit's own file plugin, on the same file.
#
# Settings: a 1 GiB file of random data in $SCRATCH (default /var/tmp: a real file
# system), nbdkit --threads 32 so a depth of 32 reaches the plugin, fio's nbd engine,
# 4 KiB random reads and random writes at queue depth 1 and 32, RUNTIME seconds each
# (default 5), REPS repetitions with the plugins alternating (default 3), medians.
#
# Rows: file (buffered: it has no O_DIRECT); uring with its defaults (buffered; page-cache
# hits and writes the file system cannot do without blocking are done in nbdkit's worker,
# see nbdkit-uring-plugin(1)); uring with nowait-reads=false nowait-writes=false (every
# request through the ring thread); uring direct=true (O_DIRECT through registered bounce
# buffers, every request through the ring: the device's own speed, not the page cache's).
# Prints IOPS and completion latency p50 / p99, and IOPS as a ratio of file's (target:
# uring >= file at depth 32).
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

load_before=$(cut -d' ' -f1 /proc/loadavg)
for rep in $(seq 1 "$REPS"); do
  for rw in randread randwrite; do
    for depth in 1 32; do
      echo "rep $rep/$REPS: $rw depth $depth ..." >&2
      run file "$rw" "$depth" file disk.img
      run uring "$rw" "$depth" "$PLUGIN" disk.img
      run uring-ring "$rw" "$depth" "$PLUGIN" disk.img nowait-reads=false nowait-writes=false
      run uring-direct "$rw" "$depth" "$PLUGIN" disk.img direct=true
    done
  done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

/usr/bin/python3 - "$results" "$RUNTIME" "$REPS" "$SIZE_MB" "$load_before" "$load_after" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(label, rw, depth, col):
    return statistics.median(float(r[col]) for r in rows
                             if r[0] == label and r[1] == rw and r[2] == depth)
print("uring vs file plugin: 4 KiB random I/O, fio nbd engine, %s MiB file, %s s x %s reps, "
      "medians; load average %s -> %s" % (sys.argv[4], sys.argv[2], sys.argv[3], *sys.argv[5:7]))
names = {"file": "file (reference)", "uring": "uring (defaults)",
         "uring-ring": "uring, all through the ring", "uring-direct": "uring direct=true"}
print("%-9s %5s  %-28s %9s %9s %9s %8s" % ("", "depth", "plugin", "IOPS", "p50 us", "p99 us",
                                          "vs file"))
for rw in ("randread", "randwrite"):
    for depth in ("1", "32"):
        base = med("file", rw, depth, 3)
        for label in ("file", "uring", "uring-ring", "uring-direct"):
            iops, p50, p99 = (med(label, rw, depth, c) for c in (3, 4, 5))
            print("%-9s %5s  %-28s %9.0f %9.1f %9.1f %8.2f" % (rw, depth, names[label], iops, p50,
                                                             p99, iops / base))
for rw in ("randread", "randwrite"):
    r = med("uring", rw, "32", 3) / med("file", rw, "32", 3)
    print("target (uring >= file at depth 32), %s: %.2f, %s" % (rw, r, "met" if r >= 1.0 else "MISSED"))
PY

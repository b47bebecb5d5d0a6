#!/usr/bin/env bash
# diskemu's volatile write cache and power cuts, through the disksched filter: a writer
# records which of its writes it flushed (or wrote with FUA); after a power cut every one
# of them is on the media (the file= backing store, checked after nbdkit exits), and the
# cut lost some that were only acknowledged. Then the same with a seeded cut (three times:
# the same image each time), over a
# profile's own write-behind (no write-cache=), with a cut by SIGUSR2 while the writer is
# connected (the drive serves on afterwards), and write-cache=0, which offers no flush
# and no FUA.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
requires_filter_client
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "DISKEMU_PLUGIN is not set (plugin not built)"
make_tmpdir
T=$TMPDIR_TEST
P=$DISKEMU_PLUGIN
stack=(--filter="$DISKSCHED_FILTER" "$P" model=hp97560 sched=asatf:w=30 sched-geometry=hp97560)

# The writer: 4 KiB blocks, each write's data unique (block, sequence number); every
# 20th write a flush (none in the last 50), every 7th with FUA. It records, per block, every version it wrote
# and whether the newest was made durable (flushed or FUA) before the cut.
cat > "$T/writer.py" <<'PY'
import json, os, random, sys, nbd
uri, writes, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
signal_after = int(sys.argv[4]) if len(sys.argv) > 4 else 0
h = nbd.NBD()
h.connect_uri(uri)
assert h.can_flush() and h.can_fua()
rng = random.Random(7)
blocks = rng.sample(range(4000), 300)
versions = {}   # block -> [data hex of each write, oldest first]
durable = {}    # block -> the newest version is durable
pending = []
for i in range(writes):
    b = rng.choice(blocks)
    data = (b"%08d:%08d|" % (b, i)) * (4096 // 18) + bytes(4096 % 18)
    fua = i % 7 == 6
    h.pwrite(data, b * 4096, nbd.CMD_FLAG_FUA if fua else 0)
    versions.setdefault(b, []).append(data.hex())
    durable[b] = fua
    if i % 20 == 19 and i < writes - 50:   # the last 50: acknowledged only (or FUA)
        h.flush()
        for k in durable:
            durable[k] = True
if signal_after:
    # The cut while connected: SIGUSR2, then wait (bounded) until the stats say it is done.
    import signal, time, json as j
    pidfile, stats = sys.argv[5], sys.argv[6]
    # nbdkit starts --run before it writes its pid file: wait (bounded) for the file.
    for _ in range(300):
        try:
            pid = int(open(pidfile).read())
            break
        except (OSError, ValueError):
            time.sleep(0.1)
    else:
        raise SystemExit("nbdkit wrote no pid file in 30 s")
    os.kill(pid, signal.SIGUSR2)
    for _ in range(300):
        try:
            if j.load(open(stats))["write_cache"]["power_cuts"] == 1:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    else:
        raise SystemExit("the power cut was not reported in 30 s")
    # Reads now see the media: every durable block's newest version.
    for b, v in versions.items():
        if durable[b]:
            assert h.pread(4096, b * 4096).hex() == v[-1], "block %d lost after a flush" % b
    # The drive serves on.
    h.pwrite(b"after" * 800 + bytes(96), 0)
    assert h.pread(4096, 0)[:5] == b"after"
h.shutdown()
json.dump({"versions": versions, "durable": durable}, open(out, "w"))
PY

# What the media holds: every durable block's newest version; every other block one of
# its versions or zeros (never written to the media); some non-durable writes lost.
cat > "$T/check.py" <<'PY'
import json, sys
rec, img, stats = json.load(open(sys.argv[1])), open(sys.argv[2], "rb"), json.load(open(sys.argv[3]))
lost_blocks = 0
for b, v in rec["versions"].items():
    img.seek(int(b) * 4096)
    got = img.read(4096).hex()
    if rec["durable"][b]:
        assert got == v[-1], "block %s: flushed or FUA data lost" % b
    else:
        assert got in v or got == bytes(4096).hex(), "block %s: data never written" % b
        lost_blocks += got != v[-1]
durable = sum(rec["durable"].values())
print("durable blocks intact: %d; acknowledged-only blocks lost: %d of %d; stats: %s"
      % (durable, lost_blocks, len(rec["versions"]) - durable, stats["write_cache"]))
assert stats["write_cache"]["power_cuts"] == 1, stats["write_cache"]
if len(sys.argv) > 4:   # the destage policy the buffer must have had
    assert stats["write_cache"]["destage"] == sys.argv[4], stats["write_cache"]
if len(sys.argv) <= 5 or sys.argv[5] != "seeded":   # a seeded cut may keep everything
    assert stats["write_cache"]["lost_sectors"] > 0 and lost_blocks > 0, "the cut lost nothing"
PY

# --- a scheduled cut: power-cut-after=N writes ------------------------------------
# 250 writes, the cut right after the last: of the 50 since the last flush, those neither
# FUA nor destaged yet are lost.
nbdkit -U "$(nbdkit_sock)" "${stack[@]}" file="$T/a.img" write-cache=1M power-cut-after=250 \
  stats="$T/a.json" --run "/usr/bin/python3 '$T/writer.py' \"\$uri\" 250 '$T/a.rec'"
/usr/bin/python3 "$T/check.py" "$T/a.rec" "$T/a.img" "$T/a.json" when-idle

# --- the same cut, the drive's own order seeded: flushed data still intact ----------
nbdkit -U "$(nbdkit_sock)" "${stack[@]}" file="$T/s.img" write-cache=1M power-cut-after=250 power-cut-seed=3 \
  stats="$T/s.json" --run "/usr/bin/python3 '$T/writer.py' \"\$uri\" 250 '$T/s.rec'"
/usr/bin/python3 "$T/check.py" "$T/s.rec" "$T/s.img" "$T/s.json" when-idle seeded
# Run again, the same writes in the same order: the same image, byte for byte, however
# real time went (the writer touches only blocks 0 to 3999).
for run in 2 3; do
  nbdkit -U "$(nbdkit_sock)" "${stack[@]}" file="$T/s$run.img" write-cache=1M power-cut-after=250 \
    power-cut-seed=3 stats="$T/s$run.json" --run "/usr/bin/python3 '$T/writer.py' \"\$uri\" 250 '$T/s$run.rec'"
  cmp -n $((4000 * 4096)) "$T/s.img" "$T/s$run.img" || fail "seeded cut, run $run: another image than run 1"
  lost() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["write_cache"]["lost_sectors"])' "$1"; }
  [ "$(lost "$T/s.json")" = "$(lost "$T/s$run.json")" ] || fail "seeded cut, run $run: lost $(lost "$T/s$run.json") sectors, run 1 $(lost "$T/s.json")"
done
echo "seeded cut: 3 runs, one image ($(lost "$T/s.json") sectors lost each time)"

# --- a profile's own write buffer (no write-cache=) is the write cache too -----------
# The 7200 rpm datasheet drive's profile has a write buffer by size (cache.
# write_buffer_bytes), destaged shortest positioning first like write-cache=: the cut
# loses what it had not written, never a flushed or FUA write.
nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" "$P" model=sata7200-8tb sched=asatf:w=30 \
  sched-geometry=sata7200-8tb file="$T/p.img" power-cut-after=250 stats="$T/p.json" \
  --run "/usr/bin/python3 '$T/writer.py' \"\$uri\" 250 '$T/p.rec'"
/usr/bin/python3 "$T/check.py" "$T/p.rec" "$T/p.img" "$T/p.json" when-idle

# --- a cut by SIGUSR2 while connected ---------------------------------------------
nbdkit -U "$(nbdkit_sock)" -P "$T/pid" "${stack[@]}" file="$T/b.img" write-cache=1M stats="$T/b.json" \
  --run "/usr/bin/python3 '$T/writer.py' \"\$uri\" 235 '$T/b.rec' 1 '$T/pid' '$T/b.json'"
/usr/bin/python3 - "$T/b.rec" "$T/b.img" "$T/b.json" <<'PY'
import json, sys
rec, img, stats = json.load(open(sys.argv[1])), open(sys.argv[2], "rb"), json.load(open(sys.argv[3]))
for b, v in rec["versions"].items():
    if b == "0":
        continue
    img.seek(int(b) * 4096)
    if rec["durable"][b]:
        assert img.read(4096).hex() == v[-1], "block %s: flushed or FUA data lost" % b
assert stats["write_cache"]["power_cuts"] == 1 and stats["write_cache"]["lost_sectors"] > 0, stats
print("SIGUSR2 cut: flushed data intact, %d sectors lost" % stats["write_cache"]["lost_sectors"])
PY

# --- write-cache=0: no volatile cache, so NBD offers no flush and no FUA -----------
cat > "$T/through.py" <<'PY'
assert not h.can_flush() and not h.can_fua()
h.pwrite(b"x" * 4096, 0)
assert h.pread(4096, 0) == b"x" * 4096
print("write-through: no flush, no FUA offered")
PY
run_py "$T/through.py" "$P" model=hp97560 write-cache=0 timescale=0.01
expect_start_failure "power-cut-after= needs a write cache" "$P" model=hp97560 power-cut-after=5
echo "write cache and power cuts OK"

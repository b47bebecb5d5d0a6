"""The calibration bench's measurements and report (bench/plugins/calibrate.sh).

  calibrate.py measure NAME URI OUTDIR   one measurement against a running diskemu
  calibrate.py report PROFILE OUTDIR QUEUE_OK   the table, beside the expected figures

Expected figures come from the model (`disksched model show --json`, saved as
OUTDIR/model.json) the way a datasheet states them: the average seek over every seek
length n weighted (max + 1 - n), half a revolution, the transfer, the command overhead;
the sustained rate of the outermost zone with its head and cylinder switches.
"""
import json
import os
import random
import subprocess
import sys
import time

RUNTIME = os.environ.get("RUNTIME", "10")
WRITES = int(os.environ.get("WRITES", "32"))
TIMESCALE = float(os.environ.get("TIMESCALE", "1"))


def fio(out, name, uri, *args):
    path = os.path.join(out, name + ".json")
    cmd = ["fio", "--ioengine=nbd", "--uri=" + uri, "--runtime=" + RUNTIME, "--time_based",
           "--norandommap", "--randrepeat=0", "--output-format=json", "--output=" + path]
    subprocess.run(cmd + list(args), check=True, stdout=subprocess.DEVNULL)


def flush_after_writes(out, uri):
    """WRITES scattered 4 KiB writes (acknowledged from the cache), then one flush:
    how long the flush takes. Three rounds."""
    import nbd
    h = nbd.NBD()
    h.connect_uri(uri)
    size = h.get_size()
    rng = random.Random(13)
    buf = bytearray(4096)
    rounds = []
    for _ in range(3):
        t0 = time.monotonic()
        first = None
        for _ in range(WRITES):
            h.pwrite(buf, rng.randrange(size // 4096) * 4096)
            first = first or (time.monotonic() - t0) * 1e3
        t1 = time.monotonic()
        h.flush()
        t2 = time.monotonic()
        rounds.append({"writes_ms": (t1 - t0) * 1e3, "flush_ms": (t2 - t1) * 1e3,
                       "first_write_ms": first})
    h.shutdown()
    with open(os.path.join(out, "flush.json"), "w") as f:
        json.dump({"writes": WRITES, "rounds": rounds, "can_flush": True}, f)


def measure(name, uri, out):
    rr = ["--rw=randread", "--bs=4k"]
    if name == "qd1":
        fio(out, name, uri, "--name=r", *rr, "--iodepth=1")
    elif name == "qd32":
        fio(out, name, uri, "--name=r", *rr, "--iodepth=32")
    elif name == "seqread":
        fio(out, name, uri, "--name=r", "--rw=read", "--bs=1m", "--iodepth=1", "--size=4g")
    elif name == "seqwrite":
        fio(out, name, uri, "--name=w", "--rw=write", "--bs=1m", "--iodepth=1", "--size=4g")
    elif name == "fsync":
        fio(out, name, uri, "--name=w", "--rw=randwrite", "--bs=4k", "--iodepth=1", "--fsync=1")
    elif name == "flush":
        flush_after_writes(out, uri)
    elif name == "beside":
        # A reader at QD1 beside a writer of 64 KiB random writes that flushes every 8.
        fio(out, name, uri, "--name=reader", *rr, "--iodepth=1",
            "--name=writer", "--rw=randwrite", "--bs=64k", "--iodepth=1", "--fsync=8")
    else:
        raise SystemExit("calibrate.py: unknown measurement " + name)


# ---- the model's figures ----

def seek_fn(spec):
    form = spec["form"]
    if form == "table":
        pts = spec["points"]

        def f(s):
            if s <= 0:
                return 0.0
            if s <= pts[0][0]:
                return pts[0][1]
            for (d0, t0), (d1, t1) in zip(pts, pts[1:]):
                if s <= d1:
                    return t0 + (s - d0) / (d1 - d0) * (t1 - t0)
            return pts[-1][1]
        return f
    sa, sb = spec["short"]["a"], spec["short"]["b"]
    la, lb = spec["long"]["a"], spec["long"]["b"]
    bound, one = spec["boundary"], spec.get("single_cylinder_ms")

    def f(s):
        if s <= 0:
            return 0.0
        if form == "three-piece" and s == 1:
            return one
        return sa + sb * s ** 0.5 if s <= bound else la + lb * s
    return f


def expectations(m):
    import numpy as np
    seek = seek_fn(m["seek"])
    C = m["cylinders"]
    n = np.arange(1, C, dtype=float)
    t = np.array([seek(int(s)) for s in n])
    datasheet_seek = float(((C - n) * t).sum() / (C - n).sum())
    # What uniformly random LBAs see: cylinders weighted by the sectors they hold.
    bins = 1024
    w = np.zeros(bins)
    spt_of = np.zeros(bins)
    for z in m["zones"]:
        for b in range(bins):
            lo, hi = b * C / bins, (b + 1) * C / bins
            ov = max(0.0, min(hi, z["last_cylinder"] + 1) - max(lo, z["first_cylinder"]))
            w[b] += ov * z["sectors_per_track"]
    w /= w.sum()
    width = C / bins
    lba_seek = 0.0
    for k in range(bins):
        pk = (w[:bins - k] * w[k:]).sum() * (1 if k == 0 else 2)
        lba_seek += pk * seek(max(1, int(round(k * width if k else width / 3))))
    rot = m["rotation_ms"]
    sb = m["sector_bytes"]
    sectors = sum((z["last_cylinder"] - z["first_cylinder"] + 1) * z["sectors_per_track"]
                  for z in m["zones"])
    sector_ms = sum((z["last_cylinder"] - z["first_cylinder"] + 1) * rot for z in m["zones"]) / sectors
    xfer4k = 4096 / sb * sector_ms
    heads, hs = m["heads"], m["head_switch_ms"]
    spt0 = m["zones"][0]["sectors_per_track"]
    cyl_ms = heads * rot + (heads - 1) * hs + max(seek(1), hs)
    sustained = heads * spt0 * sb / cyl_ms / 1e3  # MB/s
    ovh = m["overhead_ms"]
    return {"datasheet_seek": datasheet_seek, "lba_seek": lba_seek, "half_rot": rot / 2,
            "xfer4k": xfer4k, "read_ovh": ovh["read"], "write_ovh": ovh["write"],
            "other_ovh": ovh["other"], "sustained": sustained, "rot": rot}


def fio_job(out, name, job=0):
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))["jobs"][job]


def lat_ms(d):
    return d["lat_ns"]["mean"] / 1e6 / TIMESCALE


def p99_ms(d):
    return d["clat_ns"]["percentile"]["99.000000"] / 1e6 / TIMESCALE


def report(profile, out, queue_ok):
    m = json.load(open(os.path.join(out, "model.json")))
    e = expectations(m)
    rows = []

    def row(what, ours, expected, note=""):
        rows.append((what, ours, expected, note))

    qd1 = fio_job(out, "qd1")
    qd1_ms = lat_ms(qd1["read"])
    want_ms = e["datasheet_seek"] + e["half_rot"] + e["xfer4k"] + e["read_ovh"]
    want_lba = e["lba_seek"] + e["half_rot"] + e["xfer4k"] + e["read_ovh"]
    row("QD1 random 4 KiB read, mean", "%.2f ms (%.0f IOPS)" % (qd1_ms, 1000 / qd1_ms / 1),
        "%.2f ms = %.2f seek + %.2f half rev + %.3f xfer + %.2f ovh" % (
            want_ms, e["datasheet_seek"], e["half_rot"], e["xfer4k"], e["read_ovh"]),
        "uniform LBAs seek %.2f ms on average: %.2f ms" % (e["lba_seek"], want_lba))
    qd32 = fio_job(out, "qd32")
    if queue_ok == "1" and qd32 is not None:
        gain = qd32["read"]["iops"] / qd1["read"]["iops"]
        row("QD32 random 4 KiB read", "%.0f IOPS, %.2fx QD1" % (qd32["read"]["iops"] * TIMESCALE, gain),
            "~2.4x (enterprise), 1.5-1.7x (desktop)",
            "drive-queue=32 drive-policy=satf drive-age-limit=" + os.environ.get("AGE_LIMIT", "2s"))
    else:
        row("QD32 random 4 KiB read", "not measured: needs the drive's command queue "
            "(diskemu drive-queue=)", "~2.4x / 1.5-1.7x")
    for name, label in (("seqread", "1 MiB sequential read, QD1"),
                        ("seqwrite", "1 MiB sequential write, QD1")):
        j = fio_job(out, name)
        d = j["read" if name == "seqread" else "write"]
        mb_s = d["bw_bytes"] / 1e6 * TIMESCALE
        row(label, "%.1f MB/s" % mb_s, "%.1f MB/s sustained (outer zone)" % e["sustained"],
            "%.0f%%" % (100 * mb_s / e["sustained"]))
    fs = fio_job(out, "fsync")
    w = fs["write"]
    sync = fs.get("sync", {})
    per = 1000 / (w["iops"] * TIMESCALE)
    want_w = e["lba_seek"] + e["half_rot"] + e["xfer4k"] + e["write_ovh"] + e["other_ovh"]
    row("random 4 KiB write + fsync, QD1", "%.2f ms a write+fsync (%.0f IOPS)" % (per, 1000 / per),
        "%.2f ms: one random media write + flush" % want_w,
        "fsync mean %.2f ms" % (sync.get("lat_ns", {}).get("mean", 0) / 1e6 / TIMESCALE))
    fl = json.load(open(os.path.join(out, "flush.json")))
    flush = sorted(r["flush_ms"] for r in fl["rounds"])[1] / TIMESCALE
    wr = sorted(r["writes_ms"] for r in fl["rounds"])[1] / TIMESCALE / fl["writes"]
    first = sorted(r["first_write_ms"] for r in fl["rounds"])[1] / TIMESCALE
    if first >= e["half_rot"]:
        row("flush after %d scattered cached 4 KiB writes" % fl["writes"],
            "not measured: needs a write cache (the first write took %.2f ms: written "
            "through)" % first, "fixed part + ~10 ms a write (desktop drive)")
    else:
        row("flush after %d scattered cached 4 KiB writes" % fl["writes"],
            "%.1f ms, %.2f ms a write (writes acked in %.2f ms on average)" % (
                flush, flush / fl["writes"], wr),
            "fixed part + ~10 ms a write (desktop drive); random write %.2f ms" % (
                want_w - e["other_ovh"]),
            "" if wr < e["half_rot"] else "more writes than the buffer holds: some waited")
    be = fio_job(out, "beside", 0)
    row("random 4 KiB reads beside a flushing writer", "%.2f ms mean, p99 %.1f ms" % (
        lat_ms(be["read"]), p99_ms(be["read"])),
        "alone: %.2f ms mean, p99 %.1f ms" % (qd1_ms, p99_ms(qd1["read"])),
        "writer: 64 KiB random writes, fsync every 8")
    print("calibration of %s (diskemu, fio nbd engine, %s s a line, timescale %g; "
          "times in the drive's time)" % (profile, RUNTIME, TIMESCALE))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for what, ours, expected, note in rows:
        print("%-*s  %-*s  | expected %s%s" % (w0, what, w1, ours, expected,
                                                "  (" + note + ")" if note else ""))


if __name__ == "__main__":
    if sys.argv[1] == "measure":
        measure(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        raise SystemExit(__doc__)

#!/usr/bin/python3
"""Inputs of bench/filter/track-refine.sh: two HP 97560 profiles and a trace.

profile.json: JW's HP 97560 (as the built-in hp97560: no skews, every track's sector 0 at
    angle 0), the geometry the filter is given.
device.json: the same disk with SHIFTED of its tracks' sector 0 at 0.1 to 0.4 rotations
    (7 to 29 sectors) either way (`track_phase`), the disk diskemu emulates: a drive whose
    skews the profile has wrong on some tracks.
trace.csv: Poisson arrivals (RATE per second) of 8 KiB reads within TRACKS tracks (the
    shifted ones among them), each starting at a random sector, so every track is
    revisited; `disksched replay --workload trace:csv:trace.csv`.
shifted.json: the shifted tracks' first and last LBAs, for the report.

    track_phase_setup.py OUTDIR REQUESTS [TRACKS] [SHIFTED] [RATE] [SEED]
"""
import json
import os
import random
import sys

out, requests = sys.argv[1], int(sys.argv[2])
tracks_n = int(sys.argv[3]) if len(sys.argv) > 3 else 300
shifted_n = int(sys.argv[4]) if len(sys.argv) > 4 else 40
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 20.0
rng = random.Random(int(sys.argv[6]) if len(sys.argv) > 6 else 1)

HEADS, SPT, CYLINDERS = 19, 72, 1964
profile = {
    "schema": "disksched-geometry", "version": 1, "kind": "disk", "name": "hp97560",
    "sector_bytes": 512, "heads": HEADS, "rotation_ms": 60000.0 / 4002.0,
    "zones": [{"first_cylinder": 0, "last_cylinder": CYLINDERS - 1, "sectors_per_track": SPT}],
    "seek": {"form": "two-piece", "short": {"a": 3.24, "b": 0.4}, "boundary": 383,
             "long": {"a": 8.2, "b": 0.0075}},
    "source": {"notes": "JW's HP 97560 (bench/filter/track_phase_setup.py)"},
}
tracks = set()
while len(tracks) < tracks_n:
    tracks.add((rng.randrange(CYLINDERS), rng.randrange(HEADS)))
tracks = sorted(tracks)
rng.shuffle(tracks)
shifted = tracks[:shifted_n]
device = dict(profile, name="hp97560-rephased",
              track_phase=[{"cylinder": c, "head": h,
                            "phase": (rng.uniform(0.1, 0.4) * rng.choice((1, -1))) % 1.0}
                           for c, h in shifted],
              source={"notes": f"{shifted_n} tracks' sector 0 moved 0.1-0.4 rotations"})
os.makedirs(out, exist_ok=True)
json.dump(profile, open(os.path.join(out, "profile.json"), "w"), indent=1)
json.dump(device, open(os.path.join(out, "device.json"), "w"), indent=1)
json.dump([[(c * HEADS + h) * SPT, (c * HEADS + h + 1) * SPT - 1] for c, h in shifted],
          open(os.path.join(out, "shifted.json"), "w"))
with open(os.path.join(out, "trace.csv"), "w") as f:
    f.write("time_ms,op,offset,length\n")
    t = 0.0
    for _ in range(requests):
        t += rng.expovariate(rate) * 1000.0
        c, h = rng.choice(tracks)
        lba = (c * HEADS + h) * SPT + rng.randrange(SPT - 16 + 1)
        f.write(f"{t:.3f},R,{lba * 512},8192\n")

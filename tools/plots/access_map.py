#!/usr/bin/python3
"""Plot an access-time map written by `disksched model map` (JW Fig. 3 / Hong Fig. 2).

usage: access_map.py MAP.csv OUT.png TITLE
The CSV has a header; the first two columns are the horizontal and vertical axes and
the third the access (or seek) time in ms.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(src, newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        xs, ys, vs = [], [], []
        for r in rows:
            xs.append(float(r[0]))
            ys.append(float(r[1]))
            vs.append(float(r[2]))
    nx = len(set(xs))
    ny = len(set(ys))
    grid = [[0.0] * nx for _ in range(ny)]
    xi = {v: i for i, v in enumerate(sorted(set(xs)))}
    yi = {v: i for i, v in enumerate(sorted(set(ys)))}
    for x, y, v in zip(xs, ys, vs):
        grid[yi[y]][xi[x]] = v
    fig, ax = plt.subplots(figsize=(9, 5))
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis_r",
                   extent=[min(xs), max(xs), min(ys), max(ys)], interpolation="nearest")
    ax.set_xlabel(header[0])
    ax.set_ylabel(header[1])
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label=header[2])
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()

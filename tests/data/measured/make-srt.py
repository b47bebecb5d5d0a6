#!/usr/bin/python3
"""Writes srt-fixed3.srt, the SRT 1.3 fixture of tests/data/measured/README.md.

usage: make-srt.py OUT.srt
Header (ended by 0x0C), then big-endian uint32 records: size, id (version << 16 | type),
sec, usec, and for a SHORTIO (type 1) start_us, stop_us, bytes, sectno, devno, drivertype,
cylno, ioflags, info, and (version 4) queuelen.
"""
import struct
import sys

HEADER = (b"$$TR_IOREC-1.3 (IOAdaptor Upgrade Version)\n"
          b"tracedate = 0;\n"
          b"disks = { disk0 = { nspt = 72; sectorsize = 512; }; };\n\x0c")

# (enqueue s, us, start_us, stop_us, bytes, sector, ioflags): 0x1 read, 0x100 async.
IOS = [
    (0, 0, 0, 3000, 4096, 100, 0x1),          # read, sync
    (0, 1000, 2500, 6000, 8192, 5000, 0x100),  # write, async (delayed write)
    (0, 2000, 5000, 9500, 4096, 200, 0x101),   # read, async: read-ahead
    (0, 20000, 0, 2000, 4096, 9000, 0x0),      # write, sync
]


def shortio(sec, usec, start, stop, nbytes, sector, flags):
    devno = (7 << 24) | (0 << 8)  # block major 7, disk 0, section 0
    body = [start, stop, nbytes, sector, devno, 0, 0, flags, 0, 1]
    return struct.pack(">4I", 16 + 4 * len(body), (4 << 16) | 1, sec, usec) + \
        struct.pack(">%dI" % len(body), *body)


def textio(sec, usec):  # a TEXTIO record (type 3), skipped by its size
    return struct.pack(">5I", 20, (4 << 16) | 3, sec, usec, 0)


def main():
    out = HEADER + shortio(*IOS[0]) + textio(0, 500) + b"".join(shortio(*io) for io in IOS[1:])
    with open(sys.argv[1], "wb") as f:
        f.write(out)


main()

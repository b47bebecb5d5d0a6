"""Sends every NBD command with every combination of the five NBD command flags (and
one undefined flag bit), with libnbd's strict checks off so that nothing is refused
on the client side, and prints one line per request: command, flags, outcome. A
request may fail (that is the server's answer); the server must stay up, so after the
sweep a write and a read back must work. Usage: command_flags.py URI > outcomes"""

import itertools
import sys

import nbd

FLAGS = [("fua", nbd.CMD_FLAG_FUA), ("no_hole", nbd.CMD_FLAG_NO_HOLE), ("df", nbd.CMD_FLAG_DF),
         ("req_one", nbd.CMD_FLAG_REQ_ONE), ("fast_zero", nbd.CMD_FLAG_FAST_ZERO),
         ("bit5", 1 << 5)]
BLOCK = 4096


def commands(h):
    return {
        "read": lambda f: h.pread(BLOCK, 0, f),
        "write": lambda f: h.pwrite(b"\x5a" * BLOCK, BLOCK, f),
        "flush": lambda f: h.flush(f),
        "trim": lambda f: h.trim(BLOCK, 2 * BLOCK, f),
        "zero": lambda f: h.zero(BLOCK, 3 * BLOCK, f),
        "block_status": lambda f: h.block_status(BLOCK, 0, lambda *a: 0, f),
        "cache": lambda f: h.cache(BLOCK, 0, f),
    }


def main(uri):
    h = nbd.NBD()
    h.set_strict_mode(0)
    h.add_meta_context(nbd.CONTEXT_BASE_ALLOCATION)
    h.connect_uri(uri)
    for name, cmd in commands(h).items():
        for n in range(len(FLAGS) + 1):
            for combo in itertools.combinations(FLAGS, n):
                flags = 0
                for _, bit in combo:
                    flags |= bit
                label = "+".join(f for f, _ in combo) or "none"
                try:
                    cmd(flags)
                    outcome = "ok"
                except nbd.Error as e:
                    if h.aio_is_dead() or h.aio_is_closed():
                        sys.exit(f"FAIL: the connection died at {name} {label}: {e}")
                    outcome = f"error errno={e.errnum}"
                print(f"{name} {label} {outcome}")
    # Still serving: write, flush and read back.
    pattern = bytes(range(256)) * (BLOCK // 256)
    h.pwrite(pattern, 8 * BLOCK)
    h.flush()
    assert h.pread(BLOCK, 8 * BLOCK) == pattern, "read back differs"
    h.shutdown()


if __name__ == "__main__":
    main(sys.argv[1])

"""Concurrent random writes, then concurrent reads of the same places, checked.

usage: integrity.py URI SEED [DEPTH] [SLOTS]

Writes never overlap each other (NBD gives no order between overlapping requests in
flight), so every byte's final value is known. Then overlapping write-then-read: a
write is acknowledged while other requests are queued, and a read issued after the
acknowledgement, racing the queue, must return the new data."""

import random
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import nbdio  # noqa: E402

uri, seed = sys.argv[1], int(sys.argv[2])
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 32
nslots = int(sys.argv[4]) if len(sys.argv) > 4 else 256
rng = random.Random(seed)
h = nbdio.connect(uri)
size = h.get_size()
slot = 16384
slots = rng.sample(range(size // slot), nslots)
writes = []
for s in slots:
    length = rng.randrange(1, 33) * 512
    off = s * slot + rng.randrange(0, (slot - length) // 512 + 1) * 512
    writes.append(nbdio.Request("write", off, data=rng.randbytes(length)))
nbdio.run(h, writes, depth)
bad = [w for w in writes if not w.ok]
assert not bad, f"{len(bad)} writes failed: {bad[0].error}"

reads = [nbdio.Request("read", w.offset, w.length) for w in writes]
rng.shuffle(reads)
nbdio.run(h, reads, depth)
want = {w.offset: w.data for w in writes}
for r in reads:
    assert r.ok, f"read at {r.offset} failed: {r.error}"
    assert r.result == want[r.offset], f"read at {r.offset}+{r.length} returned other data"

# Write-then-read under a full queue: far-away reads keep the scheduler busy while
# the write is acknowledged and the read of the same place follows it.
target = writes[0]
new = bytes(b ^ 0xFF for b in target.data)
for _ in range(depth):
    nbdio.Request("read", rng.randrange(0, size // 512 - 64) * 512, 16384).issue(h)
w = nbdio.Request("write", target.offset, data=new)
wc = w.issue(h)
while not h.aio_command_completed(wc):
    h.poll(-1)
rd = nbdio.Request("read", target.offset, target.length)
rc = rd.issue(h)
while not h.aio_command_completed(rc):
    h.poll(-1)
assert rd.buf.to_bytearray() == new, "read after an acknowledged write returned old data"
while h.aio_in_flight() > 0:
    h.poll(-1)
h.shutdown()
print(f"ok: {len(writes)} writes and reads checked, depth {depth}, size {size}")

"""libnbd helpers for the filter's integration tests: run many requests with up to
`depth` in flight and collect each one's outcome. Run with /usr/bin/python3 (Debian's
python3-libnbd)."""

import nbd


def connect(uri):
    h = nbd.NBD()
    h.connect_uri(uri)
    return h


class Request:
    """One request: kind is 'read', 'write', 'trim', 'zero' or 'flush'."""

    def __init__(self, kind, offset=0, length=0, data=None, flags=0):
        self.kind = kind
        self.offset = offset
        self.length = length if data is None else len(data)
        self.data = data
        self.flags = flags
        self.buf = None
        self.ok = None        # True / False once completed
        self.error = None     # nbd.Error text when failed
        self.result = None    # bytes read

    def issue(self, h):
        if self.kind == "read":
            self.buf = nbd.Buffer(self.length)
            return h.aio_pread(self.buf, self.offset, flags=self.flags)
        if self.kind == "write":
            self.buf = nbd.Buffer.from_bytearray(bytearray(self.data))
            return h.aio_pwrite(self.buf, self.offset, flags=self.flags)
        if self.kind == "trim":
            return h.aio_trim(self.length, self.offset, flags=self.flags)
        if self.kind == "zero":
            return h.aio_zero(self.length, self.offset, flags=self.flags)
        if self.kind == "flush":
            return h.aio_flush()
        raise ValueError(self.kind)


def run(h, requests, depth, on_complete=None):
    """Issues `requests` in order, keeping at most `depth` in flight. Returns them with
    ok/error/result set. on_complete(req) is called as each completes."""
    pending = {}
    queue = list(requests)
    queue.reverse()
    while queue or pending:
        while queue and len(pending) < depth:
            r = queue.pop()
            pending[r.issue(h)] = r
        h.poll(-1)
        for cookie in list(pending):
            r = pending[cookie]
            try:
                if not h.aio_command_completed(cookie):
                    continue
                r.ok = True
            except nbd.Error as e:
                r.ok = False
                r.error = str(e)
            del pending[cookie]
            if r.ok and r.kind == "read":
                r.result = r.buf.to_bytearray()
            if on_complete:
                on_complete(r)
    return requests

#!/usr/bin/env python3
"""Hostile HTTP answers on 127.0.0.1, for imgfetch's HTTP layer: fixed ones for the tests, random ones
(from a seed in the path) for the campaign (drive.py).

    server.py [--port 0] [--watch-parent] [--images DIR] [--log FILE]

Prints `PORT <n>` once it listens. Python's standard library only; every answer is written by hand
on the socket, so framing can be wrong on purpose.

Fixed paths:
    /fixed/image.png            200, a valid PNG
    /fixed/redirect-endless     302 to /fixed/image.png, with a chunked body that never ends
    /fixed/error-endless        500 with a chunked body that never ends
    /fixed/error-endless-close  500 with a body delimited by the connection's close, never ending
    /fixed/drip                 200, Content-Length 100000, one byte a second
    /fixed/redirect-drip        302 to /fixed/image.png, its body one byte a second
    /fixed/garbage-cut          200, 95 bytes of no image announced as 47170, then the connection closes
    /fixed/gzip-always          200, the PNG gzip-encoded whatever the request's Accept-Encoding
    /fixed/error-binary         503 whose body is a JPEG
(anything after the name is ignored: /fixed/error-endless/classes/Photo/x is /fixed/error-endless)
Random paths:
    /r/<seed>/<hop>             an answer drawn from random.Random("<seed>/<hop>/<n>"), where n counts
                                the requests for that path so far (so a retry may get another answer)

Every endless or slow answer stops on the server's side after ENDLESS_LIMIT seconds, so that a
client that never ends them cannot keep the server busy for ever (the tests' and driver's own time
limits are what fail such a client).
"""

import argparse
import gzip
import os
import random
import socket
import socketserver
import struct
import sys
import threading
import time

ENDLESS_LIMIT = 60.0
IMAGES = []  # (name, bytes), loaded at start
PNG = b""
LOG = None
LOG_LOCK = threading.Lock()
COUNTS = {}
COUNTS_LOCK = threading.Lock()


def log(line):
    if LOG is None:
        return
    with LOG_LOCK:
        LOG.write(line + "\n")
        LOG.flush()


class Closed(Exception):
    pass


class Answer:
    """Writes one answer on a socket, with helpers for the hostile parts."""

    def __init__(self, sock):
        self.sock = sock

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            raise Closed()

    def head(self, status, reason, fields):
        lines = ["HTTP/1.1 %d %s" % (status, reason)] + ["%s: %s" % kv for kv in fields]
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace"))

    def endless_chunks(self, piece=16384, pause=0.0):
        deadline = time.time() + ENDLESS_LIMIT
        chunk = b"%x\r\n" % piece + b"x" * piece + b"\r\n"
        while time.time() < deadline:
            self.send(chunk)
            if pause:
                time.sleep(pause)

    def endless_raw(self, piece=16384, pause=0.0):
        deadline = time.time() + ENDLESS_LIMIT
        while time.time() < deadline:
            self.send(b"y" * piece)
            if pause:
                time.sleep(pause)

    def drip(self, body, every):
        deadline = time.time() + ENDLESS_LIMIT
        for i in range(len(body)):
            if time.time() > deadline:
                return
            self.send(body[i:i + 1])
            time.sleep(every)

    def reset(self):
        """Ends the connection with a reset rather than a clean close."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass


def fixed(answer, path):
    # The name after /fixed/ picks the answer; what follows it is ignored (a REST client adds its path).
    pieces = path.split("/")
    path = "/".join(pieces[:3])
    if path == "/fixed/image.png":
        answer.head(200, "OK", [("Content-Type", "image/png"), ("Content-Length", len(PNG))])
        answer.send(PNG)
        return True
    if path == "/fixed/redirect-endless":
        answer.head(302, "Found", [("Location", "/fixed/image.png"), ("Transfer-Encoding", "chunked")])
        answer.endless_chunks()
    elif path in ("/fixed/error-endless", "/fixed/error-endless-close"):
        if path.endswith("close"):
            answer.head(500, "Internal Server Error", [("Content-Type", "text/plain"), ("Connection", "close")])
            answer.send(b"the server is on fire\n")
            answer.endless_raw()
        else:
            answer.head(500, "Internal Server Error", [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")])
            answer.send(b"16\r\nthe server is on fire\n\r\n")
            answer.endless_chunks()
    elif path == "/fixed/garbage-cut":
        # Campaign seed c1-206: no image, announced longer than it is, then the connection closes.
        answer.head(200, "OK", [("Content-Type", "image/png"), ("Content-Length", 47170)])
        answer.send(bytes(random.Random(206).getrandbits(8) for _ in range(95)))
    elif path == "/fixed/gzip-always":
        # Campaign seed c1-230: encoded even when the request asks for identity (a resume).
        body = gzip.compress(PNG)
        answer.head(200, "OK", [("Content-Type", "image/png"), ("Content-Encoding", "gzip"),
                                ("Content-Length", len(body))])
        answer.send(body)
        return True
    elif path == "/fixed/error-binary":
        # Campaign seed c1-2864: an error status whose body is an image, not text.
        name, data = IMAGES[-1]
        answer.head(503, "Service Unavailable", [("Content-Type", "image/jpeg"), ("Content-Length", len(data))])
        answer.send(data)
        return True
    elif path == "/fixed/drip":
        answer.head(200, "OK", [("Content-Type", "image/png"), ("Content-Length", 100000)])
        answer.drip(PNG + b"\0" * (100000 - len(PNG)), 1.0)
    elif path == "/fixed/redirect-drip":
        answer.head(302, "Found", [("Location", "/fixed/image.png"), ("Content-Length", 100000)])
        answer.drip(b"z" * 100000, 1.0)
    else:
        answer.head(404, "Not Found", [("Content-Length", 0)])
        return True
    return False


# --- random answers --------------------------------------------------------------------------------

STATUSES = (
    [(200, "OK")] * 30 + [(206, "Partial Content")] * 4 + [(204, "No Content"), (203, "Non-Authoritative")]
    + [(301, "Moved"), (302, "Found"), (303, "See Other"), (307, "Temporary"), (308, "Permanent")] * 4
    + [(304, "Not Modified"), (300, "Multiple")]
    + [(400, "Bad Request"), (403, "Forbidden"), (404, "Not Found"), (416, "Range Not Satisfiable"), (429, "Too Many")] * 2
    + [(500, "Internal"), (502, "Bad Gateway"), (503, "Unavailable"), (504, "Timeout")] * 3
    + [(199, "Odd"), (600, "Beyond"), (999, "Nine")]
)


def location(rng, seed, hop, port):
    choices = [
        "/r/%s/%d" % (seed, hop + 1),
        "/r/%s/%d" % (seed, hop + 1),
        "/r/%s/%d" % (seed, hop),  # itself: a loop unless the next answer differs
        "/fixed/image.png",
        "image.png",
        "",
        "   ",
        "http://127.0.0.1:1/nothing-listens",
        "ftp://127.0.0.1/x.png",
        "file:///etc/passwd",
        "//127.0.0.1:%d/r/%s/%d" % (port, seed, hop + 1),
        "http://127.0.0.1:%d/r/%s/%d?q=%s" % (port, seed, hop + 1, "a" * rng.randint(1, 3000)),
        "/r/%s/%d#frag" % (seed, hop + 1),
        "/sp ace/\u00e9t\u00e9",
        "http://[::1:bad/",
        "javascript:alert(1)",
        "/r/%s/%d" % (seed, hop + 1) + "/" * 5000,
    ]
    return rng.choice(choices)


def body_for(rng):
    kind = rng.choice(["empty", "short", "image", "image", "image", "png", "truncated", "garbage",
                       "endless", "drip", "stall", "gzip-image", "bad-gzip"])
    name, data = rng.choice(IMAGES)
    if kind == "empty":
        return kind, b""
    if kind == "short":
        return kind, b'{"code":1,"error":"short"}'
    if kind == "image":
        return kind, data
    if kind == "png":
        return kind, PNG
    if kind == "truncated":
        return kind, data[:rng.randint(0, max(0, len(data) - 1))]
    if kind == "garbage":
        return kind, bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 5000)))
    if kind == "gzip-image":
        return kind, gzip.compress(data)
    if kind == "bad-gzip":
        return kind, b"\x1f\x8b\x08\x00" + bytes(rng.getrandbits(8) for _ in range(200))
    return kind, data  # endless, drip and stall send this, differently


def random_answer(answer, seed, hop, n, port, request_head):
    rng = random.Random("%s/%d/%d" % (seed, hop, n))
    status, reason = rng.choice(STATUSES)
    kind, body = body_for(rng)
    fields = []
    interim = rng.random() < 0.08
    if interim:
        answer.send(b"HTTP/1.1 100 Continue\r\n\r\n" if rng.random() < 0.5
                    else b"HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n")
    if 300 <= status < 400:
        fields.append(("Location", location(rng, seed, hop, port)))
        if rng.random() < 0.1:
            fields.append(("Location", location(rng, seed, hop, port)))  # a duplicate
    fields.append(("Content-Type", rng.choice(["image/png", "image/jpeg", "text/html", "application/json",
                                               "application/octet-stream", "", "image/png; charset=\u00ff"])))
    if kind in ("gzip-image", "bad-gzip"):
        fields.append(("Content-Encoding", "gzip"))
    elif rng.random() < 0.05:
        fields.append(("Content-Encoding", rng.choice(["br", "deflate", "zstd", "x-unknown"])))
    if rng.random() < 0.3:
        fields.append(("Accept-Ranges", "bytes"))
    ranged = "range:" in request_head.lower()
    if status == 206 or (ranged and rng.random() < 0.3):
        total = len(body)
        start = rng.choice([0, 1, total // 2, total, total + 10])
        fields.append(("Content-Range", rng.choice([
            "bytes %d-%d/%d" % (start, max(start, total - 1), total), "bytes */%d" % total,
            "bytes %d-%d/*" % (start, total), "bytes junk", "bytes 0-0/0"])))
        body = body[start:] if rng.random() < 0.7 else body
    if rng.random() < 0.2:
        fields.append(("Retry-After", rng.choice(["0", "1", "2", "-5", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"])))
    if rng.random() < 0.1:
        fields.append(("X-Filler", "f" * rng.randint(1, 20000)))
    framing = rng.choice(["length", "length", "length", "wrong-short", "wrong-long", "huge", "bad-length",
                          "two-lengths", "close", "chunked", "chunked", "chunked-bad", "chunked-huge",
                          "chunked-unfinished", "chunked-and-length"])
    if kind == "endless":
        framing = rng.choice(["chunked-endless", "close"])
    length = len(body)
    if framing == "length" or kind in ("drip", "stall"):
        fields.append(("Content-Length", length))
    elif framing == "wrong-short":
        fields.append(("Content-Length", max(0, length - rng.randint(1, 100))))
    elif framing == "wrong-long":
        fields.append(("Content-Length", length + rng.randint(1, 100000)))
    elif framing == "huge":
        fields.append(("Content-Length", rng.choice([10 ** 15, 2 ** 63 - 1, 2 ** 64 + 5])))
    elif framing == "bad-length":
        fields.append(("Content-Length", rng.choice(["-1", "12abc", " ", "0x10", "1e5"])))
    elif framing == "two-lengths":
        fields.append(("Content-Length", length))
        fields.append(("Content-Length", length + 7))
    elif framing == "close":
        fields.append(("Connection", "close"))
    elif framing == "chunked-and-length":
        fields.append(("Content-Length", length))
        fields.append(("Transfer-Encoding", "chunked"))
    else:
        fields.append(("Transfer-Encoding", "chunked"))
    drop = rng.random() < 0.12
    log("%s/%d/%d status=%d body=%s(%d) framing=%s interim=%s drop=%s" % (
        seed, hop, n, status, kind, len(body), framing, interim, drop))
    if drop and rng.random() < 0.3:  # mid-head
        text = ("HTTP/1.1 %d %s\r\n" % (status, reason)).encode()
        answer.send(text[:rng.randint(0, len(text))])
        answer.reset()
        return False
    answer.head(status, reason, fields)
    if kind == "endless":
        if framing == "chunked-endless":
            answer.endless_chunks(piece=rng.choice([1, 100, 16384]), pause=rng.choice([0, 0, 0.001]))
        else:
            answer.endless_raw(pause=rng.choice([0, 0.001]))
        return False
    if kind == "drip":
        answer.drip(body[:rng.randint(1, 2000)], rng.choice([0.05, 0.3, 1.0, 2.5]))
        return False
    if kind == "stall":
        cut = rng.randint(0, length)
        answer.send(body[:cut])
        time.sleep(rng.choice([0.5, 2, 5]))
        answer.send(body[cut:])
        return framing == "length"
    if drop:
        answer.send(body[:rng.randint(0, length)])
        answer.reset()
        return False
    if framing.startswith("chunked"):
        pos = 0
        while pos < length:
            size = rng.choice([1, 7, 1000, 65536, length])
            piece = body[pos:pos + size]
            if framing == "chunked-bad" and rng.random() < 0.2:
                answer.send(b"zz\r\n" + piece + b"\r\n")
                return False
            if framing == "chunked-huge" and rng.random() < 0.2:
                answer.send(b"ffffffffffffffffff\r\n" + piece)
                return False
            answer.send(b"%x\r\n" % len(piece) + piece + b"\r\n")
            pos += len(piece)
        if framing == "chunked-unfinished":
            return False
        answer.send(b"0\r\n\r\n")
        return True
    answer.send(body)
    return framing == "length"


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(30)
        answer = Answer(self.request)
        buffered = b""
        try:
            while True:
                while b"\r\n\r\n" not in buffered:
                    more = self.request.recv(65536)
                    if not more:
                        return
                    buffered += more
                    if len(buffered) > 1 << 20:
                        return
                head, buffered = buffered.split(b"\r\n\r\n", 1)
                text = head.decode("latin-1")
                parts = text.split("\r\n", 1)[0].split(" ")
                path = parts[1] if len(parts) > 1 else "/"
                keep = self.dispatch(answer, path.split("?", 1)[0], text)
                if not keep:
                    return
        except (Closed, OSError):
            return

    def dispatch(self, answer, path, head):
        if path.startswith("/r/"):
            pieces = path.split("/")
            seed = pieces[2] if len(pieces) > 2 else "0"
            try:
                hop = int(pieces[3]) if len(pieces) > 3 else 0
            except ValueError:
                hop = 0
            with COUNTS_LOCK:
                n = COUNTS.get((seed, hop), 0)
                COUNTS[(seed, hop)] = n + 1
            return random_answer(answer, seed, hop, n, self.server.server_address[1], head)
        return fixed(answer, path)


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def exit_with_parent(parent):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    global LOG, PNG, ENDLESS_LIMIT
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--watch-parent", action="store_true",
                        help="exit when the parent process dies (so a crashed test leaves no server)")
    parser.add_argument("--images", default=os.path.join(here, "..", "..", "Fixtures", "images"))
    parser.add_argument("--log", help="a line per random answer: what was drawn")
    parser.add_argument("--endless-limit", type=float, default=ENDLESS_LIMIT,
                        help="seconds after which an endless or slow answer ends (default %(default)s)")
    args = parser.parse_args()
    ENDLESS_LIMIT = args.endless_limit
    if args.watch_parent:
        threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    if os.environ.get("NGINX_TEST_HOST_WATCH_PARENT") and not args.watch_parent:
        threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    for name in ["basn2c08.png", "basn0g08.png", "basn4a08.png", "basi3p08.png", "Portrait_2.jpg"]:
        path = os.path.join(args.images, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                IMAGES.append((name, f.read()))
    if not IMAGES:
        sys.exit("no images in %s" % args.images)
    PNG = IMAGES[0][1]
    if args.log:
        LOG = open(args.log, "a")
    server = Server(("127.0.0.1", args.port), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A Parse-compatible fixture server for imgfetch's tests (Python standard library only).

It answers the REST and file routes the client uses with the JSON shapes, status codes and
error bodies of a real Parse Server (see shared/PARSE.md), including its Range quirks, and
injects faults on request. It binds 127.0.0.1 only, and prints `PORT <n>` once it listens.

    server.py --config seed.json [--port 0] [--watch-parent]

Seed (JSON; every key optional but appId):
    appId, restKey, masterKey     credentials the server checks
    sessions                      {"r:token": "userId"}
    mount                         URL prefix, default "/parse"
    maxLimit                      silently clamp query limits to this
    collation                     "caseInsensitive": compare and sort strings as a PostgreSQL
                                  database with a linguistic collation (en_US) does, instead of
                                  bytewise as MongoDB does
    filesDir                      directory of stored files (relative to the seed)
    files                         {"stored name": "path"}: explicit map, so hostile names work
    filesRequireSession           file downloads need a valid session token
    quirks                        {"offByOne": bool, "ignoreRange": bool, "impossible206": bool}
    classes                       {"Class": [objects]}; a File column is {"__type": "File",
                                  "name": ...} and gets its "url" on the way out unless it has one;
                                  "ACL" {"userId": {"read": true}} hides an object (code 101)
    masterOnlyClasses             classes that answer code 119 without the master key
    faults                        [{"target": ..., "kind": ..., "times": n, ...}], see below

Faults match `target` against the path after the mount (`files/<appId>/<name>`,
`classes/Photo/<id>`, `classes/Photo`), or any path when target is "*". `times` is how many
requests it hits (default 1, -1 forever). Kinds: status (status, body, retryAfter), html502,
truncate (at), drop (at), trickle (chunk, delay), stall (after, seconds), gzip, endless,
lie (length), redirect (to), redirectLoop, contentType (value), notImage, offByOne,
ignoreRange, impossible206, delay (seconds: the answer waits, then comes as usual); and on queries (`classes/<Class>`), as a misbehaving proxy or
server would: ignoreGt (drops every `$gt` from the where, so paging repeats the first page),
omitObjectId (results without their objectId). A file URL may also carry `?fault=<kind>`
(once per request).

Control (outside the mount, no credentials): GET /__control/stats gives request counts per
path, the last headers seen per path, and the rows (query results) sent per path; POST
/__control/faults adds faults (a JSON list); POST /__control/reset clears counts and faults.
"""
import argparse
import gzip
import json
import mimetypes
import os
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The files' content types by extension, whatever this Python's table knows: WebP, GIF, HEIC,
# HEIF and AVIF (issue 31) too, as Parse Server names them.
mimetypes.add_type("image/webp", ".webp")
mimetypes.add_type("image/gif", ".gif")
mimetypes.add_type("image/heic", ".heic")
mimetypes.add_type("image/heif", ".heif")
mimetypes.add_type("image/heif", ".hif")
mimetypes.add_type("image/avif", ".avif")

REST_GET_KEYS = {"keys", "include", "excludeKeys"}
QUERY_KEYS = {"where", "limit", "skip", "order", "keys", "count", "include", "excludeKeys"}
HTML_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
            b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
            b"</body>\r\n</html>\r\n")


class State:
    def __init__(self, seed, seed_dir):
        self.seed = seed
        self.lock = threading.Lock()
        self.counts = {}
        self.headers = {}
        self.rows = {}
        self.faults = list(seed.get("faults", []))
        files_dir = seed.get("filesDir")
        self.files_dir = os.path.join(seed_dir, files_dir) if files_dir else None
        self.files = {k: os.path.join(seed_dir, v) for k, v in seed.get("files", {}).items()}

    def record(self, path, headers):
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1
            self.headers[path] = {k: v for k, v in headers.items()}

    def add_rows(self, path, n):
        with self.lock:
            self.rows[path] = self.rows.get(path, 0) + n

    def take_fault(self, path):
        """Returns the first fault matching the path, using up one of its times."""
        with self.lock:
            for fault in self.faults:
                if fault.get("target") in (path, "*") and fault.get("times", 1) != 0:
                    if fault.get("times", 1) > 0:
                        fault["times"] = fault.get("times", 1) - 1
                    return fault
        return None

    def file_path(self, name):
        if name in self.files:
            return self.files[name]
        if self.files_dir and re.fullmatch(r"[_a-zA-Z0-9][a-zA-Z0-9@. ~_-]*", name):
            path = os.path.join(self.files_dir, name)
            if os.path.isfile(path):
                return path
        return None


def bytewise(value):
    return value


def case_insensitive(value):
    """Sort key of a linguistic collation: letters compare without case first, lower case first on ties."""
    return (value.lower(), value.swapcase()) if isinstance(value, str) else value


def matches(value, constraint, key=bytewise):
    """Evaluates one where-constraint against a field value (absent fields are None)."""
    if isinstance(constraint, dict) and any(k.startswith("$") for k in constraint):
        for op, arg in constraint.items():
            ordered = value is not None and op in ("$gt", "$gte", "$lt", "$lte")
            left, right = (key(value), key(arg)) if ordered else (value, arg)
            if op == "$exists":
                if (value is not None) != bool(arg):
                    return False
            elif op == "$gt" and not (ordered and left > right):
                return False
            elif op == "$gte" and not (ordered and left >= right):
                return False
            elif op == "$lt" and not (ordered and left < right):
                return False
            elif op == "$lte" and not (ordered and left <= right):
                return False
            elif op == "$ne" and value == arg:
                return False
            elif op == "$in" and value not in arg:
                return False
            elif op not in ("$exists", "$gt", "$gte", "$lt", "$lte", "$ne", "$in"):
                raise ValueError("unsupported operator " + op)
        return True
    return value == constraint


def without_gt(where):
    """The where constraint with every `$gt` removed, as a proxy that mangles it would send it."""
    if isinstance(where, list):
        return [without_gt(part) for part in where]
    if not isinstance(where, dict):
        return where
    kept = {k: without_gt(v) for k, v in where.items() if k != "$gt"}
    return {k: v for k, v in kept.items() if v != {} or where[k] == {}}


def where_matches(obj, where, collate=bytewise):
    for key, constraint in where.items():
        if key == "$and":
            if not all(where_matches(obj, part, collate) for part in constraint):
                return False
        elif not matches(obj.get(key), constraint, collate):
            return False
    return True


class ParseError(Exception):
    def __init__(self, code, message, status=None):
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or (404 if code == 101 else 500 if code == 1 else 400)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ParseFixture/1.0"

    def log_message(self, fmt, *args):  # keep test output quiet
        pass

    def handle(self):
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            pass  # the client went away, as tests of cancellation and timeouts make it do

    @property
    def state(self):
        return self.server.state

    # --- plumbing -------------------------------------------------------------------------
    def send(self, status, body=b"", content_type="application/json; charset=utf-8", headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, obj, headers=None):
        self.send(status, json.dumps(obj).encode(), headers=headers)

    def public_base(self):
        host = self.headers.get("Host") or "127.0.0.1:%d" % self.server.server_port
        return "http://%s%s" % (host, self.state.seed.get("mount", "/parse"))

    # --- routing --------------------------------------------------------------------------
    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parsed.path)
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        if path.startswith("/__control/"):
            return self.control_get(path)
        mount = self.state.seed.get("mount", "/parse").rstrip("/") + "/"
        if not path.startswith(mount):
            return self.send(404, b"Cannot GET " + path.encode(), "text/html; charset=utf-8")
        route = path[len(mount):]
        self.state.record(route, self.headers)
        fault = self.state.take_fault(route)
        if fault is None and "fault" in query:
            fault = {"kind": query["fault"][0]}
        if fault and self.apply_request_fault(fault, route):
            return
        try:
            if route.startswith("files/"):
                return self.serve_file(route, fault)
            self.check_keys()
            parts = route.split("/")
            if len(parts) == 3 and parts[0] == "classes":
                return self.get_object(parts[1], parts[2], query)
            if len(parts) == 2 and parts[0] == "classes":
                return self.find(parts[1], query, route, fault)
            raise ParseError(119, "Invalid path", status=404)
        except ParseError as error:
            self.send_parse_error(error)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = urllib.parse.urlsplit(self.path).path
        if path == "/__control/faults":
            with self.state.lock:
                self.state.faults.extend(json.loads(body or b"[]"))
            return self.send_json(200, {"ok": True})
        if path == "/__control/reset":
            with self.state.lock:
                self.state.counts.clear()
                self.state.headers.clear()
                self.state.rows.clear()
                self.state.faults.clear()
            return self.send_json(200, {"ok": True})
        self.send(404, b"not supported here", "text/plain")

    def control_get(self, path):
        if path == "/__control/stats":
            with self.state.lock:
                return self.send_json(200, {"counts": self.state.counts, "headers": self.state.headers,
                                            "rows": self.state.rows})
        self.send(404, b"unknown control path", "text/plain")

    # --- REST -----------------------------------------------------------------------------
    def check_keys(self):
        seed = self.state.seed
        if self.headers.get("X-Parse-Application-Id") != seed["appId"]:
            raise ParseError(0, "unauthorized", status=403)
        if seed.get("restKey") and not self.is_master():
            if self.headers.get("X-Parse-REST-API-Key") != seed["restKey"]:
                raise ParseError(0, "unauthorized", status=403)
        token = self.headers.get("X-Parse-Session-Token")
        if token is not None and token not in seed.get("sessions", {}):
            raise ParseError(209, "Invalid session token")

    def send_parse_error(self, error):
        """Parse's error bodies: 403 has no code, code 1 uses `message`."""
        if error.status == 403 and error.code == 0:
            return self.send_json(403, {"error": "unauthorized"})
        if error.code == 1:
            return self.send_json(500, {"code": 1, "message": "Internal server error."})
        self.send_json(error.status, {"code": error.code, "error": error.message})

    def is_master(self):
        seed = self.state.seed
        return bool(seed.get("masterKey")) and self.headers.get("X-Parse-Master-Key") == seed["masterKey"]

    def check_class(self, class_name, action):
        if class_name in self.state.seed.get("masterOnlyClasses", []) and not self.is_master():
            raise ParseError(119, "Permission denied for action %s on class %s." % (action, class_name))

    def visible(self, class_name, obj):
        seed = self.state.seed
        if self.is_master():
            return True
        acl = obj.get("ACL")
        if acl is None:
            return True
        user = seed.get("sessions", {}).get(self.headers.get("X-Parse-Session-Token"))
        return any(acl.get(k, {}).get("read") for k in ("*", user) if k)

    def render(self, obj, keys):
        out = {}
        for k, v in obj.items():
            if k == "ACL" or (keys is not None and k not in keys and k not in ("objectId", "createdAt", "updatedAt")):
                continue
            if isinstance(v, dict) and v.get("__type") == "File" and "url" not in v:
                name = v["name"]
                v = dict(v, url="%s/files/%s/%s" % (self.public_base(), self.state.seed["appId"],
                                                    urllib.parse.quote(name, safe="")))
            out[k] = v
        return out

    def objects(self, class_name):
        return self.state.seed.get("classes", {}).get(class_name, [])

    def get_object(self, class_name, object_id, query):
        self.check_class(class_name, "get")
        for key in query:
            if key not in REST_GET_KEYS:
                raise ParseError(102, "Improper encode of parameter")
        keys = set(query["keys"][0].split(",")) if "keys" in query else None
        for obj in self.objects(class_name):
            if obj.get("objectId") == object_id and self.visible(class_name, obj):
                return self.send_json(200, self.render(obj, keys))
        raise ParseError(101, "Object not found.")

    def find(self, class_name, query, route, fault):
        self.check_class(class_name, "find")
        for key in query:
            if key not in QUERY_KEYS:
                raise ParseError(102, "Invalid parameter for query: %s" % key)
        try:
            where = json.loads(query["where"][0]) if "where" in query else {}
            limit = int(query["limit"][0]) if "limit" in query else 100
            skip = int(query["skip"][0]) if "skip" in query else 0
            if not isinstance(where, dict):
                raise ValueError("where is not an object")
            if (fault or {}).get("kind") == "ignoreGt":
                where = without_gt(where)
            collate = case_insensitive if self.state.seed.get("collation") == "caseInsensitive" else bytewise
            found = [o for o in self.objects(class_name)
                     if self.visible(class_name, o) and where_matches(o, where, collate)]
        except ValueError as error:
            raise ParseError(102, "Invalid query: %s" % error)
        max_limit = self.state.seed.get("maxLimit")
        if max_limit is not None:
            limit = min(limit, max_limit)
        for field in reversed(query.get("order", [""])[0].split(",")):
            if field:
                name = field.lstrip("-")
                found.sort(key=lambda o: (o.get(name) is None, collate(o.get(name) or "")),
                           reverse=field.startswith("-"))
        keys = set(query["keys"][0].split(",")) if "keys" in query else None
        results = [self.render(o, keys) for o in found[skip:skip + limit]]
        if (fault or {}).get("kind") == "omitObjectId":
            results = [{k: v for k, v in r.items() if k != "objectId"} for r in results]
        self.state.add_rows(route, len(results))
        body = {"results": results}
        if query.get("count", ["0"])[0] == "1":
            body["count"] = len(found)
        self.send_json(200, body)

    # --- files ----------------------------------------------------------------------------
    def serve_file(self, route, fault):
        seed = self.state.seed
        parts = route.split("/", 2)
        if len(parts) != 3 or parts[1] != seed["appId"]:
            return self.send_json(403, {"error": "unauthorized"})
        if seed.get("filesRequireSession"):
            if self.headers.get("X-Parse-Session-Token") not in seed.get("sessions", {}):
                return self.send_json(403, {"error": "unauthorized"})
        path = self.state.file_path(parts[2])
        if path is None:
            return self.send(404, b"File not found.", "text/plain; charset=utf-8")
        with open(path, "rb") as f:
            data = f.read()
        kind = (fault or {}).get("kind")
        if kind == "notImage":
            data = b"this is not an image, just some text bytes\n" * 20
        content_type = mimetypes.guess_type(parts[2])[0] or "application/octet-stream"
        if kind == "contentType":
            content_type = fault.get("value", "text/html; charset=utf-8")
        quirks = dict(seed.get("quirks", {}))
        if kind in ("offByOne", "ignoreRange", "impossible206"):
            quirks[kind] = True
        status, headers, body = 200, {}, data
        range_header = self.headers.get("Range")
        if range_header and not quirks.get("ignoreRange"):
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", range_header.strip())
            if m:
                start = int(m.group(1))
                end = int(m.group(2)) if m.group(2) else len(data) - 1
                end = min(end, len(data) - 1)
                if start > end and not quirks.get("impossible206"):
                    return self.send(416, b"", "text/plain", {"Content-Range": "bytes */%d" % len(data)})
                written_end = end + 1 if quirks.get("offByOne") else end
                status, body = 206, data[start:end + 1]
                headers = {"Accept-Ranges": "bytes",
                           "Content-Range": "bytes %d-%d/%d" % (start, written_end, len(data))}
        self.send_body(status, body, content_type, headers, fault)

    def send_body(self, status, body, content_type, headers, fault):
        kind = (fault or {}).get("kind")
        length = len(body)
        if kind == "gzip":
            body = gzip.compress(body)
            length = len(body)
            headers = dict(headers, **{"Content-Encoding": "gzip"})
        if kind == "lie":
            length = int(fault.get("length", len(body) * 2))
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if kind == "endless":
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(length))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if kind in ("truncate", "drop"):
            at = int(fault.get("at", len(body) // 2))
            self.wfile.write(body[:at])
            self.wfile.flush()
            if kind == "drop":  # reset the connection instead of closing it cleanly
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if kind == "lie" and length > len(body):
            self.wfile.write(body)
            self.close_connection = True
            return
        if kind == "endless":  # about 32 MiB/s, like a fast link, for at most 30 s
            chunk, deadline = b"\0" * 65536, time.time() + 30
            while time.time() < deadline:
                self.wfile.write(chunk)
                time.sleep(0.002)
            self.close_connection = True
            return
        if kind == "trickle":
            step, delay = int(fault.get("chunk", 1024)), float(fault.get("delay", 0.05))
            for i in range(0, len(body), step):
                self.wfile.write(body[i:i + step])
                self.wfile.flush()
                time.sleep(delay)
            return
        if kind == "stall":
            after = int(fault.get("after", len(body) // 2))
            self.wfile.write(body[:after])
            self.wfile.flush()
            time.sleep(float(fault.get("seconds", 5)))
            self.wfile.write(body[after:])
            return
        self.wfile.write(body[:length])

    def apply_request_fault(self, fault, route):
        """Faults that replace the whole answer; returns True when the answer was sent."""
        kind = fault.get("kind")
        if kind == "status":
            status = int(fault.get("status", 500))
            headers = {"Retry-After": str(fault["retryAfter"])} if "retryAfter" in fault else {}
            body = fault.get("body")
            if body is None:
                body = ({"code": 100, "error": "Too many requests."} if status == 429
                        else {"code": 1, "message": "Internal server error."})
            self.send_json(status, body, headers)
            return True
        if kind == "html502":
            self.send(502, HTML_502, "text/html")
            return True
        if kind == "redirect":
            self.send(302, b"", "text/plain", {"Location": fault["to"]})
            return True
        if kind == "redirectLoop":
            self.send(302, b"", "text/plain", {"Location": self.path})
            return True
        if kind == "delay":
            time.sleep(float(fault.get("seconds", 5)))
        return False


def exit_with_parent(parent):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--watch-parent", action="store_true",
                        help="exit when the parent process dies (so a crashed test leaves no server)")
    args = parser.parse_args()
    if args.watch_parent:
        threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    with open(args.config) as f:
        seed = json.load(f)
    ThreadingHTTPServer.request_queue_size = 128  # the default backlog of 5 resets busy clients
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.state = State(seed, os.path.dirname(os.path.abspath(args.config)))
    print("PORT %d" % server.server_port, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

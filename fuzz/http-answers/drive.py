#!/usr/bin/env python3
"""The HTTP answers campaign: runs the real `imgfetch` against server.py's random answers, many times,
and checks what a user would notice after each run.

    drive.py [--imgfetch PATH] [--seed S] [--runs N | --minutes M] [--jobs J] [--replay SEED...]
             [--timeout S] [--max-time S] [--log FILE] [--keep-failures DIR]

Each run gets its own seed (`<S>-<i>`), one to three items (URLs /r/<seed>.<k>/0 on the server,
whose answers are drawn from the seed: a replay of the seed gives the same answers, as long as its
retries ask in the same order), random --retries 0-2 and --jobs 1-3, a fresh cache directory (a
third of the runs fetch twice into it, which exercises resumes and warm hits). Asserted for each:

- it ends within a bound: (retries + 1) x (max-time + backoff) plus slack;
- its exit code is one of the documented ones that a fetch can give: 0, 2, 3 or 4;
- stderr is one `imgfetch: ` line per failed item (plus the closing count when there were several),
  and nothing else: no libcurl, runtime or sanitizer noise, no control character or invalid UTF-8
  (a server's bytes reaching the terminal);
- stdout has one line per item that succeeded;
- the cache holds no entry that `imgfetch verify` refuses, no `.part` unless that run failed, and no
  `.part` that is not the start of an image the server serves (or of a body it sends);
- peak RSS (wait4) stays under --max-rss MiB.

A failure prints the seed and the command; `--replay SEED` runs that seed again. Exit status 0 when
every run passed, 1 otherwise.
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FETCH_CODES = {0, 2, 3, 4}
LINE = re.compile(r"^imgfetch: \S")
SUMMARY = re.compile(r"^imgfetch: (\d+) of (\d+) items failed$")


def start_server(log_path):
    args = [sys.executable, os.path.join(HERE, "server.py"), "--watch-parent"]
    if log_path:
        args += ["--log", log_path]
    server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()
    if not line.startswith("PORT "):
        sys.exit("server did not start: %r" % line)
    return server, int(line.split()[1])


def run_measured(argv, limit):
    """Runs argv in its own process group; returns (status, stdout, stderr, seconds, maxrss KiB)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        killed = [False]

        def guard():
            killed[0] = True
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(limit, guard)
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        timer.cancel()
        child.returncode = status
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        return (code if not killed[0] else "killed", out.read().decode("utf-8", "replace"),
                err.read().decode("utf-8", "replace"), seconds, usage.ru_maxrss)


def served_bodies():
    """Every image the server may send, to judge a left `.part` (the start of one, or of a body)."""
    names = ["basn2c08.png", "basn0g08.png", "basn4a08.png", "basi3p08.png", "Portrait_2.jpg"]
    bodies = []
    for name in names:
        with open(os.path.join(ROOT, "Fixtures", "images", name), "rb") as f:
            bodies.append(f.read())
    return bodies


def check_cache(imgfetch, cache, failed_run, bodies):
    problems = []
    entries, parts = [], []
    for name in sorted(os.listdir(cache)):
        path = os.path.join(cache, name)
        if name in ("CACHEDIR.TAG", ".locks") or name.startswith(".") and ".tmp-" not in name:
            continue
        if ".tmp-" in name:
            problems.append("a temporary file is left: %s" % name)
        elif name.endswith(".part"):
            parts.append(path)
        elif ".thumb-" in name:
            problems.append("a thumbnail in a fetch without --thumbnail: %s" % name)
        else:
            entries.append(path)
    if entries:
        status, _, err, _, _ = run_measured([imgfetch, "verify"] + entries, 60)
        if status != 0:
            problems.append("imgfetch verify refuses a cache entry: %s" % err.strip().replace("\n", " | "))
    for part in parts:
        if not failed_run:
            problems.append("a .part is left after a run that succeeded: %s" % os.path.basename(part))
        with open(part, "rb") as f:
            data = f.read()
        if data and not any(body.startswith(data) for body in bodies):
            # Bodies the server makes up (text, garbage) may be kept for a resume only while
            # they are not known to be no image; judge them by whether verify calls them images.
            problems.append("a .part that is no prefix of a served image: %s (%d bytes, %r...)" % (
                os.path.basename(part), len(data), data[:16]))
    return problems


def check_output(status, out, err, items):
    problems = []
    if status not in FETCH_CODES:
        problems.append("exit %s, not one of %s" % (status, sorted(FETCH_CODES)))
    lines = [line for line in err.split("\n") if line]
    outs = [line for line in out.split("\n") if line]
    noise = [line for line in lines if not LINE.match(line)]
    unprintable = [line for line in lines if "\ufffd" in line or any(ord(c) < 32 and c != "\t" or 127 <= ord(c) < 160 for c in line)]
    if unprintable:
        problems.append("stderr holds control characters or invalid UTF-8: %r" % unprintable[0][:200])
    if noise:
        problems.append("stderr noise: %r" % noise[:3])
    summary = [line for line in lines if SUMMARY.match(line)]
    failures = [line for line in lines if LINE.match(line) and not SUMMARY.match(line)]
    failed = len(failures)
    if items > 1 and failed > 0:
        if len(summary) != 1:
            problems.append("no single closing count: %r" % lines)
        else:
            n, m = map(int, SUMMARY.match(summary[0]).groups())
            if (n, m) != (failed, items):
                problems.append("closing count %s for %d failure lines of %d items" % (summary[0], failed, items))
    if failed + len(outs) != items:
        problems.append("%d failure lines + %d results for %d items" % (failed, len(outs), items))
    expected = 0 if failed == 0 else None
    if expected == 0 and status != 0:
        problems.append("exit %s with no failure" % status)
    if failed and status == 0:
        problems.append("exit 0 with %d failure lines" % failed)
    if failed and failed < items and status != 2:
        problems.append("exit %s when %d of %d items failed" % (status, failed, items))
    return problems, failed


def one_run(args, port, seed, bodies):
    rng = random.Random("drive/" + seed)
    items = rng.choice([1, 1, 2, 3])
    retries = rng.choice([0, 0, 1, 2])
    jobs = rng.choice([1, 2, 3])
    urls = ["http://127.0.0.1:%d/r/%s.%d/0" % (port, seed, k) for k in range(items)]
    cache = tempfile.mkdtemp(prefix="http-answers-")
    argv = [args.imgfetch] + urls + [
        "--timeout", str(args.timeout), "--max-time", str(args.max_time), "--retries", str(retries),
        "--jobs", str(jobs), "--max-bytes", "2000000", "--cache-dir", cache, "--progress", "never"]
    # Each try: at most max-time, then a backoff of at most 0.5 x 2^k s (Retry-After up to 2 s here).
    bound = (retries + 1) * (args.max_time + 2.5) + args.slack
    rounds = 2 if rng.random() < 0.33 else 1
    problems = []
    peak = 0
    for round in range(rounds):
        status, out, err, seconds, rss = run_measured(argv, bound * 3)
        peak = max(peak, rss)
        where = "round %d: " % (round + 1) if rounds > 1 else ""
        if status == "killed" or seconds > bound:
            problems.append("%sran %.1f s, over the %.1f s bound" % (where, seconds, bound))
        if rss > args.max_rss * 1024:
            problems.append("%speak RSS %d MiB" % (where, rss // 1024))
        found, failed = check_output(status, out, err, items)
        problems += [where + p for p in found]
        problems += [where + p for p in check_cache(args.imgfetch, cache, failed > 0, bodies)]
        if problems:
            problems.append("stderr: %r" % err[-600:])
            break
    shutil.rmtree(cache, ignore_errors=True)
    return problems, " ".join(argv), peak, status


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--imgfetch", default=os.path.join(ROOT, ".build", "debug", "imgfetch"))
    parser.add_argument("--seed", default="0")
    parser.add_argument("--runs", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1)
    parser.add_argument("--max-time", type=float, default=5)
    parser.add_argument("--max-rss", type=int, default=256, help="MiB")
    parser.add_argument("--slack", type=float, default=10,
                        help="seconds a run may take beyond its clocks (start-up, a loaded host)")
    parser.add_argument("--replay", nargs="*", default=[])
    parser.add_argument("--log", help="the server's line per answer")
    args = parser.parse_args()
    if not (args.runs or args.minutes or args.replay):
        args.runs = 20
    server, port = start_server(args.log)
    bodies = served_bodies()
    lock = threading.Lock()
    stats = {"runs": 0, "failed": 0, "codes": {}, "peak": 0}
    failures = []
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    counter = iter(range(10 ** 9))
    replaying = bool(args.replay)

    def next_seed():
        with lock:
            if replaying:
                return args.replay.pop(0) if args.replay else None
            i = next(counter)
            if args.runs and i >= args.runs:
                return None
            if deadline and time.monotonic() > deadline:
                return None
            return "%s-%d" % (args.seed, i)

    def worker():
        while True:
            seed = next_seed()
            if seed is None:
                return
            problems, command, peak, status = one_run(args, port, seed, bodies)
            with lock:
                stats["runs"] += 1
                stats["codes"][status] = stats["codes"].get(status, 0) + 1
                stats["peak"] = max(stats["peak"], peak)
                if problems:
                    stats["failed"] += 1
                    failures.append(seed)
                    print("FAIL seed %s\n  %s\n  %s" % (seed, command, "\n  ".join(problems)), flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    server.terminate()
    server.wait()
    print("runs %d, failed %d, exit codes %s, peak RSS %d MiB%s" % (
        stats["runs"], stats["failed"], dict(sorted(stats["codes"].items(), key=str)), stats["peak"] // 1024,
        (", failing seeds: " + " ".join(failures)) if failures else ""))
    return 1 if stats["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

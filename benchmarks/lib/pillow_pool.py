"""Pillow at equal cores: the same thumbnail as pillow_thumb.py (draft, LANCZOS thumbnail, save),
spread over a multiprocessing Pool of one worker per core, one file per task.
Usage: pillow_pool.py [--no-draft] WORKERS OUTDIR FILE...
  --no-draft: thumbnail() alone, without the explicit draft (pillow_thumb.py says why)."""
import functools
import multiprocessing
import sys

from pillow_thumb import thumbnail

if __name__ == "__main__":
    arguments = sys.argv[1:]
    draft = arguments[:1] != ["--no-draft"]
    if not draft:
        arguments = arguments[1:]
    workers, out_dir, files = int(arguments[0]), arguments[1], arguments[2:]
    with multiprocessing.Pool(workers) as pool:
        pool.map(functools.partial(thumbnail, out_dir=out_dir, draft=draft), files, chunksize=1)

"""Pillow at equal cores: the same thumbnail as pillow_thumb.py (draft, LANCZOS thumbnail, save),
spread over a multiprocessing Pool of one worker per core, one file per task.
Usage: pillow_pool.py WORKERS OUTDIR FILE..."""
import functools
import multiprocessing
import sys

from pillow_thumb import thumbnail

if __name__ == "__main__":
    workers, out_dir, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    with multiprocessing.Pool(workers) as pool:
        pool.map(functools.partial(thumbnail, out_dir=out_dir), files, chunksize=1)

"""What a Pillow user writes to make 256-px thumbnails: draft (JPEG shrink on load), thumbnail with
LANCZOS, save (JPEG quality 85, PNG for sources with alpha). Usage: pillow_thumb.py OUTDIR FILE...

draft("RGB", SIZE) lets libjpeg scale down until the image is just above the 256x256 box, so four of
the corpus's nine JPEGs decode at half the scale imgfetch, vipsthumbnail and Pillow's own thumbnail()
use (each leaves the final filter a factor of two), at lower fidelity (benchmarks/README.md, "Pillow's
draft"). With draft=False, thumbnail() alone: Pillow's own shrink on load (reducing_gap=2.0)."""
import os
import sys

from PIL import Image

SIZE = (256, 256)


def thumbnail(source, out_dir, draft=True):
    with Image.open(source) as image:
        if draft:
            image.draft("RGB", SIZE)
        image.thumbnail(SIZE, Image.Resampling.LANCZOS)
        alpha = image.mode in ("RGBA", "LA") or "transparency" in image.info
        stem = os.path.splitext(os.path.basename(source))[0]
        if alpha:
            image.save(os.path.join(out_dir, stem + ".png"))
        else:
            image.convert("RGB").save(os.path.join(out_dir, stem + ".jpg"), quality=85)


if __name__ == "__main__":
    for path in sys.argv[2:]:
        thumbnail(path, sys.argv[1])

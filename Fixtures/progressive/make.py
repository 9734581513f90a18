"""Makes the progressive JPEGs in this directory (committed; this script documents how they were made).

python3 Fixtures/progressive/make.py   (Pillow 13.0.0 with its bundled libjpeg-turbo; another
Pillow or libjpeg may write other bytes, which is why the files are committed)

Each is Fixtures/images/Landscape_0.jpg resized to an odd size (partial MCUs at the right and
bottom), saved progressive with Pillow's encoder: 4:2:0, 4:2:2, 4:4:4, gray and CMYK, with and
without restart markers (every few MCUs, or every MCU row). Pillow's progressive files always have
optimized Huffman tables, a DHT before each scan. Licence: as Landscape_0.jpg's (MIT (c) 2010 Dave
Perrett, recurser/exif-orientation-examples; see Fixtures/images/MANIFEST.md).
"""
import os
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
source = Image.open(os.path.join(here, "..", "images", "Landscape_0.jpg")).convert("RGB")
base = source.resize((203, 141), Image.LANCZOS)

cases = [
    ("p420.jpg", base, dict(subsampling=2, quality=85)),
    ("p420-optimized.jpg", base, dict(subsampling=2, quality=90, optimize=True)),
    ("p420-restart3.jpg", base, dict(subsampling=2, quality=85, restart_marker_blocks=3)),
    ("p420-restart-rows.jpg", base, dict(subsampling=2, quality=75, restart_marker_rows=1, optimize=True)),
    ("p422-restart5.jpg", base, dict(subsampling=1, quality=92, restart_marker_blocks=5)),
    ("p444.jpg", base, dict(subsampling=0, quality=97, optimize=True)),
    ("p444-restart1.jpg", base, dict(subsampling=0, quality=80, restart_marker_blocks=1)),
    ("pgray.jpg", base.convert("L"), dict(quality=88, optimize=True)),
    ("pgray-restart2.jpg", base.convert("L"), dict(quality=60, restart_marker_blocks=2)),
    ("pcmyk.jpg", base.convert("CMYK"), dict(quality=85)),
    ("p420-q100.jpg", base.crop((0, 0, 77, 45)), dict(subsampling=2, quality=100)),
]
for name, image, options in cases:
    image.save(os.path.join(here, name), "JPEG", progressive=True, **options)

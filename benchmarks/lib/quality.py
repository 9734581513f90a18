"""Thumbnail quality: PSNR against the reference of the thumbnails issue, i.e. the full-resolution
decode (EXIF orientation applied) resampled with an exact Lanczos3 (Pillow's LANCZOS, which
resamples the sRGB values as libvips does) to the thumbnail's own size. Images with alpha are
compared premultiplied, so colour under full transparency does not count."""
import math

from PIL import Image, ImageChops, ImageOps

_references = {}


def _full(path):
    with Image.open(path) as image:
        upright = ImageOps.exif_transpose(image)
        alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
        return upright.convert("RGBA" if alpha else "RGB")


def reference(path, size):
    """The reference thumbnail of `path` at `size` (cached: each size is made once)."""
    key = (path, size)
    if key not in _references:
        if path not in _references:
            _references.clear()  # one full-resolution decode in memory at a time
            _references[path] = _full(path)
        _references[key] = _references[path].resize(size, Image.Resampling.LANCZOS)
    return _references[key]


def psnr(source, thumbnail_path):
    """PSNR in dB of a thumbnail file against the reference of its source, or None if unreadable."""
    try:
        with Image.open(thumbnail_path) as thumb:
            thumb.load()
            ref = reference(source, thumb.size)
            if ref.mode == "RGBA":
                a, b = ref.convert("RGBa"), thumb.convert("RGBA").convert("RGBa")
            else:
                a, b = ref, thumb.convert("RGB")
    except OSError:
        return None
    histogram = ImageChops.difference(a, b).histogram()
    channels = len(histogram) // 256
    squared = sum(count * (value % 256) ** 2 for value, count in enumerate(histogram))
    mse = squared / (a.size[0] * a.size[1] * channels)
    return float("inf") if mse == 0 else 10 * math.log10(255 * 255 / mse)

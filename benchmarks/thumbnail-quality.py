#!/usr/bin/env python3
"""Thumbnail quality and speed: imgfetch against vipsthumbnail (and Pillow) on the same files.

Quality: each tool's 256-px thumbnail is compared with a reference made from the full-resolution
decode by an exact Lanczos3 resample of the sRGB values (Pillow's Image.resize(..., LANCZOS), which
convolves the whole image with no shortcut), resized to the tool's own output size. Reported:
PSNR (dB) and SSIM (Gaussian 11x11, sigma 1.5, on BT.601 luma). Both tools write lossless PNG for
this comparison, so only the resampling is measured; `--jpeg` compares JPEG outputs at the same
quality (85) instead (sources with alpha stay PNG). Sources with alpha are compared as premultiplied RGBA (colour times
alpha, and alpha), which is what any background shows; EXIF orientation is applied to the reference.

Speed (`--speed`): whole-process wall time and CPU time (user + system) per file, the tools
alternating file by file, median of N runs, mean over the JPEGs and over the PNGs, and ratios to
vipsthumbnail (CPU time is the steadier figure on a shared machine). Peak RSS (ru_maxrss of the
child) for each tool on each file. `--batch` adds one invocation of each tool over 40 JPEG copies.

Needs: vipsthumbnail (apt-get install libvips-tools) and Pillow + numpy (pip install pillow numpy);
the script says what is missing. imgfetch is taken from .build/release/imgfetch unless --imgfetch.
"""
import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What a Pillow user writes for a batch: draft (DCT scaling), thumbnail (Lanczos), save.
PILLOW_BATCH = """
import os, sys
from PIL import Image
size = int(sys.argv[1])
for path in sys.argv[2:]:
    with Image.open(path) as image:
        image.draft("RGB", (size, size))
        image.thumbnail((size, size), Image.LANCZOS)
        image.save(os.path.splitext(path)[0] + ".pil.jpg", quality=85)
"""
DEFAULT_CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "bench", "corpus")


def need(condition, message):
    if not condition:
        sys.exit(f"thumbnail-quality: {message}")


def imports():
    try:
        import numpy  # noqa: F401
        from PIL import Image  # noqa: F401
    except ImportError:
        sys.exit("thumbnail-quality: needs Pillow and numpy: pip install pillow numpy")


# ---------------------------------------------------------------- quality


def as_array(image):
    """HxWxC floats: L or RGB as they are; images with alpha as premultiplied RGBA."""
    import numpy as np
    from PIL import Image

    if image.mode in ("I;16", "I;16B", "I"):
        image = image.point(lambda v: v / 256).convert("L")
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    if image.mode in ("LA", "PA"):
        image = image.convert("RGBA")
    if image.mode not in ("L", "RGB", "RGBA"):
        image = image.convert("RGB")
    array = np.asarray(image, dtype=np.float64)
    if image.mode == "RGBA":
        array = array.copy()
        array[..., :3] *= array[..., 3:4] / 255
    return array


def load_rgb(path):
    """A thumbnail file as an array (see as_array)."""
    from PIL import Image, ImageOps

    with Image.open(path) as image:
        return as_array(ImageOps.exif_transpose(image))


def reference(path, size):
    """Full decode, EXIF orientation, exact Lanczos3 to `size` (Pillow premultiplies alpha itself)."""
    from PIL import Image, ImageOps

    image = ImageOps.exif_transpose(Image.open(path))
    image.load()
    if image.mode in ("I;16", "I;16B", "I"):
        image = image.point(lambda v: v / 256).convert("L")
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    if image.mode in ("LA", "PA"):
        image = image.convert("RGBA")
    return as_array(image.resize(size, Image.LANCZOS, reducing_gap=None))


def psnr(a, b):
    import numpy as np

    mse = np.mean((a - b) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255 * 255 / mse)


def ssim(a, b):
    import numpy as np

    def luma(x):  # premultiplied colour for images with alpha
        return x if x.ndim == 2 else x[..., 0] * 0.299 + x[..., 1] * 0.587 + x[..., 2] * 0.114

    def blur(x):
        radius = 5
        t = np.arange(-radius, radius + 1)
        k = np.exp(-(t**2) / (2 * 1.5**2))
        k /= k.sum()
        x = np.apply_along_axis(lambda r: np.convolve(r, k, mode="valid"), 1, x)
        return np.apply_along_axis(lambda c: np.convolve(c, k, mode="valid"), 0, x)

    x, y = luma(a), luma(b)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = blur(x), blur(y)
    sxx, syy, sxy = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
    m = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
    return float(m.mean())


def has_alpha(path):
    from PIL import Image

    with Image.open(path) as image:
        return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def thumbnails(files, work, imgfetch, size, jpeg):
    """Runs both tools once per file; returns {file: {tool: output path}}."""
    out = {}
    for source in files:
        name = os.path.basename(source)
        local = os.path.join(work, name)
        shutil.copy(source, local)
        stem = os.path.splitext(name)[0]
        jpeg_here = jpeg and not has_alpha(source)  # alpha sources stay PNG: JPEG would drop alpha
        fmt = ["--format", "jpeg", "--quality", "85"] if jpeg_here else ["--format", "png"]
        run = subprocess.run([imgfetch, "--thumbnail", str(size), "--json", *fmt, local], capture_output=True, text=True)
        need(run.returncode == 0, f"imgfetch failed on {name}: {run.stderr.strip()}")
        ours = json.loads(run.stdout.splitlines()[0])["thumbnailPath"]
        vips_out = os.path.join(work, f"{stem}.vips.{'jpg' if jpeg_here else 'png'}")
        vips_spec = vips_out + ("[Q=85,optimize_coding]" if jpeg_here else "")
        subprocess.run(["vipsthumbnail", "--size", str(size), "-o", vips_spec, local], check=True)
        out[source] = {"imgfetch": ours, "vipsthumbnail": vips_out}
    return out


def quality(args, files):
    from PIL import Image

    work = tempfile.mkdtemp(prefix="thumbnail-quality-")
    rows = []
    try:
        made = thumbnails(files, work, args.imgfetch, args.size, args.jpeg)
        print(f"{'file':42s} {'tool':14s} {'size':>9s} {'PSNR dB':>8s} {'SSIM':>7s}")
        for source in files:
            for tool, path in made[source].items():
                with Image.open(path) as thumb:
                    size = thumb.size
                ref = reference(source, size)
                got = load_rgb(path)
                if got.shape != ref.shape:  # e.g. a gray source thumbnailed as RGB: compare luma
                    got = got if got.ndim == 2 else got[..., :3].mean(axis=2)
                    ref = ref if ref.ndim == 2 else ref[..., :3].mean(axis=2)
                row = {"file": os.path.basename(source), "tool": tool, "width": size[0], "height": size[1],
                       "psnr": psnr(got, ref), "ssim": ssim(got, ref)}
                rows.append(row)
                print(f"{row['file']:42s} {tool:14s} {size[0]:4d}x{size[1]:<4d} {row['psnr']:8.2f} {row['ssim']:7.4f}")
        for kind, prefix in (("JPEG", "j"), ("PNG", "p")):
            for tool in ("imgfetch", "vipsthumbnail"):
                sel = [r for r in rows if r["tool"] == tool and r["file"].startswith(prefix)]
                if sel:
                    print(f"mean {kind:4s} {tool:14s} PSNR {statistics.mean(r['psnr'] for r in sel):6.2f} dB"
                          f"  SSIM {statistics.mean(r['ssim'] for r in sel):.4f}  (n={len(sel)})")
    finally:
        shutil.rmtree(work)
    return rows


# ---------------------------------------------------------------- speed


def measure(command, cwd=None):
    """Runs a command once: (wall seconds, CPU seconds user+system, peak RSS in MiB) of that child."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"thumbnail-quality: {command[0]} failed: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def speed(args, files):
    work = tempfile.mkdtemp(prefix="thumbnail-speed-")
    try:
        local = []
        for source in files:
            path = os.path.join(work, os.path.basename(source))
            shutil.copy(source, path)
            local.append(path)
        tools = {
            "imgfetch": lambda f: [args.imgfetch, "--thumbnail", str(args.size), f],
            "vipsthumbnail": lambda f: ["vipsthumbnail", "--size", str(args.size), "-o",
                                        os.path.join(work, "%s.vips.jpg"), f],
        }
        times = {t: {f: [] for f in local} for t in tools}
        cpu = {t: {f: [] for f in local} for t in tools}
        rss = {t: {f: 0.0 for f in local} for t in tools}

        def clean():
            for old in glob.glob(os.path.join(work, "*.thumb-*")) + glob.glob(os.path.join(work, "*.vips.*")):
                os.remove(old)

        for _ in range(args.runs):
            for f in local:
                for tool, command in tools.items():  # alternate tools file by file
                    clean()
                    wall, seconds, peak = measure(command(f))
                    times[tool][f].append(wall)
                    cpu[tool][f].append(seconds)
                    rss[tool][f] = max(rss[tool][f], peak)
        print(f"\n{'file':42s} " + "  ".join(f"{t + ' wall / CPU / RSS':>32s}" for t in tools))
        for f in local:
            cells = [f"{statistics.median(times[t][f]) * 1000:7.1f} ms {statistics.median(cpu[t][f]) * 1000:6.1f} ms"
                     f" {rss[t][f]:5.1f} MiB" for t in tools]
            print(f"{os.path.basename(f):42s} " + "  ".join(f"{c:>32s}" for c in cells))
        for kind, prefix in (("JPEG", "j"), ("PNG", "p")):
            sel = [f for f in local if os.path.basename(f).startswith(prefix)]
            if not sel:
                continue
            for label, data in (("wall", times), ("CPU", cpu)):
                means = {t: statistics.mean(statistics.median(data[t][f]) for f in sel) * 1000 for t in tools}
                print(f"mean {label:4s} over the {kind}s ({len(sel)}): imgfetch {means['imgfetch']:.1f} ms, "
                      f"vipsthumbnail {means['vipsthumbnail']:.1f} ms, ratio {means['imgfetch'] / means['vipsthumbnail']:.2f}")
        if args.batch:
            jpegs = [f for f in local if os.path.basename(f).startswith("j")]
            batch_dir = os.path.join(work, "batch")
            os.mkdir(batch_dir)
            copies = []
            for i in range(40):
                source = jpegs[i % len(jpegs)]
                copy = os.path.join(batch_dir, f"{i:02d}_{os.path.basename(source)}")
                shutil.copy(source, copy)
                copies.append(copy)
            pillow = os.path.join(batch_dir, "pillow-batch.py")
            with open(pillow, "w") as script:
                script.write(PILLOW_BATCH)
            commands = {
                "imgfetch": [args.imgfetch, "--thumbnail", str(args.size), *copies],
                "vipsthumbnail": ["vipsthumbnail", "--size", str(args.size), "-o", "%s.vips.jpg", *copies],
                "Pillow": [sys.executable, pillow, str(args.size), *copies],
            }
            results = {tool: [] for tool in commands}
            for _ in range(args.runs):
                for tool, command in commands.items():  # alternate the tools
                    for old in glob.glob(os.path.join(batch_dir, "*.thumb-*")) + glob.glob(os.path.join(batch_dir, "*.vips.jpg")) + glob.glob(os.path.join(batch_dir, "*.pil.jpg")):
                        os.remove(old)
                    start = time.perf_counter()
                    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=batch_dir)
                    results[tool].append(time.perf_counter() - start)
            rates = {tool: 40 / statistics.median(times) for tool, times in results.items()}
            print("batch of 40 JPEGs in one invocation (median of %d): " % args.runs
                  + ", ".join(f"{tool} {rate:.1f} images/s" for tool, rate in rates.items())
                  + f"; imgfetch / Pillow {rates['imgfetch'] / rates['Pillow']:.2f}x")
    finally:
        shutil.rmtree(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="images (default: the benchmark corpus)")
    parser.add_argument("--imgfetch", default=os.path.join(ROOT, ".build", "release", "imgfetch"))
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--jpeg", action="store_true", help="compare the JPEG outputs (quality 85) instead of PNG")
    parser.add_argument("--speed", action="store_true", help="also time both tools (whole process)")
    parser.add_argument("--batch", action="store_true",
                        help="with --speed: 40 JPEGs (the corpus JPEGs in turn) in one invocation of each tool")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-quality", action="store_true")
    args = parser.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(DEFAULT_CORPUS, "*.jpg")) + glob.glob(os.path.join(DEFAULT_CORPUS, "*.png")))
    need(files, "no input files")
    need(os.access(args.imgfetch, os.X_OK), f"{args.imgfetch} not found: swift build -c release")
    need(shutil.which("vipsthumbnail"), "vipsthumbnail not found: apt-get install libvips-tools")
    if not args.no_quality:
        imports()
        quality(args, files)
    if args.speed:
        speed(args, files)


if __name__ == "__main__":
    main()

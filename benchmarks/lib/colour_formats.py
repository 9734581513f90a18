"""The colour-fidelity benchmark's formats part (issue 31): HEIC, AVIF, WebP and GIF photos.

From each photo folder that the fixture generator made (reference.png: the photo in sRGB, no profile;
display-p3.png: the same photo in Display P3 numbers with the profile in iCCP), once:

- display-p3.heic: display-p3.png through heif-enc (x265, quality 90), the profile as HEIF `colr prof`;
- display-p3-nclx.avif: the same P3 numbers with no profile (heif-enc -A, libaom, quality 90), an nclx
  box saying primaries 12 (P3), transfer 13 (sRGB's curve), matrix 6, full range: heif-enc 1.15 writes
  2/2/6 whatever its options say, so the codes are set in place by Fixtures/color/make-heif-fixtures.py's
  set_nclx;
- display-p3.webp: cwebp -q 90 -metadata icc (the profile as the ICCP chunk);
- srgb.heic (heif-enc's nclx 2/2/6: unspecified, so sRGB), srgb.avif (nclx set to 1/13/6), srgb.webp:
  reference.png the same ways, for the codecs' own loss without a conversion;
- srgb.gif: reference.png quantised to a 256-colour palette (Pillow, median cut, Floyd-Steinberg): what
  a GIF is. Its figure includes that quantisation.

Beside the thumbnailers, "file itself": the file's full-size decode as a viewer reads it, against the
photo: the encoder's own loss (and the GIF's palette), the floor a thumbnail of that file can reach.
HEIC and AVIF are decoded by heif-convert (libheif) to PNG, which keeps a `colr prof`; the nclx P3
file's numbers are read through display-p3.png's profile (the same primaries and curve as its codes
12/13); the rest by Pillow.

The caller thumbnails them with its tools and reads the thumbnails back with its functions (the JPEG
section's: colour-fidelity's thumbnail_tools, viewed and mean_de). Pillow reads WebP and GIF, and the
PyPI Pillow 13 AVIF too (without applying an nclx box); not HEIC without a plugin: its HEIC cells stay
empty. The rows display-p3.jpg and srgb.jpg (the JPEG section's files) are for comparison.
"""
import importlib.util
import os
import subprocess

import benchutil as bu

FILES = ["srgb.jpg", "display-p3.jpg", "srgb.heic", "display-p3.heic", "srgb.avif", "display-p3-nclx.avif",
         "srgb.webp", "display-p3.webp", "srgb.gif"]
QUALITY = "90"


def ensure_tools():
    missing = [p for p, program in (("libheif-examples", "heif-enc"), ("webp", "cwebp")) if not bu.which(program)]
    if missing:
        bu.apt_install(missing, "the formats section encodes HEIC, AVIF and WebP")


def _set_nclx():
    path = os.path.join(bu.REPO_DIR, "Fixtures", "color", "make-heif-fixtures.py")
    spec = importlib.util.spec_from_file_location("make_heif_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.set_nclx


def _run(command):
    subprocess.run(command, check=True, capture_output=True)


def _chunk_count(path, marker):
    with open(path, "rb") as f:
        return f.read().count(marker)


def make_files(folder):
    """Writes the formats' files into a photo folder (kept when they are there from an earlier run)."""
    from PIL import Image
    if all(os.path.exists(os.path.join(folder, f)) for f in FILES):
        return
    bu.say(f"making HEIC, AVIF, WebP and GIF photos in {folder}")
    set_nclx = _set_nclx()
    reference, p3 = os.path.join(folder, "reference.png"), os.path.join(folder, "display-p3.png")
    bare = os.path.join(folder, "display-p3-bare.png")  # the P3 numbers without their profile
    with Image.open(p3) as image:
        image.save(bare, icc_profile=None)

    def out(name):
        return os.path.join(folder, name)
    _run(["heif-enc", "-q", QUALITY, reference, "-o", out("srgb.heic")])
    _run(["heif-enc", "-q", QUALITY, p3, "-o", out("display-p3.heic")])
    _run(["heif-enc", "-A", "-q", QUALITY, reference, "-o", out("srgb.avif")])
    set_nclx(out("srgb.avif"), 1, 13, 6)
    _run(["heif-enc", "-A", "-q", QUALITY, bare, "-o", out("display-p3-nclx.avif")])
    set_nclx(out("display-p3-nclx.avif"), 12, 13, 6)
    _run(["cwebp", "-quiet", "-q", QUALITY, reference, "-o", out("srgb.webp")])
    _run(["cwebp", "-quiet", "-q", QUALITY, "-metadata", "icc", p3, "-o", out("display-p3.webp")])
    with Image.open(reference) as image:
        image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT,
                                      dither=Image.Dither.FLOYDSTEINBERG).save(out("srgb.gif"))
    os.remove(bare)
    # What each file says about its colour, checked, so a tool's change cannot silently make the
    # P3 files sRGB ones.
    assert _chunk_count(out("display-p3.heic"), b"colrprof") == 1, "display-p3.heic: no colr prof"
    assert _chunk_count(out("display-p3-nclx.avif"), b"colrprof") == 0, "display-p3-nclx.avif: has a profile"
    assert _chunk_count(out("display-p3.webp"), b"ICCP") == 1, "display-p3.webp: no ICCP chunk"
    assert _chunk_count(out("srgb.webp"), b"ICCP") == 0, "srgb.webp: has a profile"


def pillow_reads(path):
    from PIL import Image
    try:
        with Image.open(path) as image:
            image.load()
        return True
    except Exception:  # noqa: BLE001 (any failure: Pillow does not read this format)
        return False


def file_itself(source, folder, scratch):
    """The path of the file's full-size pixels, with their profile, for reading back as a viewer does."""
    from PIL import Image
    if not source.endswith((".heic", ".avif")):
        return source
    decoded = os.path.join(scratch, "itself.png")
    _run(["heif-convert", source, decoded])
    if os.path.basename(source) == "display-p3-nclx.avif":
        with Image.open(os.path.join(folder, "display-p3.png")) as p3, Image.open(decoded) as image:
            image.save(decoded, icc_profile=p3.info["icc_profile"])
    return decoded


def fidelity(folders, tools, viewed, mean_de):
    """file -> tool -> [dE]; the tool "file itself" is the full-size file; None where Pillow does not
    read the format."""
    import tempfile
    from PIL import Image
    results = {}
    tools = {"file itself": lambda source, scratch: file_itself(source, os.path.dirname(source), scratch), **tools}
    for folder in folders:
        make_files(folder)
        with Image.open(os.path.join(folder, "reference.png")) as reference:
            reference.load()
            for name in FILES:
                source = os.path.join(folder, name)
                for tool, thumbnail in tools.items():
                    if tool == "Pillow" and not pillow_reads(source):
                        results.setdefault(name, {}).setdefault(tool, None)
                        continue
                    with tempfile.TemporaryDirectory() as scratch:
                        difference = mean_de(reference, viewed(thumbnail(source, scratch)))
                    results.setdefault(name, {}).setdefault(tool, []).append(difference)
    return results


def print_table(files, photos):
    tools = list(next(iter(files.values())).keys())
    print(f"\nColour fidelity by format (HEIC, AVIF, WebP at quality {QUALITY}; GIF: 256-colour palette), mean dE76 "
          f"at 12x8 cells over {photos} photos; - : the tool does not read the format\n")
    print("| file | " + " | ".join(tools) + " |")
    print("|---|" + "---:|" * len(tools))
    for name, by_tool in files.items():
        print(f"| {name} | " + " | ".join("-" if v is None else f"{sum(v) / len(v):.2f}" for v in by_tool.values())
              + " |")

#!/usr/bin/env bash
# Makes the WebP files imgfetch's tests need beyond libwebp's test vectors (../webp): animations,
# an EXIF orientation, an ICC profile, damaged and truncated files. From the project's own fixtures,
# with Debian's `webp` tools (cwebp, img2webp, webpmux; apt-get install webp). The outputs are
# committed: the tests never run this. Run from anywhere: Fixtures/formats/webp-made/generate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
images=$here/../../images
color=$here/../../color
cd "$here"
for tool in cwebp img2webp webpmux; do
  command -v $tool >/dev/null || { echo "generate.sh: $tool is missing (apt-get install webp)" >&2; exit 1; }
done
# Three 32x32 lossless frames (RGB, RGBA, gray PNGs), 100 ms each: the first frame is the image.
img2webp -lossless -d 100 "$images/basn2c08.png" "$images/basn6a08.png" "$images/basn0g08.png" -o anim-3-frames.webp >/dev/null
# Its first frame as a still image (the animations' reference: dwebp decodes no animation).
webpmux -get frame 1 anim-3-frames.webp -o anim-3-frames-frame-1.webp >/dev/null
# Lossy frames: every frame must decode.
img2webp -lossy -q 60 -d 80 "$images/basn2c08.png" "$images/basn0g08.png" -o anim-lossy-2-frames.webp >/dev/null
# The same animation with the second frame's image data damaged, and cut short.
python3 - <<'PY'
import struct
data = bytearray(open("anim-3-frames.webp", "rb").read())
# The second ANMF chunk's VP8L payload: overwrite bytes in the middle of its bitstream.
at, seen = 12, 0
while at + 8 <= len(data):
    tag, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
    if tag == b"ANMF":
        seen += 1
        if seen == 2:
            frame = at + 8 + 16  # ANMF header: 16 bytes before the frame's own chunks
            image = frame + 8 + 5  # past the VP8L chunk header and its signature/size bytes
            for i in range(image, image + 12):
                data[i] ^= 0xA5
            break
    at += 8 + size + (size & 1)
open("anim-bad-frame.webp", "wb").write(data)
whole = open("anim-3-frames.webp", "rb").read()
open("anim-truncated.webp", "wb").write(whole[: len(whole) * 2 // 3])
still = open("../webp/test.webp", "rb").read()
open("truncated-half.webp", "wb").write(still[: len(still) // 2])
# Image data complete, the RIFF header saying 100 bytes more than there are.
riff = bytearray(still)
riff[4:8] = struct.pack("<I", struct.unpack("<I", riff[4:8])[0] + 100)
open("riff-longer-than-file.webp", "wb").write(riff)
# A bitstream byte flipped mid-file in a lossless image: corrupt, not truncated.
lossless = bytearray(open("../webp/lossless1.webp", "rb").read())
for i in range(40, 60):
    lossless[i] ^= 0xFF
open("lossless-damaged.webp", "wb").write(lossless)
PY
# EXIF orientation 6 (kept from the JPEG): the picture a viewer shows is rotated 90 degrees.
cwebp -quiet -q 80 -metadata exif "$images/Portrait_6.jpg" -o exif-orientation-6.webp
# An ICC profile (Display P3, kept from the JPEG): converted to sRGB unless --keep-profile.
cwebp -quiet -q 90 -metadata icc "$color/display-p3.jpg" -o display-p3.webp
# Lossy with alpha, large enough for shrink-on-load tests to matter (it is never scaled on load).
cwebp -quiet -q 70 -alpha_q 100 "$images/basn6a08.png" -resize 256 256 -o alpha-256.webp

#!/usr/bin/env bash
# Makes two progressive JPEGs from testorig.jpg (libjpeg-turbo's test image) with jpegtran
# (libjpeg-turbo-progs), losslessly, so their pixels equal testorig.jpg's:
#   scans-99.jpg     a valid progressive JPEG with 99 scans (jpegtran's own maximum is 100; real
#                    files have about 10): DC, then every luma AC coefficient in its own scan.
#   scans-2000.jpg   scans-99.jpg with its last scan repeated until there are 2,000: an invalid
#                    progression that a lenient decoder would otherwise grind through.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=$(mktemp)
echo "0,1,2: 0 0 0 0;" >"$script"
for k in $(seq 1 63); do echo "0: $k $k 0 0;" >>"$script"; done
for k in $(seq 1 17); do echo "1: $(( (k - 1) * 63 / 17 + 1 )) $(( k * 63 / 17 )) 0 0;" >>"$script"; done
for k in $(seq 1 18); do echo "2: $(( (k - 1) * 63 / 18 + 1 )) $(( k * 63 / 18 )) 0 0;" >>"$script"; done
jpegtran -scans "$script" -outfile "$here/scans-99.jpg" "$here/../images/testorig.jpg"
rm -f "$script"
python3 - "$here/scans-99.jpg" "$here/scans-2000.jpg" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
last_sos = data.rindex(b"\xff\xda")
eoi = data.rindex(b"\xff\xd9")
scan = data[last_sos:eoi]
open(sys.argv[2], "wb").write(data[:eoi] + scan * (2000 - 99) + data[eoi:])
PY

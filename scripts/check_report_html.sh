#!/usr/bin/env bash
# Checks a report in headless Chromium (Debian's `chromium`): the page loads, every <img>
# resolves (complete with a non-zero natural width), every verdict cell (status classes) is
# painted with its colour, and a full-page screenshot is kept beside the report
# (report.png). Exit 0 when all images load and all verdict cells are painted, 1 when not,
# 2 when Chromium or the report is missing.
#
# usage: scripts/check_report_html.sh RESULTS_DIR [SCREENSHOT.png]
set -euo pipefail
dir="${1:?usage: scripts/check_report_html.sh RESULTS_DIR [SCREENSHOT.png]}"
html="$(cd "$dir" && pwd)/report.html"
shot="${2:-$dir/report.png}"
[ -f "$html" ] || { echo "check_report_html: $html not found (run mbbench report $dir)" >&2; exit 2; }
browser=""
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && { browser="$b"; break; }
done
[ -n "$browser" ] || { echo "check_report_html: chromium not found (Debian: apt-get install chromium)" >&2; exit 2; }

# Every <img src> must exist as a file relative to the report (the report is offline).
missing=0
while IFS= read -r src; do
  [ -z "$src" ] && continue
  if [ ! -s "$dir/$src" ]; then
    echo "missing image: $src" >&2
    missing=$((missing + 1))
  fi
done < <(grep -o "<img src='[^']*'" "$html" | sed "s/<img src='//; s/'\$//")

# The browser's own view: a script appended to a copy of the page writes the count of images
# that failed to decode into the title, which --dump-dom prints.
probe="$(mktemp "$dir/.check_report_XXXXXX.html")"
trap 'rm -f "$probe"' EXIT
{
  cat "$html"
  # Also the verdict colours: cells per status class, and how many of them the browser did
  # not paint (a background still transparent or white means the style sheet was lost).
  echo "<script>window.addEventListener('load',()=>{const bad=[...document.images].filter(i=>!i.complete||i.naturalWidth===0);const cls=['ok','inaccurate','failed','unstable','na','mixed','flag','noisy'];const cells=[...document.querySelectorAll('td')].filter(c=>cls.includes(c.className));const plain=cells.filter(c=>{const b=getComputedStyle(c).backgroundColor;return b==='rgba(0, 0, 0, 0)'||b==='rgb(255, 255, 255)';});const n=cls.map(k=>k+'='+cells.filter(c=>c.className===k).length).join(' ');document.title='IMAGES '+document.images.length+' BROKEN '+bad.length+' CELLS '+n+' UNPAINTED '+plain.length;});</script>"
} >"$probe"
flags=(--headless --disable-gpu --no-sandbox --allow-file-access-from-files --virtual-time-budget=10000)
dom="$("$browser" "${flags[@]}" --dump-dom "file://$(cd "$(dirname "$probe")" && pwd)/$(basename "$probe")" 2>/dev/null)"
verdict="$(printf '%s' "$dom" | grep -o 'IMAGES [0-9]* BROKEN [0-9]*' | head -1)"
colours="$(printf '%s' "$dom" | grep -o 'CELLS [^<]*UNPAINTED [0-9]*' | head -1)"
"$browser" "${flags[@]}" --window-size=1400,4000 --screenshot="$shot" "file://$html" >/dev/null 2>&1 || true
echo "check_report_html: ${verdict:-no verdict from the browser}; $missing missing files; screenshot $shot"
echo "check_report_html: status cells ${colours:-not counted}"
[ -n "$verdict" ] || exit 1
broken="${verdict##* }"
unpainted="${colours##* }"
[ "$missing" -eq 0 ] && [ "$broken" -eq 0 ] && [ "${unpainted:-0}" -eq 0 ]

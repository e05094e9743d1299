#!/usr/bin/env bash
# Screenshots of report.html and sweep.html for docs/img (docs/backtesting.md), from the example
# configs on the 2-hour sample, with Debian's headless Chromium; pngquant (apt-get install
# pngquant), if present, cuts them to 64 colours so they stay small. Usage: bash tools/report-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npm run build --silent
node bin/perpkit.js backtest config/backtest-market-maker.yaml --out "$out/mm" --quiet >/dev/null
node bin/perpkit.js sweep config/backtest-market-maker-sweep.yaml --workers 2 --out "$out/sweep" --quiet >/dev/null
shot() { # html png width,height
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --host-resolver-rules='MAP * ~NOTFOUND' \
    --user-data-dir="$out/chrome" --window-size="$3" --virtual-time-budget=5000 --screenshot="$2.full.png" "file://$1" 2>/dev/null
  if command -v pngquant >/dev/null; then pngquant --force --strip --output "$2" 64 "$2.full.png"; else cp "$2.full.png" "$2"; fi
  rm -f "$2.full.png"
  echo "wrote $2 ($(stat -c %s "$2") bytes)"
}
mkdir -p docs/img
shot "$out/mm/report.html" docs/img/report-market-maker.png 1100,1700
shot "$out/sweep/sweep.html" docs/img/sweep-market-maker.png 1100,900

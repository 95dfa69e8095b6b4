#!/usr/bin/env bash
# Opens a report page in headless Chromium, fails if the page does not load
# or logs a JavaScript or resource error, and saves a screenshot.
# Usage: scripts/screenshot_report.sh DIR/report.html [out.png]
# Needs Debian's chromium (apt-get install chromium); not used by the tests.
set -euo pipefail
page=$(realpath "${1:?report.html}")
png=${2:-${page%.html}.png}
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "chromium not found (apt-get install chromium)" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile")
# The DOM after load proves the page parsed; errors are logged to stderr.
log=$("$chrome" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$page" 2>"$profile/err" | tail -c 200)
if ! grep -q "</html>" <<<"$log"; then
  echo "the page did not load: $(tail -5 "$profile/err")" >&2
  exit 1
fi
if grep -E "Uncaught|ERR_FILE_NOT_FOUND|Failed to load resource" "$profile/err"; then
  echo "the page logged errors" >&2
  exit 1
fi
"$chrome" "${flags[@]}" --window-size=${SHOT_SIZE:-1200,2400} --screenshot="$png" "file://$page" 2>/dev/null
echo "screenshot: $png"

#!/usr/bin/env bash
# report.html renders in headless Chromium with no console error, holds the case table, the
# rounding-mode audit table, the mutation-testing kill matrix (every mutant killed by our
# verdict) and at least one inline <svg> plot (gnuplot). A missing tool
# (chromium, gnuplot) is a failure. Usage: report_html_test.sh CDNA_VERIFY
set -u
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

command -v chromium >/dev/null || fail "chromium not found (Debian package chromium; ci/setup installs it)"
command -v gnuplot >/dev/null || fail "gnuplot not found (Debian package gnuplot-nox; ci/setup installs it)"

"$cli" audit --executor simulator --modes rtne,rtz --set handed --cases 'C0[13]' --out "$tmp/out" --quiet \
  >"$tmp/audit.out" 2>"$tmp/audit.err" || { cat "$tmp/audit.out" "$tmp/audit.err"; fail "audit exited non-zero"; }
[ -s "$tmp/out/report.html" ] || fail "no report.html"
[ ! -e "$tmp/out/report.html.partial" ] || fail "report.html.partial left behind"
[ ! -s "$tmp/audit.err" ] || { cat "$tmp/audit.err"; fail "audit wrote to stderr"; }

timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
  --dump-dom "file://$tmp/out/report.html" >"$tmp/dom.html" 2>"$tmp/chromium.err"
rc=$?
[ "$rc" -eq 0 ] || { tail -20 "$tmp/chromium.err"; fail "chromium exited $rc"; }
# Every console message of the page (console.error included) comes as an "INFO:CONSOLE(line)"
# line; the page has no script, so any such line is a failure.
if grep -E 'CONSOLE' "$tmp/chromium.err" >"$tmp/console"; [ -s "$tmp/console" ]; then
  cat "$tmp/console"
  fail "console errors or warnings while loading report.html"
fi
grep -q '<table id="cases">' "$tmp/dom.html" || fail "no case table in the rendered DOM"
grep -q '<table id="rounding-audit">' "$tmp/dom.html" || fail "no rounding-audit table in the rendered DOM"
grep -q '<table id="ulp-histogram">' "$tmp/dom.html" || fail "no ULP histogram table in the rendered DOM"
grep -q '<table id="kill-matrix">' "$tmp/dom.html" || fail "no mutation-testing kill matrix in the rendered DOM"
grep -qE '<b>([0-9]+)/\1</b>' "$tmp/dom.html" || fail "kill matrix: our verdict does not kill every mutant"
svgs=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
[ "$svgs" -ge 3 ] || fail "$svgs <svg> plots in the rendered DOM, want 3"
for id in C01 C03; do grep -q ">$id<" "$tmp/dom.html" || fail "case $id missing from the table"; done
grep -q 'Plots omitted' "$tmp/dom.html" && fail "report says plots were omitted"
echo "report.html: renders, $svgs plots, no console error"

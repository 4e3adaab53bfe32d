# tool_test.sh - what the tools' shell tests share (sourced, not run):
# a scratch directory $tmp removed on exit, bad() to note a failure in
# $fail, expect() for a command's exit status and message, and the quick
# tier's scaled().
# SPDX-License-Identifier: GPL-2.0-or-later
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The quick tier (tests/zt_util.h says what the tiers are): ZC_TEST_QUICK
# set and not 0, as `bash scripts/test.sh` runs `ctest -L quick`.  scaled
# FULL QUICK prints FULL at the full scale and QUICK in the quick tier: a
# page-cache size, a count, an option; each test says why its QUICK still
# tests the same thing.  The one place a shell test reads ZC_TEST_QUICK.
quick=false
case ${ZC_TEST_QUICK:-0} in 0 | "") ;; *) quick=true ;; esac
scaled() { if $quick; then echo "$2"; else echo "$1"; fi; }

# expect STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN on stderr.
expect() {
  local want=$1 pat=$2 rc
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = "$want" ] || bad "$* exited $rc, not $want: $(cat "$tmp/err")"
  grep -q -- "$pat" "$tmp/err" || bad "$* did not say '$pat': $(cat "$tmp/err")"
}

# CSV as the tools write it: fields may be quoted, with commas and doubled
# quotes inside.  csv_get FILE ROW NAME: row ROW's (1: the first after the
# header) field NAME, unquoted; csv_width FILE ROW: the number of fields of
# line ROW (0: the header).
csv_awk='function split_csv(line, f,   n, q, c, i, cur) {
    n = 0; q = 0; cur = ""
    for (i = 1; i <= length(line); i++) {
      c = substr(line, i, 1)
      if (c == "\"") { if (q && substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = !q }
      else if (c == "," && !q) { f[++n] = cur; cur = "" }
      else cur = cur c
    }
    f[++n] = cur
    return n
  }'
csv_get() {
  awk -v row="$2" -v name="$3" "$csv_awk"'
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    NR - 1 == row { split_csv($0, f); if (name in col) print f[col[name]] }' "$1"
}
csv_width() {
  awk -v row="$2" "$csv_awk"'NR - 1 == row { print split_csv($0, f) }' "$1"
}

# The tools' outputs without the measured times, which no two runs share:
# a CSV without its timing columns (names with _ns: compress_ns,
# compress_ns_rejected, decompress_ns, compress_ns_estimates), a JSON
# without those keys.  csv_untimed FILE, json_untimed FILE.
csv_untimed() {
  awk "$csv_awk"'
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) keep[i] = h[i] !~ /_ns(_|$)/ }
    { n = split_csv($0, f); s = ""
      for (i = 1; i <= n; i++) if (keep[i]) s = s "," f[i]
      print substr(s, 2) }' "$1"
}
json_untimed() { sed -E 's/"[A-Za-z_]*_ns(_[a-z]+)?":-?[0-9]+,?//g' "$1"; }

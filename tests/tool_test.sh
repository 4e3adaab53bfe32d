# tool_test.sh - what the tools' shell tests share (sourced, not run):
# a scratch directory $tmp removed on exit, bad() to note a failure in
# $fail, and expect() for a command's exit status and message.
# SPDX-License-Identifier: GPL-2.0-or-later
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# expect STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN on stderr.
expect() {
  local want=$1 pat=$2 rc
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = "$want" ] || bad "$* exited $rc, not $want: $(cat "$tmp/err")"
  grep -q -- "$pat" "$tmp/err" || bad "$* did not say '$pat': $(cat "$tmp/err")"
}

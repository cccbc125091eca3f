# shellcheck shell=bash disable=SC2154  # ci_name is set by the sourcing script
# Helpers shared by ci/shard-run, ci/merge-shards and ci/slurm/submit (sourced, not run).
# The caller sets ci_name (its own name, for messages) before sourcing.

# ci_die CODE MESSAGE: one error line on stderr (and a GitHub annotation under Actions), exit CODE.
ci_die() {
  ci_annotate_error "$2"
  exit "$1"
}

# ci_annotate_error MESSAGE: "<ci_name>: error: MESSAGE" on stderr; under GitHub Actions also an
# ::error:: workflow command, so the failure shows on the run's summary page.
ci_annotate_error() {
  echo "$ci_name: error: $1" >&2
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::error title=$ci_name::$1"; fi
}

# ci_is_count X: true when X is a positive decimal integer without leading zeros.
ci_is_count() { [[ $1 =~ ^[1-9][0-9]{0,5}$ ]]; }

# ci_check_shard_count N: dies (exit 2) unless N is a positive integer.
ci_check_shard_count() {
  ci_is_count "$1" || ci_die 2 "shard count '$1': N must be a positive integer"
}

# ci_worse A B: the worse of two exit codes in cdna-verify's order 0 pass < 1 fail < 2 bad input
# or tool error < 3 executor unavailable (audit/output/exit_codes.hpp). Any other code (a crash: 134,
# 139, ...) counts as 2, a tool error.
ci_worse() {
  local a=$1 b=$2
  [ "$a" -le 3 ] || a=2
  [ "$b" -le 3 ] || b=2
  echo $((a > b ? a : b))
}

# ci_verdict CODE: the word for an exit code.
ci_verdict() {
  case $1 in
    0) echo PASS ;;
    1) echo FAIL ;;
    3) echo "EXECUTOR UNAVAILABLE" ;;
    *) echo "BAD INPUT OR TOOL ERROR" ;;
  esac
}

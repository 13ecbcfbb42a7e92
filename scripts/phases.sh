# Sourced by .ci/run and scripts/test.sh: timed phases under one time budget.
#
#   run_phase NAME COMMAND...   runs COMMAND and records "NAME  N s" in PHASES; prints
#                               "== NAME: N s" when it ends, pass or fail
#   print_phases                the recorded lines and the total so far
#
# ABLATE_DEADLINE (seconds since the epoch), when set, is the budget: a phase still
# running then is stopped (SIGTERM, then SIGKILL 30 s later) and fails, naming itself,
# so that a run that has grown too slow fails with a clear message long before CI's own
# kill. .ci/run sets it; nested scripts inherit it.
PHASES=()
PHASES_START=${PHASES_START:-$SECONDS}

run_phase() {  # run_phase NAME COMMAND...
  local name=$1 t=$SECONDS status=0
  shift
  echo "== $name"
  if [[ -n "${ABLATE_DEADLINE:-}" ]]; then
    local left=$((ABLATE_DEADLINE - $(date +%s)))
    if ((left <= 0)); then
      status=124
    else
      timeout --kill-after=30 "$left" "$@" || status=$?
    fi
    if ((status == 124 || status == 137)); then
      echo "BUDGET EXCEEDED: the run passed its time budget (${ABLATE_BUDGET_MINUTES:-?} minutes) during phase '$name'" >&2
    fi
  else
    "$@" || status=$?
  fi
  PHASES+=("$(printf '%-28s %5d s' "$name" $((SECONDS - t)))")
  [[ $status -eq 0 ]] || PHASES[-1]+="  FAILED (exit $status)"
  echo "== $name: $((SECONDS - t)) s"
  return "$status"
}

print_phases() {
  printf '  %s\n' "${PHASES[@]}" "$(printf '%-28s %5d s' total $((SECONDS - PHASES_START)))"
}

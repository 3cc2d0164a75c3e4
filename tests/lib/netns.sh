# netns.sh - network namespaces for the multi-host tests (sourced after
# cluster.sh): each "host" a namespace the test creates, on addresses of
# its own; the EXIT trap stops the test's processes the usual way first,
# then whatever is left in the namespaces, then deletes them.

MADE=() # the namespaces created (the test adds each one it makes)
netns_cleanup() {
  local ns pid
  for ns in "${MADE[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
  for ns in "${MADE[@]}"; do ip netns del "$ns" 2>/dev/null; done
  MADE=()
}
trap 'cleanup; netns_cleanup' EXIT

# netns_first NAME: create the test's first namespace, or skip the test
# (exit 77) where none can be made: no iproute2, or not root.
netns_first() {
  if ! command -v ip >/dev/null; then
    say "SKIP: no ip command (iproute2): cannot create network namespaces"
    say "0 passed, 0 failed"
    exit 77
  fi
  if ! ip netns add "$1" 2>"$T/netns.err"; then
    say "SKIP: cannot create a network namespace here ($(head -1 "$T/netns.err")):" \
      "it needs root (CAP_SYS_ADMIN)"
    say "0 passed, 0 failed"
    exit 77
  fi
  MADE+=("$1")
}

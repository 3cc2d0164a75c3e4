# hosts.sh - three "hosts" around a hub, for the locality test and its
# benchmark (tests/integration/test-locality-hosts.sh,
# tests/bench/bench-locality.sh): sourced; only functions, no trap, so
# that a test (tests/lib/netns.sh's cleanup) and a benchmark (its own)
# each remove what was made their way.

# hosts_star HUB MADE [COUNT]: around namespace HUB (made already), the
# namespaces NS[1..COUNT] (3 unless given), host k at H[k], each joined to HUB by a veth pair
# ("mK" in HUB at M[k], "w" on the host), its default route through
# HUB, which forwards; each namespace made is appended to the array
# named MADE.  Non-zero when a step fails (the caller says why).
hosts_star() {
  local hub=$1 k
  local -n hosts_made=$2
  ip -n "$hub" link set lo up || return 1
  for k in $(seq 1 "${3:-3}"); do
    ip netns add "${NS[k]}" && hosts_made+=("${NS[k]}") &&
      ip -n "${NS[k]}" link set lo up &&
      ip -n "$hub" link add "m$k" type veth peer name w netns "${NS[k]}" &&
      ip -n "$hub" addr add "${M[k]}/24" dev "m$k" &&
      ip -n "${NS[k]}" addr add "${H[k]}/24" dev w &&
      ip -n "$hub" link set "m$k" up && ip -n "${NS[k]}" link set w up &&
      ip -n "${NS[k]}" route add default via "${M[k]}" || return 1
  done
  ip netns exec "$hub" sysctl -qw net.ipv4.ip_forward=1
}

# hosts_onhost FILE DIR: write FILE, a script "FILE DISK COMMAND...":
# COMMAND with DISK mounted at DIR (run it in a mount namespace of its
# own, unshare -m: the host's worker, its executors and their tasks see
# their own disk there).
hosts_onhost() {
  cat >"$1" <<EOS
#!/bin/sh
set -e
mount --bind "\$1" "$2"
shift
exec "\$@"
EOS
  chmod +x "$1"
}

#!/usr/bin/env bash
# The README's walkthrough "A three-node cluster, from source to a job in
# cluster mode", pasted as written: its shell blocks are read from
# README.md and run on three "nodes" that this test makes on this machine.
# Each node is a network namespace (node1 holds a bridge the other two
# join, 10.215.0.0/24) with a mount and a UTS namespace of its own: its
# host name, a private /etc (an overlay: /etc/hosts names the three
# nodes, and whatever the walkthrough writes there stays there), its own
# empty /usr/local (where `make install` goes), /var/tmp, /run and /root
# (holding the ssh client's key and known hosts), and an sshd, so that
# node1 reaches the others by `ssh node2` as the README assumes.  The
# nodes share this machine's other files, the source tree among them (a
# copy of this one), as nodes sharing an NFS home would.  `sudo` is this
# test's stand-in when the machine has none (the test runs as root).
#
# Block 1 runs on each node; blocks 2 to 5 run in one shell on node1, in
# order, with the example driver id of block 5 replaced by the one block
# 4 printed.  Checks: every block succeeds, three workers ALIVE, the pi
# job ends FINISHED with its output fetched by --logs, and stop-cluster
# leaves nothing running on any node.  Needs root, ip netns, unshare,
# overlayfs and sshd (scripts/install-deps installs openssh-server);
# skipped (77) otherwise.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 900
SRC=${HEARTH_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SSHD=/usr/sbin/sshd

skip() {
  echo "SKIP: $*"
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root (network, mount and UTS namespaces)"
command -v ip >/dev/null && command -v unshare >/dev/null || skip "no ip or unshare"
[[ -x $SSHD ]] && command -v ssh >/dev/null || skip "no sshd or ssh (openssh-server)"
grep -qw overlay /proc/filesystems || skip "no overlay file system"

NET=10.215.0
NODES=(node1 node2 node3)
NS=()
for i in 1 2 3; do NS+=("hearth-$$-n$i"); done
netns_cleanup() {
  local ns pid
  for ns in "${NS[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
  sleep 0.2
  for ns in "${NS[@]}"; do ip netns del "$ns" 2>/dev/null; done
}
trap 'cleanup; netns_cleanup' EXIT

# --- the walkthrough's blocks, from the README ------------------------------
mapfile -d '' -t BLOCKS < <(awk '
  /^## A three-node cluster/ { on = 1; next }
  on && /^## / { on = 0 }
  on && /^```sh$/ { inblock = 1; text = ""; next }
  on && inblock && /^```$/ { inblock = 0; printf "%s%c", text, 0; next }
  on && inblock { text = text $0 "\n" }' "$SRC/README.md")
check "the README's walkthrough has its five shell blocks" test "${#BLOCKS[@]}" -eq 5 ||
  { finish; exit 1; }

# --- the nodes -----------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" &&
  ssh-keygen -q -t ed25519 -N '' -f "$T/id" &&
  cp "$T/id.pub" "$T/authorized_keys" && chmod 600 "$T/authorized_keys" ||
  { fail "ssh keys"; finish; exit 1; }
hosts=$(printf '127.0.0.1 localhost\n%s.1 node1\n%s.2 node2\n%s.3 node3\n' "$NET" "$NET" "$NET")

# node N: its namespace, address, /etc overlay and sshd.
make_node() {
  local n=$1 ns=${NS[$1 - 1]} name=${NODES[$1 - 1]}
  local d=$T/$name
  mkdir -p "$d/etc" "$d/etc-work" || return 1
  printf '%s\n' "$hosts" >"$d/etc/hosts"
  cat >"$d/sshd_config" <<EOF
ListenAddress $NET.$n
HostKey $T/hostkey
PermitRootLogin prohibit-password
AuthorizedKeysFile $T/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
Subsystem sftp internal-sftp
EOF
  # The node's private mounts and its sshd, in one process that holds
  # the namespaces: every ssh session there starts from it.
  ip netns exec "$ns" unshare --mount --uts --propagation private bash -c '
    set -e
    hostname "$1"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$2/etc,workdir=$2/etc-work" /etc
    for m in /usr/local /var/tmp /run /root; do mount -t tmpfs -o mode=0755 tmpfs "$m"; done
    mkdir -p /run/sshd /usr/local/bin && mkdir -m 0700 /root/.ssh
    cp "$3/id" /root/.ssh/id_ed25519 && chmod 600 /root/.ssh/id_ed25519
    printf "Host *\n  StrictHostKeyChecking accept-new\n" >/root/.ssh/config
    if ! command -v sudo >/dev/null; then
      printf "#!/bin/sh\nexec \"\$@\"\n" >/usr/local/bin/sudo && chmod 755 /usr/local/bin/sudo
    fi
    exec "$4" -D -e -f "$2/sshd_config"' sh "$name" "$d" "$T" "$SSHD" \
    >"$d/sshd.log" 2>&1 &
  PIDS+=($!)
}
net_setup() {
  local i
  for i in 0 1 2; do ip netns add "${NS[$i]}" && ip -n "${NS[$i]}" link set lo up || return 1; done
  ip -n "${NS[0]}" link add br0 type bridge && ip -n "${NS[0]}" addr add "$NET.1/24" dev br0 &&
    ip -n "${NS[0]}" link set br0 up || return 1
  for i in 2 3; do
    ip -n "${NS[0]}" link add "v$i" type veth peer name eth0 netns "${NS[$i - 1]}" &&
      ip -n "${NS[0]}" link set "v$i" master br0 && ip -n "${NS[0]}" link set "v$i" up &&
      ip -n "${NS[$i - 1]}" addr add "$NET.$i/24" dev eth0 &&
      ip -n "${NS[$i - 1]}" link set eth0 up || return 1
  done
}
net_setup 2>"$T/net.err" || skip "cannot set up network namespaces: $(head -1 "$T/net.err")"
for n in 1 2 3; do make_node "$n" || { fail "node$n"; finish; exit 1; }; done

# on N COMMAND...: run in a login shell on node N over ssh, as the README's
# user would type it (from this test's side, by address).
on() {
  local n=$1
  shift
  ip netns exec "${NS[$n - 1]}" ssh -o BatchMode=yes -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i "$T/id" "root@$NET.$n" "$@"
}
up() { on "$1" true 2>/dev/null; }
for n in 1 2 3; do
  check "node$n answers ssh" wait_for 10 up "$n" || { cat "$T/node$n/sshd.log"; finish; exit 1; }
done
check "node2 reaches node3 by name, as the README assumes" \
  on 2 "ssh -o BatchMode=yes node3 hostname" 2>/dev/null

# The source tree each node builds in: a copy of this one (tracked files,
# or the whole tree outside a git checkout), as a new user has it.
mkdir -p "$T/src"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$SRC" && git ls-files -z | xargs -0 cp --parents -t "$T/src")
else
  (cd "$SRC" && tar cf - --exclude='./build*' .) | (cd "$T/src" && tar xf -)
fi
check "a copy of the source tree" test -f "$T/src/configure.ac"

# --- block 1 on each node -----------------------------------------------
for n in 1 2 3; do
  on "$n" "cd $T/src && set -e && ${BLOCKS[0]}" >"$T/block1.node$n" 2>&1
  check "block 1 (build, install) succeeds on node$n" test $? -eq 0 ||
    tail -20 "$T/block1.node$n"
done

# --- blocks 2 to 5 in one shell on node1 ---------------------------------
script=$T/node1.sh
{
  echo 'set -eE; trap '\''echo "README line failed: $BASH_COMMAND" >&2'\'' ERR'
  echo "cd $T/src"
  printf '%s' "${BLOCKS[1]}"
  printf '%s' "${BLOCKS[2]}"
  echo 'echo "=== block 4"'
  printf '%s' "${BLOCKS[3]}" | tee "$T/block4.sh"
  # the driver id block 4's hearth-submit printed first
  echo 'id=$(grep -m1 -Eo "^driver-[0-9]{14}-[0-9]{4,}" "$0.out" || true)'
  echo 'echo "=== block 5 ($id)"'
  printf '%s' "${BLOCKS[4]}" | sed -E 's/driver-[0-9]{14}-[0-9]{4,}/$id/g'
} >"$script"
# $0.out: the session's own output, so that block 5 can read the id.
on 1 "bash -c 'exec > >(tee $script.out) 2>&1; . $script' $script" >"$T/node1.out" 2>&1
check "blocks 2 to 5 succeed on node1" test $? -eq 0 || tail -30 "$T/node1.out"
# alive_nodes: the nodes whose worker --state shows ALIVE.
alive_nodes() {
  sed -n '/=== block 4/,/=== block 5/p' "$T/node1.out" | grep ' ALIVE' |
    grep -v 'tcp://' | grep -o 'node[123]' | sort -u | tr '\n' ' '
}
check "hearth-tail --state shows a worker ALIVE on each node ($(alive_nodes))" \
  test "$(alive_nodes)" = "node1 node2 node3 "
check "hearth-submit printed the driver id" grep -q '=== block 5 (driver-' "$T/node1.out"
check "--logs fetched the job's output" grep -q '^Pi is roughly 3\.1' "$T/node1.out"
check "--status says FINISHED" grep -Eq '^state: +FINISHED' "$T/node1.out"
# hearth_in N: the Hearth processes of node N (its namespace's).
hearth_in() {
  local p
  for p in $(ip netns pids "${NS[$1 - 1]}" 2>/dev/null); do
    case $(cat "/proc/$p/comm" 2>/dev/null) in hearth-*) echo "$p" ;; esac
  done
}
for n in 1 2 3; do
  left=$(hearth_in "$n" | tr '\n' ' ')
  check "stop-cluster.sh left nothing running on node$n${left:+ ($left)}" test -z "$left"
done
finish

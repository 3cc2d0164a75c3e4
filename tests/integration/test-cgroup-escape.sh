#!/usr/bin/env bash
# A task cannot move itself out of its executor's cgroup (issue 35 item 5;
# docs/security.md, "Tasks run as their submitter"): on a keyed cluster
# whose worker runs as root with cgroups, alice's task (run as nobody)
# writes its pid into the parent group's cgroup.procs and tasks, in every
# hierarchy where it has a group; every write is refused and it is still
# in its group after.  The same task run as root (a key without a user,
# --allow-root-tasks) does leave its group: that is why tasks run as
# another user than the one that owns the worker's groups.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
if [[ $(id -u) != 0 ]]; then
  echo "$TEST_NAME: SKIPPED: not root (cgroups and users need it here)"
  exit 77
fi
if ! id -u nobody >/dev/null 2>&1; then
  echo "$TEST_NAME: SKIPPED: no user nobody on this machine"
  exit 77
fi
if ! grep -q ' - cgroup2\? ' /proc/self/mountinfo; then
  echo "$TEST_NAME: SKIPPED: no cgroup hierarchy is mounted"
  exit 77
fi
deadline 120
export TMPDIR=$T
chmod 0711 "$T" # nobody reaches its work dir and the script through it

user_cluster alice=nobody || { fail "keys and a master"; finish; exit 1; }
# (--allow-root-tasks through the environment: the control below runs a
# task of a key without a user, as root)
# shellcheck disable=SC2046
HEARTH_ALLOW_ROOT_TASKS=true start_worker w1 $(client_keys w1) --isolation cgroup ||
  { fail "a worker with cgroups starts: $(grep -m1 -i 'isolation\|error' "$T/w1.log")"; finish; exit 1; }

# The task: in each hierarchy where it has a group of the worker's, write
# its shell's pid into the parent group's files; then where it is.
cat >"$T/escape.sh" <<'EOF'
exec 2>&1
grep /hearth/ /proc/self/cgroup | while IFS=: read -r _ ctrls path; do
  c=${ctrls%%,*}
  if [ -z "$c" ]; then
    mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
  else
    mnt=$(awk -v c="$c" '/ - cgroup / { n = split($NF, o, ",")
      for (i = 1; i <= n; i++) if (o[i] == c) { print $5; exit } }' /proc/self/mountinfo)
  fi
  for f in cgroup.procs tasks; do
    [ -e "$mnt$path/../$f" ] || continue
    if echo "$$" >"$mnt$path/../$f"; then echo "MOVED ${c:-v2} $f"
    else echo "REFUSED ${c:-v2} $f"; fi
  done
done
echo WHERE
grep /hearth/ /proc/self/cgroup
EOF
chmod 0755 "$T/escape.sh"
# shellcheck disable=SC2016
ESCAPE=$(job escape "{\"name\":\"escape\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sh $T/escape.sh\"]}]}]}")
# in_own_groups: every group the task names after WHERE is an executor's.
in_own_groups() {
  local where
  where=$(sed -n '/^WHERE$/,$p' "$T/out" | tail -n +2)
  [[ -n $where ]] && ! grep -qv -- '-exec-[0-9]*$' <<<"$where"
}

# shellcheck disable=SC2046
check "alice's task runs" submit --master "$MASTER_URL" $(client_keys alice) \
  --total-executor-cores 1 "$ESCAPE"
cp "$T/out" "$T/alice.out"
check "... as nobody, in groups of the worker's" grep -q '^REFUSED ' "$T/out"
check "... every write to its parent group is refused" eval '! grep -q "^MOVED " "$T/out"'
check "... and it is still in its own groups after" in_own_groups
say "$(grep -c '^REFUSED ' "$T/out") writes refused: $(grep '^REFUSED ' "$T/out" | cut -d' ' -f2- | xargs)"

# The control: run as root (the key names no user, --allow-root-tasks).
# shellcheck disable=SC2046
check "the same task as root runs" submit --master "$MASTER_URL" \
  $(client_keys client) --total-executor-cores 1 "$ESCAPE"
cp "$T/out" "$T/root.out"
check "... and as root it does leave its group" grep -q '^MOVED ' "$T/out"
check "... it is no longer in its own groups" eval '! in_own_groups'
finish

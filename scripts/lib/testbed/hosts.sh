# shellcheck shell=bash
# scripts/testbed: the hosts' cores and the shaping of their links.
# --own-cores deals the machine's cores out to the hosts; --netem shapes every eth0.
# Sourced by scripts/testbed after its constants, msg, die and usage_error.

# ---------------------------------------------------------------------------
# Traffic shaping

# Apply the --netem arguments to eth0 of namespace $1.  On failure returns 1
# (bad arguments) or 2 (this kernel cannot do it) with the reason in
# SHAPE_ERR.  Sets SHAPER to the qdisc used ("netem" or "htb").  Some kernels (e.g. minimal VM kernels) are built without sch_netem;
# a pure rate limit can still be had from htb, but delay/loss/jitter cannot,
# and silently ignoring them would make timings lie, so those are refused.
apply_shaping() {
  local ns=$1 err
  shift
  SHAPE_ERR=
  if err=$(ip netns exec "$ns" tc qdisc add dev eth0 root netem "$@" 2>&1); then
    SHAPER=netem
    return 0
  fi
  if [[ $err != *"qdisc kind is unknown"* ]]; then
    SHAPE_ERR="tc netem $*: ${err//$'\n'/ }"
    return 1
  fi
  if [[ $# -eq 2 && $1 == rate ]]; then
    if err=$(ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: htb default 1 2>&1) &&
       err=$(ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:1 htb rate "$2" 2>&1); then
      SHAPER=htb
      return 0
    fi
    SHAPE_ERR="tc htb rate $2 (stand-in for netem): ${err//$'\n'/ }"
    return 1
  fi
  SHAPE_ERR="this kernel has no tc netem (CONFIG_NET_SCH_NETEM); of the netem arguments only \"rate R\" alone can be emulated here (with htb), not \"$*\""
  return 2
}

# The cores this process may use, one per line, ascending (from its affinity
# list, e.g. "0-3,8").
allowed_cores() {
  local list part a b
  local -a parts
  list=$(awk '/^Cpus_allowed_list:/{print $2}' /proc/self/status) || return 1
  [[ -n $list ]] || return 1
  IFS=, read -r -a parts <<<"$list"
  for part in "${parts[@]}"; do
    a=${part%-*} b=${part#*-}
    for ((; a <= b; a++)); do echo "$a"; done
  done
}

# Line i: the cores of host i for --own-cores, as taskset takes them ("0,1").
host_cores() {
  local -a cores
  mapfile -t cores < <(allowed_cores)
  local n=${#cores[@]} i c from to list
  ((n > 0)) || return 1
  for ((i = 0; i < HOSTS; i++)); do
    if ((HOSTS >= n)); then
      echo "${cores[i % n]}"
      continue
    fi
    from=$((i * n / HOSTS)) to=$(((i + 1) * n / HOSTS))
    list=
    for ((c = from; c < to; c++)); do list+=${list:+,}${cores[c]}; done
    echo "$list"
  done
}

# shellcheck shell=bash
# scripts/testbed: the namespaces and links of a bed, and whether this machine can make them.
# Every host is a network namespace with a veth into the switch namespace's bridge.
# Sourced by scripts/testbed after its constants, msg, die and usage_error.

# ---------------------------------------------------------------------------
# Availability

# Try, for real, everything a bed needs, on throwaway namespaces.  On failure
# prints the reason on stdout and returns 1 (no test bed possible here), 2
# (the --netem arguments are invalid) or 3 (this kernel cannot do them).
# Runs in a subshell so its EXIT trap cleans up the probe whatever happens.
probe() (
  local -a netem_args=("$@")
  if [[ $(id -u) -ne 0 ]]; then
    echo "must run as root (network namespaces, veths and bridges need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
    return 1
  fi
  local c
  for c in ip unshare od setsid find stat awk; do
    command -v "$c" >/dev/null 2>&1 || { echo "command '$c' not found"; return 1; }
  done
  if [[ ${#netem_args[@]} -gt 0 ]] && ! command -v tc >/dev/null 2>&1; then
    echo "command 'tc' (iproute2) not found, needed for --netem"
    return 1
  fi
  local p a b err
  p=hbprobe$(rand_hex6)
  a=$p-a b=$p-b
  trap 'ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null' EXIT
  err=$(ip netns add "$a" 2>&1) || { echo "'ip netns add' failed: ${err//$'\n'/ }"; return 1; }
  err=$(ip netns add "$b" 2>&1) || { echo "'ip netns add' failed: ${err//$'\n'/ }"; return 1; }
  err=$(ip -n "$a" link add br0 type bridge 2>&1) ||
    { echo "cannot create a bridge in a namespace: ${err//$'\n'/ }"; return 1; }
  err=$(ip -n "$a" link add v0 type veth peer name eth0 netns "$b" 2>&1) ||
    { echo "cannot create a veth pair between namespaces: ${err//$'\n'/ }"; return 1; }
  err=$(ip -n "$a" link set v0 master br0 2>&1) ||
    { echo "cannot attach a veth to a bridge: ${err//$'\n'/ }"; return 1; }
  err=$(ip netns exec "$b" unshare --uts -- /bin/sh -c 'echo hbprobe > /proc/sys/kernel/hostname' 2>&1) ||
    { echo "cannot run a command under 'ip netns exec ... unshare --uts' with its own hostname: ${err//$'\n'/ }"; return 1; }
  if [[ ${#netem_args[@]} -gt 0 ]]; then
    local rc=0
    apply_shaping "$b" "${netem_args[@]}" || rc=$?
    if [[ $rc -ne 0 ]]; then
      echo "--netem \"${netem_args[*]}\": $SHAPE_ERR"
      return $((rc == 2 ? 3 : 2))
    fi
  fi
  return 0
)

# Exit 3 with "testbed: unavailable: REASON" unless a bed (with the given
# shaping) can be made here; exit 2 if the shaping arguments are invalid.
require_available() {
  local reason rc=0
  reason=$(probe "$@") || rc=$?
  case $rc in
    0) ;;
    2) usage_error "invalid $reason" ;;
    *) printf '%s: unavailable: %s\n' "$PROG" "$reason" >&2; exit 3 ;;
  esac
}

# ---------------------------------------------------------------------------
# Finding beds

# Namespaces that belong to bed $1 (exact names only, see NAME_RE).
bed_namespaces() {
  local name=$1
  ip netns list 2>/dev/null | awk '{print $1}' |
    grep -E "^${name}-(sw|head|h(0|[1-9][0-9]*))\$" || true
}

# Every bed that exists, even partially: state directories plus namespaces
# that look like ours.
all_beds() {
  {
    local d
    if [[ -d $STATE_ROOT ]]; then
      for d in "$STATE_ROOT"/*/; do
        [[ -d $d ]] || continue
        d=${d%/}; d=${d##*/}
        [[ $d =~ $NAME_RE ]] && printf '%s\n' "$d"
      done
    fi
    while read -r d _; do
      [[ $d =~ $BED_NS_RE ]] && printf '%s\n' "${BASH_REMATCH[1]}"
    done < <(ip netns list 2>/dev/null)
    if [[ -d /etc/netns ]]; then
      for d in /etc/netns/*/; do
        [[ -d $d ]] || continue
        d=${d%/}; d=${d##*/}
        [[ $d =~ $BED_NS_RE ]] && printf '%s\n' "${BASH_REMATCH[1]}"
      done
    fi
  } | sort -u
}

# Run a creation step; on failure report what failed (the EXIT trap then
# tears the half-built bed down).
step() {
  local err
  if ! err=$("$@" 2>&1); then
    die "creating test bed $BED_NAME: '$*' failed: ${err//$'\n'/ }"
  fi
}

new_node_ns() {
  local ns=$1
  step ip netns add "$ns"
  step ip -n "$ns" link set lo up
  # IPv6 is not used; without it eth0 has no link-local address that Open MPI's
  # oob/btl might try to pick.  Best effort: the kernel may lack IPv6.
  # shellcheck disable=SC2016  # $f is expanded by the inner shell
  ip netns exec "$ns" /bin/sh -c \
    'for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 /proc/sys/net/ipv6/conf/default/disable_ipv6; do [ -w "$f" ] && echo 1 > "$f"; done; true' \
    2>/dev/null || true
  # A benchmark that interleaves broadcasts leaves the connections one
  # algorithm uses idle while another's block runs (seconds at 1 Gbit/s), and
  # Linux then restarts them from the initial congestion window: the next block
  # pays a slow start that a program calling one broadcast never meets (on the
  # shaped 4+2+2 bed, 8 MiB took 82 ms beside Open MPI's blocks, 76 ms beside
  # hbcast's own).  Best effort: the knob is per namespace since Linux 4.x.
  ip netns exec "$ns" /bin/sh -c \
    'f=/proc/sys/net/ipv4/tcp_slow_start_after_idle; [ -w "$f" ] && echo 0 > "$f"; true' \
    2>/dev/null || true
}

# Connect namespace $1 to the bridge through switch port $2, address $3.
plug() {
  local ns=$1 port=$2 addr=$3 sw=$BED_NAME-sw
  step ip -n "$sw" link add "$port" type veth peer name eth0 netns "$ns"
  step ip -n "$sw" link set "$port" master br0
  step ip -n "$sw" link set "$port" up
  step ip -n "$ns" addr add "$addr/24" dev eth0
  step ip -n "$ns" link set eth0 up
}

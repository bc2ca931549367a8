# shellcheck shell=bash
# scripts/testbed: how mpirun reaches a bed: its rsh agent, exec-head and mpirun-args.
# Open MPI's rsh launcher runs the agent in place of ssh; exec-head runs mpirun in the head namespace.
# Sourced by scripts/testbed after its constants, msg, die and usage_error.

# The major version of the Open MPI that mpirun belongs to (OMPI_HOME's, else
# the one on PATH); 4 where none is found or its version cannot be read.
ompi_major() {
  local mpirun=
  if [[ -n ${OMPI_HOME:-} && -x $OMPI_HOME/bin/mpirun ]]; then
    mpirun=$OMPI_HOME/bin/mpirun
  else
    mpirun=$(command -v mpirun 2>/dev/null) || true
  fi
  local v=
  [[ -n $mpirun ]] && v=$("$mpirun" --version 2>/dev/null | sed -n 's/^mpirun (Open MPI) \([0-9]*\)\..*/\1/p' | head -n 1)
  echo "${v:-4}"
}

write_agent() {
  local f=$BED_DIR/agent
  {
    cat <<EOF
#!/usr/bin/env bash
# rsh/ssh stand-in for test bed $BED_NAME, written by scripts/testbed.
# Open MPI's rsh launcher calls it like ssh:
#   agent [ssh options] HOST REMOTE-COMMAND-WORDS...
# It runs the words, joined by spaces and interpreted by a shell (as ssh
# does), inside host HOST's network namespace under its own UTS namespace
# with the hostname set to HOST.  Unlike ssh the environment is inherited.
set -euo pipefail
bed=$BED_NAME
nhosts=$HOSTS
subnet=$SUBNET
host_addr_base=$HOST_ADDR_BASE
bed_dir=$BED_DIR
EOF
    cat <<'EOF'
fail() { printf 'testbed agent (%s): %s\n' "$bed" "$*" >&2; exit 255; }

if [[ -n ${HBCAST_TESTBED_AGENT_LOG:-} ]]; then
  { printf '%s agent pid=%s' "$(date +%T.%N)" "$$"; printf ' [%s]' "$@"; echo; } \
    >>"$HBCAST_TESTBED_AGENT_LOG" 2>/dev/null || true
fi

# Skip ssh-style options (plm_rsh_args, or an agent line like "ssh -x").
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    -[BbcDEeFIiJLlmOoPpQRSWw])
      [[ $# -ge 2 ]] || fail "option $1 needs an argument"
      shift 2 ;;
    -?*) shift ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || fail "usage: agent [ssh options] HOST COMMAND..."
target=${1#*@}   # drop a user@ part
shift
[[ $# -ge 1 ]] || fail "no command for $target (interactive logins are not supported)"

idx=
case $target in
  "$bed"-h*) idx=${target#"$bed"-h} ;;
  "$subnet".*) n=${target#"$subnet".}
               [[ $n =~ ^[0-9]+$ ]] && idx=$((10#$n - host_addr_base)) ;;
esac
if ! [[ $idx =~ ^(0|[1-9][0-9]*)$ ]] || ((idx >= nhosts)); then
  fail "unknown host '$target': this bed's hosts are $bed-h0 .. $bed-h$((nhosts - 1))"
fi
host=$bed-h$idx
[[ -e /run/netns/$host ]] || fail "host $host is gone (namespace /run/netns/$host missing)"

# With --own-cores the host's processes (orted, and the ranks it starts, which
# inherit its affinity under mpirun's --bind-to none) run on the host's cores.
pin=()
if [[ -f $bed_dir/cores ]]; then
  cores=$(sed -n "$((idx + 1))p" "$bed_dir/cores")
  [[ -n $cores ]] || fail "no cores listed for host $host in $bed_dir/cores"
  pin=(taskset -c "$cores")
fi

# Run the remote command with the shell Open MPI assumed: with
# plm_rsh_assume_same_shell (the default) it phrases the command for the
# local $SHELL, and our environment is mpirun's.
sh=${SHELL:-/bin/sh}
[[ -x $sh ]] || sh=/bin/sh
# shellcheck disable=SC2016  # expanded by the inner shell
exec "${pin[@]}" ip netns exec "$host" unshare --uts -- /bin/sh -c \
  'echo "$1" > /proc/sys/kernel/hostname && exec "$2" -c "$3"' agent "$host" "$sh" "$*"
EOF
  } >"$f"
  chmod 755 "$f"
}

write_exec_head() {
  local f=$BED_DIR/exec-head
  {
    cat <<EOF
#!/usr/bin/env bash
# Run a command, argv exactly as given, in the head namespace of test bed
# $BED_NAME (hostname $BED_NAME-head).  Written by scripts/testbed.
set -euo pipefail
head=$BED_NAME-head
EOF
    cat <<'EOF'
[[ $# -ge 1 ]] || { echo "usage: exec-head CMD [ARGS...]" >&2; exit 2; }
[[ -e /run/netns/$head ]] || { echo "exec-head: namespace $head does not exist (bed torn down?)" >&2; exit 1; }
# shellcheck disable=SC2016  # expanded by the inner shell
exec ip netns exec "$head" unshare --uts -- /bin/sh -c \
  'echo "$0" > /proc/sys/kernel/hostname && exec "$@"' "$head" "$@"
EOF
  } >"$f"
  chmod 755 "$f"
}

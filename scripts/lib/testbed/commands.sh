# shellcheck shell=bash
# scripts/testbed: the commands (check, up, down, list, run), their options and their traps.
# main dispatches; up and run own a bed until it is handed over or torn down.
# Sourced by scripts/testbed after its constants, msg, die and usage_error.

usage() {
  cat <<'EOF'
usage: scripts/testbed COMMAND [ARGS]

A multi-node MPI test bed on one machine: every host is a network namespace
with its own hostname and address; hosts are joined by a bridge, mpirun runs
in a separate "head" namespace and reaches the hosts through Open MPI's
rsh launcher.  Needs root.

Commands:
  check [--netem "ARGS"]
        Print "testbed: ok" and exit 0 if this machine can run a test bed
        (and, with --netem, apply that shaping); else print
        "testbed: unavailable: REASON" and exit 3.
  up --hosts H --slots S|S0,S1,.. [--netem "ARGS"] [--own-cores] [--name NAME]
        Create a bed of H hosts (1..32) with S slots each (or Si on host i).  Prints a summary
        on stderr and the bed's NAME as the last line on stdout.
        --netem ARGS  tc netem arguments applied to eth0 of every host and
                      of the head, e.g. "delay 200us rate 10gbit".  Where the
                      kernel has no netem, "rate R" alone is emulated with
                      htb; anything else is refused.
        --own-cores   every host's processes run on cores of their own, as
                      on separate machines: the cores this machine allows
                      are dealt out in equal runs (host i of H gets cores
                      i*N/H .. (i+1)*N/H-1 of N); where hosts outnumber
                      cores, host i gets core i mod N.  Without it the
                      kernel places every rank on any core, and ranks of
                      different hosts share one: a rank of one host then
                      runs only when one of another host waits.
        --name NAME   [a-z][a-z0-9]*, at most 24 characters; default hb + 6
                      random hex digits.
  down NAME | down --all [--force]
        Kill every process left in the bed's namespaces and remove all of the
        bed.  Idempotent.  --all: every bed found (state directories and
        namespaces named hb??????-*), except beds whose `up` or `run` is
        still running (another test's); --force takes those too.
  list  One line per existing bed:
        NAME hosts=H slots=S netem="..." cores=own|shared state=ok|partial(...) owner=PID|-
        (owner: the live `up`/`run` process using the bed, - if none)
  run --hosts H --slots S [--netem "ARGS"] [--own-cores] [--name NAME] -- CMD [ARGS...]
        up, run CMD with HBCAST_TESTBED=NAME and
        HBCAST_TESTBED_DIR=/run/hbcast-testbed/NAME exported, then down --
        always, also on failure and on INT/TERM/HUP (which are passed on to
        CMD's process group first).  Exit status: CMD's, or 128+signal.

Using a bed (D=/run/hbcast-testbed/NAME):
  "$D/exec-head" mpirun --allow-run-as-root $(cat "$D/mpirun-args") -np 4 CMD
  exec-head runs its arguments (argv kept as is) in the head namespace;
  mpirun-args holds mpirun's extra arguments, one per line: the hostfile, the
  rsh launcher (whatever OMPI_MCA_plm says) and its agent, and the btl/oob
  interface selection.

Exit status: 0 ok, 1 failure, 2 usage error, 3 test bed unavailable here.
Debugging: with HBCAST_TESTBED_AGENT_LOG=FILE in mpirun's environment the rsh
agent appends every invocation's argv to FILE.
EOF
}

# ---------------------------------------------------------------------------
# Option parsing for up/run

HOSTS=
SLOTS=
NETEM_ARGS=()
WANT_NAME=
OWN_CORES=0
CMD=()

parse_bed_opts() {
  local mode=$1
  shift
  local netem_set=0
  while [[ $# -gt 0 ]]; do
    case $1 in
      --hosts|--slots|--netem|--name)
        [[ $# -ge 2 ]] || usage_error "$1 needs a value"
        set -- "$1=$2" "${@:3}"
        continue ;;
      --hosts=*) HOSTS=${1#*=} ;;
      --slots=*) SLOTS=${1#*=} ;;
      --netem=*)
        # Deliberately split into words: these are tc arguments.
        read -r -a NETEM_ARGS <<<"${1#*=}"
        netem_set=1 ;;
      --name=*) WANT_NAME=${1#*=} ;;
      --own-cores) OWN_CORES=1 ;;
      -h|--help) usage; exit 0 ;;
      --)
        [[ $mode == run ]] || usage_error "unexpected '--' for $mode"
        shift
        CMD=("$@")
        break ;;
      *) usage_error "$mode: unknown argument '$1'" ;;
    esac
    shift
  done
  [[ -n $HOSTS ]] || usage_error "$mode: --hosts H is required"
  [[ -n $SLOTS ]] || usage_error "$mode: --slots S is required"
  if ! [[ $HOSTS =~ ^[1-9][0-9]{0,2}$ ]] || ((HOSTS > MAX_HOSTS)); then
    usage_error "$mode: --hosts must be an integer from 1 to $MAX_HOSTS, not '$HOSTS'"
  fi
  local -a slot_list
  IFS=, read -r -a slot_list <<<"$SLOTS"
  if [[ ${#slot_list[@]} -ne 1 && ${#slot_list[@]} -ne $HOSTS ]]; then
    usage_error "$mode: --slots takes one count for all hosts or one per host ($HOSTS), not '$SLOTS'"
  fi
  local one
  for one in "${slot_list[@]}"; do
    if ! [[ $one =~ ^[1-9][0-9]{0,4}$ ]] || ((one > MAX_SLOTS)); then
      usage_error "$mode: --slots must be integers from 1 to $MAX_SLOTS, not '$SLOTS'"
    fi
  done
  if [[ $netem_set -eq 1 && ${#NETEM_ARGS[@]} -eq 0 ]]; then
    usage_error "$mode: --netem needs tc netem arguments, e.g. --netem \"delay 200us rate 10gbit\""
  fi
  if [[ -n $WANT_NAME && ! $WANT_NAME =~ $NAME_RE ]]; then
    usage_error "$mode: --name must match [a-z][a-z0-9]* and have at most 24 characters, not '$WANT_NAME'"
  fi
  if [[ $mode == run && ${#CMD[@]} -eq 0 ]]; then
    usage_error "run: missing '-- CMD [ARGS...]'"
  fi
  return 0
}

# ---------------------------------------------------------------------------
# Commands

cmd_check() {
  local -a netem=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      --netem) [[ $# -ge 2 ]] || usage_error "--netem needs a value"
               read -r -a netem <<<"$2"; shift ;;
      --netem=*) read -r -a netem <<<"${1#*=}" ;;
      -h|--help) usage; exit 0 ;;
      *) usage_error "check: unknown argument '$1'" ;;
    esac
    shift
  done
  local reason rc=0
  reason=$(probe "${netem[@]}") || rc=$?
  case $rc in
    0) echo "$PROG: ok" ;;
    2) echo "$PROG: invalid $reason"; exit 2 ;;
    *) echo "$PROG: unavailable: $reason"; exit 3 ;;
  esac
}

# EXIT trap while this process owns a bed: tear it down.
on_exit() {
  local rc=$?
  if [[ $BED_OWNED -eq 1 && -n $BED_NAME ]]; then
    trap '' INT TERM HUP
    if [[ $BED_CREATING -eq 1 && $rc -ne 0 ]]; then
      msg "error: creating test bed $BED_NAME failed (exit status $rc); removing what was created"
    fi
    BED_OWNED=0
    teardown "$BED_NAME"
    msg "bed $BED_NAME torn down"
  fi
  exit "$rc"
}

# Is anything but zombies left in process group $1?
group_alive() {
  ps -e -o pgid=,stat= 2>/dev/null | awk -v g="$1" '$1 == g && $2 !~ /^Z/ {found = 1} END {exit !found}'
}

# Signal handler for up/run.  Passes the signal to CMD's process group (that
# includes mpirun, started via exec-head), gives it a moment to shut down
# cleanly, then KILLs; the EXIT trap removes the bed (and thereby kills
# whatever is left inside its namespaces, e.g. orted and the ranks).
on_signal() {
  local sig=$1 code=$2 i
  trap '' INT TERM HUP
  msg "caught SIG$sig${BED_NAME:+, tearing down bed $BED_NAME}"
  if [[ -n $CHILD_PID ]]; then
    kill -s "$sig" -- "-$CHILD_PID" 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do
      group_alive "$CHILD_PID" || break
      sleep 0.1
    done
    kill -s KILL -- "-$CHILD_PID" 2>/dev/null || true
  fi
  exit "$code"
}

arm_traps() {
  trap on_exit EXIT
  trap 'on_signal INT 130' INT
  trap 'on_signal TERM 143' TERM
  trap 'on_signal HUP 129' HUP
}

cmd_up() {
  parse_bed_opts up "$@"
  require_available "${NETEM_ARGS[@]}"
  arm_traps
  claim_name "$WANT_NAME"
  BED_CREATING=1
  create_bed
  BED_CREATING=0
  BED_OWNED=0   # the bed now outlives this process
  trap - EXIT INT TERM HUP
  printf '%s\n' "$BED_NAME"
}

cmd_run() {
  # A background job of a non-interactive shell starts with SIGINT ignored,
  # and bash cannot trap a signal that was ignored on entry: Ctrl-C or a
  # harness's `kill -INT` would then leave the bed up until CMD ends.  Re-exec
  # once with SIGINT back at its default so the trap below can take it.
  if [[ -z ${HBCAST_TESTBED_INT_RESET:-} ]] &&
     (( 0x$(awk '/^SigIgn:/{print $2}' /proc/$$/status 2>/dev/null || echo 0) & 2 )) &&
     env --default-signal=INT true 2>/dev/null; then
    HBCAST_TESTBED_INT_RESET=1 exec env --default-signal=INT "$TESTBED_SCRIPT" run "$@"
  fi
  unset HBCAST_TESTBED_INT_RESET
  parse_bed_opts run "$@"
  require_available "${NETEM_ARGS[@]}"
  arm_traps
  claim_name "$WANT_NAME"
  BED_CREATING=1
  create_bed
  BED_CREATING=0
  export HBCAST_TESTBED=$BED_NAME HBCAST_TESTBED_DIR=$BED_DIR
  # CMD gets its own session/process group so that a signal can be passed to
  # it and to everything it started (mpirun included) in one go.  A
  # background job of a non-interactive shell is never a process group
  # leader, so setsid does not fork: CHILD_PID is CMD's pid and its pgid.
  # (Its own group also means Ctrl-C on a terminal reaches only this script,
  # which passes it on.)  `trap -` undoes the SIGINT/SIGQUIT ignoring that a
  # non-interactive shell imposes on background jobs, so CMD can be
  # interrupted like a foreground command.
  # Without job control bash gives a background job /dev/null as stdin; fd 3
  # carries the real one through so `... | testbed run -- CMD` works.
  exec 3<&0
  (trap - INT QUIT; exec setsid "${CMD[@]}" <&3 3<&-) &
  exec 3<&-
  CHILD_PID=$!
  local rc=0 i
  wait "$CHILD_PID" || rc=$?
  # Whatever CMD left running in its process group outside the bed (the bed
  # itself is emptied by the teardown) goes too: this run owns that group.
  if group_alive "$CHILD_PID"; then
    kill -s TERM -- "-$CHILD_PID" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
      group_alive "$CHILD_PID" || break
      sleep 0.1
    done
    kill -s KILL -- "-$CHILD_PID" 2>/dev/null || true
  fi
  CHILD_PID=
  exit "$rc"      # EXIT trap tears the bed down
}

cmd_down() {
  local all=0 force=0 name=
  while [[ $# -gt 0 ]]; do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --all) all=1 ;;
      --force) force=1 ;;
      -*) usage_error "down: unknown option '$1'" ;;
      *) [[ -z $name ]] || usage_error "down: one NAME at a time"; name=$1 ;;
    esac
    shift
  done
  if [[ $all -eq 1 && -n $name ]] || [[ $all -eq 0 && -z $name ]] || [[ $force -eq 1 && $all -eq 0 ]]; then
    usage_error "usage: scripts/testbed down NAME | down --all [--force]"
  fi
  [[ -z $name || $name =~ $NAME_RE ]] || usage_error "down: '$name' is not a test bed name"
  [[ $(id -u) -eq 0 ]] || { printf '%s: unavailable: must run as root\n' "$PROG" >&2; exit 3; }
  # Teardown must not be cut short half-way.
  trap '' INT TERM HUP
  local -a beds
  if [[ $all -eq 1 ]]; then
    mapfile -t beds < <(all_beds)
    [[ ${#beds[@]} -gt 0 ]] || { msg "no test beds"; return 0; }
  else
    beds=("$name")
  fi
  local b owner
  for b in "${beds[@]}"; do
    # --all is for clearing up leftovers; it must not pull a bed out from
    # under a test that is still running on it (several test runs may share
    # the machine).  Naming the bed, or --force, removes it regardless.
    owner=$(bed_owner "$b")
    if [[ $all -eq 1 && $force -eq 0 && -n $owner ]]; then
      msg "bed $b: in use by running testbed process $owner, left alone (down $b, or down --all --force, removes it)"
      continue
    fi
    if [[ ! -d $STATE_ROOT/$b && -z $(bed_namespaces "$b") ]]; then
      teardown "$b"   # stray /etc/netns entries, if any
      msg "bed $b: nothing to remove"
    else
      teardown "$b"
      msg "bed $b down"
    fi
  done
}

cmd_list() {
  if [[ ${1:-} == -h || ${1:-} == --help ]]; then usage; exit 0; fi
  [[ $# -eq 0 ]] || usage_error "usage: scripts/testbed list"
  local b d nss state h s n owner cores
  while read -r b; do
    [[ -n $b ]] || continue
    d=$STATE_ROOT/$b
    nss=$(bed_namespaces "$b" | wc -l)
    h=$(cat "$d/hosts" 2>/dev/null || echo '?')
    s=$(cat "$d/slots" 2>/dev/null || echo '?')
    n=$(cat "$d/netem" 2>/dev/null || true)
    state=ok
    if [[ ! -d $d ]]; then
      state="partial(no-state-dir)"
    elif [[ $h =~ ^[0-9]+$ ]] && ((nss != h + 2)); then
      state="partial($nss/$((h + 2))-namespaces)"
    elif [[ ! -f $d/mpirun-args ]]; then
      state="partial(incomplete)"
    fi
    owner=$(bed_owner "$b")
    cores=shared
    [[ -f $d/cores ]] && cores=own
    printf '%s hosts=%s slots=%s netem="%s" cores=%s state=%s owner=%s\n' "$b" "$h" "$s" "$n" "$cores" "$state" "${owner:--}"
  done < <(all_beds)
}

main() {
  [[ $# -ge 1 ]] || { usage >&2; exit 2; }
  local cmd=$1
  shift
  case $cmd in
    check) cmd_check "$@" ;;
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    list) cmd_list "$@" ;;
    run) cmd_run "$@" ;;
    -h|--help|help) usage ;;
    *) usage_error "unknown command '$cmd'" ;;
  esac
}

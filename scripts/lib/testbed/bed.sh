# shellcheck shell=bash
# scripts/testbed: making a bed and removing it, with every process left inside.
# Everything a bed creates is named after it, so removal finds it even after a crash.
# Sourced by scripts/testbed after its constants, msg, die and usage_error.

# ---------------------------------------------------------------------------
# Removing beds

# PIDs of this process and its ancestors: never kill those, in case `down`
# is itself run from inside a bed (e.g. via exec-head).
self_and_ancestors() {
  local p=$$
  echo "$BASHPID"
  while [[ -n $p && $p -gt 1 ]]; do
    echo "$p"
    p=$(awk '/^PPid:/{print $2}' "/proc/$p/status" 2>/dev/null) || break
  done
}

# Start time of process $1 (field 22 of /proc/PID/stat), to tell a live
# owner from an unrelated process that reused its pid.
proc_start() {
  local stat
  local -a fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  read -r -a fields <<<"${stat##*) }"
  echo "${fields[19]}"
}

# PID of the live process that created bed $1 and has not finished with it
# (a running `up` or `run`), or nothing.
bed_owner() {
  local pid start
  read -r pid start 2>/dev/null <"$STATE_ROOT/$1/owner" || return 0
  [[ $pid =~ ^[0-9]+$ && -n $start ]] || return 0
  [[ $(proc_start "$pid" 2>/dev/null) == "$start" ]] && echo "$pid"
  return 0
}

# PIDs of all processes with at least one thread in one of the namespaces
# $@.  Not `ip netns pids`: that looks only at /proc/PID/ns/net, which is
# unreadable once a process's main thread has exited while other threads run
# on -- exactly the state a multi-threaded orted or mpirun is in while it
# shuts down, so such processes would escape the teardown.
# Never lists this script or its ancestors; and when this script itself runs
# inside one of the namespaces (`down` called through exec-head), not its own
# descendants either: those are its helper processes (find, subshells).
ns_pids() {
  local ns ino keep self_ns inos=" "
  local -a found=()
  for ns in "$@"; do
    ino=$(stat -L -c %i "/run/netns/$ns" 2>/dev/null) && inos+="net:[$ino] "
  done
  [[ $inos == " " ]] && return 0
  keep=" $(self_and_ancestors | tr '\n' ' ') "
  # Lines: /proc/PID/task/TID/ns/net net:[INODE]
  mapfile -t found < <(
    find /proc/[0-9]*/task/[0-9]*/ns/net -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
      while read -r path link; do
        [[ $inos == *" $link "* ]] || continue
        path=${path#/proc/}
        path=${path%%/*}
        [[ $keep == *" $path "* ]] || echo "$path"
      done | sort -un
  )
  [[ ${#found[@]} -eq 0 ]] && return 0
  self_ns=$(readlink /proc/$$/ns/net 2>/dev/null || true)
  if [[ -n $self_ns && $inos == *" $self_ns "* ]]; then
    # Keep what still exists and is not a descendant of this script.
    ps -e -o pid=,ppid= 2>/dev/null |
      awk -v me=$$ -v want=" ${found[*]} " '
        { parent[$1] = $2 }
        END {
          for (p in parent) {
            if (index(want, " " p " ") == 0) continue
            q = p; mine = 0
            while (q > 1 && (q in parent)) { if (q == me) { mine = 1; break }; q = parent[q] }
            if (!mine) print p
          }
        }' | sort -n
  else
    printf '%s\n' "${found[@]}"
  fi
}

# TERM everything in the namespaces (mpirun and orted then get a chance to
# clean their session directories), then KILL what is left.
kill_ns_procs() {
  local -a pids
  local i sig
  for sig in TERM KILL KILL; do
    mapfile -t pids < <(ns_pids "$@")
    [[ ${#pids[@]} -eq 0 ]] && return 0
    kill -s "$sig" "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
      sleep 0.1
      [[ -z $(ns_pids "$@") ]] && return 0
    done
  done
  msg "warning: processes still alive in bed namespaces: $(ns_pids "$@" | tr '\n' ' ')"
}

# Remove every piece of bed $1 that exists.  Never fails.
teardown() {
  local name=$1 ns link
  local -a nss
  mapfile -t nss < <(bed_namespaces "$name")
  if [[ ${#nss[@]} -gt 0 ]]; then
    kill_ns_procs "${nss[@]}"
    for ns in "${nss[@]}"; do
      ip netns del "$ns" 2>/dev/null || true
    done
  fi
  # Never created by this script (see the header), swept for robustness.
  while read -r link; do
    [[ -n $link ]] && { ip link del "$link" 2>/dev/null || true; }
  done < <(ip -o link show type veth 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}' |
           grep -E "^${name}(h(0|[1-9][0-9]*)|hd|head|sw)\$" || true)
  for ns in /etc/netns/"$name"-*; do
    [[ -e $ns && ${ns##*/} =~ ^${name}-(sw|head|h(0|[1-9][0-9]*))$ ]] && rm -rf -- "$ns"
  done
  rmdir /etc/netns 2>/dev/null || true
  rm -rf -- "${STATE_ROOT:?}/$name"
  rmdir "$STATE_ROOT" 2>/dev/null || true
  return 0
}

# ---------------------------------------------------------------------------
# Creating a bed

# Globals describing the bed being built/used; BED_OWNED=1 while this process
# is responsible for tearing it down.
BED_NAME=
BED_DIR=
BED_OWNED=0
BED_CREATING=0
CHILD_PID=
SHAPER=none
SHAPE_ERR=

# Create the state directory of bed $1; mkdir is atomic, so two concurrent
# `up`s can never get the same bed.  Returns 1 if it exists already.  (The
# retry covers a concurrent `down` removing an empty $STATE_ROOT in between.)
make_state_dir() {
  local i
  for ((i = 0; i < 5; i++)); do
    mkdir -p "$STATE_ROOT" 2>/dev/null || true
    mkdir "$STATE_ROOT/$1" 2>/dev/null && return 0
    [[ -e $STATE_ROOT/$1 ]] && return 1
  done
  die "cannot create $STATE_ROOT/$1"
}

claim_name() {
  local want=$1 tries
  if [[ -n $want ]]; then
    if [[ -n $(bed_namespaces "$want") ]] || ! make_state_dir "$want"; then
      die "a test bed named '$want' already exists (scripts/testbed down $want)"
    fi
    BED_NAME=$want
  else
    for ((tries = 0; tries < 50; tries++)); do
      want=hb$(rand_hex6)
      [[ -n $(bed_namespaces "$want") ]] && continue
      make_state_dir "$want" || continue
      BED_NAME=$want
      break
    done
    [[ -n $BED_NAME ]] || die "could not find a free test bed name"
  fi
  BED_DIR=$STATE_ROOT/$BED_NAME
  BED_OWNED=1
  # Lets `down --all` tell a bed in use (its `up` still building it, its
  # `run` still running) from one left behind.
  echo "$$ $(proc_start $$)" >"$BED_DIR/owner"
}

# Build bed BED_NAME from HOSTS, SLOTS, NETEM_ARGS.  Any failure exits; the
# caller's EXIT trap removes the partial bed.
create_bed() {
  local sw=$BED_NAME-sw head=$BED_NAME-head ns i hostsfile
  local -a nodes=("$head")
  for ((i = 0; i < HOSTS; i++)); do nodes+=("$BED_NAME-h$i"); done

  step ip netns add "$sw"
  step ip -n "$sw" link set lo up
  # STP stays off (the default): ports forward at once, no 15 s listening.
  step ip -n "$sw" link add br0 type bridge
  step ip -n "$sw" link set br0 up

  new_node_ns "$head"
  plug "$head" head "$HEAD_ADDR"
  for ((i = 0; i < HOSTS; i++)); do
    new_node_ns "$BED_NAME-h$i"
    plug "$BED_NAME-h$i" "h$i" "$SUBNET.$((HOST_ADDR_BASE + i))"
  done

  # `ip netns exec NS` bind-mounts /etc/netns/NS/hosts over /etc/hosts, so
  # every node resolves every name of the bed (and nothing else).
  hostsfile=$(
    printf '127.0.0.1\tlocalhost\n'
    printf '%s\t%s\n' "$HEAD_ADDR" "$head"
    for ((i = 0; i < HOSTS; i++)); do
      printf '%s\t%s\n' "$SUBNET.$((HOST_ADDR_BASE + i))" "$BED_NAME-h$i"
    done
  )
  for ns in "${nodes[@]}"; do
    mkdir -p "/etc/netns/$ns"
    printf '%s\n' "$hostsfile" >"/etc/netns/$ns/hosts"
  done

  SHAPER=none
  if [[ ${#NETEM_ARGS[@]} -gt 0 ]]; then
    for ns in "${nodes[@]}"; do
      apply_shaping "$ns" "${NETEM_ARGS[@]}" ||
        die "creating test bed $BED_NAME: --netem \"${NETEM_ARGS[*]}\" on $ns: $SHAPE_ERR"
    done
  fi

  # --slots is one count for every host or a list with one count per host ("3,2,1").
  local -a per_host
  IFS=, read -r -a per_host <<<"$SLOTS"
  for ((i = 0; i < HOSTS; i++)); do
    printf '%s slots=%s\n' "$BED_NAME-h$i" "${per_host[${#per_host[@]} == 1 ? 0 : i]}"
  done >"$BED_DIR/hostfile"
  if [[ $OWN_CORES -eq 1 ]]; then
    command -v taskset >/dev/null 2>&1 || die "creating test bed $BED_NAME: --own-cores needs 'taskset' (util-linux)"
    host_cores >"$BED_DIR/cores" || die "creating test bed $BED_NAME: --own-cores: cannot read the cores this process may use"
  fi
  write_agent
  write_exec_head
  # Extra mpirun arguments, one per line.
  #  - plm rsh: the launcher that starts orted through an agent, whatever the
  #    environment says (container images of Open MPI often set
  #    OMPI_MCA_plm=isolated, with which mpirun launches nothing remote and
  #    answers "All nodes which are allocated for this job are already
  #    filled"; seen on a GPU machine, session 34).
  #  - plm_rsh_agent: our agent instead of ssh.
  #  - btl self,vader,tcp + *_if_include eth0: shared memory inside a host,
  #    TCP over the bed's network between hosts, never loopback/other nets.
  #  - Open MPI 5 (its runtime is PRRTE 3.0): the launcher is called ssh
  #    (plm rsh is "not found" there), its agent plm_ssh_agent, and shared
  #    memory btl/sm (vader is its old name).
  # Nothing else is needed.  In particular not plm_rsh_no_tree_spawn: with
  # Open MPI 4.1's default routed radix (64) mpirun starts every orted of a
  # <= 32-host bed itself, and a forced tree (--mca routed_radix 1), where
  # orteds run the agent from inside host namespaces, was tested to work too.
  local plm=rsh sm=vader
  if [[ $(ompi_major) -ge 5 ]]; then plm=ssh sm=sm; fi
  printf '%s\n' \
    --hostfile "$BED_DIR/hostfile" \
    --mca plm "$plm" \
    --mca "plm_${plm}_agent" "$BED_DIR/agent" \
    --mca btl "self,$sm,tcp" \
    --mca btl_tcp_if_include eth0 \
    --mca oob_tcp_if_include eth0 >"$BED_DIR/mpirun-args"
  echo "$HOSTS" >"$BED_DIR/hosts"
  echo "$SLOTS" >"$BED_DIR/slots"
  printf '%s\n' "${NETEM_ARGS[*]}" >"$BED_DIR/netem"
  echo "$SHAPER" >"$BED_DIR/shaper"

  local shaping=none
  [[ $SHAPER != none ]] && shaping="$SHAPER ${NETEM_ARGS[*]} (on every eth0)"
  msg "bed $BED_NAME up: $HOSTS host(s) x $SLOTS slot(s)"
  msg "  head  $head  $HEAD_ADDR"
  msg "  hosts $BED_NAME-h0 .. $BED_NAME-h$((HOSTS - 1))  $SUBNET.$HOST_ADDR_BASE .. $SUBNET.$((HOST_ADDR_BASE + HOSTS - 1))"
  msg "  shaping: $shaping"
  if [[ $OWN_CORES -eq 1 ]]; then
    msg "  cores: own, host by host: $(paste -sd' ' "$BED_DIR/cores")"
  else
    msg "  cores: shared (the kernel places every rank)"
  fi
  msg "  state $BED_DIR"
  msg "  use: $BED_DIR/exec-head mpirun \$(cat $BED_DIR/mpirun-args) -np N CMD"
}

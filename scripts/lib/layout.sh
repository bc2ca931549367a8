# The layouts that scripts/compare, scripts/ocean and scripts/tune take, parsed in one place.
# Source it after common.sh.
#
#   nodeN                one node of N ranks
#   virtualAxB           A virtual nodes of B ranks on this machine (HBCAST_NODE_SIZES)
#   virtualS0,S1,..      virtual nodes of these sizes, e.g. virtual8,3,3
#   testbedHxS           H network-namespace hosts of S ranks each (scripts/testbed)
#   testbedHxS0,S1,..    H hosts of S0, S1, .. ranks, e.g. testbed3x4,2,2
#   testbed...-rr        ranks dealt round-robin over the hosts, as mpirun --map-by node does
#                        (a topology-unaware tree then crosses the network on almost every edge)
#
# parse_layout LAYOUT sets LAYOUT_NP (ranks), LAYOUT_NODES (virtual node sizes, or empty),
# LAYOUT_BED_HOSTS and LAYOUT_BED_SLOTS (a test bed's hosts and slots, or empty) and LAYOUT_MAP
# (node for round-robin placement, or empty); it dies naming the problem on a bad layout.
# layout_bed_up RATE brings the layout's test bed up (links shaped to RATE unless it is empty),
# tears it down on exit, and sets LAYOUT_PLACE, the scripts/hbrun options that put ranks on the layout.
# Each host runs on cores of its own (scripts/testbed --own-cores) where the machine has a core for
# every host: as on separate machines, a rank of one host never waits for a rank of another to give
# up a core. Where hosts outnumber the cores they share them all (so that no core carries two hosts
# while another carries one). HBCAST_BED_CORES=shared (or own) overrides.

parse_layout() {
  local text=$1 sizes i n
  LAYOUT_NP="" LAYOUT_NODES="" LAYOUT_BED_HOSTS="" LAYOUT_BED_SLOTS="" LAYOUT_MAP="" LAYOUT_PLACE=()
  if [[ "$text" =~ ^node([1-9][0-9]*)$ ]]; then
    LAYOUT_NP=${BASH_REMATCH[1]}
  elif [[ "$text" =~ ^virtual([1-9][0-9]*)x([1-9][0-9]*)$ ]]; then
    sizes=${BASH_REMATCH[2]}
    for ((i = 1; i < BASH_REMATCH[1]; i++)); do sizes+=",${BASH_REMATCH[2]}"; done
    LAYOUT_NODES=$sizes
  elif [[ "$text" =~ ^virtual([1-9][0-9]*(,[1-9][0-9]*)+)$ ]]; then
    LAYOUT_NODES=${BASH_REMATCH[1]}
  elif [[ "$text" =~ ^testbed([1-9][0-9]*)x([1-9][0-9]*(,[1-9][0-9]*)*)(-rr)?$ ]]; then
    LAYOUT_BED_HOSTS=${BASH_REMATCH[1]}
    LAYOUT_BED_SLOTS=${BASH_REMATCH[2]}
    [ -z "${BASH_REMATCH[4]}" ] || LAYOUT_MAP=node
    IFS=, read -r -a sizes <<<"$LAYOUT_BED_SLOTS"
    if [ ${#sizes[@]} -gt 1 ] && [ ${#sizes[@]} -ne "$LAYOUT_BED_HOSTS" ]; then
      die "layout '$text' names $LAYOUT_BED_HOSTS hosts but ${#sizes[@]} slot counts (${LAYOUT_BED_SLOTS}): give one per host, or one for all"
    fi
    if [ ${#sizes[@]} -eq 1 ]; then
      LAYOUT_NP=$(( LAYOUT_BED_HOSTS * sizes[0] ))
    else
      LAYOUT_NP=0
      for n in "${sizes[@]}"; do LAYOUT_NP=$(( LAYOUT_NP + n )); done
    fi
    if [ -n "$LAYOUT_MAP" ] && [ ${#sizes[@]} -gt 1 ]; then
      die "layout '$text': round-robin placement (-rr) takes even hosts (testbedHxS-rr)"
    fi
  else
    die "layout '$text' is none of nodeN, virtualAxB, virtualS0,S1,.., testbedHxS, testbedHxS0,S1,.. or testbed...-rr (e.g. node4, virtual2x2, testbed3x4,2,2, testbed4x2-rr)"
  fi
  if [ -n "$LAYOUT_NODES" ]; then
    LAYOUT_NP=$(( ${LAYOUT_NODES//,/+} ))
    LAYOUT_PLACE=(--nodes "$LAYOUT_NODES")
  fi
  return 0
}

# Tears down the bed layout_bed_up made, if any (an EXIT trap; a script with a trap of its own calls it there).
layout_bed_down() {
  [ -z "${LAYOUT_BED:-}" ] || "$HBCAST_ROOT/scripts/testbed" down "$LAYOUT_BED" >/dev/null 2>&1 || true
}

# Whether the parsed layout is a test bed.
layout_is_bed() { [ -n "$LAYOUT_BED_HOSTS" ]; }

layout_bed_up() {
  local rate=${1:-} netem=()
  layout_is_bed || { [ -z "$rate" ] || die "--rate $rate shapes a test bed's links: give a testbed layout"; return 0; }
  [ -z "$rate" ] || netem=(--netem "rate $rate")
  local cores=()
  case "${HBCAST_BED_CORES:-auto}" in
    own) cores=(--own-cores) ;;
    shared) ;;
    auto) [ "$LAYOUT_BED_HOSTS" -gt "$(nproc)" ] || cores=(--own-cores) ;;
    *) die "HBCAST_BED_CORES must be own, shared or auto, not '$HBCAST_BED_CORES'" ;;
  esac
  LAYOUT_BED=$("$HBCAST_ROOT/scripts/testbed" up --hosts "$LAYOUT_BED_HOSTS" --slots "$LAYOUT_BED_SLOTS" "${netem[@]}" "${cores[@]}" | tail -n 1)
  trap layout_bed_down EXIT
  trap 'exit 130' INT TERM
  LAYOUT_PLACE=(--testbed "$LAYOUT_BED")
  [ -z "$LAYOUT_MAP" ] || LAYOUT_PLACE+=(--map-by "$LAYOUT_MAP")
}

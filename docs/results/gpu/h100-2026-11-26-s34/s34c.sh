#!/usr/bin/env bash
# Session 34, third run: why the beds' mpirun found its nodes filled, then the beds again with
# rmaps_base_oversubscribe (the hostfile's slots still place the ranks).
B=$PWD/dist/hbcast-bundle
O=${OUT:-/tmp/s34c}; mkdir -p "$O"
export OMPI_MCA_btl_vader_single_copy_mechanism=none PATH=$PWD/dist/exp/iproute/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
env | grep -iE 'slurm|pbs|ompi|prte|lsf|sge' > "$O/debug.txt"
timeout 40 scripts/testbed run --hosts 3 --slots 4,2,2 -- bash -c '
  cat $HBCAST_TESTBED_DIR/hostfile
  $HBCAST_TESTBED_DIR/exec-head '"$B"'/openmpi/bin/mpirun --allow-run-as-root $(cat $HBCAST_TESTBED_DIR/mpirun-args) --display-allocation -np 8 hostname
  $HBCAST_TESTBED_DIR/exec-head '"$B"'/openmpi/bin/mpirun --allow-run-as-root $(cat $HBCAST_TESTBED_DIR/mpirun-args) --mca rmaps_base_oversubscribe 1 -np 8 hostname' >> "$O/debug.txt" 2>&1
export B U=org.hbcast.bench.UserProbe
X="--mca rmaps_base_oversubscribe 1"; export X
bed() { local f=$1 lim=$2; shift 2; echo "## t=$(el) s: bed $*" >> "$O/$f"
  timeout -k 10 "$lim" "$PWD/scripts/testbed" run "$@" >> "$O/$f" 2>&1; echo "## exit $? t=$(el) s" >> "$O/$f"; }
bed bed422.txt 130 --hosts 3 --slots 4,2,2 --netem "rate 1gbit" -- bash -c '
  "$B/bin/hbrun" -n 8 $X org.hbcast.bench.LinkProbe 2>&1 | grep "^#"
  HBCAST_CACHE_DIR=$(mktemp -d) "$B/bin/hbrun" -n 8 $X $U -m 65536:16777216 --impl mpi,auto,mpi --blocks 5 --cold 0 2>&1 | grep -vE "^hbrun:|^\s*$" | cut -c1-220'
bed bed8x1.txt 80 --hosts 8 --slots 1 --netem "rate 1gbit" -- bash -c '
  "$B/bin/hbrun" -n 8 $X org.hbcast.bench.LinkProbe 2>&1 | grep "^#"
  HBCAST_CACHE_DIR=$(mktemp -d) "$B/bin/hbrun" -n 8 $X $U -m 4194304:8388608 --impl mpi,auto,mpi --blocks 5 --cold 0 2>&1 | grep -vE "^hbrun:|^\s*$" | cut -c1-220'
ls /dev/shm > "$O/shm-after.txt"; echo "done t=$(el) s" >> "$O/debug.txt"

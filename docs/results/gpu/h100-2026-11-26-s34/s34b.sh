#!/usr/bin/env bash
# Session 34, H100 machine's 16 cores: issue 25's user-style probe (host memory) on one node x 4 and
# virtual 2+2 at 1 B-64 MiB, and the shaped test beds 4+2+2 and 8x1 (1 Gbit/s) of issue 27, where
# no rank shares a core. Every step bounded; output kept as it comes.
B=$PWD/dist/hbcast-bundle
O=${OUT:-/tmp/s34}; mkdir -p "$O"
export OMPI_MCA_btl_vader_single_copy_mechanism=none
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
{ date -u; nproc; grep PRETTY /etc/os-release; uname -r; head -1 "$B/BUNDLE.txt"; } > "$O/machine.txt" 2>&1
probe() { # probe FILE LIMIT CONFIG-MCA... -- hbrun args
  local f=$1 lim=$2; shift 2
  echo "## t=$(el) s: $*" >> "$O/$f"
  HBCAST_CACHE_DIR=$(mktemp -d) timeout -k 5 "$lim" "$B/bin/hbrun" "$@" 2>&1 | grep -vE '^hbrun:|^\s*$' | cut -c1-220 >> "$O/$f"
  echo "## exit ${PIPESTATUS[0]} t=$(el) s" >> "$O/$f"
}
U=org.hbcast.bench.UserProbe
# 1. virtual 2+2 (one node x 4 ran in the first run): tuned beside auto, hbcast's plans, knomial, adapt
P="-n 4 --nodes 2,2"
probe node2x2.txt 100 $P $U -m 1:67108864 --impl mpi,auto,mpi
probe node2x2.txt 120 $P $U -m 1:67108864 --impl auto,native,knomial,hierarchical/ring,hierarchical/fanout,auto --blocks 5 --cold 0
probe node2x2.txt 60 $P --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 7 $U -m 1:67108864 --impl mpi,auto,mpi --blocks 5 --cold 0
probe node2x2.txt 60 $P --mca coll_adapt_priority 100 $U -m 1:67108864 --impl mpi,auto,mpi --blocks 5 --cold 0
export PATH=$PWD/dist/exp/iproute/bin:$PATH
# 2. shaped beds (htb 1 Gbit/s on every host link); the link bound first
bed() { # bed FILE LIMIT testbed-args -- command
  local f=$1 lim=$2; shift 2
  echo "## t=$(el) s: bed $*" >> "$O/$f"
  timeout -k 10 "$lim" "$PWD/scripts/testbed" run "$@" >> "$O/$f" 2>&1
  echo "## exit $? t=$(el) s" >> "$O/$f"
}
export B U
bed bed422.txt 150 --hosts 3 --slots 4,2,2 --netem "rate 1gbit" -- bash -c '
  "$B/bin/hbrun" -n 8 org.hbcast.bench.LinkProbe 2>&1 | grep "^#"
  HBCAST_CACHE_DIR=$(mktemp -d) "$B/bin/hbrun" -n 8 $U -m 65536:16777216 --impl mpi,auto,mpi --blocks 5 2>&1 | grep -vE "^hbrun:|^\s*$" | cut -c1-220'
bed bed8x1.txt 110 --hosts 8 --slots 1 --netem "rate 1gbit" -- bash -c '
  "$B/bin/hbrun" -n 8 org.hbcast.bench.LinkProbe 2>&1 | grep "^#"
  HBCAST_CACHE_DIR=$(mktemp -d) "$B/bin/hbrun" -n 8 $U -m 4194304:8388608 --impl mpi,auto,mpi --blocks 5 --cold 0 2>&1 | grep -vE "^hbrun:|^\s*$" | cut -c1-220'
# 3. gpu-test at this head, in the time left
export CUDA_VISIBLE_DEVICES=0
lim=$(( 470 - $(el) )); [ $lim -gt 60 ] && HBCAST_REQUIRE_GPU=1 timeout -k 5 $lim "$B/bin/gpu-test" > "$O/gpu-test.txt" 2>&1; echo "## gpu-test exit $? t=$(el) s" >> "$O/gpu-test.txt"
ls /dev/shm > "$O/shm-after.txt"
echo "done t=$(el) s" >> "$O/machine.txt"

#!/usr/bin/env bash
# Third H100 run: waits that yield before parking where every rank has a core (new default) against
# parking after 20 yields (-Dhbcast.wait.yields=20, the old policy), same run, device and host memory.
B=$PWD/dist/hbcast-bundle
export OMPI_MCA_btl_vader_single_copy_mechanism=none CUDA_VISIBLE_DEVICES=0
t0=$(date +%s)
o() { timeout 60 "$B/bin/osu-bcast" "$@" 2>&1 | grep -E "^[0-9]|rror|xception" | cut -c1-200; }
for y in new 20; do
  export HBCAST_JVM_OPTS=$([ $y = new ] || echo -Dhbcast.wait.yields=$y)
  echo "## device 2+2, yields $y: staged,hierarchical,staged"
  o -n 4 --nodes 2,2 -- -d cuda --impl staged,hierarchical,staged -m 1048576:16777216 -i 30 -x 5 -f
  echo "## device one node, yields $y"
  o -n 4 -- -d cuda --impl staged,hierarchical,staged -m 1048576:16777216 -i 30 -x 5 -f
done
echo "## t=$(( $(date +%s) - t0 )) s"
for y in new 20; do
  export HBCAST_JVM_OPTS=$([ $y = new ] || echo -Dhbcast.wait.yields=$y)
  for nodes in "" 2,2; do
    echo "## host memory, UserProbe, nodes ${nodes:-one} x4, yields $y"
    HBCAST_CACHE_DIR=$(mktemp -d) timeout 75 "$B/bin/hbrun" -n 4 ${nodes:+--nodes $nodes} org.hbcast.bench.UserProbe \
      -m 1024:16777216 --impl mpi,auto,mpi --blocks 5 2>&1 | grep -vE "^hbrun:|^\s*$" | cut -c1-160 | tail -16
    echo "## t=$(( $(date +%s) - t0 )) s"
  done
done
ls /dev/shm | head -3

#!/usr/bin/env bash
# Second H100 run: is virtual 2+2's slowdown at 2-16 MiB (hierarchical 0.34-0.61 of staged) noise or the plan?
B=$PWD/dist/hbcast-bundle
export OMPI_MCA_btl_vader_single_copy_mechanism=none CUDA_VISIBLE_DEVICES=0
o() { timeout 70 "$B/bin/osu-bcast" -n 4 --nodes 2,2 -- -d cuda "$@" 2>&1 | grep -E "^[0-9]|^# Size|rror|xception" | cut -c1-220; }
for r in 1 2; do
  echo "## round $r: staged,hierarchical,staged"
  o --impl staged,hierarchical,staged -m 1048576:16777216 -i 30 -x 5 -f
  echo "## round $r: hierarchical with inter knomial / chain"
  o --impl hierarchical/ring/knomial,hierarchical/ring/chain -m 1048576:16777216 -i 30 -x 5 -f
done
echo "## one node, staged,hierarchical,staged"
timeout 70 "$B/bin/osu-bcast" -n 4 -- -d cuda --impl staged,hierarchical,staged -m 1048576:16777216 -i 30 -x 5 -f 2>&1 | grep -E "^[0-9]|rror|xception" | cut -c1-220
ls /dev/shm | head -3

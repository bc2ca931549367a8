#!/usr/bin/env bash
# Session 34, fourth run: the shaped beds at 4 MiB only, with the rsh launcher (the machine's
# environment sets OMPI_MCA_plm=isolated) and no oversubscription flag; output line by line.
B=$PWD/dist/hbcast-bundle
O=${OUT:-/tmp/s34d}; mkdir -p "$O"
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_plm=rsh PATH=$PWD/dist/exp/iproute/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
export B U=org.hbcast.bench.UserProbe
bed() { local f=$1 lim=$2; shift 2; echo "## t=$(el) s: bed $*" >> "$O/$f"
  timeout -k 10 "$lim" "$PWD/scripts/testbed" run "$@" >> "$O/$f" 2>&1; echo "## exit $? t=$(el) s" >> "$O/$f"; }
P='"$B/bin/hbrun" -n 8 org.hbcast.bench.LinkProbe 2>&1 | grep --line-buffered "^#"
  HBCAST_CACHE_DIR=$(mktemp -d) "$B/bin/hbrun" -n 8 $U -m 4194304:4194304 --impl mpi,auto,mpi --blocks 5 --cold 0 2>&1 | grep --line-buffered -vE "^hbrun:|^\s*$"'
bed bed422.txt 60 --hosts 3 --slots 4,2,2 --netem "rate 1gbit" -- bash -c "$P"
bed bed8x1.txt 90 --hosts 8 --slots 1 --netem "rate 1gbit" -- bash -c "$P"
echo "done t=$(el) s" >> "$O/bed8x1.txt"

### run 1 (runs 1 and 2)
#!/usr/bin/env bash
# One GPU lease: system facts, bin/gpu-test (must not pass silently), then bin/gpu-bench.
B=$PWD/dist/hbcast-bundle
export OMPI_MCA_btl_vader_single_copy_mechanism=none
{ date -u; uname -a; grep PRETTY /etc/os-release; ldd --version | head -1; nproc; free -g | head -2;
  nvidia-smi; nvidia-smi topo -m; df -h /dev/shm /tmp; ls /dev/nvidia* ; } > $OUT/sys.txt 2>&1
t0=$(date +%s)
HBCAST_REQUIRE_GPU=1 timeout -k 5 ${T1:-250} "$B/bin/gpu-test" > $OUT/gpu-test.log 2>&1
echo "gpu-test rc $? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/gpu-test.log
t1=$(date +%s)
timeout -k 5 ${T2:-170} "$B/bin/gpu-bench" $OUT/bench > $OUT/gpu-bench.out 2>&1
echo "gpu-bench rc $? after $(( $(date +%s) - t1 )) s" | tee -a $OUT/gpu-bench.out
grep -E "gpu-test:|Tests|tests (successful|failed|aborted)" $OUT/gpu-test.log | tail -20
tail -40 $OUT/gpu-bench.out
ls /dev/shm | head
### run 2 (run 3)
#!/usr/bin/env bash
B=$PWD/dist/hbcast-bundle
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export CUDA_VISIBLE_DEVICES=0
t0=$(date +%s)
HBCAST_REQUIRE_GPU=1 timeout -k 5 150 "$B/bin/gpu-test" > $OUT/gpu-test.log 2>&1
echo "gpu-test rc $? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/gpu-test.log
grep -E "^gpu-test:" $OUT/gpu-test.log
{
for m in 67108864 1048576; do timeout 60 "$B/bin/hbrun" -n 2 org.hbcast.bench.gpu.IpcMapCost -m $m -i 50 2>&1 | grep -v "^hbrun:"; done
for c in 0 4194304 16777216; do for n in 2 4 8; do
  echo "## chunk $c ranks $n"
  env $([ $c = 0 ] || echo HBCAST_CHUNK_BYTES=$c) timeout 60 "$B/bin/ring-bandwidth" $n -m 67108864 -i 20 -x 3 2>&1 | grep -E "^[0-9]|rror|xception" | head -5
done; done
echo "## osu one node, default chunk"
timeout 90 "$B/bin/osu-bcast" -n 4 -- -d cuda --impl staged,hierarchical -m 1048576:268435456 -i 20 -x 3 -f 2>&1 | grep -v "^hbrun:"
echo "## osu one node, chunk 4 MiB"
HBCAST_CHUNK_BYTES=4194304 timeout 90 "$B/bin/osu-bcast" -n 4 -- -d cuda --impl staged,hierarchical -m 1048576:67108864 -i 20 -x 3 -f 2>&1 | grep -E "^[0-9#]"
echo "## osu 2x2, default chunk"
timeout 90 "$B/bin/osu-bcast" -n 4 --nodes 2,2 -- -d cuda --impl staged,hierarchical -m 1048576:268435456 -i 20 -x 3 -f 2>&1 | grep -E "^[0-9#]"
} > $OUT/bench.log 2>&1
echo "total $(( $(date +%s) - t0 )) s"
cat $OUT/bench.log | cut -c1-200
ls /dev/shm | head
### run 3 (run 4)
#!/usr/bin/env bash
B=$PWD/dist/hbcast-bundle
export OMPI_MCA_btl_vader_single_copy_mechanism=none CUDA_VISIBLE_DEVICES=0
t0=$(date +%s)
{
for m in 1048576 16777216; do timeout 60 "$B/bin/hbrun" -n 2 org.hbcast.bench.gpu.IpcMapCost -m $m -i 50 2>&1 | grep -E "^#|rror|xception"; done
osu() { timeout 60 "$B/bin/osu-bcast" -n 4 -- -d cuda --impl staged,hierarchical -m 1048576:16777216 -i 20 -x 3 -f 2>&1 | grep -E "^[0-9]|rror|xception" | head -12; }
echo "## slots, chunk 1 MiB"; HBCAST_JVM_OPTS=-Dhbcast.device.directMinBytes=1073741824 osu
echo "## slots, chunk 4 MiB"; HBCAST_CHUNK_BYTES=4194304 HBCAST_JVM_OPTS=-Dhbcast.device.directMinBytes=1073741824 osu
echo "## direct, chunk 16 MiB"; HBCAST_CHUNK_BYTES=16777216 osu
for n in 2 4; do echo "## ring slots chunk 16M ranks $n"
HBCAST_CHUNK_BYTES=16777216 HBCAST_JVM_OPTS=-Dhbcast.device.directMinBytes=1073741824 timeout 60 "$B/bin/ring-bandwidth" $n -m 67108864 -i 20 -x 3 2>&1 | grep -E "^[0-9]|rror|xception" | head -5; done
} > $OUT/bench3.log 2>&1
echo "total $(( $(date +%s) - t0 )) s"
cut -c1-220 $OUT/bench3.log
### run 4 (run 5)
#!/usr/bin/env bash
B=$PWD/dist/hbcast-bundle
export OMPI_MCA_btl_vader_single_copy_mechanism=none CUDA_VISIBLE_DEVICES=0
t0=$(date +%s)
HBCAST_REQUIRE_GPU=1 timeout -k 5 170 "$B/bin/gpu-test" > $OUT/gpu-test.log 2>&1
echo "gpu-test rc $? after $(( $(date +%s) - t0 )) s" | tee -a $OUT/gpu-test.log
grep -E "^gpu-test:|ring/d2d|^[0-9]" $OUT/gpu-test.log
t1=$(date +%s)
timeout -k 5 150 "$B/bin/gpu-bench" $OUT/bench > $OUT/gpu-bench.out 2>&1
echo "gpu-bench rc $? after $(( $(date +%s) - t1 )) s"
grep -E "^[0-9]|^# Size|ranks per node" $OUT/gpu-bench.out
{ for d in 1073741824 1048576; do echo "## directMin $d, chunk 4 MiB"
HBCAST_JVM_OPTS=-Dhbcast.device.directMinBytes=$d timeout 60 "$B/bin/osu-bcast" -n 4 -- -d cuda --impl staged,hierarchical -m 8388608:268435456 -i 20 -x 3 -f 2>&1 | grep -E "^[0-9]|rror|xception" | head -12; done; } > $OUT/cross.log 2>&1
cat $OUT/cross.log; echo "total $(( $(date +%s) - t0 )) s"

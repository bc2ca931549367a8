package org.hbcast;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.call.ElementType;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.support.Broadcasts;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Broadcasts GPU buffers and checks every one: the root fills its device buffer with a pattern that
 * depends on the call, the others fill theirs with a sentinel, and after the call every rank copies
 * its buffer back to the host and compares it byte by byte with the pattern, guard zone included.
 * Arguments are {@code key=value}:
 * <ul>
 *   <li>{@code suite=matrix} (default): counts 0, 1, 7, chunk-1, chunk, chunk+1, 3 chunks + 17, around
 *       the direct-mode threshold and 32 MiB + 5 bytes, BYTE and DOUBLE, every root; two buffers in turn;</li>
 *   <li>{@code suite=random}: {@code calls} back-to-back calls, random roots, sizes, buffers and algorithms;</li>
 *   <li>{@code suite=allocation}: bytes the JVM allocates per device call after warm-up (the thread's
 *       allocation counter), through the slots (64 KiB) and buffer to buffer (2 MiB), for each algorithm;
 *       fails above {@code maxPerCall} bytes per call;</li>
 *   <li>{@code algorithms=hierarchical,knomial,native}, {@code roots=all|ends}, {@code large=yes|no}.</li>
 * </ul>
 * The IPC mappings are checked too: a neighbour's buffer is mapped for its call only (its owner may
 * free it on return), so after each call none is held, and a call opens at most one handle.
 * Every checked broadcast is a case, so is each algorithm's mapping check (figure {@code ipcOpens <algorithm>}).
 */
public final class DeviceBcastProgram {
    private static final int MIB = 1 << 20;
    private static final int GUARD = 64;
    private static final byte SENTINEL = (byte) 0xA5;

    /**
     * Hierarchical broadcasts this rank verified byte for byte, by the path the CUDA ring took: slot
     * mode (below {@link org.hbcast.transport.cuda.CudaRingMember#DIRECT_MIN_BYTES}), direct mode, and
     * across virtual nodes, where the leaders stage chunks through the host. scripts/gpu-test prints them.
     */
    private static final long[] VERIFIED = new long[3];

    static final String[] PATHS = {"slot", "direct", "virtual-nodes-staged"};

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            Map<String, String> opt = Broadcasts.parse(rest);
            if (!CudaDevices.get().available()) {
                throw new IllegalStateException(
                        "no CUDA device: " + CudaDevices.get().unavailableReason());
            }
            String summary = switch (opt.getOrDefault("suite", "matrix")) {
                case "matrix" -> matrix(world, opt, report);
                case "random" -> random(world, opt, report);
                case "allocation" -> allocation(world, opt, report);
                default -> throw new IllegalArgumentException("unknown suite " + opt.get("suite"));
            };
            for (int p = 0; p < PATHS.length; p++) {
                report.figure("verified " + PATHS[p], VERIFIED[p]);
            }
            return summary;
        });
    }

    private static String matrix(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        int size = world.getSize();
        List<Integer> roots = Broadcasts.roots(opt.getOrDefault("roots", "all"), size);
        boolean large = opt.getOrDefault("large", "yes").equals("yes");
        BcastOptions base = BcastOptions.defaults();
        int chunk = base.chunkBytes() != 0 ? base.chunkBytes() : org.hbcast.transport.cuda.CudaRingMember.CHUNK_BYTES;
        int direct = (int) org.hbcast.transport.cuda.CudaRingMember.DIRECT_MIN_BYTES;
        DeviceMatrix matrix = new DeviceMatrix(chunk, direct);
        int calls = 0;
        StringBuilder detail = new StringBuilder();
        for (Algorithm algorithm : algorithms(opt)) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(world, base.withAlgorithm(algorithm));
                    Buffers buffers = new Buffers(hb, matrix.bufferBytes(large))) {
                for (int count : matrix.byteCounts()) {
                    for (int root : roots) {
                        check(report, hb, world, buffers, calls % 2, MPI.BYTE, ElementType.BYTE, count, root, ++calls);
                    }
                }
                for (int count : matrix.doubleCounts()) {
                    check(
                            report,
                            hb,
                            world,
                            buffers,
                            calls % 2,
                            MPI.DOUBLE,
                            ElementType.DOUBLE,
                            count,
                            size - 1,
                            ++calls);
                }
                if (large) {
                    check(
                            report,
                            hb,
                            world,
                            buffers,
                            0,
                            MPI.BYTE,
                            ElementType.BYTE,
                            DeviceMatrix.LARGE,
                            size / 2,
                            ++calls);
                    check(report, hb, world, buffers, 1, MPI.BYTE, ElementType.BYTE, DeviceMatrix.LARGE, 0, ++calls);
                }
                for (int[] p : DeviceMatrix.mappingPairs(roots)) {
                    check(report, hb, world, buffers, p[1], MPI.BYTE, ElementType.BYTE, direct + 3, p[0], ++calls);
                }
                long opens = hb.deviceUse().ipcOpens();
                List<int[]> reuse = DeviceMatrix.reusePairs(roots, calls);
                int stillMapped = 0;
                for (int[] p : reuse) {
                    check(report, hb, world, buffers, p[1], MPI.BYTE, ElementType.BYTE, direct + 3, p[0], ++calls);
                    stillMapped += hb.deviceUse().mapsPeerBuffer() ? 1 : 0;
                }
                int mappedAfter = stillMapped;
                report.figure("ipcOpens " + algorithm, opens);
                report.check("user buffers mapped for their call only (" + algorithm + ")", () -> {
                    // Users' buffers are mapped for one call only: their owners may free them on return.
                    if (mappedAfter > 0) {
                        throw new AssertionError("a neighbour's buffer was still mapped after " + mappedAfter + " of "
                                + reuse.size() + " calls had returned: its owner may free it");
                    }
                    if (hb.deviceUse().ipcOpens() - opens > reuse.size()) {
                        throw new AssertionError(
                                "IPC handles opened more than once per call: " + opens + " opens before " + reuse.size()
                                        + " calls, " + hb.deviceUse().ipcOpens() + " after");
                    }
                });
                detail.append(algorithm).append(": ").append(opens).append(" IPC opens; ");
            }
        }
        return calls + " device broadcasts verified (roots " + roots + ", chunk " + chunk + " B, device "
                + CudaDevices.get().deviceForLocalRank(0) + " of "
                + CudaDevices.get().names() + "); " + detail;
    }

    private static String allocation(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        int calls = Integer.parseInt(opt.getOrDefault("calls", "2000"));
        long maxPerCall = Long.parseLong(opt.getOrDefault("maxPerCall", "0"));
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().getId();
        StringBuilder detail = new StringBuilder();
        for (Algorithm algorithm : algorithms(opt)) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(
                            world, BcastOptions.defaults().withAlgorithm(algorithm));
                    DeviceBuffer buf = DeviceBuffer.allocate(
                            2 * MIB,
                            CudaDevices.get().deviceForLocalRank(hb.topology().position()))) {
                for (int bytes : new int[] {64 << 10, 2 * MIB}) {
                    for (int i = 0; i < 200; i++) {
                        hb.bcast(buf, bytes, MPI.BYTE, i % world.getSize());
                    }
                    long before = threads.getThreadAllocatedBytes(me);
                    for (int i = 0; i < calls; i++) {
                        hb.bcast(buf, bytes, MPI.BYTE, i % world.getSize());
                    }
                    long perCall = (threads.getThreadAllocatedBytes(me) - before) / calls;
                    detail.append(algorithm)
                            .append(' ')
                            .append(bytes)
                            .append(" B: ")
                            .append(perCall)
                            .append(" B/call; ");
                    report.figure("bytesPerCall " + algorithm + " " + bytes, perCall);
                    report.check(
                            algorithm + " device calls of " + bytes + " bytes allocate at most " + maxPerCall
                                    + " bytes each",
                            () -> {
                                if (perCall > maxPerCall) {
                                    throw new AssertionError(
                                            algorithm + " device calls of " + bytes + " bytes allocate " + perCall
                                                    + " bytes each after warm-up (at most " + maxPerCall + " allowed)");
                                }
                            });
                }
            }
        }
        return "device allocation over " + calls + " calls: " + detail;
    }

    private static String random(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        int calls = Integer.parseInt(opt.getOrDefault("calls", "100"));
        Random rnd = new Random(Long.parseLong(opt.getOrDefault("seed", "7")));
        List<Algorithm> algorithms = algorithms(opt);
        List<HierarchicalBcast> instances = new ArrayList<>();
        for (Algorithm a : algorithms) {
            instances.add(
                    HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(a)));
        }
        int max = 3 * MIB + 11;
        try (Buffers buffers = new Buffers(instances.get(0), max)) {
            for (int call = 1; call <= calls; call++) {
                int count = rnd.nextInt(4) == 0 ? rnd.nextInt(100) : rnd.nextInt(max + 1);
                int root = rnd.nextInt(world.getSize());
                check(
                        report,
                        instances.get(rnd.nextInt(instances.size())),
                        world,
                        buffers,
                        rnd.nextInt(2),
                        MPI.BYTE,
                        ElementType.BYTE,
                        count,
                        root,
                        call);
            }
        } finally {
            for (HierarchicalBcast hb : instances) {
                hb.close();
            }
        }
        return calls + " random device broadcasts verified (" + algorithms + ")";
    }

    /** The check below as one case of {@code report}, named after the call. */
    private static void check(
            RankReport report,
            HierarchicalBcast hb,
            Intracomm world,
            Buffers buffers,
            int which,
            Datatype type,
            ElementType element,
            int count,
            int root,
            int call)
            throws Exception {
        report.check(
                "call " + call + ": " + count + " x " + element + ", root " + root + ", buffer " + which,
                () -> check(hb, world, buffers, which, type, element, count, root, call));
    }

    private static void check(
            HierarchicalBcast hb,
            Intracomm world,
            Buffers buffers,
            int which,
            Datatype type,
            ElementType element,
            int count,
            int root,
            int call)
            throws Exception {
        int rank = world.getRank();
        DeviceBuffer buf = buffers.device[which];
        byte[] host = buffers.host;
        int bytes = count * element.bytes();
        if (rank == root) {
            for (int i = 0; i < bytes + GUARD; i++) {
                host[i] = pattern(i, call);
            }
        } else {
            Arrays.fill(host, 0, bytes + GUARD, SENTINEL);
        }
        buf.copyFromHost(host, 0, bytes + GUARD);
        hb.bcast(buf, count, type, root);
        Arrays.fill(host, 0, bytes + GUARD, (byte) 0);
        buf.copyToHost(0, host, bytes + GUARD);
        for (int i = 0; i < bytes + GUARD; i++) {
            byte want = i < bytes || rank == root ? pattern(i, call) : SENTINEL;
            if (host[i] != want) {
                throw new AssertionError("call " + call + " (" + count + " x " + element + ", root " + root
                        + ", " + hb.plan(bytes).algorithm() + ", buffer " + which + "): byte " + i + " is "
                        + host[i] + ", expected " + want
                        + (i >= bytes ? " (guard zone: written past the message)" : ""));
            }
        }
        if (bytes > 0 && hb.plan(bytes).hierarchical()) {
            VERIFIED[
                    hb.topology().nodeCount() > 1
                            ? 2
                            : bytes < org.hbcast.transport.cuda.CudaRingMember.DIRECT_MIN_BYTES ? 0 : 1]++;
        }
    }

    private static byte pattern(int i, int call) {
        return (byte) (i * 131 + call * 17 + (i >>> 13) + 3);
    }

    /** Two device buffers on this rank's device and a host array to fill and check them. */
    private static final class Buffers implements AutoCloseable {
        final DeviceBuffer[] device = new DeviceBuffer[2];
        final byte[] host;

        Buffers(HierarchicalBcast hb, int bytes) {
            int gpu = CudaDevices.get().deviceForLocalRank(hb.topology().position());
            device[0] = DeviceBuffer.allocate(bytes + GUARD, gpu);
            device[1] = DeviceBuffer.allocate(bytes + GUARD, gpu);
            host = new byte[bytes + GUARD];
        }

        @Override
        public void close() {
            device[0].close();
            device[1].close();
        }
    }

    private static List<Algorithm> algorithms(Map<String, String> opt) {
        List<Algorithm> list = new ArrayList<>();
        for (String a :
                opt.getOrDefault("algorithms", "hierarchical,knomial,native").split(",")) {
            list.add(Algorithm.parse(a));
        }
        return list;
    }
}

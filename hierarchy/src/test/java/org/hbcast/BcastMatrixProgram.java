package org.hbcast;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import mpi.Datatype;
import mpi.Intracomm;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Runs many broadcasts on every rank and checks each one byte by byte (guard zone included).
 * Arguments are {@code key=value}:
 * <ul>
 *   <li>{@code suite=matrix} (default): counts 0, 1, 7, chunk-1, chunk, chunk+1 for every datatype and
 *       container kind, then 1 MiB+13 elements and 32 MiB and five elements ({@code large=yes}: bytes
 *       only, {@code large=all}: every datatype, as array and as direct buffer);</li>
 *   <li>{@code suite=random}: {@code calls} back-to-back calls with random roots, sizes, types, kinds and algorithms;</li>
 *   <li>{@code suite=split}: two instances on the halves of a split communicator and one on the
 *       whole, their calls interleaved;</li>
 *   <li>{@code algorithms=hierarchical,knomial}, {@code roots=all|ends}, {@code medium=all|few}.</li>
 * </ul>
 * Every checked broadcast is one case; figures: {@code chunk <algorithm>} (matrix), {@code bytes} (random).
 */
public final class BcastMatrixProgram {
    private static final int MIB = 1 << 20;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            Map<String, String> opt = parse(rest);
            return switch (opt.getOrDefault("suite", "matrix")) {
                case "matrix" -> matrix(world, opt, report);
                case "random" -> random(world, opt, report);
                case "split" -> split(world, opt, report);
                default -> throw new IllegalArgumentException("unknown suite " + opt.get("suite"));
            };
        });
    }

    private static String matrix(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        int size = world.getSize();
        List<Integer> roots = roots(opt.getOrDefault("roots", "all"), size);
        List<Algorithm> algorithms = algorithms(opt.getOrDefault("algorithms", "hierarchical,knomial"));
        BcastOptions base = BcastOptions.defaults();
        int calls = 0;
        List<Integer> chunks = new ArrayList<>();
        for (Algorithm algorithm : algorithms) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(world, base.withAlgorithm(algorithm))) {
                // Sizes around the chunk the plan of a 256 KiB message cuts at.
                int chunk = hb.plan(base.chunkBytes() != 0 ? base.chunkBytes() : 256 << 10)
                        .chunkBytes();
                chunks.add(chunk);
                report.figure("chunk " + algorithm, chunk);
                for (ElementType type : ElementType.values()) {
                    int c = chunk / type.bytes();
                    int[] counts = {0, 1, 7, c - 1, c, c + 1};
                    for (Payload.Kind kind : Payload.Kind.values()) {
                        for (int count : counts) {
                            for (int root : roots) {
                                check(report, hb, world, kind, type, count, root, ++calls);
                            }
                        }
                    }
                }
                boolean allMedium = opt.getOrDefault("medium", "all").equals("all");
                for (ElementType type : ElementType.values()) {
                    if (!allMedium && type != ElementType.BYTE && type != ElementType.DOUBLE_COMPLEX) {
                        continue;
                    }
                    for (Payload.Kind kind : new Payload.Kind[] {Payload.Kind.ARRAY, Payload.Kind.TYPED}) {
                        check(report, hb, world, kind, type, MIB + 13, size - 1, ++calls);
                    }
                }
                String large = opt.getOrDefault("large", "no");
                for (ElementType type : ElementType.values()) {
                    if (large.equals("all") || large.equals("yes") && type == ElementType.BYTE) {
                        // 32 MiB and five elements of each type: many chunks and an odd tail in every element
                        // size, without moving 512 MiB for the widest.
                        int count = 32 * MIB / type.bytes() + 5;
                        check(report, hb, world, Payload.Kind.ARRAY, type, count, size / 2, ++calls);
                        check(report, hb, world, Payload.Kind.BUFFER, type, count, 0, ++calls);
                    }
                }
            }
        }
        return calls + " broadcasts verified (" + algorithms + ", roots " + roots + ", chunks " + chunks + " B)";
    }

    private static String random(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        int calls = Integer.parseInt(opt.getOrDefault("calls", "200"));
        Random rnd = new Random(Long.parseLong(opt.getOrDefault("seed", "42")));
        Algorithm[] algorithms = Algorithm.values();
        List<HierarchicalBcast> instances = new ArrayList<>();
        try {
            for (Algorithm a : algorithms) {
                instances.add(
                        HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(a)));
            }
            long bytes = 0;
            for (int i = 1; i <= calls; i++) {
                ElementType type = ElementType.values()[rnd.nextInt(ElementType.values().length)];
                Payload.Kind kind = Payload.Kind.values()[rnd.nextInt(Payload.Kind.values().length)];
                int count = (int) (Math.exp(rnd.nextDouble() * Math.log(4.0 * MIB)) / type.bytes());
                int root = rnd.nextInt(world.getSize());
                check(report, instances.get(rnd.nextInt(instances.size())), world, kind, type, count, root, i);
                bytes += (long) count * type.bytes();
            }
            report.figure("bytes", bytes);
            return calls + " random broadcasts verified, " + bytes + " bytes";
        } finally {
            for (HierarchicalBcast hb : instances) {
                hb.close();
            }
        }
    }

    private static String split(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        int rank = world.getRank();
        Intracomm half = world.split(rank % 2, rank);
        Random rnd = new Random(7);
        int calls = Integer.parseInt(opt.getOrDefault("calls", "40"));
        try (HierarchicalBcast whole = HierarchicalBcast.create(world);
                HierarchicalBcast mine = HierarchicalBcast.create(half)) {
            for (int i = 1; i <= calls; i++) {
                int count = 1 + rnd.nextInt(3 * MIB);
                int halfRoot = rnd.nextInt(half.getSize());
                int worldRoot = rnd.nextInt(world.getSize());
                // Both halves use the same seeds, so each half checks its own broadcast.
                check(report, mine, half, Payload.Kind.BUFFER, ElementType.BYTE, count, halfRoot, 1000 + i);
                check(report, whole, world, Payload.Kind.ARRAY, ElementType.INT, count / 4, worldRoot, 2000 + i);
            }
        } finally {
            half.free();
        }
        return 2 * calls + " interleaved broadcasts on split and whole communicators verified";
    }

    /** The check below as one case of {@code report}, named after the call. */
    static void check(
            RankReport report,
            HierarchicalBcast hb,
            Intracomm comm,
            Payload.Kind kind,
            ElementType type,
            int count,
            int root,
            long seed)
            throws Exception {
        report.check(
                "call " + seed + ": " + count + " x " + type + " " + kind + ", root " + root,
                () -> check(hb, comm, kind, type, count, root, seed));
    }

    /** One broadcast of a pattern from {@code root}; throws unless every rank then holds it, guard zone untouched. */
    static void check(
            HierarchicalBcast hb, Intracomm comm, Payload.Kind kind, ElementType type, int count, int root, long seed)
            throws Exception {
        Payload p = new Payload(kind, type, count);
        boolean isRoot = comm.getRank() == root;
        if (isRoot) {
            p.fillPattern(count, seed);
        } else {
            p.fillStale();
        }
        hb.bcast(p.container, count, datatype(type), root);
        String problem = p.verify(count, seed, isRoot);
        if (problem != null) {
            throw new AssertionError(
                    "call " + seed + " (" + hb.plan((long) count * type.bytes()).algorithm() + ", root " + root
                            + ", count " + count + "): " + problem);
        }
    }

    static Datatype datatype(ElementType type) {
        return OpenMpi.datatype(type.basicType());
    }

    static List<Integer> roots(String spec, int size) {
        List<Integer> roots = new ArrayList<>();
        if (spec.equals("all")) {
            for (int r = 0; r < size; r++) {
                roots.add(r);
            }
        } else {
            roots.add(0);
            if (size > 2) {
                roots.add(size / 2);
            }
            if (size > 1) {
                roots.add(size - 1);
            }
        }
        return roots;
    }

    private static List<Algorithm> algorithms(String spec) {
        List<Algorithm> list = new ArrayList<>();
        for (String s : spec.split(",")) {
            list.add(Algorithm.parse(s));
        }
        return list;
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("expected key=value, got " + a);
            }
            map.put(a.substring(0, eq), a.substring(eq + 1));
        }
        return map;
    }
}

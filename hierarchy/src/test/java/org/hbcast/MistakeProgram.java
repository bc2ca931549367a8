package org.hbcast;

import java.util.Map;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * One rank's mistake in one call, then five correct calls (issue 52, item 3): each mistake is a
 * broadcast of 4 MiB in which some ranks pass a wrong argument; every rank notes what its call gave
 * ({@code ok} with every byte checked, or the error), then five correct broadcasts of 4 MiB from
 * changing roots must deliver every byte on every rank. On four ranks, the real root on the second
 * half (the other host on the 2-host test bed). Cases per mistake: its call's outcome, noted as
 * {@code <mistake>}, and the five calls after it.
 *
 * <ul>
 *   <li>{@code root-rank0}: rank 0 passes a root out of range, the others root 2;
 *   <li>{@code root-other}: rank 3 passes a root out of range, the others root 0;
 *   <li>{@code root-named}: the root the others name (2) passes one out of range;
 *   <li>{@code root-zero}: rank 0 passes a root out of range, the others name rank 0;
 *   <li>{@code root-all}: every rank passes a root out of range;
 *   <li>{@code count}: rank 3's count is negative;
 *   <li>{@code datatype}: rank 1 passes a datatype hbcast does not support.
 * </ul>
 */
public final class MistakeProgram {
    static final String[] MISTAKES = {
        "root-rank0", "root-other", "root-named", "root-zero", "root-all", "count", "datatype"
    };
    private static final int INTS = 1 << 20;
    private static final int AFTER = 5;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            Map<String, String> opt = BcastMatrixProgram.parse(rest);
            String[] mistakes =
                    opt.getOrDefault("mistakes", String.join(",", MISTAKES)).split(",");
            try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                long seed = 1;
                for (String m : mistakes) {
                    mistake(hb, world, report, m, seed++);
                    for (int i = 0; i < AFTER; i++) {
                        BcastMatrixProgram.check(
                                report, hb, world, Payload.Kind.ARRAY, ElementType.INT, INTS, (i + 1) % 4, seed++);
                    }
                }
            }
            return "mistakes=" + String.join("+", mistakes);
        });
    }

    private static void mistake(HierarchicalBcast hb, Intracomm world, RankReport report, String m, long seed)
            throws Exception {
        int rank = world.getRank();
        int size = world.getSize();
        int root = 0;
        int count = INTS;
        Datatype type = MPI.INT;
        switch (m) {
            case "root-rank0" -> root = rank == 0 ? size : 2;
            case "root-other" -> root = rank == 3 ? size : 0;
            case "root-named" -> root = rank == 2 ? 99 : 2;
            case "root-zero" -> root = rank == 0 ? size : 0;
            case "root-all" -> root = size + 1;
            case "count" -> count = rank == 3 ? -5 : INTS;
            case "datatype" -> type = rank == 1 ? MPI.INT2 : MPI.INT;
            default -> throw new IllegalArgumentException("no mistake " + m);
        }
        int realRoot = root;
        Payload p = new Payload(Payload.Kind.ARRAY, ElementType.INT, INTS);
        boolean isRoot = rank == root;
        if (isRoot) {
            p.fillPattern(INTS, seed);
        } else {
            p.fillStale();
        }
        String outcome;
        try {
            hb.bcast(p.container, count, type, realRoot);
            String problem = p.verify(INTS, seed, isRoot);
            outcome = problem == null ? "ok" : "WRONG DATA: " + problem;
        } catch (MPIException e) {
            outcome = "error: " + e.getMessage();
            report.note(m + ".class", OpenMpi.errorClass(e).mpiName());
        }
        report.note(m, outcome);
        if (outcome.startsWith("WRONG")) {
            report.fail(m, outcome);
        } else {
            report.pass(m);
        }
    }
}

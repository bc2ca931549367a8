package org.hbcast.support;

import java.util.ArrayList;
import java.util.List;
import mpi.Datatype;
import mpi.Intracomm;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;

/** Checked broadcasts for the tests of every subject: a pattern from a root, every byte checked on every rank. */
public final class Broadcasts {
    private Broadcasts() {}

    /** The check below as one case of {@code report}, named after the call. */
    public static void check(
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

    /** The check below as a case of a list ({@link Ranks#checkAll}), named as {@link #check(RankReport, HierarchicalBcast, Intracomm, Payload.Kind, ElementType, int, int, long)} names it. */
    public static Ranks.Named call(
            HierarchicalBcast hb, Intracomm comm, Payload.Kind kind, ElementType type, int count, int root, long seed) {
        return Ranks.named(
                "call " + seed + ": " + count + " x " + type + " " + kind + ", root " + root,
                () -> check(hb, comm, kind, type, count, root, seed));
    }

    /** One broadcast of a pattern from {@code root}; throws unless every rank then holds it, guard zone untouched. */
    public static void check(
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

    public static Datatype datatype(ElementType type) {
        return OpenMpi.datatype(type.basicType());
    }

    /** {@code all}: every rank; {@code ends}: 0, the middle and the last (those there are). */
    public static List<Integer> roots(String spec, int size) {
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

    /** {@code key=value} arguments as a map, for the programs that still take them. */
    public static java.util.Map<String, String> parse(String[] args) {
        java.util.Map<String, String> map = new java.util.LinkedHashMap<>();
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

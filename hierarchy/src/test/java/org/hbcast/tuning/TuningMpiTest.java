package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastPlan;
import org.hbcast.HierarchicalBcast;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.MemoryKind;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The selector's inputs on real MPI launches: tables used, bad tables refused with a warning, plans agreed. */
class TuningMpiTest {
    @TempDir
    Path dir;

    @Test
    void aTableOfThisFingerprintDecidesThePlan() throws Exception {
        ClusterShape shape = ClusterShape.parse("2x2 virtual");
        Fingerprint fp = Fingerprint.of(HostInfo.probe(OpenMpi.library().version()), shape);
        List<TuningTable.Entry> entries = new ArrayList<>();
        for (long m = 64 << 10; m <= 1 << 20; m *= 2) {
            entries.add(new TuningTable.Entry(
                    m,
                    Algorithm.KNOMIAL,
                    8192,
                    3,
                    1e-3,
                    List.of(new TuningTable.Point(Algorithm.KNOMIAL, 8192, 3, 1e-3))));
        }
        Path table = dir.resolve("tuning.json");
        TuningJson.mapper()
                .writeValue(
                        table.toFile(),
                        new TuningTable(
                                TuningTable.FORMAT_VERSION, fp, fp.id(), MemoryKind.HOST, "test", null, entries));
        // The plans agreed, the expected plan, three broadcasts.
        MpiOutcome out = MpiLaunch.body(TuningMpiTest::plans)
                .layout("2,2")
                .env("HBCAST_TUNING_FILE", table.toString())
                .args("expect=knomial:8192:3")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < out.ranks(); r++) {
            assertEquals("knomial", out.note(r, "algorithm"), out.describe("rank " + r));
            assertEquals(8192, out.longFigure(r, "chunkBytes"), out.describe("rank " + r));
            assertEquals(3, out.longFigure(r, "radix"), out.describe("rank " + r));
            assertTrue(out.note(r, "reason").startsWith("tuning table"), out.describe("rank " + r));
        }
        assertTrue(!out.output().contains("warning"), out.output());
    }

    @Test
    void aCorruptTableIsAWarningAndTheModelDecides() throws Exception {
        Path table = dir.resolve("broken.json");
        Files.writeString(table, "{\"formatVersion\": 1, \"entries\": [ {\"bytes\": 65536, \"chunkBytes\": 0");
        // One node: on virtual nodes Open MPI's bcast, not the model, decides from 256 KiB
        // (Selector.VIRTUAL_NATIVE_FROM).
        MpiOutcome out = MpiLaunch.body(TuningMpiTest::plans)
                .layout("4")
                .env("HBCAST_TUNING_FILE", table.toString())
                .run()
                .assertAllRanksOk();
        assertTrue(out.output().contains("tuning table " + table + " not used"), out.output());
        for (int r = 0; r < out.ranks(); r++) {
            assertTrue(out.note(r, "reason").contains("cost model"), out.describe("rank " + r));
        }
    }

    /**
     * On every rank: every rank must make the same plans (compared across ranks), broadcasts at the
     * planned chunk sizes must deliver the data, and with {@code expect=ALG:CHUNK:RADIX} a 256 KiB
     * call must run exactly that plan, from the table. Cases: the plans agreed, the expected plan (with
     * {@code expect}), the three broadcasts; the 256 KiB plan as notes {@code algorithm},
     * {@code reason} and figures {@code chunkBytes}, {@code radix}.
     */
    static void plans(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        String expect = ranks.arg("expect", "none");
        int[] sizes = {64 << 10, (256 << 10) + 3, 1 << 20};
        ranks.plan(1 + (expect.equals("none") ? 0 : 1) + sizes.length);
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            long[] digest = new long[3];
            for (int b = 0; b < 40; b++) {
                BcastPlan p = hb.plan(1L << b);
                digest[0] = digest[0] * 31 + p.algorithm().hashCode();
                digest[1] = digest[1] * 31 + p.chunkBytes();
                digest[2] = digest[2] * 31 + p.radix();
            }
            long[] max = digest.clone();
            long[] min = digest.clone();
            world.allReduce(max, 3, MPI.LONG, MPI.MAX);
            world.allReduce(min, 3, MPI.LONG, MPI.MIN);
            report.check("every rank makes the same plans", () -> {
                if (!Arrays.equals(max, min)) {
                    throw new IllegalStateException("ranks made different plans");
                }
            });
            BcastPlan p = hb.plan(256 << 10);
            report.note("algorithm", p.algorithm())
                    .note("reason", p.reason())
                    .figure("chunkBytes", p.chunkBytes())
                    .figure("radix", p.radix());
            if (!expect.equals("none")) {
                report.check("256 KiB runs " + expect + " from the table", () -> {
                    String got = p.algorithm() + ":" + p.chunkBytes() + ":" + p.radix();
                    if (!got.equals(expect) || !p.reason().startsWith("tuning table")) {
                        throw new IllegalStateException("expected plan " + expect + " from the table, got " + p);
                    }
                });
            }
            for (int size : sizes) {
                report.check(size + " bytes from the last rank", () -> check(world, hb, size));
            }
        }
    }

    private static void check(Intracomm world, HierarchicalBcast hb, int size) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        int rank = world.getRank();
        int root = world.getSize() - 1;
        for (int i = 0; i < size; i++) {
            buf.put(i, rank == root ? (byte) (i * 7 + 3) : 0);
        }
        hb.bcast(buf, size, MPI.BYTE, root);
        for (int i = 0; i < size; i++) {
            if (buf.get(i) != (byte) (i * 7 + 3)) {
                throw new IllegalStateException(
                        "size " + size + ": byte " + i + " is wrong with plan " + hb.plan(size));
            }
        }
    }
}

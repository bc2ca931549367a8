package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.MemoryKind;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.TuningJson;
import org.hbcast.tuning.TuningTable;
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
        MpiOutcome out = MpiLaunch.program(TuningProgram.class)
                .nodeSizes("2,2")
                .env("HBCAST_TUNING_FILE", table.toString())
                .args("expect=knomial:8192:3")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(5);
        for (int r = 0; r < 4; r++) {
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
        // (Candidates.VIRTUAL_NATIVE_FROM).
        MpiOutcome out = MpiLaunch.program(TuningProgram.class)
                .ranks(4)
                .env("HBCAST_TUNING_FILE", table.toString())
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(4);
        assertTrue(out.output().contains("tuning table " + table + " not used"), out.output());
        for (int r = 0; r < 4; r++) {
            assertTrue(out.note(r, "reason").contains("cost model"), out.describe("rank " + r));
        }
    }
}

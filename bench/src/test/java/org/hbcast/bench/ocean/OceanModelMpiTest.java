package org.hbcast.bench.ocean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ocean model on real MPI launches: native and hierarchical broadcasts on virtual nodes end in
 * the state a single rank computes, bit for bit; bad options fail once, clearly, before any traffic.
 */
class OceanModelMpiTest {
    private static final String[] SMALL = {
        "--nx", "40", "--ny", "26", "--forcing-every", "2", "--warmup", "3", "--no-progress"
    };

    @TempDir
    Path tmp;

    private JsonNode run(MpiLaunch launch, String name, String... args) throws Exception {
        Path json = tmp.resolve(name + ".json");
        List<String> all = new ArrayList<>(List.of(SMALL));
        all.addAll(List.of(args));
        if (!all.contains("--steps")) {
            all.addAll(List.of("--steps", "60"));
        }
        all.addAll(List.of("--json", json.toString()));
        MpiOutcome out = launch.args(all.toArray(String[]::new)).run();
        if (out.timedOut() || out.exitCode() != 0) {
            fail(out.describe(out.timedOut() ? "timed out" : "exit status " + out.exitCode()));
        }
        out.assertNoLeakedSegments();
        assertTrue(out.output().contains("# bit-identical: yes"), out.describe("no bit-identical line"));
        return new ObjectMapper().readTree(json.toFile());
    }

    /** Every run's checksum in the report. */
    private static List<String> checksums(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> impl : report.get("impls").properties()) {
            impl.getValue().get("runs").forEach(r -> out.add(r.get("checksum").asText()));
        }
        return out;
    }

    @Test
    void nativeAndHierarchicalOnTwoVirtualNodesMatchOneRankBitForBit() throws Exception {
        JsonNode one = run(MpiLaunch.program(OceanModel.class).ranks(1), "one", "--impl", "native");
        String reference = checksums(one).get(0);
        JsonNode four = run(
                MpiLaunch.program(OceanModel.class).nodeSizes("2,2"),
                "four",
                "--impl",
                "native,hierarchical",
                "--repeat",
                "2");
        assertEquals("[0, 1] + [2, 3]", four.get("nodes").asText());
        assertTrue(four.get("bit_identical").asBoolean());
        List<String> sums = checksums(four);
        assertEquals(4, sums.size());
        sums.forEach(c -> assertEquals(reference, c, "4-rank run vs 1-rank run"));
        assertTrue(four.get("impls").get("native").get("median").get("bcast_s").asDouble() > 0);
    }

    @Test
    void unevenNodesAndAnIoRankOtherThanZeroGiveTheSameState() throws Exception {
        String reference = checksums(run(MpiLaunch.program(OceanModel.class).ranks(1), "one", "--impl", "native"))
                .get(0);
        JsonNode uneven = run(
                MpiLaunch.program(OceanModel.class).nodeSizes("1,3"),
                "uneven",
                "--impl",
                "hierarchical,native",
                "--io-rank",
                "3");
        checksums(uneven).forEach(c -> assertEquals(reference, c, "wind from rank 3 on nodes 1+3"));
        // A different run length must change the checksum: it sees the state, not just the setup.
        JsonNode longer =
                run(MpiLaunch.program(OceanModel.class).ranks(1), "longer", "--impl", "native", "--steps", "61");
        assertNotEquals(reference, checksums(longer).get(0));
    }

    @Test
    void gridSmallerThanTheRankCountFailsOnceWithAClearMessage() {
        MpiOutcome out = MpiLaunch.program(OceanModel.class)
                .nodeSizes("2,2")
                .args("--nx", "16", "--ny", "3", "--no-progress")
                .run();
        assertFalse(out.timedOut(), out.describe("timed out"));
        assertNotEquals(0, out.exitCode(), out.describe("exit status 0 for a bad grid"));
        String message = "the grid has 3 rows (--ny) but 4 ranks";
        int times = 0;
        for (int at = out.output().indexOf(message); at >= 0; at = out.output().indexOf(message, at + 1)) {
            times++;
        }
        assertEquals(1, times, out.describe("message not printed exactly once"));
        out.assertNoLeakedSegments();
    }
}

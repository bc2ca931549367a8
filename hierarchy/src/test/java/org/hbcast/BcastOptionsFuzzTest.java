package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.hbcast.BcastOptions.CountRule;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.mpi.NodeLayout;
import org.junit.jupiter.api.Test;

/**
 * Hostile environment values (issue 8), seeded: garbage, overflow, negatives, whitespace, units,
 * hex, exponents, NaN, control and non-ASCII characters in every {@code HBCAST_*} variable. Each
 * environment must give options within their documented bounds, or an IllegalArgumentException
 * whose message names an offending variable.
 */
class BcastOptionsFuzzTest {
    private static final List<String> VARIABLES = List.of(
            "HBCAST_ALGORITHM",
            "HBCAST_CHUNK_BYTES",
            "HBCAST_RADIX",
            "HBCAST_TIMEOUT_S",
            "HBCAST_CHECK",
            "HBCAST_COUNTS",
            "HBCAST_RING_SLOTS",
            "HBCAST_NODE_SIZES",
            "HBCAST_INTRA",
            "HBCAST_INTER");
    private static final List<String> ODD = List.of(
            "",
            " ",
            "\t",
            "-1",
            "0",
            "1",
            "2",
            "64",
            "65",
            "4096",
            "1e3",
            "0x40",
            "2147483647",
            "2147483648",
            "-2147483649",
            "99999999999999999999",
            "NaN",
            "Infinity",
            "-0",
            "+8",
            " 8 ",
            "8s",
            "5m",
            "1.5",
            ".5",
            "5.",
            "64K",
            "1M",
            "true",
            "TRUE",
            "yes",
            "auto",
            "Native",
            " knomial ",
            "hierarchical\n",
            "ring",
            "8,3,3",
            "2,,2",
            "0,4",
            "-2,6",
            "4",
            "\u0661\u0662",
            "5f",
            "0x1p3",
            "1_000",
            "\u0000",
            "null",
            "8;rm -rf /",
            "2,2,",
            ",2",
            "fanout",
            " fanout\t",
            "Fanout",
            "root",
            " Equal",
            "trusted",
            "chain",
            " Two-Tree");

    @Test
    void everyEnvironmentGivesBoundedOptionsOrNamesTheBadVariable() {
        Random rnd = new Random(8);
        int rejected = 0;
        for (int i = 0; i < 20_000; i++) {
            Map<String, String> env = new HashMap<>();
            for (String v : VARIABLES) {
                if (rnd.nextInt(3) == 0) {
                    env.put(v, rnd.nextInt(4) == 0 ? garbage(rnd) : ODD.get(rnd.nextInt(ODD.size())));
                }
            }
            try {
                BcastOptions o = BcastOptions.fromEnvironment(env);
                assertTrue(
                        o.chunkBytes() == 0
                                || o.chunkBytes() >= 64
                                        && o.chunkBytes() <= BcastOptions.MAX_CHUNK_BYTES
                                        && o.chunkBytes() % 64 == 0,
                        env + " -> " + o);
                assertTrue(o.radix() == 0 || o.radix() >= 2 && o.radix() <= BcastOptions.MAX_RADIX, env + " -> " + o);
                assertTrue(o.ringSlots() >= 1 && o.ringSlots() <= BcastOptions.MAX_RING_SLOTS, env + " -> " + o);
                assertTrue(o.timeout().toMillis() >= 1 && o.timeout().toSeconds() <= 86_400, env + " -> " + o);
                String intra = env.getOrDefault("HBCAST_INTRA", "").strip().toLowerCase(java.util.Locale.ROOT);
                assertEquals(
                        intra.isEmpty() ? IntraNode.AUTO : IntraNode.valueOf(intra.toUpperCase(java.util.Locale.ROOT)),
                        o.intra(),
                        env + " -> " + o);
                if (o.nodeSizes() != null) {
                    nodeSizes(o.nodeSizes(), env);
                }
            } catch (IllegalArgumentException e) {
                rejected++;
                String msg = e.getMessage();
                assertTrue(
                        msg != null && env.keySet().stream().anyMatch(msg::contains),
                        "message names no variable of " + env + ": " + msg);
            } catch (RuntimeException e) {
                fail(env + " threw " + e, e);
            }
        }
        assertTrue(rejected > 1000 && rejected < 19_500, "fuzz covers both sides: " + rejected + " rejected");
    }

    @Test
    void plainValuesAreReadExactly() {
        BcastOptions o = BcastOptions.fromEnvironment(Map.of(
                "HBCAST_CHUNK_BYTES",
                " 4096 ",
                "HBCAST_TIMEOUT_S",
                "+2.5",
                "HBCAST_RADIX",
                "+8",
                "HBCAST_CHECK",
                "TRUE"));
        assertEquals(4096, o.chunkBytes());
        assertEquals(2500, o.timeout().toMillis());
        assertEquals(8, o.radix());
        assertEquals(CountRule.EQUAL, o.counts());
        for (String unit : List.of("5s", "5f", "0x1p3", "1e3", "NaN", "Infinity", "5 s")) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> BcastOptions.fromEnvironment(Map.of("HBCAST_TIMEOUT_S", unit)),
                    unit);
            assertTrue(e.getMessage().contains("HBCAST_TIMEOUT_S"), e.getMessage());
        }
    }

    /** Node sizes are checked against the communicator at create: for any size, valid or a named error. */
    private static void nodeSizes(String text, Map<String, String> env) {
        for (int commSize : new int[] {1, 4, 14}) {
            try {
                NodeLayout layout = NodeLayout.parse(text, commSize);
                assertTrue(layout.nodeCount() >= 1, text);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().contains("HBCAST_NODE_SIZES"), env + ": " + e.getMessage());
            }
        }
    }

    private static String garbage(Random rnd) {
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(12);
        for (int i = 0; i < n; i++) {
            sb.append((char) (rnd.nextInt(5) == 0 ? rnd.nextInt(0x3000) : 32 + rnd.nextInt(95)));
        }
        return sb.toString();
    }
}

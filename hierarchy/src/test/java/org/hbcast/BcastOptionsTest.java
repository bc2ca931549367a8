package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.CountRule;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.BcastOptions.TreeShape;
import org.junit.jupiter.api.Test;

class BcastOptionsTest {

    /** create agrees the options in their environment form: it must give every option back exactly. */
    @Test
    void theEnvironmentFormGivesEveryOptionBack() {
        java.util.Random random = new java.util.Random(52);
        for (int i = 0; i < 2000; i++) {
            BcastOptions o = BcastOptions.fromEnvironment(Map.of())
                    .withAlgorithm(Algorithm.values()[random.nextInt(Algorithm.values().length)])
                    .withChunkBytes(random.nextBoolean() ? 0 : 64 * (1 + random.nextInt(1 << 18)))
                    .withRadix(random.nextBoolean() ? 0 : 2 + random.nextInt(63))
                    .withTuningFile(random.nextBoolean() ? null : java.nio.file.Path.of("/tmp/t=" + i + " x.json"))
                    .withNodeSizes(random.nextBoolean() ? null : "3,2," + (1 + random.nextInt(9)))
                    .withCounts(CountRule.values()[random.nextInt(CountRule.values().length)])
                    .withIntra(IntraNode.values()[random.nextInt(IntraNode.values().length)])
                    .withInter(random.nextBoolean() ? null : TreeShape.values()[random.nextInt(3)])
                    .withTrials(random.nextBoolean());
            o = new BcastOptions(
                    o.algorithm(),
                    o.chunkBytes(),
                    o.radix(),
                    o.tuningFile(),
                    Duration.ofMillis(1 + random.nextInt(86_400_000)),
                    o.nodeSizes(),
                    o.counts(),
                    1 + random.nextInt(BcastOptions.MAX_RING_SLOTS),
                    o.intra(),
                    o.inter(),
                    o.trials(),
                    random.nextBoolean());
            assertEquals(
                    o,
                    BcastOptions.fromEnvironment(o.asEnvironment()),
                    o.asEnvironment().toString());
        }
    }

    @Test
    void defaultsWhenNothingIsSet() {
        BcastOptions o = BcastOptions.fromEnvironment(Map.of());
        assertEquals(Algorithm.AUTO, o.algorithm());
        assertEquals(0, o.chunkBytes());
        assertEquals(Duration.ofSeconds(60), o.timeout());
        assertEquals(8, o.ringSlots());
        assertEquals(CountRule.ROOT, o.counts());
        assertEquals(IntraNode.AUTO, o.intra());
    }

    @Test
    void intraNodeTransportIsTheSelectorsUnlessOneIsAskedFor() {
        assertEquals(
                IntraNode.AUTO,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTRA", " ")).intra());
        assertEquals(
                IntraNode.AUTO,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTRA", "Auto")).intra());
        assertEquals(
                IntraNode.RING,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTRA", "ring")).intra());
        assertEquals(
                IntraNode.FANOUT,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTRA", "fanout")).intra());
        assertEquals(
                IntraNode.FANOUT,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTRA", " FANOUT ")).intra());
        assertEquals(
                IntraNode.RING,
                BcastOptions.defaults().withIntra(IntraNode.RING).intra());
    }

    /** The API's enums and the library's name the same choices: options map to plans by name. */
    @Test
    void theOptionsEnumsNameTheLibrarysChoices() {
        assertEquals(names(org.hbcast.plan.Algorithm.values()), names(BcastOptions.Algorithm.values()));
        assertEquals(names(org.hbcast.plan.IntraNode.values()), names(BcastOptions.IntraNode.values()));
        assertEquals(names(org.hbcast.schedule.TreeShape.values()), names(BcastOptions.TreeShape.values()));
        assertEquals(names(org.hbcast.call.CountRule.values()), names(BcastOptions.CountRule.values()));
        for (BcastOptions.Algorithm a : BcastOptions.Algorithm.values()) {
            for (BcastOptions.IntraNode i : BcastOptions.IntraNode.values()) {
                for (BcastOptions.TreeShape t : BcastOptions.TreeShape.values()) {
                    var c = BcastOptions.defaults()
                            .withAlgorithm(a)
                            .withIntra(i)
                            .withInter(t)
                            .planChoices();
                    assertEquals(a.name(), c.algorithm().name());
                    assertEquals(i.name(), c.intra().name());
                    assertEquals(t.name(), c.inter().name());
                    assertEquals(a.toString(), c.algorithm().toString());
                    assertEquals(t.toString(), c.inter().toString());
                }
            }
        }
    }

    private static java.util.List<String> names(Enum<?>[] values) {
        return java.util.Arrays.stream(values).map(Enum::name).toList();
    }

    @Test
    void theLeadersScheduleIsTheSelectorsUnlessOneIsAskedFor() {
        assertNull(BcastOptions.fromEnvironment(Map.of()).inter());
        assertNull(
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTER", " auto ")).inter());
        assertEquals(
                TreeShape.CHAIN,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTER", "Chain")).inter());
        assertEquals(
                TreeShape.TWO_TREE,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTER", "two-tree")).inter());
        assertEquals(
                org.hbcast.schedule.TreeShape.TWO_TREE,
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTER", "two-tree"))
                        .planChoices()
                        .inter());
        assertEquals(
                TreeShape.KNOMIAL,
                BcastOptions.defaults().withInter(TreeShape.KNOMIAL).inter());
        assertFalse(
                BcastOptions.fromEnvironment(Map.of("HBCAST_INTER", "chain")).keepsLearnt());
    }

    @Test
    void countRuleIsTheRootsUnlessAnotherIsAskedFor() {
        assertEquals(
                CountRule.ROOT,
                BcastOptions.fromEnvironment(Map.of("HBCAST_COUNTS", " ")).counts());
        assertEquals(
                CountRule.ROOT,
                BcastOptions.fromEnvironment(Map.of("HBCAST_COUNTS", "Root")).counts());
        assertEquals(
                CountRule.EQUAL,
                BcastOptions.fromEnvironment(Map.of("HBCAST_COUNTS", "equal")).counts());
        assertEquals(
                CountRule.TRUSTED,
                BcastOptions.fromEnvironment(Map.of("HBCAST_COUNTS", " TRUSTED "))
                        .counts());
        assertEquals(
                CountRule.EQUAL,
                BcastOptions.fromEnvironment(Map.of("HBCAST_CHECK", "1", "HBCAST_COUNTS", "equal"))
                        .counts());
        assertEquals(
                CountRule.TRUSTED,
                BcastOptions.fromEnvironment(Map.of("HBCAST_CHECK", "0", "HBCAST_COUNTS", "trusted"))
                        .counts());
        assertEquals(CountRule.EQUAL, BcastOptions.defaults().withCheck(true).counts());
        assertEquals(
                CountRule.ROOT,
                BcastOptions.defaults().withCheck(true).withCheck(false).counts());
    }

    @Test
    void environmentIsRead() {
        BcastOptions o = BcastOptions.fromEnvironment(Map.of(
                "HBCAST_ALGORITHM",
                "Hierarchical",
                "HBCAST_CHUNK_BYTES",
                "65536",
                "HBCAST_RADIX",
                "4",
                "HBCAST_TIMEOUT_S",
                "2.5",
                "HBCAST_NODE_SIZES",
                "2,2",
                "HBCAST_CHECK",
                "1"));
        assertEquals(Algorithm.HIERARCHICAL, o.algorithm());
        assertEquals(65536, o.chunkBytes());
        assertEquals(4, o.radix());
        assertEquals(Duration.ofMillis(2500), o.timeout());
        assertEquals("2,2", o.nodeSizes());
        assertEquals(CountRule.EQUAL, o.counts());
    }

    @Test
    void badValuesNameTheVariable() {
        assertMessage("HBCAST_ALGORITHM='ring' is not one of", Map.of("HBCAST_ALGORITHM", "ring"));
        assertMessage("HBCAST_CHUNK_BYTES='lots' is not a whole number", Map.of("HBCAST_CHUNK_BYTES", "lots"));
        assertMessage("chunk size 100 must be 0 (automatic) or a multiple of 64", Map.of("HBCAST_CHUNK_BYTES", "100"));
        assertMessage("HBCAST_CHUNK_BYTES=-64 is outside", Map.of("HBCAST_CHUNK_BYTES", "-64"));
        assertMessage("radix 1 must be", Map.of("HBCAST_RADIX", "1"));
        assertMessage("HBCAST_TIMEOUT_S=0 is outside", Map.of("HBCAST_TIMEOUT_S", "0"));
        assertMessage("HBCAST_TIMEOUT_S='NaN' is not a number of seconds", Map.of("HBCAST_TIMEOUT_S", "NaN"));
        assertMessage("HBCAST_CHECK='maybe' must be", Map.of("HBCAST_CHECK", "maybe"));
        assertMessage("HBCAST_COUNTS='larger' must be root, equal or trusted", Map.of("HBCAST_COUNTS", "larger"));
        assertMessage(
                "HBCAST_CHECK=1 asks for HBCAST_COUNTS=equal but HBCAST_COUNTS='trusted'",
                Map.of("HBCAST_CHECK", "1", "HBCAST_COUNTS", "trusted"));
        assertMessage("HBCAST_RING_SLOTS=0 is outside", Map.of("HBCAST_RING_SLOTS", "0"));
        assertMessage("HBCAST_INTRA='fan-out' must be auto, ring or fanout", Map.of("HBCAST_INTRA", "fan-out"));
        assertMessage("HBCAST_INTER='ring' must be auto, knomial, chain or two-tree", Map.of("HBCAST_INTER", "ring"));
    }

    private static void assertMessage(String fragment, Map<String, String> env) {
        String message = assertThrows(IllegalArgumentException.class, () -> BcastOptions.fromEnvironment(env))
                .getMessage();
        assertTrue(message.contains(fragment), message);
    }
}

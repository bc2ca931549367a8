package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The layouts of compare, ocean and tune: ranks, virtual nodes, test-bed hosts and slots,
 * placement on scripts/hbrun; and the error a bad one gets, naming it.
 */
class LayoutTest {
    /** "ranks|virtual nodes|bed hosts|bed slots|round-robin|hbrun placement on bed 'bed'". */
    private static String describe(Layout l) {
        return l.ranks() + "|" + join(l.virtualNodes()) + "|" + (l.isBed() ? l.bedHosts() : "") + "|"
                + l.slotsArgument() + "|" + (l.roundRobin() ? "node" : "") + "|"
                + String.join(" ", l.placement("bed"));
    }

    private static String join(List<Integer> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "node1; 1|||||",
                "node4; 4|||||",
                "node128; 128|||||",
                "virtual2x2; 4|2,2||||--nodes 2,2",
                "virtual1x3; 3|3||||--nodes 3",
                "virtual3x1; 3|1,1,1||||--nodes 1,1,1",
                "virtual8,3,3; 14|8,3,3||||--nodes 8,3,3",
                "virtual1,1; 2|1,1||||--nodes 1,1",
                "testbed2x2; 4||2|2||--testbed bed",
                "testbed1x1; 1||1|1||--testbed bed",
                "testbed3x4,2,2; 8||3|4,2,2||--testbed bed",
                "testbed3x8,3,3; 14||3|8,3,3||--testbed bed",
                "testbed4x2-rr; 8||4|2|node|--testbed bed --map-by node",
                "testbed8x1; 8||8|1||--testbed bed",
                "testbed8x1-rr; 8||8|1|node|--testbed bed --map-by node",
                "testbed32x128; 4096||32|128||--testbed bed"
            })
    void goodLayouts(String text, String expected) {
        Layout layout = Layout.parse(text);
        assertEquals(expected, describe(layout));
        assertEquals(text, layout.name());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "testbed3x4,2; names 3 hosts but 2 slot counts (4,2): give one per host, or one for all",
                "testbed2x1,1,1; names 2 hosts but 3 slot counts (1,1,1)",
                "testbed3x4,2,2-rr; round-robin placement (-rr) takes even hosts (testbedHxS-rr)",
                "node0; is none of nodeN",
                "node; is none of nodeN",
                "node04; is none of nodeN",
                "node-1; is none of nodeN",
                "cluster; is none of nodeN",
                "testbed2x; is none of nodeN",
                "testbedx2; is none of nodeN",
                "testbed0x2; is none of nodeN",
                "testbed2x0; is none of nodeN",
                "testbed2x2-RR; is none of nodeN",
                "testbed2x2,; is none of nodeN",
                "virtual4; is none of nodeN",
                "virtual2x0; is none of nodeN",
                "virtual2,,2; is none of nodeN",
                "Node4; is none of nodeN",
                "' node4'; is none of nodeN",
                "node99999999999; 99999999999 is too large",
                "testbed65536x65536; has 4294967296 ranks: too many"
            })
    void badLayoutsAreRefusedByName(String text, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Layout.parse(text));
        assertTrue(e.getMessage().startsWith("layout '" + text + "'"), e.getMessage());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void theGrammarsErrorNamesEveryForm() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Layout.parse("x"));
        assertEquals(
                "layout 'x' is none of nodeN, virtualAxB, virtualS0,S1,.., testbedHxS, testbedHxS0,S1,.. or"
                        + " testbed...-rr (e.g. node4, virtual2x2, testbed3x4,2,2, testbed4x2-rr)",
                e.getMessage());
    }

    @Test
    void aBedsPlacementNeedsTheBedsName() {
        Layout bed = Layout.parse("testbed2x2");
        assertTrue(bed.isBed());
        assertThrows(IllegalStateException.class, () -> bed.placement(null));
        assertThrows(IllegalStateException.class, () -> bed.placement(""));
        assertEquals(List.of(), Layout.parse("node4").placement(null));
        assertFalse(Layout.parse("virtual2x2").isBed());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {"virtual4|node4", "virtual1|node1", "virtual2x2|virtual2x2", "virtual2,2|virtual2,2", "node3|node3"
            })
    void oneVirtualNodeIsANode(String text, String expected) {
        assertEquals(expected, Layout.oneVirtualNodeAsNode(text));
    }

    @Test
    void theListsAreCopied() {
        Layout l = Layout.parse("virtual2,3");
        assertThrows(UnsupportedOperationException.class, () -> l.virtualNodes().add(1));
    }
}

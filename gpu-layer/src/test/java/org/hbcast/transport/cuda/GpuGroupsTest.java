package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The grouping by GPU, exhaustively: every placement of up to 6 ranks on up to 4 GPUs, every first rank. */
class GpuGroupsTest {
    @Test
    void everyPlacementGroupsByUuidWithOneCopierPerGroupAndHopsByReach() {
        int placements = 0;
        for (int ranks = 1; ranks <= 6; ranks++) {
            for (int gpus = 1; gpus <= 4; gpus++) {
                final int[] placement = new int[ranks];
                final int total = (int) Math.pow(gpus, ranks);
                for (int code = 0; code < total; code++) {
                    int c = code;
                    for (int r = 0; r < ranks; r++) {
                        placement[r] = c % gpus;
                        c /= gpus;
                    }
                    // Even GPUs reach each other, odd ones reach nothing: both hop kinds occur.
                    check(placement, gpu -> gpu % 2 == 0);
                    placements++;
                }
            }
        }
        assertEquals(6684, placements, "sum over 1..6 ranks of 1^n + 2^n + 3^n + 4^n");
    }

    private static void check(final int[] placement, final java.util.function.IntPredicate reachable) {
        final int ranks = placement.length;
        final String[] uuids = new String[ranks];
        final List<Set<String>> reaches = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            uuids[r] = "gpu-" + placement[r];
            final Set<String> reach = new HashSet<>();
            if (reachable.test(placement[r])) {
                for (int g = 0; g < 4; g += 2) {
                    reach.add("gpu-" + g);
                }
            }
            reaches.add(reach);
        }
        final GpuGroups groups = GpuGroups.of(uuids, reaches);
        final Set<Integer> seen = new HashSet<>();
        int previousLeader = -1;
        for (int g = 0; g < groups.groupCount(); g++) {
            final int[] members = groups.members(g);
            assertTrue(members.length > 0);
            final int[] sorted = members.clone();
            java.util.Arrays.sort(sorted);
            assertArrayEquals(sorted, members, "members ascending");
            assertTrue(groups.leader(g) > previousLeader, "groups in the order of their lowest rank");
            previousLeader = groups.leader(g);
            for (final int m : members) {
                assertTrue(seen.add(m), "rank " + m + " in one group only");
                assertEquals(g, groups.groupOf(m));
                assertEquals(uuids[m], groups.uuid(g), "a group is one GPU");
            }
            final int next = (g + 1) % groups.groupCount();
            final boolean peer = next == g || reaches.get(groups.leader(g)).contains(groups.uuid(next));
            assertEquals(peer ? GpuGroups.Hop.PEER : GpuGroups.Hop.HOST, groups.hopAfter(g));
        }
        assertEquals(ranks, seen.size(), "every rank grouped");
        assertEquals(
                (int) java.util.Arrays.stream(placement).distinct().count(), groups.groupCount(), "one group a GPU");
        for (int first = 0; first < ranks; first++) {
            for (int g = 0; g < groups.groupCount(); g++) {
                final int copier = groups.copier(g, first);
                assertEquals(g, groups.groupOf(copier), "the copier is one of the group");
                assertEquals(groups.groupOf(first) == g ? first : groups.leader(g), copier);
            }
            final String plan = groups.describe(first);
            assertTrue(plan.startsWith("GPU gpu-" + placement[first]), plan);
            assertEquals(
                    groups.groupCount() - 1,
                    Collections.frequency(List.of(plan.split(" ")), "-peer->")
                            + Collections.frequency(List.of(plan.split(" ")), "-host->"));
        }
    }

    @Test
    void ranksThatNumberTheirGpusDifferentlyStillShareAGroup() {
        // Node rank 0 sees the shared GPU as device 0, node rank 1 as device 1: only the UUID matters.
        final FakeCuda box = new FakeCuda(1, 2);
        final String zero = hex(box.process(1, 0).deviceUuid(0));
        final String one = hex(box.process(0, 1).deviceUuid(1));
        final GpuGroups groups = GpuGroups.of(new String[] {zero, one}, List.of(Set.of(), Set.of()));
        assertEquals(1, groups.groupCount());
    }

    @Test
    void missingUuidsOrReachSetsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> GpuGroups.of(new String[0], List.of()));
        assertThrows(IllegalArgumentException.class, () -> GpuGroups.of(new String[] {"a"}, List.of()));
        assertThrows(IllegalArgumentException.class, () -> GpuGroups.of(new String[] {""}, List.of(Set.of())));
    }

    private static String hex(final byte[] uuid) {
        return java.util.HexFormat.of().formatHex(uuid);
    }
}

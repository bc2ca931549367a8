package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** Where the calibration measures a chunk's stage: short pipelines, the slots' edge, and memory-sized messages. */
class CurveMessagesTest {
    private static final long K = 1024;
    private static final long M = K * K;

    @Test
    void smallChunksAreMeasuredAtTwoFourTheSlotsAndSixteenChunks() {
        assertEquals(List.of(128L, 256L, 512L, 1024L), Calibrate.curveMessages(64, 8));
        assertEquals(List.of(2 * K, 4 * K, 12 * K, 16 * K), Calibrate.curveMessages(K, 12));
    }

    @Test
    void fromEightKibChunksTheMemorySizedMessagesFollow() {
        assertEquals(
                List.of(64 * K, 128 * K, 256 * K, 512 * K, 4 * M, 16 * M, 64 * M), Calibrate.curveMessages(32 * K, 8));
        assertEquals(List.of(M, 2 * M, 4 * M, 8 * M, 16 * M, 64 * M), Calibrate.curveMessages(512 * K, 8));
        assertEquals(List.of(8 * M, 16 * M, 32 * M, 64 * M), Calibrate.curveMessages(4 * M, 8));
    }

    @Test
    void theSlotsEdgeIsLeftOutWhereItRepeatsAPointOrOutgrowsTheCurve() {
        assertEquals(
                List.of(2 * K, 4 * K, 16 * K), Calibrate.curveMessages(K, 4), "4 slots: already the 4-chunk point");
        assertEquals(List.of(2 * K, 4 * K, 16 * K), Calibrate.curveMessages(K, 1), "one slot waits at every chunk");
        assertEquals(List.of(8 * M, 16 * M, 64 * M), Calibrate.curveMessages(4 * M, 64), "256 MiB is past the curve");
        for (int slots = 1; slots <= 64; slots++) {
            for (long c = 64; c <= 4 * M; c *= 2) {
                List<Long> sizes = Calibrate.curveMessages(c, slots);
                for (int i = 1; i < sizes.size(); i++) {
                    assertTrue(sizes.get(i - 1) < sizes.get(i), "ascending: " + sizes);
                }
                assertTrue(
                        sizes.get(0) == 2 * c && sizes.get(sizes.size() - 1) <= Calibrate.LARGEST_CURVE_MESSAGE,
                        sizes::toString);
            }
        }
    }

    @Test
    void pointsAreTimedMessageSizeByMessageSizeEachOnce() {
        List<Long> chunks = List.of(16 * K, 32 * K, 64 * K);
        List<List<Long>> messages =
                chunks.stream().map(c -> Calibrate.curveMessages(c, 8)).toList();
        SortedMap<Long, List<int[]>> blocks = Calibrate.byMessage(chunks, messages);
        // 128 KiB: 8 chunks of 16 KiB, 4 of 32 KiB and 2 of 64 KiB, rivals side by side, by chunk size.
        assertEquals(List.of("0:3", "1:2", "2:1"), names(blocks.get(128 * K)));
        assertEquals(List.of("0:0"), names(blocks.get(16 * K)), "a one-chunk call is the fill");
        assertEquals(List.of("0:5", "1:5", "2:5"), names(blocks.get(4 * M)));
        int points = 0;
        Set<String> seen = new HashSet<>();
        for (Map.Entry<Long, List<int[]>> block : blocks.entrySet()) {
            for (int[] p : block.getValue()) {
                long m = p[1] == 0 ? chunks.get(p[0]) : messages.get(p[0]).get(p[1] - 1);
                assertEquals(block.getKey(), m, "point " + p[0] + ":" + p[1] + " in the block of its message");
                assertTrue(seen.add(p[0] + ":" + p[1]), "each point once");
            }
            points += block.getValue().size();
        }
        assertEquals(messages.stream().mapToInt(l -> l.size() + 1).sum(), points, "every point");
    }

    private static List<String> names(List<int[]> block) {
        return block.stream().map(p -> p[0] + ":" + p[1]).toList();
    }
}

package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.select.Selector;
import org.hbcast.transport.cuda.CudaRingMember;
import org.junit.jupiter.api.Test;

/** The GPU matrix's own arithmetic, checked where there is no GPU: buffers fit every count, mappings are reused. */
class DeviceMatrixTest {
    @Test
    void everyCountOfTheMatrixFitsItsBuffersWhateverTheChunk() {
        int direct = (int) CudaRingMember.DIRECT_MIN_BYTES;
        for (int chunk : new int[] {64, 4096, 256 << 10, Selector.MODEL_MAX_CHUNK_BYTES, 4 << 20, 16 << 20}) {
            DeviceMatrix m = new DeviceMatrix(chunk, direct);
            for (boolean large : new boolean[] {false, true}) {
                int capacity = m.bufferBytes(large);
                for (int c : m.byteCounts()) {
                    assertTrue(c <= capacity, chunk + "/" + large + ": " + c + " bytes > " + capacity);
                }
                for (int c : m.doubleCounts()) {
                    assertTrue(c * 8L <= capacity, chunk + "/" + large + ": " + c + " doubles > " + capacity);
                }
            }
        }
        // The case that broke: a chunk of 1 MiB made 3 chunks + 17 the largest count (with the direct
        // threshold at 1 MiB then); with today's device chunk and threshold, direct / 8 + 3 doubles are.
        DeviceMatrix then = new DeviceMatrix(Selector.MODEL_MAX_CHUNK_BYTES, 1 << 20);
        assertEquals(3 * (1 << 20) + 17, then.bufferBytes(false));
        assertEquals(DeviceMatrix.LARGE, then.bufferBytes(true));
        DeviceMatrix now = new DeviceMatrix(CudaRingMember.CHUNK_BYTES, direct);
        assertEquals(direct + 3L * Double.BYTES, now.bufferBytes(false));
    }

    @Test
    void theCallsAfterTheCountOnlyReuseMappingsMadeBefore() {
        for (List<Integer> roots :
                List.of(List.of(0), List.of(0, 1), List.of(0, 3), List.of(0, 1, 2, 3), List.of(2, 5, 7))) {
            List<int[]> mapped = DeviceMatrix.mappingPairs(roots);
            assertEquals(2 * roots.size(), mapped.size());
            for (int first = 0; first < 4; first++) {
                for (int[] p : DeviceMatrix.reusePairs(roots, first)) {
                    assertTrue(
                            DeviceMatrix.contains(mapped, p),
                            roots + " from call " + first + ": root " + p[0] + " with buffer " + p[1]
                                    + " was not mapped before the count");
                }
            }
        }
    }
}

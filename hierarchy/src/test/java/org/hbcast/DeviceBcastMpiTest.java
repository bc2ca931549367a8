package org.hbcast;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.hbcast.device.CudaDevices;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The host correctness matrix for GPU buffers, on real CUDA devices: 1 to 8 ranks sharing the
 * machine's GPUs (round-robin by node rank, so on a one-GPU machine all share it), every root,
 * virtual nodes whose leaders stage through pinned host memory. Skipped, with the reason, where no
 * CUDA device can be used. Run them alone with {@code scripts/gpu-test}.
 */
@Tag("gpu")
class DeviceBcastMpiTest {
    @BeforeEach
    void needsGpu() {
        CudaDevices devices = CudaDevices.get();
        assumeTrue(devices.available(), () -> "no CUDA device: " + devices.unavailableReason());
    }

    /**
     * Every rank ran every case of {@link DeviceBcastProgram}'s matrix: for each of the three
     * algorithms, nine counts from every root of {@code roots}, three of doubles, two large ones
     * ({@code large}), every root with each of the two buffers in direct mode (so every rank has mapped
     * every buffer it sends into, see {@link DeviceMatrix}), one more from every root with the IPC
     * cache warm, and the cache's own case.
     */
    private static void assertMatrix(MpiOutcome out, String roots, boolean large) {
        int size = out.ranks();
        int rootCount = roots.equals("all") ? size : 1 + (size > 2 ? 1 : 0) + (size > 1 ? 1 : 0);
        out.assertAllRanksOk()
                .assertCasesOnEveryRank(3 * (9 * rootCount + 3 + (large ? 2 : 0) + 2 * rootCount + rootCount + 1));
    }

    @ParameterizedTest(name = "{0} ranks on one node")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void oneNode(int ranks) {
        String roots = ranks <= 4 ? "all" : "ends";
        boolean large = ranks == 4 || ranks == 8;
        assertMatrix(
                MpiLaunch.program(DeviceBcastProgram.class)
                        .ranks(ranks)
                        .args("roots=" + roots, "large=" + (large ? "yes" : "no"))
                        .run(),
                roots,
                large);
    }

    @Test
    void twoVirtualNodesOfTwo() {
        assertMatrix(
                MpiLaunch.program(DeviceBcastProgram.class)
                        .nodeSizes("2,2")
                        .args("roots=all")
                        .run(),
                "all",
                true);
    }

    @Test
    void twoVirtualNodesOfThree() {
        assertMatrix(
                MpiLaunch.program(DeviceBcastProgram.class)
                        .nodeSizes("3,3")
                        .args("roots=all", "large=no")
                        .run(),
                "all",
                false);
    }

    @Test
    void unevenVirtualNodesSmallChunks() {
        assertMatrix(
                MpiLaunch.program(DeviceBcastProgram.class)
                        .nodeSizes("3,1,2")
                        .env("HBCAST_CHUNK_BYTES", "65536")
                        .args("roots=ends", "large=no")
                        .run(),
                "ends",
                false);
    }

    /**
     * Device calls after warm-up allocate little per call: the bindings' request and status objects
     * of the leaders' tree and of the descriptor swap (buffer to buffer) are what remains, a few
     * hundred bytes; the host path's allocation test ({@link AllocationMpiTest}) holds the rest to zero.
     */
    @Test
    void deviceCallsAllocateAlmostNothingAfterWarmUp() {
        MpiLaunch.program(DeviceBcastProgram.class)
                .nodeSizes("2,2")
                .args("suite=allocation", "calls=2000", "maxPerCall=512", "algorithms=hierarchical,knomial")
                .run()
                .assertAllRanksOk();
    }

    @Test
    void hundredRandomBackToBackCalls() {
        MpiLaunch.program(DeviceBcastProgram.class)
                .nodeSizes("3,2")
                .args("suite=random", "calls=100")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(100);
    }
}

package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Device memory the program allocated itself ({@link DeviceBuffer#ofUserMemory}), on a real GPU:
 * every rank's own {@code cudaMalloc}'d memory is broadcast byte for byte from the first and the last
 * rank at sizes that the selector stages through the host, runs on the ring through its slots and
 * buffer to buffer; when one rank passes managed memory every rank's call fails and that rank's
 * message says why; memory freed straight after each call and allocated again is broadcast
 * byte for byte, no peer's memory mapped between calls; the program's memory is still the program's
 * afterwards ({@code cudaFree} succeeds). Skipped, with the reason, where no CUDA device can be used.
 */
@Tag("gpu")
class UserDeviceMemoryMpiTest {
    private static final long[] SIZES = {1, 4097, (1 << 20) + 3, (33 << 20) + 5};
    private static final String MANAGED = "one rank's managed memory fails every rank";

    @ParameterizedTest(name = "layout {0}")
    @ValueSource(strings = {"4", "2,2"})
    void theProgramsOwnMemoryIsBroadcastAndRefusedWhereCudaCannotExportIt(String layout) {
        CudaDevices devices = CudaDevices.get();
        assumeTrue(devices.available(), () -> "no CUDA device: " + devices.unavailableReason());
        MpiOutcome out = MpiLaunch.body(UserDeviceMemoryMpiTest::broadcasts)
                .layout(layout)
                .run()
                .assertAllRanksOk();
        assertTrue(out.note(1, MANAGED).contains("managed memory"), out.describe("rank 1"));
    }

    static void broadcasts(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        int rank = world.getRank();
        int size = world.getSize();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            int device = CudaDevices.get().deviceForLocalRank(hb.topology().position());
            long most = SIZES[SIZES.length - 1];
            CudaContext.use(device);
            Pointer memory = new Pointer();
            CudaException.check(JCuda.cudaMalloc(memory, most), "cudaMalloc");
            List<Ranks.Named> cases = new ArrayList<>();
            for (long bytes : SIZES) {
                for (int root : new int[] {0, size - 1}) {
                    cases.add(Ranks.named(bytes + " B from rank " + root, () -> {
                        DeviceBuffer mine = DeviceBuffer.ofUserMemory(memory, most, device);
                        byte[] data = new byte[(int) bytes];
                        for (int i = 0; i < data.length; i++) {
                            data[i] = (byte) (rank == root ? i * 31 + root : 0x5A);
                        }
                        mine.copyFromHost(data, 0, data.length);
                        hb.bcast(mine, (int) bytes, MPI.BYTE, root);
                        byte[] got = new byte[(int) bytes];
                        mine.copyToHost(0, got, got.length);
                        for (int i = 0; i < got.length; i++) {
                            if (got[i] != (byte) (i * 31 + root)) {
                                throw new AssertionError("byte " + i + " of " + bytes + " differs");
                            }
                        }
                        mine.close();
                    }));
                }
            }
            cases.add(Ranks.named("freed on return and allocated again, every call", () -> {
                // Peers map the program's memory for one call only: it may be freed as soon as bcast returns.
                for (long bytes : new long[] {(1 << 20) + 3, most}) {
                    for (int root = 0; root < size; root++) {
                        Pointer fresh = new Pointer();
                        CudaException.check(JCuda.cudaMalloc(fresh, bytes), "cudaMalloc");
                        DeviceBuffer view = DeviceBuffer.ofUserMemory(fresh, bytes, device);
                        byte[] data = new byte[(int) bytes];
                        for (int i = 0; i < data.length; i++) {
                            data[i] = (byte) (rank == root ? i * 7 + root : 0x5A);
                        }
                        view.copyFromHost(data, 0, data.length);
                        hb.bcast(view, (int) bytes, MPI.BYTE, root);
                        boolean stillMapped = hb.deviceUse().mapsPeerBuffer();
                        view.copyToHost(0, data, data.length);
                        view.close();
                        CudaException.check(JCuda.cudaFree(fresh), "cudaFree straight after the call");
                        if (stillMapped) {
                            throw new AssertionError("a peer's memory still mapped after the call from " + root);
                        }
                        for (int i = 0; i < data.length; i++) {
                            if (data[i] != (byte) (i * 7 + root)) {
                                throw new AssertionError("byte " + i + " of " + bytes + " from " + root + " differs");
                            }
                        }
                    }
                }
            }));
            cases.add(Ranks.named(MANAGED, () -> {
                Pointer managed = new Pointer();
                CudaException.check(
                        JCuda.cudaMallocManaged(managed, 4096, JCuda.cudaMemAttachGlobal), "cudaMallocManaged");
                DeviceBuffer buf = rank == 1
                        ? DeviceBuffer.ofUserMemory(managed, 4096, device)
                        : DeviceBuffer.ofUserMemory(memory, 4096, device);
                try {
                    hb.bcast(buf, 4096, MPI.BYTE, 0);
                    throw new AssertionError("a call that rank 1 refused did not fail here");
                } catch (MPIException e) {
                    report.note(MANAGED, e.getMessage());
                } finally {
                    buf.close();
                    CudaException.check(JCuda.cudaFree(managed), "cudaFree of the managed memory");
                }
            }));
            cases.add(Ranks.named("the program's memory is still its own", () -> {
                // The library never freed it: the program's own cudaFree succeeds.
                CudaException.check(JCuda.cudaFree(memory), "cudaFree of the program's memory");
            }));
            ranks.checkAll(cases);
        }
    }
}

package org.hbcast;

import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.testing.MpiTestProgram;

/**
 * The device overload's argument checks, which run with or without a GPU: a null buffer (which Java
 * resolves to the device overload) is named as in the host overload, and without a device the
 * reason is given too, on every rank, before anything is sent. Either way the instance stays usable
 * and host broadcasts work afterwards; when rank 1 alone refuses its arguments, every rank fails that
 * call instead of waiting for it (with or without a per-call agreement). (Without a driver no DeviceBuffer can exist at all:
 * {@code DeviceBuffer.allocate} fails with "no CUDA device: reason", see DevicePointerTest.) Three
 * cases; the refusal's message is the note {@value #NULL_REFUSED}.
 */
public final class DeviceOverloadProgram {
    /** The first case, and the note of the message it got. */
    static final String NULL_REFUSED = "a null device buffer refused";
    /** The third case: rank 1 alone refuses its arguments; every rank must fail, none wait. */
    static final String ONE_REFUSES = "one rank refuses, every rank fails";

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            CudaDevices devices = CudaDevices.get();
            try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                // A literal null resolves to the device overload and must keep the host overload's message.
                String expected = devices.available()
                        ? "buffer is null"
                        : "buffer is null (and no CUDA device: " + devices.unavailableReason() + ")";
                report.check(NULL_REFUSED, () -> {
                    try {
                        hb.bcast((DeviceBuffer) null, 16, MPI.BYTE, 0);
                        throw new AssertionError("a device bcast of a null buffer did not fail");
                    } catch (MPIException e) {
                        if (!e.getMessage().contains(expected)) {
                            throw new AssertionError(
                                    "expected an error saying '" + expected + "', got: " + e.getMessage());
                        }
                        report.note(NULL_REFUSED, e.getMessage());
                    }
                });
                report.check("host bcast after the refused device call", () -> {
                    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
                    if (world.getRank() == 0) {
                        for (int i = 0; i < buf.capacity(); i++) {
                            buf.put(i, (byte) (i * 7));
                        }
                    }
                    hb.bcast(buf, buf.capacity(), MPI.BYTE, 0);
                    for (int i = 0; i < buf.capacity(); i++) {
                        if (buf.get(i) != (byte) (i * 7)) {
                            throw new AssertionError(
                                    "host bcast after the refused device call: byte " + i + " differs");
                        }
                    }
                });
                report.check(ONE_REFUSES, () -> {
                    // Rank 1 refuses its arguments; where there is a device the others' are good. Under
                    // trusted counts no per-call agreement tells them: the first call's ring set-up must.
                    DeviceBuffer mine = world.getRank() != 1 && devices.available()
                            ? DeviceBuffer.allocate(16, devices.deviceForLocalRank(0))
                            : null;
                    try {
                        hb.bcast(mine, 16, MPI.BYTE, 0);
                        throw new AssertionError("a device bcast that rank 1 refused did not fail here");
                    } catch (MPIException e) {
                        report.note(ONE_REFUSES, e.getMessage());
                    } finally {
                        if (mine != null) {
                            mine.close();
                        }
                    }
                });
                return "device overload refused with: " + expected + "; host bcast fine afterwards";
            }
        });
    }
}

package org.hbcast.mpi;

import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.Request;
import org.hbcast.testing.MpiTestProgram;

/**
 * Rank 0 sends {@code args[0]} bytes of a known pattern to the last rank, which checks them and
 * sends them back; rank 0 checks the echo. Proves a large message crosses between hosts intact.
 * One case on each of the two ranks (run it on two: ranks between them have none), and figure
 * {@code bytes}.
 */
public final class RoundTripProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            int bytes = Integer.parseInt(rest[0]);
            int rank = world.getRank();
            int peer = world.getSize() - 1;
            ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
            report.figure("bytes", bytes);
            if (rank == 0) {
                report.check("round trip to rank " + peer, () -> {
                    fill(buf, 0x5eed);
                    world.send(buf, bytes, MPI.BYTE, peer, 1);
                    clear(buf);
                    Request r = world.iRecv(buf, bytes, MPI.BYTE, peer, 2);
                    r.waitFor();
                    check(buf, 0x5eed, "echo");
                });
                return "round trip of " + bytes + " bytes to rank " + peer + " (" + MPI.getProcessorName() + ") intact";
            } else if (rank == peer) {
                report.check("receive and echo", () -> {
                    world.recv(buf, bytes, MPI.BYTE, 0, 1);
                    check(buf, 0x5eed, "message");
                    world.send(buf, bytes, MPI.BYTE, 0, 2);
                });
                return "received and echoed " + bytes + " bytes";
            }
            return "idle";
        });
    }

    private static void fill(ByteBuffer buf, int seed) {
        for (int i = 0; i < buf.capacity(); i++) {
            buf.put(i, pattern(i, seed));
        }
    }

    private static void clear(ByteBuffer buf) {
        for (int i = 0; i < buf.capacity(); i++) {
            buf.put(i, (byte) 0);
        }
    }

    private static void check(ByteBuffer buf, int seed, String what) {
        for (int i = 0; i < buf.capacity(); i++) {
            if (buf.get(i) != pattern(i, seed)) {
                throw new AssertionError(what + " corrupt at byte " + i);
            }
        }
    }

    private static byte pattern(int i, int seed) {
        int x = i * 0x9E3779B1 + seed;
        return (byte) (x ^ (x >>> 13));
    }
}

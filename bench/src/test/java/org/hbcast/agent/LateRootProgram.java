package org.hbcast.agent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Two habits of unmodified programs, with the bindings' own calls only (nothing of hbcast):
 * {@code late=S}: rank 0, the root, comes S seconds late to the third of four broadcasts (it was
 * writing a checkpoint, say), and every rank checks every byte of every call; {@code disconnect}: a
 * duplicate of the world is broadcast on, then disconnected, and the shared memory the rank maps
 * is counted before, in between and after (figures {@code shmBefore}, {@code shmDuring},
 * {@code shmAfter}), while the program goes on broadcasting on the world.
 */
public final class LateRootProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            String mode = rest.length > 0 ? rest[0] : "late=8";
            if (mode.equals("disconnect")) {
                return disconnect(world, report);
            }
            return late(world, report, Integer.parseInt(mode.substring("late=".length())));
        });
    }

    private static String late(Intracomm world, RankReport report, int lateSeconds) throws Exception {
        int rank = world.getRank();
        byte[] data = new byte[4096];
        for (int call = 1; call <= 4; call++) {
            for (int i = 0; i < data.length; i++) {
                data[i] = rank == 0 ? (byte) (i * 7 + call) : (byte) -1;
            }
            if (call == 3 && rank == 0) {
                Thread.sleep(lateSeconds * 1000L);
            }
            long start = System.nanoTime();
            world.bcast(data, data.length, MPI.BYTE, 0);
            if (call == 3) {
                report.figure("lateSeconds", (System.nanoTime() - start) / 1e9);
            }
            for (int i = 0; i < data.length; i++) {
                if (data[i] != (byte) (i * 7 + call)) {
                    throw new AssertionError("call " + call + ": byte " + i + " is " + data[i]);
                }
            }
            report.pass("call " + call);
        }
        return "waited for the late root";
    }

    private static String disconnect(Intracomm world, RankReport report) throws Exception {
        long[] v = new long[2];
        int before = sharedMappings();
        Intracomm dup = world.dup();
        v[0] = dup.getRank() == 0 ? 41 : 0;
        dup.bcast(v, 2, MPI.LONG, 0);
        int during = sharedMappings();
        dup.disconnect();
        int after = sharedMappings();
        report.figure("shmBefore", before).figure("shmDuring", during).figure("shmAfter", after);
        if (v[0] != 41) {
            throw new AssertionError("on the duplicate: " + v[0]);
        }
        report.pass("broadcast on a communicator then disconnected");
        ByteBuffer b = ByteBuffer.allocateDirect(8);
        if (world.getRank() == 0) {
            b.putLong(0, 42);
        }
        world.bcast(b, 8, MPI.BYTE, 0);
        if (b.getLong(0) != 42) {
            throw new AssertionError("on the world after the disconnect: " + b.getLong(0));
        }
        report.pass("broadcast on the world after the disconnect");
        return "shared mappings " + before + " -> " + during + " -> " + after;
    }

    /** Shared-memory files this process maps (unlinked ones included: they stay mapped until unmapped). */
    private static int sharedMappings() throws Exception {
        int n = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"), StandardCharsets.UTF_8)) {
            if (line.contains("/dev/shm/")) {
                n++;
            }
        }
        return n;
    }
}

package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/**
 * CrossTraffic on real ranks: every kind of side message (an MPI message, a UDP datagram, a flag in
 * shared memory) reaches its rank and the table has a row for each kind and size; its flag file is
 * gone afterwards; a kind it does not know is named before anything runs.
 */
class CrossTrafficMpiTest {
    @Test
    void everyKindRunsAndItsFlagFileIsRemoved() throws IOException {
        List<Path> before = flagFiles();
        MpiOutcome out = MpiLaunch.program(CrossTraffic.class)
                .ranks(4)
                .args("-m", "1024:2048", "--blocks", "2", "--calls", "3", "--from", "1", "--to", "3")
                .run();
        assertEquals(0, out.exitCode(), out.output());
        List<String> rows = out.output()
                .lines()
                .filter(l -> l.matches("^\\d+ +(alone|mpi|udp|shm) +[0-9.]+ +[0-9.]+ +[0-9.]+$"))
                .toList();
        assertEquals(10, rows.size(), out.output());
        for (String kind : List.of("alone", "mpi", "udp", "shm")) {
            for (String size : List.of("1024", "2048")) {
                assertTrue(rows.stream().anyMatch(r -> r.startsWith(size + " ") && r.contains(" " + kind + " ")), kind);
            }
        }
        assertTrue(out.output().contains("rank 1 sends 64 bytes to rank 3"), out.output());
        assertEquals(before, flagFiles(), "a flag file was left in /dev/shm");
    }

    @Test
    void anUnknownKindIsNamed() {
        MpiOutcome out = MpiLaunch.program(CrossTraffic.class)
                .ranks(2)
                .args("--kinds", "alone,tcp")
                .run();
        assertNotEquals(0, out.exitCode(), out.output());
        assertTrue(out.output().contains("no kind 'tcp'"), out.output());
    }

    private static List<Path> flagFiles() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.filter(p -> p.getFileName().toString().startsWith("hbcast-cross-traffic-"))
                    .sorted()
                    .toList();
        }
    }
}

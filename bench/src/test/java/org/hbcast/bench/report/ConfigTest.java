package org.hbcast.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** config.properties as the comparison writes it and the report reads it back. */
class ConfigTest {
    @Test
    void whatIsWrittenIsReadBack(@TempDir Path dir) throws IOException {
        Config written = new Config(
                "han",
                2,
                true,
                "--mca coll_han_priority 100",
                "coll/han on MPI_COMM_WORLD: comm has only local processes;\n disqualifying myself (see C:\\x=1)",
                null);
        Path file = dir.resolve("config.properties");
        Files.writeString(file, written.properties());
        Config read = Config.read(file);
        assertEquals(
                new Config(
                        "han",
                        2,
                        true,
                        "--mca coll_han_priority 100",
                        "coll/han on MPI_COMM_WORLD: comm has only local processes; disqualifying myself (see C:\\x=1)",
                        null),
                read);
    }

    @Test
    void hbcastsRunIsNoOpenMpiConfiguration(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("config.properties");
        Files.writeString(file, new Config(Config.HBCAST, 5, false, "", null, null).properties());
        assertEquals("name=hbcast\norder=5\nmca=\nunavailable=\nselected=\n", Files.readString(file));
        assertEquals(new Config(Config.HBCAST, 5, false, "", null, null), Config.read(file));
    }
}

package org.hbcast.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report tool on a directory laid out as scripts/compare leaves it. */
class CompareReportTest {
    private static void config(Path dir, String name, int order, String unavailable) throws IOException {
        Files.createDirectories(dir.resolve(name));
        Files.writeString(
                dir.resolve(name).resolve("config.properties"),
                "name=" + name + "\norder=" + order + "\nmca=\nunavailable=" + unavailable + "\n");
    }

    /** A round in the JSON format OsuBcast --json writes. */
    private static void round(Path dir, String name, int round, String impls, String rows) throws IOException {
        Files.writeString(
                dir.resolve(name).resolve("round-" + round + ".json"),
                "{\"benchmark\":\"osu_bcast v7.3\",\"ranks\":4,\"nodes\":[2,2],\"container\":\"buffer\",\"root\":0,"
                        + "\"repeat\":1,\"impls\":[" + impls + "],\"rows\":[" + rows + "]}");
    }

    @Test
    void mergesADirectoryIntoTableJsonAndPlot(@TempDir Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        config(dir, "tuned", 1, "");
        config(dir, "han", 2, "not selected");
        config(dir, Config.HBCAST, 3, "");
        round(dir, "tuned", 1, "\"native\"", "{\"size\":1,\"iterations\":5,\"native_avg_us\":4.0}");
        round(dir, "tuned", 2, "\"native\"", "{\"size\":1,\"iterations\":5,\"native_avg_us\":6.0}");
        round(
                dir,
                Config.HBCAST,
                1,
                "\"native\",\"auto\"",
                "{\"size\":1,\"iterations\":5,\"native_avg_us\":5.0,\"auto_avg_us\":2.5,\"memcpy_us\":0.1}");
        Files.writeString(dir.resolve("tuned").resolve("round-1.txt"), "not a round file");

        Path md = dir.resolve("compare.md");
        Path json = dir.resolve("merged.json");
        Path png = dir.resolve("plot.png");
        int code = CompareReport.commandLine()
                .execute(
                        "--dir",
                        dir.toString(),
                        "--layout",
                        "virtual2x2",
                        "--md",
                        md.toString(),
                        "--json",
                        json.toString(),
                        "--png",
                        png.toString());
        assertEquals(0, code);
        String table = Files.readString(md);
        assertTrue(table.contains("| 1 B | 5.00 | n/a | 5.00 | 2.50 | 5.00 (tuned) | 2.00x |"), table);
        assertTrue(table.contains("**not measured**: not selected"), table);
        JsonNode merged = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, merged.at("/comparison/rounds").asInt());
        assertEquals(2.0, merged.at("/comparison/rows/0/ratio").asDouble());
        assertEquals(2, merged.at("/goals").size());
        assertTrue(Files.size(png) > 1000);
    }

    @Test
    void aFolderWhoseConfigNamesAnotherIsRefused(@TempDir Path dir) throws IOException {
        config(dir, "tuned", 1, "");
        Files.writeString(dir.resolve("tuned").resolve("config.properties"), "name=adapt\n");
        assertEquals(2, CompareReport.commandLine().execute("--dir", dir.toString()));
    }

    @Test
    void readsEveryConfigFolderInOrder(@TempDir Path dir) throws IOException {
        config(dir, "b", 2, "");
        config(dir, "a", 1, "x");
        Files.createDirectories(dir.resolve("unrelated"));
        List<Config> configs = CompareReport.configs(dir);
        assertEquals(2, configs.size());
        assertEquals(
                "x",
                configs.stream()
                        .filter(c -> c.name().equals("a"))
                        .findFirst()
                        .orElseThrow()
                        .unavailable());
    }
}

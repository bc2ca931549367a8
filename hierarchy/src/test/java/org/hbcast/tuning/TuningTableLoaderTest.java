package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import org.hbcast.plan.MemoryKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TuningTableLoaderTest {
    private static final Fingerprint FP = TuningFixtures.fingerprint(TuningFixtures.TWO_BY_TWO);
    private static final Path FILE = Path.of("/some/dir/tuning-test.json");

    @TempDir
    Path dir;

    static byte[] valid() throws Exception {
        return TuningJson.mapper().writeValueAsBytes(TuningFixtures.table(TuningFixtures.TWO_BY_TWO));
    }

    private static TuningTableLoader.Loaded<TuningTable> load(byte[] content) {
        return TuningTableLoader.table(FILE, content, FP, MemoryKind.HOST);
    }

    /** The loader refuses the table with a warning naming the file and containing {@code reason}. */
    private static void refused(byte[] content, String reason) {
        TuningTableLoader.Loaded<TuningTable> r = load(content);
        assertNull(r.value());
        assertTrue(r.warning().contains(FILE.toString()), r.warning());
        assertTrue(r.warning().contains(reason), r.warning());
        assertTrue(r.warning().contains("cost model"), r.warning());
    }

    private static byte[] edited(Consumer<ObjectNode> edit) throws Exception {
        ObjectNode root = (ObjectNode) TuningJson.mapper().readTree(valid());
        edit.accept(root);
        return TuningJson.mapper().writeValueAsBytes(root);
    }

    private static ObjectNode entry(ObjectNode root, int i) {
        return (ObjectNode) root.withArray("entries").get(i);
    }

    @Test
    void aValidTableLoadsAndSurvivesARoundTrip() throws Exception {
        TuningTableLoader.Loaded<TuningTable> r = load(valid());
        assertTrue(r.ok(), r.warning());
        assertNull(r.warning());
        assertEquals(TuningFixtures.table(TuningFixtures.TWO_BY_TWO), r.value());
    }

    @Test
    void corruptTruncatedAndEmptyFilesAreRefused() throws Exception {
        refused("{ this is not json".getBytes(StandardCharsets.UTF_8), "not a valid tuning table");
        byte[] v = valid();
        refused(Arrays.copyOf(v, v.length / 2), "not a valid tuning table");
        refused(new byte[0], "not a valid tuning table");
        refused("null".getBytes(StandardCharsets.UTF_8), "empty document");
        refused("[1,2,3]".getBytes(StandardCharsets.UTF_8), "not a valid tuning table");
    }

    @Test
    void wrongVersionAndForeignFingerprintAreRefused() throws Exception {
        refused(edited(r -> r.put("formatVersion", 2)), "format version 2");
        refused(
                TuningJson.mapper().writeValueAsBytes(TuningFixtures.table(ClusterShape.parse("1x4"))),
                "another machine or layout");
        refused(edited(r -> ((ObjectNode) r.get("fingerprint").get("host")).put("cpus", 999)), "another machine");
        refused(edited(r -> r.putNull("fingerprint")), "no fingerprint");
        refused(edited(r -> r.put("memory", "DEVICE")), "device buffers");
    }

    @Test
    void nonsensicalEntriesAreRefused() throws Exception {
        refused(edited(r -> entry(r, 1).put("chunkBytes", 0)), "chunk 0 B");
        refused(edited(r -> entry(r, 1).put("chunkBytes", -4096)), "chunk -4096 B");
        refused(edited(r -> entry(r, 0).put("chunkBytes", 1 << 20)), "chunk 1048576 B");
        refused(edited(r -> entry(r, 2).put("chunkBytes", Integer.MAX_VALUE)), "chunk");
        refused(edited(r -> entry(r, 1).put("radix", 1)), "radix 1");
        refused(edited(r -> entry(r, 1).put("seconds", Double.NaN)), "time NaN");
        refused(edited(r -> entry(r, 1).put("seconds", -1.0)), "time -1.0");
        refused(edited(r -> entry(r, 1).put("algorithm", "auto")), "not a concrete algorithm");
        refused(edited(r -> entry(r, 1).put("algorithm", "teleport")), "not a valid tuning table");
        refused(
                edited(r ->
                        ((ObjectNode) entry(r, 1).withArray("points").get(0)).put("seconds", Double.POSITIVE_INFINITY)),
                "measured point");
        refused(edited(r -> r.putArray("entries")), "no entries");
        refused(edited(r -> entry(r, 1).remove("chunkBytes")), "not a valid tuning table");
    }

    @Test
    void unsortedAndDuplicateSizesAreRefused() throws Exception {
        refused(
                edited(r -> {
                    ArrayNode e = r.withArray("entries");
                    e.insert(0, e.remove(2));
                }),
                "not strictly ascending");
        refused(
                edited(r -> {
                    ArrayNode e = r.withArray("entries");
                    e.add(e.get(2).deepCopy());
                }),
                "not strictly ascending");
    }

    @Test
    void missingAndUnreadableFilesAreWarnings() throws Exception {
        TuningTableLoader.Loaded<TuningTable> missing =
                TuningTableLoader.table(dir.resolve("nope.json"), FP, MemoryKind.HOST);
        assertFalse(missing.ok());
        assertTrue(missing.warning().contains("nope.json") && missing.warning().contains("does not exist"));
        TuningTableLoader.Loaded<TuningTable> directory = TuningTableLoader.table(dir, FP, MemoryKind.HOST);
        assertFalse(directory.ok());
        assertTrue(directory.warning().contains(dir.toString()), directory.warning());
        Path good = dir.resolve("good.json");
        Files.write(good, valid());
        assertTrue(TuningTableLoader.table(good, FP, MemoryKind.HOST).ok());
    }

    @Test
    void badCalibrationsAreWarnings() throws Exception {
        Calibration c = TuningFixtures.calibration();
        byte[] ok = TuningJson.mapper().writeValueAsBytes(c);
        assertTrue(TuningTableLoader.calibration(FILE, ok, FP.hardware()).ok());
        TuningTableLoader.Loaded<Calibration> foreign = TuningTableLoader.calibration(FILE, ok, "cpu=other");
        assertTrue(
                foreign.warning().contains(FILE.toString()) && foreign.warning().contains("other hardware"));
        String negative =
                new String(ok, StandardCharsets.UTF_8).replace("\"bytesPerSecond\" : 1.0E9", "\"bytesPerSecond\" : -1");
        TuningTableLoader.Loaded<Calibration> bad =
                TuningTableLoader.calibration(FILE, negative.getBytes(StandardCharsets.UTF_8), FP.hardware());
        assertFalse(bad.ok());
        assertTrue(bad.warning().contains("bandwidth"), bad.warning());
    }
}

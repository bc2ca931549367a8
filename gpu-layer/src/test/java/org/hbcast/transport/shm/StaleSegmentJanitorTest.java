package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The janitor against real processes: a segment left by a process that died is removed, one of a
 * live process (or of this one, or of a pid now used by another process) is judged by start time,
 * and nothing young, foreign or of unknown origin is touched.
 */
class StaleSegmentJanitorTest {
    private ShmTestDirectory dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = ShmTestDirectory.create();
    }

    @AfterEach
    void removeDirectory() throws IOException {
        dir.close();
    }

    @Test
    void removesTheSegmentOfADeadProcessAndKeepsALiveOnes() throws Exception {
        final String dead = leave("die").name;
        final Leaver live = leave("live");
        try (SharedSegment mine = SharedSegment.create(dir.path(), SharedSegment.newName(), 4096)) {
            assertTrue(SegmentCreator.ofName(dead).isDead(), dead);
            assertFalse(SegmentCreator.ofName(live.name).isDead(), live.name);
            assertFalse(SegmentCreator.current().isDead());

            // Young segments are left alone even when their creator is dead.
            StaleSegmentJanitor.Sweep young = StaleSegmentJanitor.sweep(dir.path(), Duration.ofMinutes(1), false);
            assertEquals(List.of(), young.removed());
            assertEquals(3, young.kept().size());

            ageAll();
            final StaleSegmentJanitor.Sweep dry = StaleSegmentJanitor.sweep(dir.path(), Duration.ofMinutes(1), true);
            assertEquals(List.of(dir.path().resolve(dead)), dry.removed());
            assertTrue(Files.exists(dir.path().resolve(dead)), "a dry run removes nothing");

            final StaleSegmentJanitor.Sweep sweep = StaleSegmentJanitor.sweep(dir.path(), Duration.ofMinutes(1), false);
            assertEquals(List.of(dir.path().resolve(dead)), sweep.removed());
            assertFalse(Files.exists(dir.path().resolve(dead)));
            assertTrue(Files.exists(dir.path().resolve(live.name)));
            assertTrue(Files.exists(mine.path()));
        } finally {
            live.process.getOutputStream().close();
            live.process.waitFor(30, TimeUnit.SECONDS);
        }
        // Its creator has now exited too: the next sweep takes it.
        ageAll();
        assertEquals(
                List.of(dir.path().resolve(live.name)),
                StaleSegmentJanitor.sweep(dir.path(), Duration.ZERO, false).removed());
    }

    @Test
    void aReusedPidIsRecognisedByItsStartTimeAndForeignNamesAreKept() throws IOException {
        final SegmentCreator me = SegmentCreator.current();
        final String random = SharedSegment.newName().substring(0, SharedSegment.NAME_PREFIX.length() + 32);
        final String reused = random + "-" + me.pidNamespace() + "-" + me.pid() + "-" + (me.startTime() + 1);
        final String otherNamespace = random + "-" + (me.pidNamespace() + 1) + "-" + 1 + "-" + 1;
        final String legacy = random;
        final String unrelated = "hbcast-notes.txt";
        for (final String name : List.of(reused, otherNamespace, legacy)) {
            Files.write(dir.path().resolve(name), new byte[4096]);
        }
        Files.write(dir.path().resolve(unrelated), new byte[1]);
        ageAll();
        final StaleSegmentJanitor.Sweep sweep = StaleSegmentJanitor.sweep(dir.path(), Duration.ZERO, false);
        assertEquals(List.of(dir.path().resolve(reused)), sweep.removed(), "pid alive but started at another time");
        assertTrue(Files.exists(dir.path().resolve(otherNamespace)), "another pid namespace cannot be judged");
        assertTrue(Files.exists(dir.path().resolve(legacy)), "no creator in the name: unknown, kept");
        assertTrue(Files.exists(dir.path().resolve(unrelated)));
    }

    @Test
    void namesCarryTheCreatorAndStillHave128RandomBits() {
        final String name = SharedSegment.newName();
        final SegmentCreator creator = SegmentCreator.ofName(name);
        assertNotNull(creator, name);
        assertEquals(ProcessHandle.current().pid(), creator.pid());
        assertTrue(creator.startTime() > 0);
        assertTrue(
                name.substring(SharedSegment.NAME_PREFIX.length(), SharedSegment.NAME_PREFIX.length() + 32)
                        .matches("[0-9a-f]{32}"),
                name);
    }

    private void ageAll() throws IOException {
        try (var files = Files.list(dir.path())) {
            for (final Path p : files.toList()) {
                Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
            }
        }
    }

    private record Leaver(String name, Process process) {}

    private Leaver leave(final String how) throws Exception {
        final String java = ProcessHandle.current().info().command().orElse("java");
        final Process p = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        SegmentLeaver.class.getName(),
                        dir.path().toString(),
                        how)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        final String name =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertNotNull(name, "the child made no segment");
        if (how.equals("die")) {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        }
        return new Leaver(name, p);
    }
}

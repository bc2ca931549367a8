package org.hbcast.bench.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Child processes as the scripts ran them: tee, redirect, environment, exit status, time limit. */
class SubprocessTest {
    private static Subprocess sh(String script) {
        return Subprocess.of(List.of("bash", "-c", script));
    }

    @Test
    void teeWritesTheFileAndEchoesBothStreams(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream echoed = new ByteArrayOutputStream();
        Path file = dir.resolve("sub/run.txt");
        int code = sh("echo out; echo err >&2; exit 3")
                .teeTo(file)
                .echoTo(new PrintStream(echoed, true, StandardCharsets.UTF_8))
                .run();
        assertEquals(3, code);
        String text = Files.readString(file);
        assertTrue(text.contains("out\n") && text.contains("err\n"), text);
        assertEquals(text, echoed.toString(StandardCharsets.UTF_8));
    }

    @Test
    void intoAndAppend(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("log");
        assertEquals(0, sh("echo one").into(file).run());
        assertEquals(0, sh("echo two >&2").appendTo(file).run());
        assertEquals("one\ntwo\n", Files.readString(file));
        assertEquals(0, sh("echo three").into(file).run());
        assertEquals("three\n", Files.readString(file));
    }

    @Test
    void environmentChangesAndInput() throws IOException {
        Subprocess.Result r = sh("echo \"${A:-unset} ${HOME:-gone}\"; cat")
                .env("A", "a")
                .unsetEnv("HOME")
                .input("typed\n")
                .capture();
        assertEquals(0, r.code());
        assertEquals("a gone\ntyped\n", r.output());
        assertEquals("typed", r.lastLine());
    }

    @Test
    void aProcessPastItsLimitIsEndedWithEverythingItStarted(@TempDir Path dir) throws IOException {
        Path pid = dir.resolve("pid");
        long start = System.nanoTime();
        int code = sh("sleep 60 & echo $! > " + pid + "; wait")
                .into(dir.resolve("log"))
                .echoTo(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                .limit(Duration.ofSeconds(2))
                .run();
        assertEquals(Subprocess.TIMED_OUT, code);
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(30).toNanos());
        long child = Long.parseLong(Files.readString(pid).strip());
        for (int i = 0; i < 50 && alive(child); i++) {
            sleep(100);
        }
        assertFalse(alive(child), "sleep " + child + " lives");
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aMissingCommandFailsToStart() {
        org.junit.jupiter.api.Assertions.assertThrows(
                IOException.class,
                () -> Subprocess.of(List.of("/nonexistent/command")).run());
    }
}

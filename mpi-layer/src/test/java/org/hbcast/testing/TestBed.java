package org.hbcast.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Whether this machine can run a network-namespace test bed ({@code scripts/testbed check}),
 * asked once per JVM. Test-bed tests are skipped with the script's reason where it cannot.
 */
public final class TestBed {
    private static String unavailableReason;
    private static boolean checked;

    private TestBed() {}

    public static synchronized void assumeAvailable() {
        if (!checked) {
            unavailableReason = check();
            checked = true;
        }
        assumeTrue(unavailableReason == null, () -> "test bed skipped: " + unavailableReason);
    }

    private static String check() {
        ProcessBuilder pb = new ProcessBuilder(
                        MpiLaunch.repositoryRoot().resolve("scripts/testbed").toString(), "check")
                .redirectErrorStream(true);
        try {
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "scripts/testbed check did not answer within 60 s";
            }
            return p.exitValue() == 0 ? null : out;
        } catch (IOException e) {
            return "cannot run scripts/testbed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}

package org.hbcast.bench.launch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.hbcast.bench.experiment.Layout;

/**
 * A test bed of network-namespace hosts ({@code scripts/testbed up}) that this command brought up
 * and tears down when closed, or at exit however the command ends.
 */
public final class TestBed implements AutoCloseable {
    private final Path script;
    private final String name;
    private final Runnable teardown;

    private TestBed(Path script, String name) {
        this.script = script;
        this.name = name;
        this.teardown = ExitCleanup.atExit(this::down);
    }

    /** Why no bed can be made here ({@code scripts/testbed check}'s last line), or empty if one can. */
    public static Optional<String> unavailable(Path root) throws IOException {
        Subprocess.Result r = Subprocess.of(
                        List.of(Repository.script(root, "testbed").toString(), "check"))
                .capture();
        return r.code() == 0 ? Optional.empty() : Optional.of(r.lastLine());
    }

    /**
     * Brings up the bed of {@code layout}: its hosts and slots, links shaped to {@code rate} (none if
     * null), hosts on cores of their own if {@code ownCores}. Its summary goes to standard error.
     */
    public static TestBed up(Path root, Layout layout, String rate, boolean ownCores) throws IOException {
        Path script = Repository.script(root, "testbed");
        Subprocess.Result r =
                Subprocess.of(upCommand(script, layout, rate, ownCores)).capture();
        if (r.code() != 0 || r.output().isBlank()) {
            throw new IOException(
                    "scripts/testbed up failed (exit status " + r.code() + ") for layout " + layout.name());
        }
        return new TestBed(script, r.lastLine());
    }

    /** The {@code scripts/testbed up} command line for {@code layout}. */
    static List<String> upCommand(Path script, Layout layout, String rate, boolean ownCores) {
        if (!layout.isBed()) {
            throw new IllegalArgumentException("layout " + layout.name() + " is not a test bed");
        }
        List<String> cmd = new ArrayList<>(List.of(
                script.toString(),
                "up",
                "--hosts",
                Integer.toString(layout.bedHosts()),
                "--slots",
                layout.slotsArgument()));
        if (rate != null) {
            cmd.addAll(List.of("--netem", "rate " + rate));
        }
        if (ownCores) {
            cmd.add("--own-cores");
        }
        return cmd;
    }

    /** The bed's name, as {@code scripts/hbrun --testbed} takes it. */
    public String name() {
        return name;
    }

    @Override
    public void close() {
        ExitCleanup.cancel(teardown);
        down();
    }

    private void down() {
        try {
            Subprocess.of(List.of(script.toString(), "down", name))
                    .into(Path.of("/dev/null"))
                    .run();
        } catch (IOException e) {
            System.err.println("hbcast: could not tear down test bed " + name + ": " + e.getMessage());
        }
    }
}

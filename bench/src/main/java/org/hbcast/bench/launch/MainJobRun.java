package org.hbcast.bench.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.hbcast.bench.experiment.CompareSettings;
import org.hbcast.bench.experiment.MainJob;

/** Runs the main job's parts ({@link MainJob}) one after the other and joins their reports into one. */
public final class MainJobRun {
    private final Path root;
    private final CompareSettings settings;

    public MainJobRun(Path root, CompareSettings settings) {
        this.root = root;
        this.settings = settings;
    }

    /** Runs it; the joined report's path (also printed on standard output). */
    public Path run() throws IOException {
        Path out = MainJob.out(settings, root);
        Directories.deleteTree(out);
        Files.createDirectories(out);
        Optional<String> noBed = TestBed.unavailable(root);
        noBed.ifPresent(why -> Messages.say("no test bed here (" + why + "): one node only"));
        List<CompareSettings> parts = MainJob.parts(settings, root, noBed.isEmpty());
        StringBuilder joined = new StringBuilder();
        for (CompareSettings part : parts) {
            // The parts' reports are printed once, together, below.
            Path report = new CompareRun(root, part).run(false);
            joined.append(Files.readString(report)).append('\n');
        }
        Path report = out.resolve("compare.md");
        Files.writeString(report, joined.toString());
        System.out.print(joined);
        System.out.flush();
        Messages.say("the main job's report: " + report);
        return report;
    }
}

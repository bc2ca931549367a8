package org.hbcast.bench.launch;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.hbcast.bench.experiment.GpuLeasePlan;

/**
 * Runs a GPU lease's steps ({@link GpuLeasePlan}): each within its time limit, its output into its
 * log, a line before and after it and its log's summary lines on {@code out}.
 */
public final class GpuLeaseRun {
    private final GpuLeasePlan plan;
    private final PrintWriter out;

    public GpuLeaseRun(GpuLeasePlan plan, PrintWriter out) {
        this.plan = plan;
        this.out = out;
    }

    /** Runs every step; 0 when every step that counts passed, 1 otherwise. */
    public int run() throws IOException {
        Files.createDirectories(plan.dir());
        int status = 0;
        for (GpuLeasePlan.Step step : plan.steps()) {
            if (step.skipped() != null) {
                out.println("== " + step.name() + ": " + step.skipped() + ", skipped");
                continue;
            }
            out.println("== " + step.name() + " (at most " + step.limitSeconds() + " s)");
            out.flush();
            int rc = run(step);
            out.println("== " + step.name() + ": exit " + rc);
            if (rc != 0 && step.counts()) {
                status = 1;
            }
            summarize(step);
        }
        out.println("gpu-lease: logs in " + plan.dir() + " (exit " + status + ")");
        out.flush();
        return status;
    }

    /** The plan, one step a paragraph: what would run, and within what time. */
    public static void list(GpuLeasePlan plan, PrintWriter out) {
        for (GpuLeasePlan.Step step : plan.steps()) {
            if (step.skipped() != null) {
                out.println(step.name() + ": skipped (" + step.skipped() + ")");
                continue;
            }
            out.println(step.name() + " (at most " + step.limitSeconds() + " s, log "
                    + plan.dir().resolve(step.name() + ".log") + ")");
            step.commands().forEach(c -> out.println("  " + describe(c)));
            step.cleanup().forEach(c -> out.println("  finally: " + describe(c)));
        }
        out.flush();
    }

    private static String describe(GpuLeasePlan.Command c) {
        StringBuilder s = new StringBuilder();
        c.env().entrySet().stream()
                .sorted(java.util.Map.Entry.comparingByKey())
                .forEach(e ->
                        s.append(e.getKey()).append('=').append(e.getValue()).append(' '));
        s.append(String.join(" ", c.argv()));
        if (c.input() != null) {
            s.append(" <<< ").append(c.input().strip());
        }
        return s.toString();
    }

    private int run(GpuLeasePlan.Step step) throws IOException {
        Path log = log(step);
        Files.deleteIfExists(log);
        Files.createFile(log);
        for (Path d : step.directories()) {
            Files.createDirectories(d);
        }
        long deadline =
                System.nanoTime() + Duration.ofSeconds(step.limitSeconds()).toNanos();
        int rc = 0;
        try {
            for (GpuLeasePlan.Command c : step.commands()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    rc = Subprocess.TIMED_OUT;
                    break;
                }
                int r = command(c, log, Duration.ofNanos(left));
                if (r == Subprocess.TIMED_OUT) {
                    rc = r;
                    break;
                }
                if (r != 0 && rc == 0) {
                    rc = r;
                }
                if (r != 0 && c.required()) {
                    break;
                }
            }
        } finally {
            for (GpuLeasePlan.Command c : step.cleanup()) {
                command(c, log, Duration.ofSeconds(30));
            }
        }
        return rc;
    }

    private static int command(GpuLeasePlan.Command c, Path log, Duration limit) throws IOException {
        if (c.note() != null) {
            Files.writeString(log, c.note() + "\n", java.nio.file.StandardOpenOption.APPEND);
        }
        Subprocess p = Subprocess.of(c.argv()).env(c.env()).appendTo(log).limit(limit);
        if (c.input() != null) {
            p.input(c.input());
        }
        try {
            return p.run();
        } catch (IOException e) {
            // A command that cannot start (nvidia-smi on a machine without one) fails its step, not the lease.
            Files.writeString(
                    log,
                    "cannot run " + c.argv().get(0) + ": " + e.getMessage() + "\n",
                    java.nio.file.StandardOpenOption.APPEND);
            return 127;
        }
    }

    private void summarize(GpuLeasePlan.Step step) throws IOException {
        if (step.summary() == null) {
            return;
        }
        Pattern p = Pattern.compile(step.summary());
        // Lenient: a rank's output may hold bytes that are not UTF-8.
        List<String> lines = new String(Files.readAllBytes(log(step)), java.nio.charset.StandardCharsets.UTF_8)
                .lines()
                .toList();
        lines.stream().filter(l -> p.matcher(l).find()).forEach(out::println);
        out.flush();
    }

    private Path log(GpuLeasePlan.Step step) {
        return plan.dir().resolve(step.name() + ".log");
    }
}

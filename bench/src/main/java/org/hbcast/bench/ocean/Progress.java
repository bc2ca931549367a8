package org.hbcast.bench.ocean;

import java.util.function.LongConsumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar over the steps of one run, on standard error, or nothing when switched off. The
 * bar is finished (its line ended and forwarded) when closed, before the report is printed on
 * standard output.
 */
public final class Progress implements LongConsumer, AutoCloseable {
    private static final int WIDTH = 100;
    private static final long SETTLE_MS = 300;
    private final ProgressBar bar;

    private Progress(ProgressBar bar) {
        this.bar = bar;
    }

    /** A bar named {@code task} over {@code steps} steps, or a silent one when {@code on} is false. */
    public static Progress of(boolean on, String task, long steps) {
        if (!on) {
            return new Progress(null);
        }
        // A fixed width: the ranks' standard error is a pipe to mpirun, no terminal to ask.
        return new Progress(new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(steps)
                .setStyle(ProgressBarStyle.ASCII)
                .setUnit(" steps", 1)
                .showSpeed()
                .setConsumer(new ConsoleProgressBarConsumer(System.err, WIDTH))
                .build());
    }

    @Override
    public void accept(long step) {
        if (bar != null) {
            bar.stepTo(step);
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
            System.err.flush();
            // mpirun forwards each rank's stdout and stderr separately, in no set order: give the
            // bar's last line time to get out before the report follows on standard output.
            try {
                Thread.sleep(SETTLE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

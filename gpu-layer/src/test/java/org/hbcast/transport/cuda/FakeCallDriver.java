package org.hbcast.transport.cuda;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;
import org.hbcast.transport.shm.SharedSegment;

/**
 * What the fake nodes share: the directory of their control blocks, the per-call exchange of records
 * between the ranks' threads, and the driving of one call. Each rank starts its part on a thread of
 * its own, as the ranks would (exchanging records with the others), then every started part is
 * driven round-robin on the test's thread, so the fake's scheduler alone decides when copies land.
 */
final class FakeCallDriver {
    /** Progress calls after which a broadcast that is still running counts as hung. */
    private static final int MAX_ROUNDS = 2_000_000;

    /** Starts one rank's part of a call: its stage, or its failure thrown. */
    @FunctionalInterface
    interface Start {
        Stage start(int rank);
    }

    /** What a rank takes from every rank's posted record once all have posted. */
    @FunctionalInterface
    interface Take {
        void from(byte[][] posted);
    }

    final Path directory;
    private final int ranks;
    private final byte[][] posted;
    private final CyclicBarrier barrier;
    private volatile boolean exchangeAbandoned;

    /** A driver of {@code ranks} ranks with a fresh directory named after {@code prefix} (in /dev/shm where it exists). */
    FakeCallDriver(final String prefix, final int ranks) throws IOException {
        final Path base = Files.isDirectory(SharedSegment.DEFAULT_DIRECTORY)
                ? SharedSegment.DEFAULT_DIRECTORY
                : Path.of(System.getProperty("java.io.tmpdir"));
        this.directory = Files.createTempDirectory(base, prefix);
        this.ranks = ranks;
        this.posted = new byte[ranks][];
        this.barrier = new CyclicBarrier(ranks);
    }

    /**
     * Runs one call: {@code start} on a thread per rank, then the started stages round-robin. Returns
     * what each rank saw: null for success, else its failure; a failing rank aborts its stage as a call
     * does. Fails the test if some rank hangs in its start, waits in the exchange for a rank that never
     * joined it, or neither finishes nor fails.
     */
    Throwable[] run(final Start start) throws InterruptedException {
        final Throwable[] outcome = new Throwable[ranks];
        final Stage[] stages = new Stage[ranks];
        final List<Thread> starters = new ArrayList<>();
        for (int i = 0; i < ranks; i++) {
            final int rank = i;
            final Thread starter = new Thread(() -> {
                try {
                    stages[rank] = start.start(rank);
                } catch (final RuntimeException ex) {
                    outcome[rank] = ex;
                }
            });
            starter.start();
            starters.add(starter);
        }
        for (final Thread starter : starters) {
            starter.join(TimeUnit.MINUTES.toMillis(1));
            if (starter.isAlive()) {
                throw new AssertionError("a rank hung in the start of its call");
            }
        }
        if (exchangeAbandoned) {
            throw new AssertionError("a rank waited in the exchange for a rank that never joined it");
        }
        final boolean[] finished = new boolean[ranks];
        for (int i = 0; i < ranks; i++) {
            finished[i] = outcome[i] != null;
        }
        for (int round = 0; round < MAX_ROUNDS; round++) {
            boolean all = true;
            for (int i = 0; i < ranks; i++) {
                if (finished[i]) {
                    continue;
                }
                try {
                    stages[i].progress();
                    finished[i] = stages[i].isDone();
                } catch (final RuntimeException ex) {
                    outcome[i] = ex;
                    finished[i] = true;
                    stages[i].abort();
                }
                all &= finished[i];
            }
            if (all) {
                return outcome;
            }
        }
        final StringBuilder stuck = new StringBuilder("broadcast hung after " + MAX_ROUNDS + " rounds:");
        for (int i = 0; i < ranks; i++) {
            if (!finished[i]) {
                stuck.append(" rank ")
                        .append(i)
                        .append(" waits for ")
                        .append(stages[i].describeWait())
                        .append(';');
            }
        }
        throw new AssertionError(stuck.toString());
    }

    /**
     * Rank {@code me}'s part of a call's exchange: it posts {@code mine}, all ranks meet, each takes
     * what it needs from every rank's record, and all meet again before anyone posts the next.
     */
    void exchange(final int me, final byte[] mine, final Take take) {
        posted[me] = mine.clone();
        await();
        take.from(posted);
        await();
    }

    private void await() {
        try {
            barrier.await(1, TimeUnit.MINUTES);
        } catch (final InterruptedException | BrokenBarrierException | TimeoutException ex) {
            exchangeAbandoned = true;
            throw new StageException("exchange failed: " + ex);
        }
    }

    /** Removes the directory and whatever the ranks left in it. */
    void deleteDirectory() throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            for (final Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
    }
}

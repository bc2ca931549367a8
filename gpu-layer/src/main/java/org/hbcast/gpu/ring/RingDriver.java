package org.hbcast.gpu.ring;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.Objects;

/**
 * Drives a {@link RingPipeline} to completion: progress in a loop, backing off when idle (spin, then
 * yield, then park, because nodes are often oversubscribed and a spinning rank would starve the peer
 * it waits for), and failing with a message that names the peer when nothing moves for the timeout.
 *
 * <p>Callers that interleave other work (a node leader progressing its inter-node tree in the same
 * loop) use {@link #begin()} and {@link #afterRound(int, RingPipeline)} around their own loop.
 * On any failure the driver aborts the ring, so the neighbours fail fast rather than time out.
 */
public final class RingDriver
{
    /** How long the ring may stand still before a broadcast fails. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final long SPINS = 64;
    private static final long YIELDS = 64;
    private static final long MIN_PARK_NS = 1_000;
    private static final long MAX_PARK_NS = 100_000;

    private final long timeoutNs;
    private final IdleStrategy idle;
    private boolean stalled;
    private long stallStartNs;

    /** A driver with the default timeout and idle strategy. */
    public RingDriver()
    {
        this(DEFAULT_TIMEOUT);
    }

    /** A driver with the default idle strategy. */
    public RingDriver(final Duration timeout)
    {
        this(timeout, defaultIdleStrategy());
    }

    /** A driver that waits with {@code idle} and fails after {@code timeout} without progress. */
    public RingDriver(final Duration timeout, final IdleStrategy idle)
    {
        if (timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeoutNs = timeout.toNanos();
        this.idle = Objects.requireNonNull(idle, "idle");
    }

    /** Spin briefly, then yield, then park for 1 to 100 microseconds. */
    public static IdleStrategy defaultIdleStrategy()
    {
        return new BackoffIdleStrategy(SPINS, YIELDS, MIN_PARK_NS, MAX_PARK_NS);
    }

    /** Runs {@code pipeline} until it is done. */
    public void run(final RingPipeline<?> pipeline)
    {
        begin();
        try
        {
            while (!pipeline.isDone())
            {
                afterRound(pipeline.progress(), pipeline);
            }
        }
        catch (final RuntimeException | Error ex)
        {
            pipeline.abort();
            throw ex;
        }
    }

    /** Starts the stall clock for a new broadcast. */
    public void begin()
    {
        idle.reset();
        stalled = false;
    }

    /**
     * Accounts for one round of a caller's loop that did {@code work} units of progress: idles when
     * none, and when none has happened for the timeout aborts the ring and throws.
     *
     * @throws RingTimeoutException naming what {@code pipeline} waits for, and from whom
     */
    public void afterRound(final int work, final RingPipeline<?> pipeline)
    {
        if (work > 0)
        {
            stalled = false;
            idle.idle(work);
            return;
        }
        final long now = System.nanoTime();
        if (!stalled)
        {
            stalled = true;
            stallStartNs = now;
        }
        else if (now - stallStartNs > timeoutNs)
        {
            pipeline.abort();
            throw new RingTimeoutException("node rank " + pipeline.localRank() + " timed out after " +
                formatTimeout() + " waiting for " + pipeline.describeWait());
        }
        idle.idle();
    }

    /** The stall timeout. */
    public Duration timeout()
    {
        return Duration.ofNanos(timeoutNs);
    }

    private String formatTimeout()
    {
        if (timeoutNs % 1_000_000_000L == 0)
        {
            return timeoutNs / 1_000_000_000L + " s";
        }
        if (timeoutNs % 1_000_000L == 0)
        {
            return timeoutNs / 1_000_000L + " ms";
        }
        return timeoutNs + " ns";
    }
}

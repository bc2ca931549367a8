package org.hbcast.transport.cuda;

import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaCalls.CopyKind;
import org.hbcast.device.CudaException;
import org.hbcast.device.CudaStream;
import org.hbcast.engine.RingAbortedException;
import org.hbcast.engine.RingException;
import org.hbcast.engine.RingLink;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;
import org.hbcast.transport.shm.LinkControl;
import org.hbcast.transport.shm.ShmInbox;
import org.hbcast.transport.shm.ShmOutbox;

/**
 * A GPU leader's part of the chain between GPUs that cannot reach each other's memory: chunks go
 * through the host slots of each leader's control block, pinned ({@link CudaCalls#hostRegister}).
 * The sending leader copies a chunk device to host into the next leader's slot and publishes it once
 * the copy's event has completed; the receiving leader copies it host to device into its buffer and
 * hands the slot back once that copy's event has completed, which also makes the chunk ready for
 * its GPU's copies and its own forward. Flow control is the shared-memory link's (TAIL, HEAD, ABORT);
 * both ends allocate nothing per chunk.
 *
 * <p>Started per call with {@link #start}: receiving unless this leader's GPU is the call's first,
 * sending unless the next GPU is the first; a first leader whose chunks arrive from elsewhere is fed.
 */
final class HostHop implements Stage {
    private final CudaCalls calls;
    private final CudaStream stream;
    private final int localRank;
    private final ShmInbox inbox;
    private final LinkControl in;
    private final EventRing inEvents;
    private final ShmOutbox out;
    private final EventRing outEvents;
    private final int slotCount;
    private final int slotBytes;

    private boolean receives;
    private boolean sends;
    private boolean fed;
    private int fedChunks;
    private long address;
    private long totalBytes;
    private int chunkBytes;
    private int chunkCount;
    private long inBase;
    private int inIssued;
    private int landed;
    private long outBase;
    private int outIssued;
    private int published;

    /**
     * The hop ends of node rank {@code localRank}: its own pinned {@code inbox} (what the previous
     * leader writes) and {@code outbox} onto the next leader's, copying on {@code stream}.
     */
    HostHop(
            final CudaCalls calls,
            final CudaStream stream,
            final int localRank,
            final ShmInbox inbox,
            final ShmOutbox out) {
        if (inbox.slotCount() != out.slotCount() || inbox.maxChunkBytes() != out.maxChunkBytes()) {
            throw new IllegalArgumentException("the leaders' host slots differ: " + inbox + " and " + out);
        }
        this.calls = calls;
        this.stream = stream;
        this.localRank = localRank;
        this.inbox = inbox;
        this.in = inbox.control();
        this.out = out;
        this.slotCount = inbox.slotCount();
        this.slotBytes = inbox.maxChunkBytes();
        this.inEvents = new EventRing(calls, stream.device(), slotCount);
        EventRing made = null;
        try {
            made = new EventRing(calls, stream.device(), slotCount);
        } finally {
            if (made == null) {
                inEvents.close();
            }
        }
        this.outEvents = made;
    }

    /** Starts a call on the device memory at {@code address}. Only between calls. */
    void start(
            final boolean receives,
            final boolean sends,
            final boolean fed,
            final long address,
            final long totalBytes,
            final int chunkBytes) {
        if (chunkBytes > slotBytes) {
            throw new IllegalArgumentException(
                    "chunks of " + chunkBytes + " bytes do not fit host slots of " + slotBytes);
        }
        this.receives = receives;
        this.sends = sends;
        this.fed = fed;
        this.fedChunks = 0;
        this.address = address;
        this.totalBytes = totalBytes;
        this.chunkBytes = chunkBytes;
        this.chunkCount = Chunks.count(totalBytes, chunkBytes);
        this.inBase = in.head();
        this.inIssued = 0;
        this.landed = 0;
        out.rejoin();
        this.outBase = out.posted();
        this.outIssued = 0;
        this.published = 0;
    }

    private int ready() {
        return receives ? landed : fed ? fedChunks : chunkCount;
    }

    @Override
    public int progress() {
        int work = 0;
        if (receives) {
            work += receive();
        }
        if (sends) {
            work += send();
        }
        if (work == 0 && !isDone()) {
            failIfAborted();
        }
        return work;
    }

    private int receive() {
        int work = 0;
        while (landed < inIssued && inEvents.isComplete(inBase + landed)) {
            in.release(inBase + landed + 1);
            landed++;
            work++;
        }
        final long tail = in.tail();
        while (inIssued < chunkCount && inBase + inIssued < tail) {
            final long sequence = inBase + inIssued;
            final int length = in.length(sequence);
            final int expected = Chunks.length(inIssued, chunkBytes, totalBytes);
            if (length != expected) {
                throw new RingException("node rank " + localRank + " expected chunk " + inIssued + " of " + expected
                        + " bytes from the previous GPU's leader through the host, which posted " + length);
            }
            copy(
                    address + Chunks.offset(inIssued, chunkBytes),
                    inbox.slotsAddress() + (sequence % slotCount) * slotBytes,
                    length,
                    CopyKind.HOST_TO_DEVICE);
            inEvents.record(sequence, stream);
            inIssued++;
            work++;
        }
        return work;
    }

    private int send() {
        int work = 0;
        while (published < outIssued && outEvents.isComplete(outBase + published)) {
            out.post(Chunks.length(published, chunkBytes, totalBytes));
            published++;
            work++;
        }
        final int available = ready();
        while (outIssued < available && outBase + outIssued - out.head() < slotCount) {
            final long sequence = outBase + outIssued;
            copy(
                    out.slotsAddress() + (sequence % slotCount) * slotBytes,
                    address + Chunks.offset(outIssued, chunkBytes),
                    Chunks.length(outIssued, chunkBytes, totalBytes),
                    CopyKind.DEVICE_TO_HOST);
            outEvents.record(sequence, stream);
            outIssued++;
            work++;
        }
        return work;
    }

    private void copy(final long to, final long from, final int length, final CopyKind kind) {
        try {
            calls.copyAsync(to, from, length, kind, stream.handle());
        } catch (final CudaException ex) {
            // Built only on failure: a chunk's copy must not allocate.
            throw new CudaException(
                    "cudaMemcpyAsync " + kind + " through the host (node rank " + localRank + ")", ex.error());
        }
    }

    private void failIfAborted() {
        final int origin = Math.max(
                receives ? in.abortOrigin() : RingLink.NOT_ABORTED, sends ? out.abortOrigin() : RingLink.NOT_ABORTED);
        if (origin != RingLink.NOT_ABORTED) {
            abortAs(origin);
            throw new RingAbortedException(
                    "GPU chain through the host aborted by node rank " + origin + "; node rank " + localRank
                            + " was waiting for " + describeWait(),
                    origin);
        }
    }

    @Override
    public boolean isDone() {
        return (!receives || landed == chunkCount) && (!sends || published == chunkCount);
    }

    @Override
    public int chunkCount() {
        return chunkCount;
    }

    @Override
    public int chunksReady() {
        return ready();
    }

    @Override
    public void feed(final int chunks) {
        if (!fed) {
            throw new IllegalStateException("only the first GPU's leader started fed is fed chunks");
        }
        fedChunks = Chunks.fed(fedChunks, chunks, chunkCount);
    }

    @Override
    public String describeWait() {
        return "host hop of node rank " + localRank + ": received " + landed + "/" + (receives ? chunkCount : 0)
                + ", sent " + published + "/" + (sends ? chunkCount : 0) + ", ready " + ready();
    }

    @Override
    public void abort() {
        abortAs(localRank);
    }

    /** Sets both abort words, then waits for this rank's copies in flight (their memory may go next). */
    private void abortAs(final int origin) {
        in.abort(origin);
        out.abort(origin);
        try {
            stream.synchronize();
        } catch (final RuntimeException alreadyFailing) {
            // The failure being reported is the first one; a sticky error shows again at close.
        }
    }

    /** Destroys the events (after their copies); the host memory and control blocks belong to the member. */
    void close() {
        final Closer closer = new Closer();
        closer.run(inEvents::close);
        closer.run(outEvents::close);
        closer.rethrowUnchecked();
    }
}

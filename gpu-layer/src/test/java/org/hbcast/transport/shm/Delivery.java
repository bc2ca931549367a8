package org.hbcast.transport.shm;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

/**
 * Plays the inter-node tree in tests: every few rounds a piece of the message lands in the leader's
 * buffer (pieces need not be cut at chunk boundaries), and the whole chunks among what has landed are
 * ready for the stage it feeds. Stops at {@code stopBytes}, to play a tree that never delivers the rest.
 */
final class Delivery implements Stage {
    private final ByteBuffer message;
    private final ByteBuffer target;
    private final int bytes;
    private final int chunkBytes;
    private final int pieceBytes;
    private final int roundsPerPiece;
    private final long parkNanos;
    private final int stopBytes;
    private int arrived;
    private long round;

    Delivery(
            final ByteBuffer message,
            final ByteBuffer target,
            final int bytes,
            final int chunkBytes,
            final int pieceBytes,
            final int roundsPerPiece,
            final long parkNanos,
            final int stopBytes) {
        this.message = message;
        this.target = target;
        this.bytes = bytes;
        this.chunkBytes = chunkBytes;
        this.pieceBytes = pieceBytes;
        this.roundsPerPiece = roundsPerPiece;
        this.parkNanos = parkNanos;
        this.stopBytes = stopBytes;
    }

    @Override
    public int progress() {
        if (arrived >= stopBytes || round++ % roundsPerPiece != 0) {
            return 0;
        }
        if (parkNanos > 0) {
            LockSupport.parkNanos(parkNanos);
        }
        final int length = Math.min(pieceBytes, stopBytes - arrived);
        target.put(arrived, message, arrived, length);
        arrived += length;
        return 1;
    }

    @Override
    public boolean isDone() {
        return arrived == bytes;
    }

    @Override
    public int chunkCount() {
        return Chunks.count(bytes, chunkBytes);
    }

    @Override
    public int chunksReady() {
        return arrived == bytes ? chunkCount() : arrived / chunkBytes;
    }

    @Override
    public void feed(final int chunks) {
        throw new IllegalStateException("the delivery is fed by nobody");
    }

    @Override
    public String describeWait() {
        return "byte " + arrived + " of " + bytes + " from the tree";
    }

    @Override
    public void abort() {}
}

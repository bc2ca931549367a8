package org.hbcast.engine;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process link over Java arrays: a second kind of memory ({@code byte[]}) for the engine, which
 * shows that the pipeline only hands memory to its links and never looks inside.
 */
final class ArrayLink {
    private final byte[][] slots;
    private final int[] lengths;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();
    private final AtomicInteger abortWord = new AtomicInteger();
    private final int senderRank;
    private final int receiverRank;
    final Sender sender = new Sender();
    final Receiver receiver = new Receiver();

    ArrayLink(final int senderRank, final int receiverRank, final int slotCount, final int slotBytes) {
        this.senderRank = senderRank;
        this.receiverRank = receiverRank;
        this.slots = new byte[slotCount][slotBytes];
        this.lengths = new int[slotCount];
    }

    private int slot(final long sequence) {
        return (int) (sequence % slots.length);
    }

    private abstract class End implements RingLink {
        @Override
        public int abortOrigin() {
            final int word = abortWord.get();
            return word == 0 ? NOT_ABORTED : word - 1;
        }

        @Override
        public void abort(final int originRank) {
            abortWord.compareAndSet(0, originRank + 1);
        }

        public int slotCount() {
            return slots.length;
        }

        public int maxChunkBytes() {
            return slots[0].length;
        }
    }

    final class Sender extends End implements ChunkSender<byte[]> {
        @Override
        public int peerRank() {
            return receiverRank;
        }

        @Override
        public int localRank() {
            return senderRank;
        }

        @Override
        public boolean hasCredit() {
            return tail.get() - head.get() < slots.length;
        }

        @Override
        public boolean trySend(final byte[] source, final long srcOffset, final int length) {
            if (length <= 0 || length > maxChunkBytes()) {
                throw new IllegalArgumentException("length " + length);
            }
            if (!hasCredit()) {
                return false;
            }
            final long t = tail.get();
            System.arraycopy(source, (int) srcOffset, slots[slot(t)], 0, length);
            lengths[slot(t)] = length;
            tail.set(t + 1);
            return true;
        }

        @Override
        public long posted() {
            return tail.get();
        }
    }

    final class Receiver extends End implements ChunkReceiver<byte[]> {
        @Override
        public int peerRank() {
            return senderRank;
        }

        @Override
        public int localRank() {
            return receiverRank;
        }

        @Override
        public boolean hasChunk() {
            return head.get() < tail.get();
        }

        @Override
        public int chunkLength() {
            return lengths[slot(head.get())];
        }

        @Override
        public byte[] chunkMemory() {
            return slots[slot(head.get())];
        }

        @Override
        public long chunkOffset() {
            return 0;
        }

        @Override
        public void copyChunk(final byte[] dest, final long dstOffset, final int length) {
            System.arraycopy(slots[slot(head.get())], 0, dest, (int) dstOffset, length);
        }

        @Override
        public void release() {
            // Poison the slot so that a chunk read after release, or a forward of a stale slot, shows up.
            Arrays.fill(slots[slot(head.get())], (byte) 0x6B);
            head.incrementAndGet();
        }

        @Override
        public long consumed() {
            return head.get();
        }
    }
}

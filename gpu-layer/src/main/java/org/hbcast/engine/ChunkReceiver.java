package org.hbcast.engine;

/**
 * The receiving end of a link: takes chunks out of this rank's slots in the order they were posted.
 *
 * <p>Receiving is split in steps so that a forwarding rank can send the chunk on straight from the
 * slot ({@link #chunkMemory()}, {@link #chunkOffset()}) before copying it to its own buffer, and
 * release the slot only after both: {@link #hasChunk()}, then any number of reads, then
 * {@link #release()}.
 *
 * @param <M> the kind of memory chunks are copied into; the pipeline never looks inside it
 */
public interface ChunkReceiver<M> extends RingLink {
    /** Number of slots of this link. */
    int slotCount();

    /** Largest chunk one slot holds. */
    int maxChunkBytes();

    /** True when the next chunk has been posted. Never blocks. */
    boolean hasChunk();

    /** Length the sender gave the next chunk. Only valid after {@link #hasChunk()} returned true. */
    int chunkLength();

    /** Memory the next chunk can be read from until {@link #release()}. Only after {@link #hasChunk()}. */
    M chunkMemory();

    /** Offset of the next chunk in {@link #chunkMemory()}. Only after {@link #hasChunk()}. */
    long chunkOffset();

    /** Copies the first {@code length} bytes of the next chunk to {@code dest}. Only after {@link #hasChunk()}. */
    void copyChunk(M dest, long dstOffset, int length);

    /** Hands the slot of the next chunk back to the sender. Only after {@link #hasChunk()}. */
    void release();

    /** Chunks consumed on this link since it was created (the head counter). */
    long consumed();
}

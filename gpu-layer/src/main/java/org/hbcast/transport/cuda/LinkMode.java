package org.hbcast.transport.cuda;

/** How a CUDA IPC link moves the chunks of one broadcast. */
public enum LinkMode {
    /**
     * Straight into the receiver's own device buffer at the chunk's offset, through an IPC mapping
     * of that buffer (NCCL's direct mode): one copy per hop, but the buffer's handle must be learnt
     * for every broadcast. For large messages.
     */
    DIRECT,
    /**
     * Through the receiver's fixed device slots, mapped once when the ring is connected; the
     * receiver copies each chunk on into its buffer. Nothing to exchange per broadcast: for small
     * messages.
     */
    SLOTS
}

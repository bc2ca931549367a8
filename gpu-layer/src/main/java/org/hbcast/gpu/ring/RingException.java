package org.hbcast.gpu.ring;

/** A broadcast along the node's ring failed; the message says which peer and which chunk. */
public class RingException extends RuntimeException
{
    /** Creates one with a message that names the peer and what was expected of it. */
    public RingException(final String message)
    {
        super(message);
    }
}

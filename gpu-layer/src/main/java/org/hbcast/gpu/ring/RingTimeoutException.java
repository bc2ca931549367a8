package org.hbcast.gpu.ring;

/** Nothing moved on the ring for longer than the timeout; the message says what was awaited from whom. */
public final class RingTimeoutException extends RingException
{
    /** Creates one with a message naming the peer. */
    public RingTimeoutException(final String message)
    {
        super(message);
    }
}

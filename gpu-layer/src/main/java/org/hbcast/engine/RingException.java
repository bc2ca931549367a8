package org.hbcast.engine;

import org.hbcast.stage.StageException;

/** A broadcast along the node's ring failed; the message says which peer and which chunk. */
public class RingException extends StageException {
    private static final long serialVersionUID = 1L;

    /** Creates one with a message that names the peer and what was expected of it. */
    public RingException(final String message) {
        super(message);
    }
}

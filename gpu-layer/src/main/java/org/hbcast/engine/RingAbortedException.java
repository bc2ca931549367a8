package org.hbcast.engine;

/** A rank of the ring failed and set the abort word of a link this rank uses. */
public final class RingAbortedException extends RingException {
    private final int originRank;

    /** Creates one for an abort that started at node rank {@code originRank}. */
    public RingAbortedException(final String message, final int originRank) {
        super(message);
        this.originRank = originRank;
    }

    /** Node rank whose failure started the abort. */
    public int originRank() {
        return originRank;
    }
}

package org.hbcast.tuning;

/** A measured or predicted broadcast time for one message size. */
public record TimedSize(long bytes, double seconds) {}

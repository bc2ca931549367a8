package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What a fingerprint keeps of a probed name. */
class HostInfoCleanTest {
    @Test
    void separatorsAndControlsBecomeOneSpaceAndEndsAreTrimmed() {
        assertEquals("AMD EPYC 7B13 64-Core Processor", HostInfo.clean("  AMD EPYC 7B13\t64-Core  Processor \n"));
        assertEquals("a b c d", HostInfo.clean("a;b=c\u0001\u0002d"));
        assertEquals("x", HostInfo.clean(";;x=="));
        assertEquals("unknown", HostInfo.clean(" \t"));
        assertEquals("unknown", HostInfo.clean(null));
        assertEquals("NVIDIA H100 80GB HBM3", HostInfo.clean("NVIDIA H100 80GB HBM3"));
    }
}

package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What a fingerprint keeps of a probed name, and the ids made from it. */
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

    @Test
    void shortHashIsTwelveHexDigitsStableAndSpread() {
        String a = Fingerprint.shortHash("cpu=AMD EPYC; cpus=2; gpu=none; gpus=0; mpi=Open MPI 4.1.4");
        assertEquals(12, a.length());
        assertEquals(a, Fingerprint.shortHash("cpu=AMD EPYC; cpus=2; gpu=none; gpus=0; mpi=Open MPI 4.1.4"));
        assertEquals(true, a.matches("[0-9a-f]{12}"));
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(Fingerprint.shortHash("layout=" + i));
        }
        assertEquals(10_000, ids.size(), "ids of 10,000 layouts collide");
        // One character apart, about half of the 48 bits differ.
        long x = Long.parseLong(Fingerprint.shortHash("layout=4,2,2"), 16);
        long y = Long.parseLong(Fingerprint.shortHash("layout=4,2,3"), 16);
        int differ = Long.bitCount(x ^ y);
        assertEquals(true, differ > 12 && differ < 36, differ + " bits differ");
    }
}

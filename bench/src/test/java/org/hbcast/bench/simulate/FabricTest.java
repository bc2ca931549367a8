package org.hbcast.bench.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FabricTest {
    private static final Fabric.Link NET = new Fabric.Link(2e-6, 1e9);
    private static final Fabric.Link SHM = new Fabric.Link(1e-6, 4e9);

    @Test
    void oneTransferTakesLatencyPlusSizeOverBandwidth() {
        Fabric f = new Fabric(2, 1, NET, SHM);
        assertEquals(2e-6 + 1e6 / 1e9, f.transfer(0, 1, 1e6, 0), 1e-12);
    }

    @Test
    void twoTransfersFromOneHostSerialiseOnItsInjection() {
        Fabric f = new Fabric(new int[] {2, 1, 1}, NET, SHM);
        double first = f.transfer(0, 2, 1e6, 0);
        // Another rank of the same host: its own port is free, the host's NIC is not.
        double second = f.transfer(1, 3, 1e6, 0);
        assertEquals(2e-6 + 1e-3, first, 1e-12);
        assertEquals(2e-6 + 2e-3, second, 1e-12);
    }

    @Test
    void twoTransfersIntoOneHostSerialiseOnItsEjection() {
        Fabric f = new Fabric(3, 1, NET, SHM);
        f.transfer(0, 2, 1e6, 0);
        assertEquals(2e-6 + 2e-3, f.transfer(1, 2, 1e6, 0), 1e-12);
    }

    @Test
    void anUnlimitedEjectionTakesTwoSendersAtOnce() {
        Fabric f = new Fabric(new int[] {1, 1, 1}, NET, SHM, false);
        f.transfer(0, 2, 1e6, 0);
        assertEquals(2e-6 + 1e-3, f.transfer(1, 2, 1e6, 0), 1e-12);
    }

    @Test
    void linksAreFullDuplex() {
        Fabric f = new Fabric(2, 1, NET, SHM);
        f.transfer(0, 1, 1e6, 0);
        assertEquals(2e-6 + 1e-3, f.transfer(1, 0, 1e6, 0), 1e-12);
    }

    @Test
    void copiesInsideAHostUseSharedMemoryAndNotTheNic() {
        Fabric f = new Fabric(2, 2, NET, SHM);
        f.transfer(0, 2, 1e6, 0);
        assertEquals(1e-6 + 1e6 / 4e9, f.transfer(1, 0, 1e6, 0), 1e-12);
    }

    @Test
    void roundRobinDealsRanksOverTheHostsAsMapByNodeDoes() {
        Fabric even = new Fabric(new int[] {2, 2, 2, 2}, NET, SHM, true, true);
        for (int r = 0; r < 8; r++) {
            assertEquals(r % 4, even.hostOf(r), "rank " + r);
        }
        for (int h = 0; h < 4; h++) {
            assertEquals(h, even.leader(h));
        }
        // Uneven hosts: a full host is skipped, the rest go on dealing (mpirun --map-by node on 4,2,2 slots).
        Fabric uneven = new Fabric(new int[] {4, 2, 2}, NET, SHM, true, true);
        int[] expected = {0, 1, 2, 0, 1, 2, 0, 0};
        for (int r = 0; r < expected.length; r++) {
            assertEquals(expected[r], uneven.hostOf(r), "rank " + r);
        }
        assertEquals(2, uneven.leader(2));
        // Neighbouring ranks now cross the network: two transfers from rank 0 serialise on host 0's NIC.
        assertEquals(2e-6 + 1e-3, uneven.transfer(0, 1, 1e6, 0), 1e-12);
        assertEquals(2e-6 + 2e-3, uneven.transfer(3, 2, 1e6, 0), 1e-12);
        // Blocks, as before: ranks 0 and 1 share host 0.
        assertEquals(0, new Fabric(new int[] {4, 2, 2}, NET, SHM, true, false).hostOf(1));
    }

    @Test
    void resetFreesEveryPort() {
        Fabric f = new Fabric(2, 1, NET, SHM);
        f.transfer(0, 1, 1e6, 0);
        f.reset();
        assertEquals(2e-6 + 1e-3, f.transfer(0, 1, 1e6, 0), 1e-12);
    }

    @Test
    void badShapesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Fabric(0, 1, NET, SHM));
        assertThrows(IllegalArgumentException.class, () -> new Fabric(new int[] {2, 0}, NET, SHM));
        assertThrows(IllegalArgumentException.class, () -> new Fabric.Link(-1, 1e9));
    }
}

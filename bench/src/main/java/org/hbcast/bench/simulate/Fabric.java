package org.hbcast.bench.simulate;

import java.util.Arrays;
import java.util.Objects;

/**
 * The cluster a simulated broadcast runs on: hosts of given numbers of ranks, placed by blocks
 * (host 0 holds the first ranks) or dealt round-robin, one full-duplex NIC per host, and the ports every
 * transfer occupies. A transfer between hosts holds the sending rank's port and its host's injection
 * for {@code bytes / B}, then its receiver's host ejection for as long; it arrives {@code latency}
 * after it left, once the ejection is free. A transfer inside a host holds the sending rank's port at
 * the shared-memory rate. Ports are taken in the order transfers are asked for, which the event queue
 * keeps in time order.
 */
public final class Fabric {
    private final boolean ejectionLimited;
    private final int[] nodeSizes;
    private final int[] firstRank;
    private final int[] hostOf;
    private final Link network;
    private final Link sharedMemory;
    private final double[] rankFree;
    private final double[] injectFree;
    private final double[] ejectFree;

    /** A latency in seconds and a bandwidth in bytes per second. */
    public record Link(double latencySeconds, double bytesPerSecond) {
        public Link {
            if (!(latencySeconds >= 0) || !(bytesPerSecond > 0)) {
                throw new IllegalArgumentException("a link needs latency >= 0 and bandwidth > 0, got " + latencySeconds
                        + " s, " + bytesPerSecond + " B/s");
            }
        }

        /** {@code latency + bytes / B}: one transfer alone on the link. */
        public double seconds(double bytes) {
            return latencySeconds + bytes / bytesPerSecond;
        }
    }

    /** {@code hosts} hosts of {@code ranksPerHost} ranks each. */
    public Fabric(int hosts, int ranksPerHost, Link network, Link sharedMemory) {
        this(uniform(hosts, ranksPerHost), network, sharedMemory);
    }

    /** Hosts of {@code nodeSizes[h]} ranks each, their NICs limited both ways. */
    public Fabric(int[] nodeSizes, Link network, Link sharedMemory) {
        this(nodeSizes, network, sharedMemory, true);
    }

    /**
     * Hosts of {@code nodeSizes[h]} ranks each; with {@code ejectionLimited} false a host receives from
     * any number of senders at once, as on a test bed that shapes only what each host sends
     * ({@code tc} on egress).
     */
    public Fabric(int[] nodeSizes, Link network, Link sharedMemory, boolean ejectionLimited) {
        this(nodeSizes, network, sharedMemory, ejectionLimited, false);
    }

    /**
     * As {@link #Fabric(int[], Link, Link, boolean)}; with {@code roundRobin} the ranks are dealt over
     * the hosts as {@code mpirun --map-by node} deals them (rank {@code r} to the next host with room
     * left, cycling), so consecutive ranks sit on different hosts and a host's leader is its lowest rank.
     */
    public Fabric(int[] nodeSizes, Link network, Link sharedMemory, boolean ejectionLimited, boolean roundRobin) {
        this.ejectionLimited = ejectionLimited;
        if (nodeSizes.length < 1) {
            throw new IllegalArgumentException("need at least one host");
        }
        this.nodeSizes = nodeSizes.clone();
        int ranks = 0;
        for (int h = 0; h < nodeSizes.length; h++) {
            if (nodeSizes[h] < 1) {
                throw new IllegalArgumentException("host " + h + " needs at least one rank, got " + nodeSizes[h]);
            }
            ranks += nodeSizes[h];
        }
        this.hostOf = roundRobin ? dealt(nodeSizes, ranks) : inBlocks(nodeSizes, ranks);
        this.firstRank = new int[nodeSizes.length];
        for (int r = ranks - 1; r >= 0; r--) {
            firstRank[hostOf[r]] = r;
        }
        this.network = Objects.requireNonNull(network, "network");
        this.sharedMemory = Objects.requireNonNull(sharedMemory, "sharedMemory");
        this.rankFree = new double[ranks];
        this.injectFree = new double[nodeSizes.length];
        this.ejectFree = new double[nodeSizes.length];
    }

    /** The host of each rank when host {@code h} holds the next {@code nodeSizes[h]} ranks. */
    private static int[] inBlocks(int[] nodeSizes, int ranks) {
        int[] host = new int[ranks];
        for (int h = 0, first = 0; h < nodeSizes.length; first += nodeSizes[h], h++) {
            Arrays.fill(host, first, first + nodeSizes[h], h);
        }
        return host;
    }

    /** The host of each rank when {@code ranks} ranks are dealt one per host in turn, skipping full hosts. */
    static int[] dealt(int[] nodeSizes, int ranks) {
        int[] host = new int[ranks];
        int[] left = nodeSizes.clone();
        int h = 0;
        for (int r = 0; r < ranks; r++) {
            while (left[h] == 0) {
                h = (h + 1) % left.length;
            }
            host[r] = h;
            left[h]--;
            h = (h + 1) % left.length;
        }
        return host;
    }

    static int[] uniform(int hosts, int ranksPerHost) {
        if (hosts < 1 || ranksPerHost < 1) {
            throw new IllegalArgumentException(
                    "need at least one host and one rank per host, got " + hosts + " x " + ranksPerHost);
        }
        int[] sizes = new int[hosts];
        Arrays.fill(sizes, ranksPerHost);
        return sizes;
    }

    public int hosts() {
        return nodeSizes.length;
    }

    /** Ranks on {@code host}. */
    public int nodeSize(int host) {
        return nodeSizes[host];
    }

    /** The lowest rank on {@code host}: its leader. */
    public int leader(int host) {
        return firstRank[host];
    }

    public int ranks() {
        return hostOf.length;
    }

    public Link network() {
        return network;
    }

    public Link sharedMemory() {
        return sharedMemory;
    }

    public int hostOf(int rank) {
        return hostOf[rank];
    }

    /** When {@code rank}'s port has finished the transfers asked of it so far. */
    public double senderFree(int rank) {
        return rankFree[rank];
    }

    /** Every port idle again: for the next simulation on this fabric. */
    public void reset() {
        Arrays.fill(rankFree, 0);
        Arrays.fill(injectFree, 0);
        Arrays.fill(ejectFree, 0);
    }

    /**
     * Sends {@code bytes} from {@code src} to {@code dst}, ready at the sender at {@code ready}: takes
     * the ports and returns the time the data has arrived.
     */
    public double transfer(int src, int dst, double bytes, double ready) {
        int from = hostOf(src);
        int to = hostOf(dst);
        if (from == to) {
            double start = Math.max(ready, rankFree[src]);
            double busy = bytes / sharedMemory.bytesPerSecond();
            rankFree[src] = start + busy;
            return start + sharedMemory.latencySeconds() + busy;
        }
        double busy = bytes / network.bytesPerSecond();
        double start = Math.max(ready, Math.max(rankFree[src], injectFree[from]));
        rankFree[src] = start + busy;
        injectFree[from] = start + busy;
        if (!ejectionLimited) {
            return start + network.latencySeconds() + busy;
        }
        double eject = Math.max(start + network.latencySeconds(), ejectFree[to]);
        ejectFree[to] = eject + busy;
        return eject + busy;
    }
}

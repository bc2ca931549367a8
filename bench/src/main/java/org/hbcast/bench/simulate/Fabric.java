package org.hbcast.bench.simulate;

import java.util.Arrays;

/**
 * The cluster a simulated broadcast runs on: {@code hosts} hosts of {@code ranksPerHost} ranks each
 * (rank {@code r} on host {@code r / ranksPerHost}), one full-duplex NIC per host, and the ports every
 * transfer occupies. A transfer between hosts holds the sending rank's port and its host's injection
 * for {@code bytes / B}, then its receiver's host ejection for as long; it arrives {@code latency}
 * after it left, once the ejection is free. A transfer inside a host holds the sending rank's port at
 * the shared-memory rate. Ports are taken in the order transfers are asked for, which the event queue
 * keeps in time order.
 */
public final class Fabric {
    private final int hosts;
    private final int ranksPerHost;
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

    public Fabric(int hosts, int ranksPerHost, Link network, Link sharedMemory) {
        if (hosts < 1 || ranksPerHost < 1) {
            throw new IllegalArgumentException(
                    "need at least one host and one rank per host, got " + hosts + " x " + ranksPerHost);
        }
        this.hosts = hosts;
        this.ranksPerHost = ranksPerHost;
        this.network = network;
        this.sharedMemory = sharedMemory;
        this.rankFree = new double[hosts * ranksPerHost];
        this.injectFree = new double[hosts];
        this.ejectFree = new double[hosts];
    }

    public int hosts() {
        return hosts;
    }

    public int ranksPerHost() {
        return ranksPerHost;
    }

    public int ranks() {
        return hosts * ranksPerHost;
    }

    public Link network() {
        return network;
    }

    public Link sharedMemory() {
        return sharedMemory;
    }

    public int hostOf(int rank) {
        return rank / ranksPerHost;
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
        double eject = Math.max(start + network.latencySeconds(), ejectFree[to]);
        ejectFree[to] = eject + busy;
        return eject + busy;
    }
}

package org.hbcast.header;

import org.hbcast.schedule.TreeShape;

/**
 * The tree of the hosts' leaders that a call header takes when its payload costs a link more than a
 * start-up: from {@code fromBytes} of payload it goes down {@code shape} (of {@code radix}) instead
 * of the relay's k-nomial tree, which the header keeps below that, where start-ups dominate and
 * fewer hops win. The same on every rank: {@link #of} reads only the leaders' count and the
 * network's figures agreed at create.
 *
 * @param fromBytes the least payload that takes this tree ({@link #NONE}'s: none does)
 * @param shape the tree's shape
 * @param radix its radix (a k-nomial tree's; 1 for a chain)
 */
public record PayloadTree(int fromBytes, TreeShape shape, int radix) {
    /** No payload leaves the relay's own tree. */
    public static final PayloadTree NONE = new PayloadTree(Integer.MAX_VALUE, TreeShape.KNOMIAL, 2);

    public PayloadTree {
        if (fromBytes < 1 || radix < 1 || shape == TreeShape.TWO_TREE || shape == TreeShape.KNOMIAL && radix < 2) {
            throw new IllegalArgumentException(
                    "a payload tree from " + fromBytes + " B down " + shape + " of radix " + radix);
        }
    }

    /**
     * The tree that payloads past what the network moves in its start-up take among {@code leaders}
     * whose header relay runs a k-nomial tree of {@code radix}: of the chain, the binomial tree and
     * the relay's own, those that reach every leader in no more sends one after another than the
     * relay's own ({@link TreeShape#fillSends}), so that a call alone arrives no later once bytes
     * outweigh start-ups; of those the one whose busiest leader sends fewest copies a call ({@link
     * TreeShape#busiestSendsPerChunk}), since in calls one after another its link sets the pace; of
     * equals, the quicker to fill. {@link #NONE} where that is the relay's own tree (two leaders: one
     * edge either way).
     *
     * <p>So 3 to {@code radix + 1} leaders, where the relay's tree is a star (the root sending to every
     * other leader), get a chain, each link carrying one copy a call; more get the binomial tree, its
     * root sending {@code ceil(log2 n)} copies where the relay's sends {@code (radix - 1)
     * ceil(log_radix n)}. On the shaped 4+2+2 bed (1 Gbit/s, 58 µs) the chain took 162-195 µs a call
     * at 16 KiB as users call it against 293-318 down the star; on 8 shaped hosts of one rank the
     * binomial tree 446-516 µs a call at 16 KiB and 899-1,011 at 32 KiB against 662-835 and
     * 1,184-1,391 down the radix-4 tree. Measurements: docs/tuning.md.
     *
     * @param startupSeconds the network's start-up time, agreed
     * @param bytesPerSecond the network's bandwidth, agreed
     */
    public static PayloadTree of(int leaders, int radix, double startupSeconds, double bytesPerSecond) {
        double bytes = startupSeconds * bytesPerSecond;
        if (leaders < 3 || bytes >= Integer.MAX_VALUE - 1) {
            return NONE;
        }
        int from = (int) bytes + 1;
        PayloadTree own = new PayloadTree(from, TreeShape.KNOMIAL, radix);
        int ownFill = own.fillSends(leaders);
        PayloadTree best = own;
        for (PayloadTree t : new PayloadTree[] {
            new PayloadTree(from, TreeShape.KNOMIAL, 2), new PayloadTree(from, TreeShape.CHAIN, 1)
        }) {
            double busiest = t.busiestSends(leaders);
            double bestBusiest = best.busiestSends(leaders);
            if (t.fillSends(leaders) <= ownFill
                    && (busiest < bestBusiest
                            || busiest == bestBusiest && t.fillSends(leaders) < best.fillSends(leaders))) {
                best = t;
            }
        }
        return best == own ? NONE : best;
    }

    /** Sends one after another until this tree of {@code leaders} has reached them all. */
    private int fillSends(int leaders) {
        return shape.fillSends(leaders, shapeRadix());
    }

    /** Copies a call the busiest of {@code leaders} sends down this tree. */
    private double busiestSends(int leaders) {
        return shape.busiestSendsPerChunk(leaders, shapeRadix());
    }

    /** The radix {@link TreeShape} takes: a chain's is unused, but must be a k-nomial's. */
    private int shapeRadix() {
        return Math.max(radix, 2);
    }

    /** Whether a header of {@code payloadBytes} takes this tree. */
    public boolean takes(int payloadBytes) {
        return payloadBytes >= fromBytes;
    }

    /** Most children any leader has in this tree of {@code leaders}. */
    int maxChildren(int leaders) {
        return shape.maxChildren(leaders, shapeRadix());
    }

    /** Where it differs from the relay's own tree, in words: for create's line. */
    public String describe() {
        return "headers of " + fromBytes + " B of payload and more down "
                + (shape == TreeShape.CHAIN
                        ? "a chain"
                        : "a " + (radix == 2 ? "binomial" : radix + "-nomial") + " tree")
                + " of the hosts' leaders";
    }
}

package org.hbcast.bench.soak;

import java.util.List;
import java.util.SplittableRandom;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.call.ElementType;

/**
 * One call of a soak: drawn from (seed, call number) alone, so every rank draws the same call
 * without talking. Sizes are log-uniform from 1 byte to the maximum, with exact zeros now and then.
 *
 * @param number call number, from 0
 * @param kind memory kind
 * @param algorithm algorithm of the instance that runs it
 * @param type datatype
 * @param count elements
 * @param root root rank
 */
record SoakCall(long number, SoakKind kind, Algorithm algorithm, ElementType type, int count, int root) {
    private static final double ZERO_FRACTION = 0.03;

    /** Call {@code number} of the soak with {@code seed}. */
    static SoakCall draw(
            long seed, long number, List<SoakKind> kinds, List<Algorithm> algorithms, int maxBytes, int ranks) {
        SplittableRandom rnd = new SplittableRandom(Pattern.key(seed, number));
        SoakKind kind = kinds.get(rnd.nextInt(kinds.size()));
        Algorithm algorithm = algorithms.get(rnd.nextInt(algorithms.size()));
        ElementType type = ElementType.values()[rnd.nextInt(ElementType.values().length)];
        int root = rnd.nextInt(ranks);
        long bytes = rnd.nextDouble() < ZERO_FRACTION ? 0 : Math.round(Math.exp(rnd.nextDouble() * Math.log(maxBytes)));
        return new SoakCall(number, kind, algorithm, type, (int) (Math.min(bytes, maxBytes) / type.bytes()), root);
    }

    /** The largest call of a kind and algorithm: run once each during warm-up so buffers reach full size. */
    static SoakCall largest(long number, SoakKind kind, Algorithm algorithm, int maxBytes, int ranks) {
        return new SoakCall(number, kind, algorithm, ElementType.BYTE, maxBytes, (int) (number % ranks));
    }

    long bytes() {
        return (long) count * type.bytes();
    }

    @Override
    public String toString() {
        return "call " + number + " (" + algorithm + ", " + kind + " of " + type + ", count " + count + ", root " + root
                + ")";
    }
}

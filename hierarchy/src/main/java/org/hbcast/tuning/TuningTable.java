package org.hbcast.tuning;

import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.schedule.TreeShape;

/**
 * A measured tuning table (written by the tuner, JSON): for one fingerprint and memory kind, the best
 * (algorithm, chunk, radix) per message size and the measured time of every point of the sweep.
 * {@link #problem(Fingerprint, MemoryKind)} says why a table cannot be used; the loader checks it.
 *
 * @param formatVersion {@link #FORMAT_VERSION}
 * @param fingerprint what it was measured on
 * @param fingerprintId {@link Fingerprint#id()} of it, for people reading file names
 * @param memory the buffers it was measured with
 * @param created when (ISO-8601)
 * @param calibration the link calibration in use when tuned, or null
 * @param entries one per message size, sizes strictly ascending
 */
public record TuningTable(
        int formatVersion,
        Fingerprint fingerprint,
        String fingerprintId,
        MemoryKind memory,
        String created,
        Calibration calibration,
        List<Entry> entries) {
    public static final int FORMAT_VERSION = 1;
    /** Largest chunk a table may name (the options' limit). */
    public static final int MAX_CHUNK_BYTES = 16 << 20;

    public TuningTable {
        entries = entries == null ? null : List.copyOf(entries);
    }

    /**
     * One measured point of the sweep; {@code intra} is the hierarchy's transport inside nodes (ring
     * where a table written before the fan-out existed does not say), {@code inter} the leaders'
     * schedule (the k-nomial tree where a table written before the other shapes does not say).
     */
    public record Point(
            Algorithm algorithm, int chunkBytes, int radix, double seconds, IntraNode intra, TreeShape inter) {
        public Point {
            intra = intra == null ? IntraNode.RING : intra;
            inter = inter == null ? TreeShape.KNOMIAL : inter;
        }

        /** A point of a flat algorithm or of the hierarchy with the ring over a k-nomial tree. */
        public Point(Algorithm algorithm, int chunkBytes, int radix, double seconds) {
            this(algorithm, chunkBytes, radix, seconds, IntraNode.RING, TreeShape.KNOMIAL);
        }

        /** A point whose leaders use the k-nomial tree. */
        public Point(Algorithm algorithm, int chunkBytes, int radix, double seconds, IntraNode intra) {
            this(algorithm, chunkBytes, radix, seconds, intra, TreeShape.KNOMIAL);
        }
    }

    /** The best point at one message size, and every point measured there. */
    public record Entry(
            long bytes,
            Algorithm algorithm,
            int chunkBytes,
            int radix,
            double seconds,
            List<Point> points,
            IntraNode intra,
            TreeShape inter) {
        public Entry {
            points = points == null ? List.of() : List.copyOf(points);
            intra = intra == null ? IntraNode.RING : intra;
            inter = inter == null ? TreeShape.KNOMIAL : inter;
        }

        /** An entry whose best point is a flat algorithm or the hierarchy with the ring over a k-nomial tree. */
        public Entry(long bytes, Algorithm algorithm, int chunkBytes, int radix, double seconds, List<Point> points) {
            this(bytes, algorithm, chunkBytes, radix, seconds, points, IntraNode.RING, TreeShape.KNOMIAL);
        }

        /** An entry whose leaders use the k-nomial tree. */
        public Entry(
                long bytes,
                Algorithm algorithm,
                int chunkBytes,
                int radix,
                double seconds,
                List<Point> points,
                IntraNode intra) {
            this(bytes, algorithm, chunkBytes, radix, seconds, points, intra, TreeShape.KNOMIAL);
        }
    }

    /** Why this table cannot serve {@code expected} and {@code kind}, or null when it can. */
    public String problem(Fingerprint expected, MemoryKind kind) {
        if (formatVersion != FORMAT_VERSION) {
            return "format version " + formatVersion + ", expected " + FORMAT_VERSION;
        }
        if (fingerprint == null) {
            return "no fingerprint";
        }
        if (!fingerprint.canonical().equals(expected.canonical())) {
            return "measured on another machine or layout: table fingerprint '" + fingerprint.canonical()
                    + "', this run '" + expected.canonical() + "'";
        }
        if (memory != kind) {
            return "measured with " + memory + " buffers, not " + kind;
        }
        if (calibration != null && !calibration.hardware().equals(fingerprint.hardware())) {
            return "its calibration is of other hardware ('" + calibration.hardware() + "')";
        }
        if (entries == null || entries.isEmpty()) {
            return "no entries";
        }
        long previous = 0;
        for (Entry e : entries) {
            if (e == null) {
                return "an empty entry";
            }
            if (e.bytes() <= previous) {
                return "message sizes are not strictly ascending (" + e.bytes() + " B after " + previous + " B)";
            }
            previous = e.bytes();
            String bad = e.intra() == IntraNode.AUTO
                    ? "intra-node transport auto is not a concrete transport"
                    : pointProblem(e.bytes(), e.algorithm(), e.chunkBytes(), e.radix(), e.seconds());
            if (bad != null) {
                return "entry " + e.bytes() + " B: " + bad;
            }
            for (Point p : e.points()) {
                bad = p == null
                        ? "an empty point"
                        : pointProblem(e.bytes(), p.algorithm(), p.chunkBytes(), p.radix(), p.seconds());
                if (bad != null) {
                    return "entry " + e.bytes() + " B, measured point: " + bad;
                }
            }
        }
        return null;
    }

    private static String pointProblem(long bytes, Algorithm algorithm, int chunk, int radix, double seconds) {
        if (algorithm == null || algorithm == Algorithm.AUTO) {
            return "algorithm " + algorithm + " is not a concrete algorithm";
        }
        if (chunk < 1 || chunk > MAX_CHUNK_BYTES || chunk > bytes) {
            return "chunk " + chunk + " B is not within 1.." + Math.min(bytes, MAX_CHUNK_BYTES) + " B";
        }
        if (radix < 2 || radix > 64) {
            return "radix " + radix + " is not within 2..64";
        }
        if (!(seconds > 0 && seconds < 3600)) {
            return "time " + seconds + " s is not a positive number of seconds below an hour";
        }
        return null;
    }

    /** The measured sizes, ascending. */
    public long[] sizes() {
        return entries.stream().mapToLong(Entry::bytes).toArray();
    }
}

package org.hbcast.tuning;

import java.util.ArrayList;
import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;

/** Fingerprints, calibrations and tables for the pure tests. */
public final class TuningFixtures {
    public static final HostInfo HOST = new HostInfo("Test CPU 9000", 16, "", 0, "Open MPI 4.1.4");
    public static final ClusterShape TWO_BY_TWO = ClusterShape.parse("2x2");

    private TuningFixtures() {}

    /** No table, built-in link figures: the model alone. */
    public static TuningInputs modelOnly(Fingerprint fingerprint) {
        return new TuningInputs(fingerprint, null, null, Calibration.builtIn(), "built-in link figures", List.of());
    }

    public static Fingerprint fingerprint(ClusterShape shape) {
        return Fingerprint.of(HOST, shape);
    }

    /** Links with round figures: easy to check by hand. */
    public static Calibration calibration() {
        return Calibration.measured(
                Fingerprint.of(HOST, TWO_BY_TWO).hardware(),
                "2026-01-01T00:00:00Z",
                List.of(
                        new LinkCalibration(LinkKind.SHARED_MEMORY, 10e-6, 1e9, "measured"),
                        new LinkCalibration(LinkKind.MPI_SHARED_MEMORY, 5e-6, 2e9, "measured"),
                        new LinkCalibration(LinkKind.NETWORK, 50e-6, 1e9, "measured")),
                null,
                List.of());
    }

    /**
     * {@link #calibration()} plus node curves for nodes of {@code n}: the ring fills in (n - 1) steps of
     * {@code 10 us + c / 1 GB/s}, the fan-out in one, and each further chunk costs the fan-out half what
     * it costs the ring.
     */
    public static Calibration calibrationWithNodeCurves(int n) {
        Calibration base = calibration();
        List<NodeCurve.ChunkCost> ring = new ArrayList<>();
        List<NodeCurve.ChunkCost> fanout = new ArrayList<>();
        for (int c = 64; c <= 4 << 20; c *= 4) {
            double step = 10e-6 + c / 1e9;
            ring.add(new NodeCurve.ChunkCost(c, (n - 1) * step, List.of(new TimedSize(64 << 20, step))));
            fanout.add(new NodeCurve.ChunkCost(c, step, List.of(new TimedSize(64 << 20, step / 2))));
        }
        return Calibration.measured(
                base.hardware(),
                base.created(),
                base.links(),
                null,
                List.of(),
                List.of(new NodeCurve(IntraNode.RING, n, ring), new NodeCurve(IntraNode.FANOUT, n, fanout)));
    }

    /**
     * A valid table for {@code shape}: sizes 64 KiB, 1 MiB, 16 MiB; hierarchical everywhere, chunks
     * 64 KiB, 256 KiB, 1 MiB; every entry with a few points.
     */
    public static TuningTable table(ClusterShape shape) {
        Fingerprint fp = fingerprint(shape);
        List<TuningTable.Entry> entries = new ArrayList<>();
        long[] sizes = {64 << 10, 1 << 20, 16 << 20};
        int[] chunks = {64 << 10, 256 << 10, 1 << 20};
        for (int i = 0; i < sizes.length; i++) {
            double t = 1e-4 * (i + 1) * (i + 1);
            entries.add(new TuningTable.Entry(
                    sizes[i],
                    Algorithm.HIERARCHICAL,
                    chunks[i],
                    2,
                    t,
                    List.of(
                            new TuningTable.Point(Algorithm.HIERARCHICAL, chunks[i], 2, t),
                            new TuningTable.Point(Algorithm.KNOMIAL, chunks[i], 2, 2 * t),
                            new TuningTable.Point(Algorithm.NATIVE, (int) Math.min(sizes[i], 1 << 20), 2, 3 * t))));
        }
        return new TuningTable(
                TuningTable.FORMAT_VERSION, fp, fp.id(), MemoryKind.HOST, "2026-01-01T00:00:00Z", null, entries);
    }
}

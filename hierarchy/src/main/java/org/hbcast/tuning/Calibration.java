package org.hbcast.tuning;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.hbcast.plan.IntraNode;

/**
 * Start-up times and bandwidths of the link kinds of one machine (written by the calibration
 * program, read by the cost model), and optionally Open MPI's own broadcast times measured on one
 * layout. Link kinds it lacks get conservative {@link #builtIn() built-in} figures.
 *
 * @param formatVersion {@link #FORMAT_VERSION}
 * @param hardware the {@link Fingerprint#hardware()} it was measured on
 * @param created when it was measured (ISO-8601), for reports
 * @param links measured links, at most one per kind
 * @param nativeLayout the layout {@code nativeTimes} were measured on (a {@link ClusterShape} string), or null
 * @param nativeTimes Open MPI's {@code bcast} times by message size on {@code nativeLayout}, ascending
 * @param nodeCurves streaming costs of the intra-node transports, at most one per (transport, node size);
 *        absent in files written before they were measured
 * @param twoLevelLayout the layout of several nodes {@code twoLevelCurves} were measured on (a
 *        {@link ClusterShape} string), or null
 * @param twoLevelCurves streaming costs of the whole two-level broadcast on {@code twoLevelLayout}
 *        (radix 2 among the leaders), one per intra-node transport, each {@link NodeCurve#nodeSize()}
 *        the layout's largest node; absent in files written before they were measured
 */
public record Calibration(
        int formatVersion,
        String hardware,
        String created,
        List<LinkCalibration> links,
        String nativeLayout,
        List<TimedSize> nativeTimes,
        List<NodeCurve> nodeCurves,
        String twoLevelLayout,
        List<NodeCurve> twoLevelCurves) {
    public static final int FORMAT_VERSION = 1;

    private static final Map<LinkKind, LinkCalibration> DEFAULTS = new EnumMap<>(LinkKind.class);

    static {
        // Deliberately modest figures: a commodity node and 10 Gb/s Ethernet.
        builtIn(LinkKind.SHARED_MEMORY, 5e-6, 4e9);
        builtIn(LinkKind.MPI_SHARED_MEMORY, 3e-6, 4e9);
        builtIn(LinkKind.CUDA_IPC, 15e-6, 40e9);
        builtIn(LinkKind.NETWORK, 30e-6, 1.1e9);
        builtIn(LinkKind.HOST_MEMCPY, 1e-6, 6e9);
        builtIn(LinkKind.PCIE, 10e-6, 10e9);
    }

    private static void builtIn(LinkKind kind, double ts, double b) {
        DEFAULTS.put(kind, new LinkCalibration(kind, ts, b, LinkCalibration.BUILT_IN));
    }

    public Calibration {
        if (formatVersion != FORMAT_VERSION) {
            throw new IllegalArgumentException(
                    "calibration format version " + formatVersion + " is not " + FORMAT_VERSION);
        }
        Objects.requireNonNull(hardware, "hardware");
        links = List.copyOf(Objects.requireNonNull(links, "links"));
        nativeTimes = nativeTimes == null ? List.of() : List.copyOf(nativeTimes);
        nodeCurves = nodeCurves == null ? List.of() : List.copyOf(nodeCurves);
        if (nodeCurves.stream()
                        .map(c -> c.transport() + "/" + c.nodeSize())
                        .distinct()
                        .count()
                != nodeCurves.size()) {
            throw new IllegalArgumentException("a node curve is calibrated twice");
        }
        twoLevelCurves = twoLevelCurves == null ? List.of() : List.copyOf(twoLevelCurves);
        if (twoLevelCurves.stream().map(NodeCurve::transport).distinct().count() != twoLevelCurves.size()) {
            throw new IllegalArgumentException("a two-level curve is calibrated twice");
        }
        if (!twoLevelCurves.isEmpty() && twoLevelLayout == null) {
            throw new IllegalArgumentException("two-level curves without the layout they were measured on");
        }
        if (links.stream().map(LinkCalibration::kind).distinct().count() != links.size()) {
            throw new IllegalArgumentException("a link kind is calibrated twice");
        }
        long previous = 0;
        for (TimedSize t : nativeTimes) {
            if (t.bytes() <= previous || !(t.seconds() > 0 && t.seconds() < 3600)) {
                throw new IllegalArgumentException("native times must have ascending positive sizes and positive"
                        + " times, got " + t.bytes() + " B in " + t.seconds() + " s");
            }
            previous = t.bytes();
        }
        if (!nativeTimes.isEmpty() && nativeLayout == null) {
            throw new IllegalArgumentException("native times without the layout they were measured on");
        }
    }

    /** Nothing measured: every link at its built-in figures. */
    public static Calibration builtIn() {
        return new Calibration(FORMAT_VERSION, "built-in", "", List.of(), null, List.of(), List.of(), null, List.of());
    }

    /** A calibration of {@code hardware} from the given measurements. */
    public static Calibration measured(
            String hardware,
            String created,
            List<LinkCalibration> links,
            String nativeLayout,
            List<TimedSize> nativeTimes) {
        return measured(hardware, created, links, nativeLayout, nativeTimes, List.of());
    }

    /** As {@link #measured(String, String, List, String, List)}, with the intra-node transports' curves. */
    public static Calibration measured(
            String hardware,
            String created,
            List<LinkCalibration> links,
            String nativeLayout,
            List<TimedSize> nativeTimes,
            List<NodeCurve> nodeCurves) {
        return new Calibration(
                FORMAT_VERSION,
                hardware,
                created,
                new ArrayList<>(links),
                nativeLayout,
                nativeTimes,
                nodeCurves,
                null,
                List.of());
    }

    /** This calibration with the two-level broadcast's {@code curves} measured on {@code layout}. */
    public Calibration withTwoLevel(String layout, List<NodeCurve> curves) {
        return new Calibration(
                formatVersion,
                hardware,
                created,
                links,
                nativeLayout,
                nativeTimes,
                nodeCurves,
                curves.isEmpty() ? null : layout,
                curves);
    }

    /** This calibration with {@code link} in place of the figures of its kind (measured or built-in). */
    public Calibration withLink(LinkCalibration link) {
        List<LinkCalibration> all = new ArrayList<>(links);
        all.removeIf(l -> l.kind() == link.kind());
        all.add(link);
        return new Calibration(
                formatVersion,
                hardware,
                created,
                all,
                nativeLayout,
                nativeTimes,
                nodeCurves,
                twoLevelLayout,
                twoLevelCurves);
    }

    /** The measured curve of {@code transport} on nodes of {@code nodeSize} ranks, or null. */
    public NodeCurve nodeCurve(IntraNode transport, int nodeSize) {
        for (NodeCurve c : nodeCurves) {
            if (c.transport() == transport && c.nodeSize() == nodeSize) {
                return c;
            }
        }
        return null;
    }

    /** The measured two-level curve of {@code transport} on {@code shape}, or null where it was not measured there. */
    public NodeCurve twoLevelCurve(IntraNode transport, ClusterShape shape) {
        return twoLevelMeasuredOn(shape) ? twoLevelCurve(transport) : null;
    }

    /** The measured two-level curve of {@code transport} on {@link #twoLevelLayout()}, or null. */
    public NodeCurve twoLevelCurve(IntraNode transport) {
        return twoLevelCurves.stream()
                .filter(c -> c.transport() == transport)
                .findFirst()
                .orElse(null);
    }

    /** True when the two-level curves were measured on {@code shape}. */
    public boolean twoLevelMeasuredOn(ClusterShape shape) {
        return shape.toString().equals(twoLevelLayout);
    }

    /** The figures of {@code kind}: measured when present, built-in otherwise. */
    public LinkCalibration link(LinkKind kind) {
        for (LinkCalibration l : links) {
            if (l.kind() == kind) {
                return l;
            }
        }
        return DEFAULTS.get(kind);
    }

    /** True when nothing was measured. */
    public boolean isBuiltIn() {
        return links.isEmpty() && nativeTimes.isEmpty() && nodeCurves.isEmpty() && twoLevelCurves.isEmpty();
    }
}

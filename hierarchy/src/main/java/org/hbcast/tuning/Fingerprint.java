package org.hbcast.tuning;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.hbcast.mpi.StableHash;

/**
 * What a tuning table was measured on: the host ({@link HostInfo}), the link kinds a broadcast uses
 * there, and the layout (nodes x ranks per node). Two runs on the same hardware and layout give the
 * same {@link #canonical()} string and so the same short {@link #id()}; a table whose fingerprint
 * differs is not used.
 *
 * @param links ids of the link kinds in use ({@link LinkKind#id()}), in enum order
 * @param layout the {@link ClusterShape} as text, e.g. "2x2" or "2x2 virtual"
 */
public record Fingerprint(HostInfo host, List<String> links, String layout) {
    public Fingerprint {
        Objects.requireNonNull(host, "host");
        links = List.copyOf(links);
        Objects.requireNonNull(layout, "layout");
    }

    /** The fingerprint of a run on {@code host} with {@code shape}. */
    public static Fingerprint of(HostInfo host, ClusterShape shape) {
        return new Fingerprint(
                host, linksInUse(host, shape).stream().map(LinkKind::id).toList(), shape.toString());
    }

    /** The links a broadcast on this shape moves data over. */
    public static List<LinkKind> linksInUse(HostInfo host, ClusterShape shape) {
        List<LinkKind> links = new ArrayList<>();
        if (shape.maxNodeSize() > 1) {
            links.add(LinkKind.SHARED_MEMORY);
        }
        if (shape.maxNodeSize() > 1 || shape.nodes() > 1 && shape.virtual()) {
            links.add(LinkKind.MPI_SHARED_MEMORY);
        }
        if (host.gpus() > 0 && shape.maxNodeSize() > 1) {
            links.add(LinkKind.CUDA_IPC);
        }
        if (shape.crossesNetwork()) {
            links.add(LinkKind.NETWORK);
        }
        if (host.gpus() > 0) {
            links.add(LinkKind.PCIE);
        }
        return links;
    }

    /** The hardware alone (no layout): what a link calibration depends on. */
    public String hardware() {
        return "cpu=" + host.cpuModel() + "; cpus=" + host.cpus() + "; gpu=" + host.gpuModel() + "; gpus=" + host.gpus()
                + "; mpi=" + host.mpiVersion();
    }

    /** Every element in a fixed order: equal strings mean the same hardware, links and layout. */
    public String canonical() {
        return hardware() + "; links=" + String.join(",", links) + "; layout=" + layout;
    }

    /** A stable 12-hex-digit id of {@link #canonical()}, used in file names. */
    public String id() {
        return shortHash(canonical());
    }

    /** A stable 12-hex-digit id of {@link #hardware()}. */
    public String hardwareId() {
        return shortHash(hardware());
    }

    /**
     * The top 48 bits of {@code s}'s FNV-1a hash ({@link StableHash}), mixed (SplitMix64's finaliser),
     * in hex. Not a digest: a name for cache files, which the file's own fingerprint still checks.
     * SHA-256 was 38 ms of a cold JVM's first {@code create} (the security providers' start), on rank
     * 0 while the other ranks waited for its tuning files (docs/tuning.md).
     */
    static String shortHash(String s) {
        long h = StableHash.fnv1a64(s);
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        h ^= h >>> 31;
        return HexFormat.of().toHexDigits(h >>> 16, 12);
    }

    @Override
    public String toString() {
        return canonical() + " (id " + id() + ")";
    }
}

package org.hbcast.tuning;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hbcast.mpi.NodeLayout;

/**
 * The node layout as the cost model and the fingerprint see it: ranks per node, in node order, and
 * whether the nodes are virtual ({@code HBCAST_NODE_SIZES} on one host, so that "between nodes" is
 * still shared memory).
 */
public final class ClusterShape {
    private static final Pattern GRID = Pattern.compile("(\\d+)\\s*x\\s*(\\d+)");

    private final List<Integer> nodeSizes;
    private final boolean virtual;
    // Derived once: the cost model asks for them in every prediction, thousands per create, and
    // summing a thousand nodes' sizes or printing the layout each time made planning take 0.1 s.
    private final int ranks;
    private final int maxNodeSize;
    private final String label;

    public ClusterShape(List<Integer> nodeSizes, boolean virtual) {
        this.nodeSizes = List.copyOf(nodeSizes);
        this.virtual = virtual;
        if (this.nodeSizes.isEmpty()) {
            throw new IllegalArgumentException("a layout needs at least one node");
        }
        int sum = 0;
        int max = 0;
        for (int s : this.nodeSizes) {
            if (s < 1) {
                throw new IllegalArgumentException("node sizes must be positive, got " + nodeSizes);
            }
            sum += s;
            max = Math.max(max, s);
        }
        this.ranks = sum;
        this.maxNodeSize = max;
        this.label = label(this.nodeSizes, virtual);
    }

    public static ClusterShape of(NodeLayout layout, boolean virtual) {
        return new ClusterShape(Arrays.stream(layout.nodeSizes()).boxed().toList(), virtual);
    }

    /**
     * Parses "2x2" (nodes x ranks per node) or "8,3,3" / "8+3+3" (ranks of each node); a trailing
     * " virtual" marks virtual nodes.
     */
    public static ClusterShape parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        boolean virtual = t.endsWith("virtual");
        if (virtual) {
            t = t.substring(0, t.length() - "virtual".length()).trim();
        }
        Matcher grid = GRID.matcher(t);
        try {
            if (grid.matches()) {
                int nodes = Integer.parseInt(grid.group(1));
                int per = Integer.parseInt(grid.group(2));
                if (nodes < 1 || nodes > 1_000_000) {
                    throw new IllegalArgumentException("node count " + nodes + " is out of range");
                }
                return new ClusterShape(Collections.nCopies(nodes, per), virtual);
            }
            int[] sizes = Arrays.stream(t.split("[,+]", -1))
                    .map(String::trim)
                    .mapToInt(Integer::parseInt)
                    .toArray();
            return new ClusterShape(Arrays.stream(sizes).boxed().toList(), virtual);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "layout '" + text + "' is neither NODESxRANKS (2x2) nor node sizes (8,3,3)");
        }
    }

    /** Ranks of each node, in node order. */
    public List<Integer> nodeSizes() {
        return nodeSizes;
    }

    /** Whether the nodes are virtual: one host playing several. */
    public boolean virtual() {
        return virtual;
    }

    public int nodes() {
        return nodeSizes.size();
    }

    /** Whether ranks talk over a network: more than one node, and real ones (virtual nodes share a host). */
    public boolean crossesNetwork() {
        return nodes() > 1 && !virtual;
    }

    /** The longest intra-node ring. */
    public int maxNodeSize() {
        return maxNodeSize;
    }

    public int ranks() {
        return ranks;
    }

    /** "2x2" when every node has as many ranks, else "8+3+3"; " virtual" appended for virtual nodes. */
    @Override
    public String toString() {
        return label;
    }

    private static String label(List<Integer> nodeSizes, boolean virtual) {
        boolean even = nodeSizes.stream().allMatch(s -> s.equals(nodeSizes.get(0)));
        StringBuilder sb = new StringBuilder();
        if (even) {
            sb.append(nodeSizes.size()).append('x').append(nodeSizes.get(0));
        } else {
            for (int i = 0; i < nodeSizes.size(); i++) {
                sb.append(i == 0 ? "" : "+").append(nodeSizes.get(i));
            }
        }
        return virtual ? sb.append(" virtual").toString() : sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterShape other && virtual == other.virtual && nodeSizes.equals(other.nodeSizes);
    }

    @Override
    public int hashCode() {
        return 31 * nodeSizes.hashCode() + Boolean.hashCode(virtual);
    }
}

package org.hbcast.mpi;

import java.util.Arrays;

/**
 * Which node each rank of a communicator lives on, and its position inside that node.
 *
 * <p>Nodes are numbered in the order of their lowest rank; inside a node, ranks keep their
 * communicator order. Pure and immutable, so the plan and the tests can reason about layouts
 * without MPI.
 */
public final class NodeLayout {
    private final int[] nodeOfRank;
    private final int[] positionOfRank;
    private final int[][] ranksOfNode;

    private NodeLayout(int[] nodeOfRank) {
        this.nodeOfRank = nodeOfRank;
        int nodes = Arrays.stream(nodeOfRank).max().orElse(-1) + 1;
        int[] sizes = new int[nodes];
        for (int node : nodeOfRank) {
            sizes[node]++;
        }
        ranksOfNode = new int[nodes][];
        for (int n = 0; n < nodes; n++) {
            ranksOfNode[n] = new int[sizes[n]];
        }
        positionOfRank = new int[nodeOfRank.length];
        int[] filled = new int[nodes];
        for (int rank = 0; rank < nodeOfRank.length; rank++) {
            int node = nodeOfRank[rank];
            positionOfRank[rank] = filled[node];
            ranksOfNode[node][filled[node]++] = rank;
        }
    }

    /** One node holding every rank. */
    public static NodeLayout singleNode(int size) {
        return fromNodeSizes(new int[] {size});
    }

    /** Consecutive ranks form nodes of the given sizes (what {@code HBCAST_NODE_SIZES} describes). */
    public static NodeLayout fromNodeSizes(int[] sizes) {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("a layout needs at least one node");
        }
        int total = 0;
        for (int size : sizes) {
            if (size <= 0) {
                throw new IllegalArgumentException("node sizes must be positive, got " + Arrays.toString(sizes));
            }
            total = Math.addExact(total, size);
        }
        int[] nodeOf = new int[total];
        int rank = 0;
        for (int node = 0; node < sizes.length; node++) {
            for (int i = 0; i < sizes[node]; i++) {
                nodeOf[rank++] = node;
            }
        }
        return new NodeLayout(nodeOf);
    }

    /**
     * A layout from any node key per rank (for example the lowest rank sharing memory with it):
     * ranks with equal keys share a node; nodes are renumbered by their lowest rank.
     */
    public static NodeLayout fromNodeKeys(int[] keyOfRank) {
        if (keyOfRank.length == 0) {
            throw new IllegalArgumentException("a layout needs at least one rank");
        }
        int[] nodeOf = new int[keyOfRank.length];
        int[] keys = new int[keyOfRank.length];
        int nodes = 0;
        for (int rank = 0; rank < keyOfRank.length; rank++) {
            int node = -1;
            for (int n = 0; n < nodes; n++) {
                if (keys[n] == keyOfRank[rank]) {
                    node = n;
                    break;
                }
            }
            if (node < 0) {
                node = nodes;
                keys[nodes++] = keyOfRank[rank];
            }
            nodeOf[rank] = node;
        }
        return new NodeLayout(nodeOf);
    }

    /**
     * Parses {@code HBCAST_NODE_SIZES}-style text ("8,3,3") for a communicator of {@code commSize}
     * ranks; the sizes must be positive whole numbers summing to {@code commSize}.
     */
    public static NodeLayout parse(String text, int commSize) {
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("HBCAST_NODE_SIZES is empty; expected node sizes like 8,3,3");
        }
        String[] parts = trimmed.split(",", -1);
        int[] sizes = new int[parts.length];
        long sum = 0;
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            try {
                sizes[i] = Integer.parseInt(part);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("HBCAST_NODE_SIZES='" + text + "': '" + part
                        + "' is not a whole number; expected node sizes like 8,3,3");
            }
            if (sizes[i] <= 0) {
                throw new IllegalArgumentException(
                        "HBCAST_NODE_SIZES='" + text + "': node size " + sizes[i] + " is not positive");
            }
            sum += sizes[i];
        }
        if (sum != commSize) {
            throw new IllegalArgumentException(
                    "HBCAST_NODE_SIZES='" + text + "' sums to " + sum + " ranks but the communicator has " + commSize);
        }
        return fromNodeSizes(sizes);
    }

    /** The sum of the sizes in {@code HBCAST_NODE_SIZES}-style text, or -1 when it is not valid. */
    public static long sumOf(String text) {
        long sum = 0;
        for (String part : text.trim().split(",", -1)) {
            try {
                int size = Integer.parseInt(part.trim());
                if (size <= 0) {
                    return -1;
                }
                sum += size;
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return sum;
    }

    public int size() {
        return nodeOfRank.length;
    }

    public int nodeCount() {
        return ranksOfNode.length;
    }

    public int nodeOf(int rank) {
        return nodeOfRank[rank];
    }

    /** Position of {@code rank} inside its node, 0 for the node's lowest rank. */
    public int positionOf(int rank) {
        return positionOfRank[rank];
    }

    public int nodeSize(int node) {
        return ranksOfNode[node].length;
    }

    /** Communicator rank of the process at {@code position} of {@code node}. */
    public int rankAt(int node, int position) {
        return ranksOfNode[node][position];
    }

    /**
     * The node leaders of a broadcast from {@code root}: the root leads its own node, every other
     * node is led by its lowest rank. Fills {@code out} (by node) and returns it; allocates nothing.
     */
    public int[] leaders(int root, int[] out) {
        int rootNode = nodeOfRank[root];
        for (int n = 0; n < ranksOfNode.length; n++) {
            out[n] = n == rootNode ? root : ranksOfNode[n][0];
        }
        return out;
    }

    /** Largest node size: the longest intra-node ring. */
    public int maxNodeSize() {
        int max = 0;
        for (int[] ranks : ranksOfNode) {
            max = Math.max(max, ranks.length);
        }
        return max;
    }

    /** Node sizes in node order, for reports and fingerprints. */
    public int[] nodeSizes() {
        int[] sizes = new int[ranksOfNode.length];
        for (int n = 0; n < sizes.length; n++) {
            sizes[n] = ranksOfNode[n].length;
        }
        return sizes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeLayout other && Arrays.equals(nodeOfRank, other.nodeOfRank);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nodeOfRank);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < ranksOfNode.length; n++) {
            sb.append(n == 0 ? "" : " + ").append(Arrays.toString(ranksOfNode[n]));
        }
        return sb.toString();
    }
}

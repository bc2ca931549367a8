package org.hbcast;

import java.util.ArrayList;
import java.util.List;

/**
 * Who is where in a {@link HierarchicalBcast}'s communicator, as found at {@code create}: the nodes
 * (each a list of communicator ranks, in node order; virtual nodes where {@code HBCAST_NODE_SIZES}
 * made them) and the real nodes, the ranks that share memory. A read-only copy.
 *
 * @param rank this process's rank in the communicator
 * @param nodes the ranks of each node, in node order, each node's in communicator order
 * @param hostNodes the ranks of each real node (the same as {@code nodes} unless {@code virtual})
 * @param virtual whether the nodes come from {@code HBCAST_NODE_SIZES} rather than from the hardware
 */
public record BcastTopology(int rank, List<List<Integer>> nodes, List<List<Integer>> hostNodes, boolean virtual) {
    public BcastTopology {
        nodes = copy(nodes);
        hostNodes = copy(hostNodes);
    }

    private static List<List<Integer>> copy(List<List<Integer>> nodes) {
        List<List<Integer>> out = new ArrayList<>();
        for (List<Integer> n : nodes) {
            out.add(List.copyOf(n));
        }
        return List.copyOf(out);
    }

    /** Ranks in the communicator. */
    public int size() {
        return nodes.stream().mapToInt(List::size).sum();
    }

    public int nodeCount() {
        return nodes.size();
    }

    /** This rank's node. */
    public int node() {
        for (int n = 0; n < nodes.size(); n++) {
            if (nodes.get(n).contains(rank)) {
                return n;
            }
        }
        throw new IllegalStateException("rank " + rank + " is on no node");
    }

    /** This rank's position in its node, 0 for the node's lowest rank. */
    public int position() {
        return nodes.get(node()).indexOf(rank);
    }

    /** The rank at {@code position} of {@code node}. */
    public int rankAt(int node, int position) {
        return nodes.get(node).get(position);
    }

    /** The size of each node, in node order. */
    public List<Integer> nodeSizes() {
        return nodes.stream().map(List::size).toList();
    }

    /** The nodes as "[0, 1] + [2, 3]". */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (List<Integer> n : nodes) {
            sb.append(sb.length() == 0 ? "" : " + ").append(n);
        }
        return sb.toString();
    }
}

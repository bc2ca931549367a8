package org.hbcast.transport.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who copies for whom among a node's ranks whose buffers live on GPUs: the ranks grouped by the
 * physical GPU (its UUID, never its index, which differs between processes whose
 * {@code CUDA_VISIBLE_DEVICES} differ), one copier per group and call, and the ring between the groups.
 *
 * <p>Groups are numbered in the order of their lowest node rank, members in node-rank order, the first
 * member being the group's leader. In a call that starts at node rank {@code first}, the copier of
 * {@code first}'s group is {@code first}; every other group's copier is its leader. Each copier issues
 * every copy into its group's buffers, so ranks that share a GPU never switch the GPU between their
 * contexts on the call's path. Between groups the chunks run a ring over the leaders, group index
 * order, one hop per GPU: {@link Hop#PEER} where the sending leader's process can write the next
 * GPU's memory, {@link Hop#HOST} otherwise.
 *
 * <p>Pure: the same inputs give every rank the same answer, so ranks agree without talking.
 */
public final class GpuGroups {
    /** How the chunks cross from one GPU to the next. */
    public enum Hop {
        /** Device to device over CUDA IPC ({@code cudaDeviceCanAccessPeer}, NVLink or PCIe peer). */
        PEER,
        /** The GPUs cannot reach each other: device to pinned host memory, then host to device. */
        HOST
    }

    private final String[] uuids;
    private final int[] groupOf;
    private final int[][] members;
    private final Hop[] hops;

    private GpuGroups(final String[] uuids, final int[] groupOf, final int[][] members, final Hop[] hops) {
        this.uuids = uuids;
        this.groupOf = groupOf;
        this.members = members;
        this.hops = hops;
    }

    /**
     * Groups node ranks by GPU. {@code uuids[r]} is the UUID of node rank {@code r}'s GPU (any fixed
     * text, e.g. hex); {@code reaches.get(r)} the UUIDs whose memory node rank {@code r}'s process can
     * write with a device copy (its own GPU's need not be listed).
     *
     * @throws IllegalArgumentException for no ranks, a missing UUID, or lists of different lengths
     */
    public static GpuGroups of(final String[] uuids, final List<Set<String>> reaches) {
        if (uuids.length == 0 || reaches.size() != uuids.length) {
            throw new IllegalArgumentException(
                    "need one UUID and one reach set per node rank: " + uuids.length + " and " + reaches.size());
        }
        final Map<String, List<Integer>> byGpu = new LinkedHashMap<>();
        for (int rank = 0; rank < uuids.length; rank++) {
            if (uuids[rank] == null || uuids[rank].isEmpty()) {
                throw new IllegalArgumentException("node rank " + rank + " named no GPU UUID");
            }
            byGpu.computeIfAbsent(uuids[rank], u -> new ArrayList<>()).add(rank);
        }
        final int[][] members = new int[byGpu.size()][];
        final int[] groupOf = new int[uuids.length];
        final String[] groupUuids = new String[byGpu.size()];
        int g = 0;
        for (final Map.Entry<String, List<Integer>> entry : byGpu.entrySet()) {
            members[g] = entry.getValue().stream().mapToInt(Integer::intValue).toArray();
            groupUuids[g] = entry.getKey();
            for (final int rank : members[g]) {
                groupOf[rank] = g;
            }
            g++;
        }
        final Hop[] hops = new Hop[members.length];
        for (g = 0; g < members.length; g++) {
            final int next = (g + 1) % members.length;
            final int leader = members[g][0];
            hops[g] = next == g || reaches.get(leader).contains(groupUuids[next]) ? Hop.PEER : Hop.HOST;
        }
        return new GpuGroups(groupUuids, groupOf, members, hops);
    }

    /** Ranks of the node. */
    public int nodeSize() {
        return groupOf.length;
    }

    /** Number of GPUs (groups) the node's ranks use. */
    public int groupCount() {
        return members.length;
    }

    /** The group of node rank {@code rank}. */
    public int groupOf(final int rank) {
        return groupOf[rank];
    }

    /** Node ranks of group {@code group}, ascending. */
    public int[] members(final int group) {
        return members[group].clone();
    }

    /** The group's lowest node rank: its copier unless a call starts at another of its ranks. */
    public int leader(final int group) {
        return members[group][0];
    }

    /** The UUID of group {@code group}'s GPU. */
    public String uuid(final int group) {
        return uuids[group];
    }

    /** The rank that issues every copy into group {@code group}'s buffers in a call starting at {@code first}. */
    public int copier(final int group, final int first) {
        return groupOf[first] == group ? first : members[group][0];
    }

    /** How chunks go from group {@code group}'s leader to the next group's, in group index order. */
    public Hop hopAfter(final int group) {
        return hops[group];
    }

    /** True when every hop between GPUs is peer to peer. */
    public boolean allPeer() {
        return Arrays.stream(hops).allMatch(h -> h == Hop.PEER);
    }

    /**
     * The plan of a call starting at {@code first}, in words: each GPU with its ranks and copier, in
     * ring order, and each hop's kind. For {@code explain}.
     */
    public String describe(final int first) {
        final StringBuilder text = new StringBuilder();
        final int start = groupOf[first];
        for (int step = 0; step < members.length; step++) {
            final int g = (start + step) % members.length;
            if (step > 0) {
                // One hop without peer access sends the whole chain through the host (GpuGroupMember).
                text.append(allPeer() ? " -peer-> " : " -host-> ");
            }
            text.append("GPU ")
                    .append(uuids[g], 0, Math.min(8, uuids[g].length()))
                    .append(" ranks ")
                    .append(Arrays.toString(members[g]))
                    .append(" copier ")
                    .append(copier(g, first));
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return "GpuGroups" + Arrays.deepToString(members);
    }
}

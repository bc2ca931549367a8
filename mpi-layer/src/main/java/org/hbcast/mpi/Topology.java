package org.hbcast.mpi;

import java.util.Objects;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;

/**
 * Who is where: the node layout of a communicator, this rank's node communicator and the
 * processor name of every rank.
 *
 * <p>Nodes are the real shared-memory domains ({@code Comm.splitType(TYPE_SHARED)}) unless a
 * virtual layout ({@code HBCAST_NODE_SIZES}) makes consecutive ranks play separate nodes; a virtual
 * node may not straddle two real ones, since its ranks talk through shared memory. Sizes that sum
 * to the world size rather than to a sub-communicator's describe the world; the sub-communicator
 * inherits them. Virtual nodes play separate nodes for the data's paths; what needs only shared memory
 * still sees the real ones ({@link #hostLayout()}). Created collectively; {@link #close()} frees the
 * node communicators.
 */
public final class Topology implements AutoCloseable {
    // MPI_MAX_PROCESSOR_NAME of Open MPI (private in the bindings).
    private static final int NAME_BYTES = 256;

    private final MpiComm comm;
    private final MpiComm nodeComm;
    private final NodeLayout layout;
    /** The real shared-memory domains: {@link #layout} itself unless the nodes are virtual. */
    private final NodeLayout hostLayout;
    /** This rank's real node: {@link #nodeComm} itself unless the nodes are virtual. */
    private final MpiComm hostComm;

    private final boolean virtual;
    private final String[] processorNames;
    private final int rank;
    private final int ranksOnMachine;

    private Topology(
            MpiComm comm,
            MpiComm nodeComm,
            NodeLayout layout,
            MpiComm hostComm,
            NodeLayout hostLayout,
            boolean virtual,
            String[] processorNames,
            int ranksOnMachine)
            throws MpiFailure {
        this.comm = comm;
        this.nodeComm = nodeComm;
        this.layout = layout;
        this.hostComm = hostComm;
        this.hostLayout = hostLayout;
        this.virtual = virtual;
        this.processorNames = processorNames;
        this.rank = comm.rank();
        this.ranksOnMachine = ranksOnMachine;
    }

    /**
     * Discovers the layout of {@code comm} (collective over it).
     *
     * @param nodeSizes virtual node sizes such as "8,3,3", or null/blank for the real nodes
     * @throws IllegalArgumentException on every rank alike when the virtual layout is invalid
     */
    public static Topology discover(MpiComm comm, String nodeSizes) throws MpiFailure {
        Objects.requireNonNull(comm, "comm");
        int size = comm.size();
        int rank = comm.rank();
        // The real node's communicator: it finds the real layout, and it is the node communicator
        // unless the nodes are virtual.
        // Errors come back as exceptions on every communicator hbcast makes (see MpiErrors).
        MpiComm hostComm = MpiErrors.returnErrors(comm.splitByNode(rank));
        NodeLayout real;
        NodeLayout layout;
        String[] names;
        int onMachine;
        boolean virtual = nodeSizes != null && !nodeSizes.isBlank();
        try {
            real = realLayout(comm, hostComm, size, rank);
            layout = virtual ? virtualLayout(comm, nodeSizes, size) : real;
            if (virtual) {
                requireWithinRealNodes(layout, real, nodeSizes);
            }
            String name = comm.library().processorName();
            names = StringExchange.allGather(comm, name, NAME_BYTES);
            onMachine = ranksOnMachine(comm, size, name);
        } catch (MpiFailure | RuntimeException e) {
            hostComm.free();
            throw e;
        }
        MpiComm nodeComm = virtual ? MpiErrors.returnErrors(comm.split(layout.nodeOf(rank), rank)) : hostComm;
        return new Topology(comm, nodeComm, layout, hostComm, real, virtual, names, onMachine);
    }

    /**
     * How many ranks of {@code comm} run on this rank's machine, itself included: those that share
     * its kernel ({@link MachineIdentity}), which several shared-memory domains can (test beds in
     * network namespaces, containers).
     */
    private static int ranksOnMachine(MpiComm comm, int size, String processorName) throws MpiFailure {
        long[] mine = {MachineIdentity.key(processorName)};
        long[] keys = new long[size];
        comm.allGather(mine, 1, keys);
        int count = 0;
        for (long key : keys) {
            if (key == mine[0]) {
                count++;
            }
        }
        return count;
    }

    /**
     * Virtual nodes: the sizes describe {@code comm} when they sum to its size; otherwise they
     * describe the world communicator, and a sub-communicator inherits each rank's world node.
     */
    private static NodeLayout virtualLayout(MpiComm comm, String nodeSizes, int size) throws MpiFailure {
        MpiComm worldComm = comm.library().world();
        int worldSize = worldComm.size();
        if (size == worldSize || NodeLayout.sumOf(nodeSizes) == size) {
            return NodeLayout.parse(nodeSizes, size);
        }
        NodeLayout world = NodeLayout.parse(nodeSizes, worldSize);
        int[] worldNode = {world.nodeOf(worldComm.rank())};
        int[] keys = new int[size];
        comm.allGather(worldNode, 1, keys);
        return NodeLayout.fromNodeKeys(keys);
    }

    /** The real nodes, each named by its lowest rank, from each rank's shared-memory communicator. */
    private static NodeLayout realLayout(MpiComm comm, MpiComm shared, int size, int rank) throws MpiFailure {
        int[] lowest = {rank};
        shared.allReduce(lowest, 1, ReduceOp.MIN);
        int[] keys = new int[size];
        comm.allGather(lowest, 1, keys);
        return NodeLayout.fromNodeKeys(keys);
    }

    private static void requireWithinRealNodes(NodeLayout layout, NodeLayout real, String text) {
        for (int node = 0; node < layout.nodeCount(); node++) {
            int first = layout.rankAt(node, 0);
            for (int pos = 1; pos < layout.nodeSize(node); pos++) {
                int other = layout.rankAt(node, pos);
                if (real.nodeOf(other) != real.nodeOf(first)) {
                    throw new IllegalArgumentException("HBCAST_NODE_SIZES='" + text + "' puts ranks " + first
                            + " and " + other + " on one node, but they run on different hosts"
                            + " (virtual nodes share memory, so each must lie inside one real node)");
                }
            }
        }
    }

    /** The communicator this topology describes (not owned). */
    public MpiComm comm() {
        return comm;
    }

    /** The ranks of this rank's node, in communicator order (owned: freed by {@link #close()}). */
    public MpiComm nodeComm() {
        return nodeComm;
    }

    public NodeLayout layout() {
        return layout;
    }

    /**
     * The real nodes, the ranks that share memory: the same as {@link #layout()} unless the nodes
     * are virtual, when several virtual nodes lie in one real node. What needs only shared memory,
     * not the emulated network (the call headers), uses these.
     */
    public NodeLayout hostLayout() {
        return hostLayout;
    }

    /** The ranks of this rank's real node, in communicator order (owned: freed by {@link #close()}). */
    public MpiComm hostComm() {
        return hostComm;
    }

    /** This rank's real node (see {@link #hostLayout()}). */
    public int host() {
        return hostLayout.nodeOf(rank);
    }

    /** This rank's position in its real node (its rank in {@link #hostComm()}). */
    public int hostPosition() {
        return hostLayout.positionOf(rank);
    }

    /** True when the nodes come from {@code HBCAST_NODE_SIZES} rather than from the hardware. */
    public boolean isVirtual() {
        return virtual;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return layout.size();
    }

    public int node() {
        return layout.nodeOf(rank);
    }

    /** This rank's position in its node (its rank in {@link #nodeComm()}). */
    public int position() {
        return layout.positionOf(rank);
    }

    /**
     * How many ranks of this communicator (not of the whole job, where it is a sub-communicator)
     * share this rank's machine and its cores, itself included: all the ranks of a test bed's hosts,
     * for example, though each host is a node of its own.
     */
    public int ranksOnMachine() {
        return ranksOnMachine;
    }

    public String processorName(int r) {
        return processorNames[r];
    }

    /** A human report: one line per node with its ranks and their processor names. */
    public String report() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%d ranks on %d %s nodes%n", size(), layout.nodeCount(), virtual ? "virtual" : "real"));
        for (int node = 0; node < layout.nodeCount(); node++) {
            sb.append(String.format("  node %d: %d ranks:", node, layout.nodeSize(node)));
            for (int pos = 0; pos < layout.nodeSize(node); pos++) {
                int r = layout.rankAt(node, pos);
                sb.append(' ').append(r).append('@').append(processorNames[r]);
            }
            sb.append(System.lineSeparator());
        }
        return sb.toString();
    }

    @Override
    public void close() throws MpiFailure {
        if (hostComm != nodeComm) {
            hostComm.free();
        }
        nodeComm.free();
    }
}

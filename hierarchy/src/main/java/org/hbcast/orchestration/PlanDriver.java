package org.hbcast.orchestration;

import java.util.Arrays;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.TreeBroadcast;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.Plan;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageLoop;
import org.hbcast.stage.WaitLimit;

/**
 * The one orchestrator of a call's plan, for host and device memory alike: picks the stages this
 * rank runs (the leaders' tree, a device leader's staging copies, the node's ring or fan-out), starts
 * them over the same chunks and drives them in one {@link StageLoop}. The memory kind decides only
 * which stages run and over which transport, and the driver asks it through {@link CallMemory}:
 *
 * <pre>
 * rank                   host memory            device memory
 * root's leader          tree, node             staging to host, tree (fed), node
 * other node leaders     tree, node (fed)       tree, staging to GPU (fed), node (fed)
 * (tree: the leaders' schedule, a k-nomial tree, chain or two trees as the plan says)
 * other ranks            node                   node
 * flat tree (KNOMIAL)    tree                   staging and tree as a leader, no node stage
 * </pre>
 *
 * A failure, or a timeout where the wait's limit gives up, comes out as one {@link MpiFailure}
 * naming this rank, what it waited for and, inside the node, which ranks the node ranks are.
 * Allocation-free per call after warm-up.
 */
final class PlanDriver {
    /** The leaders' tree's tags: even calls, odd calls (see {@link TreeBroadcast}). */
    private static final int TAG = 0x4862;

    private static final int ODD_TAG = 0x4866;

    private final Topology topology;
    private final NodeLayout layout;
    private final long timeoutNs;
    private final int rank;
    private final int size;
    private final int[] everyRank;
    private final int[] leaders;
    private final TreeBroadcast tree;
    private final StageLoop loop;

    PlanDriver(MpiComm comm, Topology topology, WaitLimit limit) throws MpiFailure {
        this.topology = topology;
        this.layout = topology.layout();
        this.timeoutNs = limit.periodNs();
        this.rank = comm.rank();
        this.size = comm.size();
        this.everyRank = new int[size];
        Arrays.setAll(everyRank, r -> r);
        this.leaders = new int[layout.nodeCount()];
        this.tree = new TreeBroadcast(comm, TAG, ODD_TAG);
        this.loop = new StageLoop(ProgressWait.forSharedCores(topology.ranksOnMachine(), limit))
                .timeStages(CallBreakdown.on());
    }

    /** When the last call's leaders' tree finished at this rank ({@link System#nanoTime}); 0 where untimed or none. */
    long treeDoneAtNs() {
        for (int i = 0; i < loop.count(); i++) {
            if (loop.stage(i) == tree) {
                return loop.doneAtNs(i);
            }
        }
        return 0;
    }

    /** When the last call's node stage finished at this rank; 0 where untimed or none. */
    long nodeDoneAtNs() {
        int last = loop.count() - 1;
        return last >= 0 && loop.stage(last) != tree ? loop.doneAtNs(last) : 0;
    }

    /**
     * Runs {@code plan} (not native) on {@code bytes} of {@code memory}, bound to the call's buffer.
     *
     * @param call the call's number, the same on every rank (it stamps the tree's messages)
     */
    void run(long call, Plan plan, CallMemory memory, long bytes, int root) throws MpiFailure {
        try {
            execute(call, plan, memory.begin(plan), bytes, root, memory);
        } finally {
            memory.end();
        }
    }

    private void execute(long call, Plan plan, int chunk, long bytes, int root, CallMemory memory) throws MpiFailure {
        Stage stalled;
        boolean nodeStarted = false;
        try {
            loop.clear();
            boolean flat = plan.algorithm() == Algorithm.KNOMIAL;
            int myNode = topology.node();
            if (!flat) {
                layout.leaders(root, leaders);
            }
            boolean leader = flat || leaders[myNode] == rank;
            int[] participants = flat ? everyRank : leaders;
            if (leader && participants.length > 1) {
                addTree(
                        call,
                        plan,
                        participants,
                        flat ? rank : myNode,
                        flat ? root : layout.nodeOf(root),
                        chunk,
                        bytes,
                        root,
                        memory);
            }
            if (!flat && layout.nodeSize(myNode) > 1) {
                boolean fed = leader && rank != root;
                // Set before the start: a failure inside it has already told the ring neighbours.
                nodeStarted = true;
                loop.add(memory.startNode(plan, bytes, chunk, layout.positionOf(leaders[myNode]), leader, fed), fed);
            }
            stalled = loop.run();
        } catch (RuntimeException e) {
            if (!nodeStarted && plan.algorithm() != Algorithm.KNOMIAL) {
                // Failed before its part of the node's stage (its staging memory, say): its neighbours
                // would otherwise wait for it until the timeout.
                memory.refuseNode(bytes);
            }
            throw MpiErrors.failed("hbcast bcast on rank " + rank + ": " + e.getMessage() + nodeRanks(), e);
        }
        if (stalled != null) {
            throw MpiErrors.failed("hbcast bcast on rank " + rank + " timed out after " + timeoutNs / 1e9
                    + " s waiting for " + stalled.describeWait() + (stalled == tree ? "" : nodeRanks()));
        }
    }

    /**
     * The leaders' schedule among {@code participants} (every rank for the flat tree), with the
     * memory's staging copies where it has them: before the tree at the root (the tree sends what is on
     * the host), after it elsewhere (the node gets what is on the GPU).
     */
    private void addTree(
            long call,
            Plan plan,
            int[] participants,
            int me,
            int rootIndex,
            int chunk,
            long bytes,
            int root,
            CallMemory memory) {
        boolean sends = rank == root;
        Stage staging = memory.startStaging(sends, bytes, chunk);
        tree.start(
                call,
                plan.leaderShape(),
                participants,
                participants.length,
                me,
                rootIndex,
                plan.radix(),
                memory.treeData(),
                memory.treeEntryBytes(),
                bytes,
                chunk,
                staging != null && sends);
        if (staging == null) {
            loop.add(tree, false);
        } else if (sends) {
            loop.add(staging, false).add(tree, true);
        } else {
            loop.add(tree, false).add(staging, true);
        }
    }

    /** Frees the tree's persistent requests; before the communicator is freed. */
    void close() {
        tree.close();
    }

    /** Which ranks the node ranks named in a message are: allocates, for failures only. */
    private String nodeRanks() {
        int node = topology.node();
        StringBuilder sb = new StringBuilder(" (node ")
                .append(node)
                .append(": node ranks 0..")
                .append(layout.nodeSize(node) - 1)
                .append(" are ranks");
        for (int p = 0; p < layout.nodeSize(node); p++) {
            sb.append(p == 0 ? " " : ",").append(layout.rankAt(node, p));
        }
        return sb.append(')').toString();
    }
}

package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Function;
import org.hbcast.call.CountRule;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.IntraNode;
import org.hbcast.select.Selector;
import org.hbcast.select.TuningAgreement;
import org.hbcast.settings.Setting;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmRingLinks;
import org.hbcast.tuning.ClusterShape;

/**
 * Makes a {@link Broadcaster} at {@code create}: the communicator, the agreed settings, the
 * topology, the selector's agreed inputs, the node's transports, the warm-up, each step failing on
 * every rank together, and everything made so far released once when one fails.
 */
final class Assembly {
    /** Smallest ring slot, so that explicit plans of small chunks still have room. */
    private static final int MIN_SLOT_BYTES = 64 << 10;

    private Assembly() {}

    /**
     * Sets up the broadcast on {@code comm} (collective over it): duplicates the communicator, agrees
     * the settings ({@link SettingsAgreement}: rank 0's, before anything they shape), discovers the
     * nodes, agrees on the selector's inputs (fingerprint, tuning table, calibration: see
     * {@link TuningAgreement}) and connects the node's shared-memory ring and fan-out segment, each
     * only where a plan uses it, with slots as large as the largest chunk planned for it. Every step
     * that can fail on some ranks only fails on all ({@link CreateTogether}), so no rank is left in a
     * collective the others gave up, and what was made is released once.
     *
     * @param toSettings the settings that the agreed values (by variable name) stand for
     */
    static Broadcaster create(
            MpiComm comm, SettingsProposal proposal, Function<Map<String, String>, BroadcastSettings> toSettings)
            throws MpiFailure {
        MpiComm dup = MpiErrors.returnErrors(comm.dup());
        Topology topology = null;
        ShmRingLinks ring = null;
        ShmFanout fanout = null;
        CallBoard board = null;
        Broadcaster hb = null;
        try {
            Map<String, String> agreed = SettingsAgreement.agree(dup, proposal);
            BroadcastSettings settings = toSettings.apply(agreed);
            try {
                topology = Topology.discover(dup, settings.nodeSizes());
            } catch (IllegalArgumentException e) {
                // The node sizes are rank 0's on every rank: all of them refuse them alike.
                throw MpiErrors.badArgument("hbcast: " + e.getMessage());
            }
            boolean warmUp = JitWarmUp.neededSomewhere(dup);
            Selector selector = Selector.of(
                    settings.choices(),
                    ClusterShape.of(topology.layout(), topology.isVirtual()),
                    settings.choices().chunkBytes() != 0
                            ? settings.choices().chunkBytes()
                            : Selector.AUTO_MAX_CHUNK_BYTES,
                    TuningAgreement.agree(
                            dup, settings.tuningFile(), settings.keepsLearnt(), topology, Setting.environment()));
            // Every rank made the same plans from the same agreed inputs, so all of a node agree on what to
            // connect; a node that fails makes every node fail, not only its own ranks.
            String failure = null;
            try {
                if (topology.nodeComm().size() > 1 && selector.connects(IntraNode.RING)) {
                    ring = connectRing(topology, settings, selector);
                }
                if (topology.nodeComm().size() > 1 && selector.connects(IntraNode.FANOUT)) {
                    fanout = connectFanout(topology, settings, selector);
                }
            } catch (MpiFailure | RuntimeException e) {
                failure = e.getMessage();
            }
            CreateTogether.check(dup, failure);
            try {
                if (usesCallBoard(topology, settings)) {
                    board = NodeTransports.board(topology.hostComm(), dup.rank());
                }
            } catch (MpiFailure | RuntimeException e) {
                failure = e.getMessage();
            }
            CreateTogether.check(dup, failure);
            ByteBuffer warmUpBuffer = null;
            try {
                hb = new Broadcaster(dup, topology, settings, agreed, selector, ring, fanout, board);
                warmUpBuffer = warmUp ? JitWarmUp.buffer(topology.hostLayout().nodeCount() == 1) : null;
            } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
                failure = "cannot set up its calls on rank " + dup.rank() + ": " + e;
            }
            CreateTogether.check(dup, failure);
            if (warmUp) {
                try {
                    hb.warmUp(warmUpBuffer);
                } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
                    // Past its first call a rank that fails may leave the others waiting in one; nothing in
                    // the warm-up fails on one rank alone once the settings are agreed and its memory is made.
                    failure = "the warm-up failed on rank " + dup.rank() + ": " + e;
                }
                CreateTogether.check(dup, failure);
            }
            hb.announce();
            return hb;
        } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
            if (hb != null) {
                hb.release();
            } else {
                closeQuietly(topology, board, fanout, ring);
                freeQuietly(dup);
            }
            throw e;
        }
    }

    /**
     * Open MPI's contract for counts costs a header, read on the real node's board by all but the
     * root and the real node's leader.
     */
    private static boolean usesCallBoard(Topology topology, BroadcastSettings settings) throws MpiFailure {
        return settings.counts() == CountRule.ROOT && topology.hostComm().size() > 1;
    }

    private static ShmRingLinks connectRing(Topology topology, BroadcastSettings settings, Selector selector)
            throws MpiFailure {
        return NodeTransports.ring(
                topology.nodeComm(),
                topology.comm().rank(),
                settings.ringSlots(),
                slotBytes(settings, selector.largestHostChunk(IntraNode.RING)));
    }

    private static ShmFanout connectFanout(Topology topology, BroadcastSettings settings, Selector selector)
            throws MpiFailure {
        return NodeTransports.fanout(
                topology.nodeComm(),
                topology.comm().rank(),
                settings.ringSlots(),
                slotBytes(settings, selector.largestHostChunk(IntraNode.FANOUT)));
    }

    static int slotBytes(BroadcastSettings settings, int largestChunk) {
        return settings.choices().chunkBytes() != 0
                ? settings.choices().chunkBytes()
                : Math.max(MIN_SLOT_BYTES, largestChunk);
    }

    /**
     * Frees a communicator of the library's; a failure to free is moot when tearing down. Under the
     * bindings' default error handler a free of a communicator already freed would abort the job, so
     * each is freed on one path only.
     */
    static void freeQuietly(MpiComm c) {
        try {
            c.free();
        } catch (MpiFailure ignored) {
            // Nothing the caller could do about it.
        }
    }

    /** Closes what exists of {@code resources}, then the topology; failures are moot when tearing down. */
    static void closeQuietly(Topology topology, AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception ignored) {
                // Unmapping cannot fail in a way the caller could act on.
            }
        }
        try {
            if (topology != null) {
                topology.close();
            }
        } catch (MpiFailure ignored) {
            // The communicator is gone either way.
        }
    }
}

package org.hbcast;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.call.ElementType;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.orchestration.BroadcastSettings;
import org.hbcast.orchestration.Broadcaster;
import org.hbcast.orchestration.PendingBcast;
import org.hbcast.orchestration.SettingsProposal;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.select.Explanation;
import org.hbcast.tuning.Fingerprint;

/**
 * A drop-in replacement for {@code Intracomm.bcast} that knows the cluster's nodes: a k-nomial tree
 * among node leaders, a pipelined shared-memory ring or a node-wide fan-out segment inside each node,
 * both levels pipelined over the same chunks, with the algorithm, transport and chunk size chosen per
 * call.
 *
 * <pre>{@code
 * try (HierarchicalBcast hb = HierarchicalBcast.create(MPI.COMM_WORLD)) {   // collective
 *     hb.bcast(field, field.length, MPI.DOUBLE, 0);                          // as comm.bcast
 * }
 * }</pre>
 *
 * <p>Buffers are Java primitive arrays or direct {@code java.nio} buffers (used from their address
 * on, ignoring position, as the bindings do). Arguments are checked before anything is sent; a
 * late root or peer is waited for as Open MPI waits, each waiting rank printing one line after the
 * timeout (naming the call and whom it waits for); only with {@link BcastOptions#timeoutFails()} (a
 * departure from MPI's semantics) does the call fail then, and the instance refuse further calls.
 * One call at a time per instance, like MPI collectives on one communicator; instances on different communicators may be called from different threads
 * at once when MPI provides {@code THREAD_MULTIPLE}, and otherwise such a call is refused with a
 * message saying so.
 *
 * <p>The API of Open MPI's Java bindings: it takes their communicator and datatypes and throws their
 * {@code MPIException}, while everything below it runs on the library's MPI port
 * ({@code org.hbcast.mpi.port}) through the Open MPI binding ({@link OpenMpi}).
 */
public final class HierarchicalBcast implements AutoCloseable {
    private final Broadcaster calls;
    private final BcastOptions options;

    /** The request objects of the instance's non-blocking calls, one per slot of its queue, made once. */
    private final BcastRequest[] requests;

    private HierarchicalBcast(Broadcaster calls, BcastOptions options) {
        this.calls = calls;
        this.options = options;
        this.requests = new BcastRequest[Broadcaster.MAX_OUTSTANDING];
    }

    /**
     * {@link #create(Intracomm, BcastOptions)} with the options of the environment. Collective. The
     * settings are the communicator's: where ranks read different {@code HBCAST_*} values (Open MPI
     * passes a variable to other hosts only with {@code -x}), rank 0's apply, and each rank that
     * read others says so in one line. A bad value on any rank fails {@code create} on every rank.
     */
    public static HierarchicalBcast create(Intracomm comm) throws MPIException {
        long startNs = System.nanoTime();
        SettingsProposal proposal;
        try {
            Map<String, String> env = BcastOptions.defaults().asEnvironment();
            proposal = SettingsProposal.of(env, env);
        } catch (IllegalArgumentException e) {
            proposal = SettingsProposal.failed("hbcast: rank " + comm.getRank() + ": " + e.getMessage());
        }
        return create(OpenMpi.comm(comm), proposal, startNs);
    }

    /**
     * Sets up the broadcast on {@code comm} (collective over it): duplicates the communicator, agrees
     * the settings, discovers the nodes, agrees on the selector's inputs (fingerprint, tuning table,
     * calibration) and connects the node's shared-memory ring and fan-out segment, each only where a
     * plan uses it, with slots as large as the largest chunk planned for it.
     *
     * <p>Everything that shapes a call is agreed here over the whole communicator, rank 0's settings
     * applying: a setting that this rank's environment gave differently follows rank 0's (with one
     * line saying so), while options passed in code that differ between ranks are a program error
     * and fail {@code create} on every rank, naming the option and which ranks hold which value. A
     * set-up failure on any rank fails it on every rank with the first failing rank's reason.
     */
    public static HierarchicalBcast create(Intracomm comm, BcastOptions options) throws MPIException {
        long startNs = System.nanoTime();
        Map<String, String> env;
        try {
            env = BcastOptions.defaults().asEnvironment();
        } catch (IllegalArgumentException e) {
            // This rank's environment is bad, but the program passed its options: count them all as passed in code.
            env = null;
        }
        return create(OpenMpi.comm(comm), SettingsProposal.of(options.asEnvironment(), env), startNs);
    }

    /** @param startNs when the program's call began: create's one-host budget counts from there */
    private static HierarchicalBcast create(MpiComm comm, SettingsProposal proposal, long startNs) throws MPIException {
        Broadcaster calls;
        try {
            calls = Broadcaster.create(
                    comm, proposal, agreed -> settingsOf(BcastOptions.fromEnvironment(agreed)), startNs);
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
        return new HierarchicalBcast(calls, BcastOptions.fromEnvironment(calls.settings()));
    }

    private static BroadcastSettings settingsOf(BcastOptions options) {
        return new BroadcastSettings(
                options.planChoices(),
                options.timeout(),
                org.hbcast.call.CountRule.valueOf(options.counts().name()),
                options.ringSlots(),
                options.nodeSizes(),
                options.tuningFile(),
                options.keepsLearnt(),
                options.timeoutFails(),
                options.progressThread());
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in {@code buf} from {@code root} to every
     * rank: the contract of {@code Intracomm.bcast(Object, int, Datatype, int)}, Open MPI's reading
     * of it included: the root's count governs, a receiver that passed more gets the root's bytes
     * and keeps the rest of its buffer (see {@link BcastOptions.CountRule} and {@link BcastOptions#counts()}).
     *
     * @throws MPIException on a bad argument or a mismatch across ranks (a truncation, a different
     *         root: nothing sent, the next call may proceed), a timeout (naming the peer) or a failed peer
     */
    public void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        // Identity tests and a switch: a call maps its datatype without allocating.
        BasicType basic = OpenMpi.basicType(type);
        try {
            calls.bcast(buf, count, ElementType.of(basic), basic == null ? OpenMpi.describe(type) : null, root);
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }

    /**
     * Starts a broadcast of {@code count} elements of {@code type} in {@code buf} from {@code root}
     * and returns at once, as {@code Intracomm.iBcast} does: the same contract, counts and errors as
     * {@link #bcast(Object, int, Datatype, int)}, on Java primitive arrays and direct buffers. The
     * buffer is the library's until the request completes: the root must not change it, the others
     * must not read it. Every rank issues its broadcasts in the same order, blocking and
     * non-blocking, as MPI requires; they complete in that order (a blocking {@code bcast} or
     * {@code close} first completes the non-blocking calls issued before it).
     *
     * <p>The call moves inside {@link BcastRequest#test()} and {@link BcastRequest#waitFor()} of any
     * of the instance's requests, inside the instance's later calls and, with
     * {@link BcastOptions#progressThread()}, on a thread of its own while the program computes. A bad
     * argument (or a count that does not match the root's) fails the request when it is tested or
     * waited for, with the message {@code bcast} would throw; nothing of it is sent. At most
     * {@value org.hbcast.orchestration.Broadcaster#MAX_OUTSTANDING} requests of an instance may be
     * outstanding (issued and not yet seen complete); the next one is refused here. Device memory has
     * no non-blocking call yet: its staging copies and CUDA ring wait on the GPU inside a call.
     *
     * @return the request: test or wait for it once; once it has said it is complete it stands for
     *         nothing (a later {@code iBcast} may return the same object)
     * @throws MPIException when too many requests are outstanding, or the instance is closed or
     *         stopped by an earlier failure
     */
    public BcastRequest iBcast(Object buf, int count, Datatype type, int root) throws MPIException {
        BasicType basic = OpenMpi.basicType(type);
        try {
            PendingBcast p = calls.iBcast(
                    buf, count, ElementType.of(basic), basic == null ? OpenMpi.describe(type) : null, root);
            BcastRequest r = requests[p.index()];
            if (r == null) {
                // Made once per slot, at the first calls: later ones allocate nothing.
                r = new BcastRequest(calls, p);
                requests[p.index()] = r;
            }
            return r;
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in GPU memory from {@code root}: the node's
     * ring copies GPU to GPU over CUDA IPC, node leaders stage through pinned host memory for the
     * network. The root's data must be complete on its device when it calls (synchronize its streams
     * first); on return every rank's buffer holds the message. The first device call sets up the CUDA
     * ring (collective).
     *
     * <p>Memory the program allocated itself is passed as {@link DeviceBuffer#ofUserMemory}: never freed
     * here, and refused on every rank, before anything is sent, where CUDA IPC cannot export it
     * (managed, stream-ordered pool or host memory). Peers map it for this call only: once this call has
     * returned normally, the program may free it. Small messages may be staged through the host
     * where the cost model finds that faster (see {@link #explainDevice}).
     *
     * @throws MPIException on a bad argument or no CUDA device (nothing sent), a timeout or a failed peer
     */
    public void bcast(DeviceBuffer buf, int count, Datatype type, int root) throws MPIException {
        BasicType basic = OpenMpi.basicType(type);
        try {
            calls.bcast(buf, count, ElementType.of(basic), basic == null ? OpenMpi.describe(type) : null, root);
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }

    /**
     * The plan the next host call of {@code bytes} runs: the one being tried or kept for its size
     * under {@code auto}'s in-run selection, else the selector's. (Where in-run selection let the
     * header carry such messages, the call sends no plan's messages at all.)
     */
    public BcastPlan plan(long bytes) {
        return view(calls.plan(bytes));
    }

    /**
     * What a host-memory call of {@code bytes} runs and why, the in-run trials' state for its size
     * included (see {@link BcastExplanation#text()}).
     */
    public BcastExplanation explain(long bytes) {
        return explanation(
                calls.explain(bytes, MemoryKind.HOST), view(calls.plan(bytes)), trials(calls.trialVerdict(bytes)));
    }

    /** The in-run trials' state for a size, in words, from what they keep ({@code InRunSelection.verdict}). */
    private static String trials(String verdict) {
        return verdict == null ? "trying" : verdict.equals("-") ? "not tried" : "kept " + verdict;
    }

    /**
     * What a device-memory call of {@code bytes} runs and why, the in-run trials' state for its size
     * included (device calls are tried apart from host calls), with the staging candidate (device to
     * host, Open MPI's bcast, host to device) and why the model's choice took or left it.
     */
    public BcastExplanation explainDevice(long bytes) {
        Explanation e = calls.explain(bytes, MemoryKind.DEVICE);
        BcastExplanation made = explanation(e, view(calls.devicePlan(bytes)), trials(calls.deviceTrialVerdict(bytes)));
        String groups = calls.deviceGroupPlan(0);
        // Inside a node the call's first rank copies for its GPU, every other GPU's lowest rank for its own.
        String line = "gpu groups:  "
                + (groups == null ? "formed at the first device call" : groups + " (a call from node rank 0)") + "\n";
        return new BcastExplanation(
                made.bytes(),
                made.memory(),
                made.plan(),
                made.layout(),
                made.fingerprint(),
                made.trials(),
                made.text() + line);
    }

    /** The hardware fingerprint of this run, as agreed by all ranks. */
    public BcastFingerprint fingerprint() {
        return view(calls.fingerprint());
    }

    /** The nodes of this instance's communicator, as found at create. */
    public BcastTopology topology() {
        Topology t = calls.topology();
        return new BcastTopology(t.rank(), nodes(t.layout()), nodes(t.hostLayout()), t.isVirtual());
    }

    /** What this rank holds of GPU memory: IPC handles opened, a neighbour's buffer mapped now. */
    public BcastDeviceUse deviceUse() {
        return new BcastDeviceUse(calls.deviceIpcOpens(), calls.deviceHoldsUserMapping());
    }

    /** The options in force: rank 0's, as agreed at create. */
    public BcastOptions options() {
        return options;
    }

    private static BcastPlan view(Plan p) {
        return new BcastPlan(
                p.algorithm().toString(),
                p.intra().toString(),
                p.inter().toString(),
                p.chunkBytes(),
                p.radix(),
                p.reason(),
                p.predictedSeconds(),
                p.measuredSeconds());
    }

    private static BcastFingerprint view(Fingerprint f) {
        return new BcastFingerprint(f.canonical(), f.id(), f.hardware(), f.hardwareId(), f.links(), f.layout());
    }

    private static BcastExplanation explanation(Explanation e, BcastPlan plan, String trials) {
        String text = e.text() + "trials:      " + trials
                + (plan.name().equals(Explanation.name(e.plan())) ? "" : ": runs " + plan.name()) + "\n";
        return new BcastExplanation(
                e.bytes(),
                e.memory().toString(),
                plan,
                e.shape().toString(),
                view(e.inputs().fingerprint()),
                trials,
                text);
    }

    private static List<List<Integer>> nodes(NodeLayout layout) {
        List<List<Integer>> nodes = new ArrayList<>();
        for (int n = 0; n < layout.nodeCount(); n++) {
            List<Integer> ranks = new ArrayList<>();
            for (int p = 0; p < layout.nodeSize(n); p++) {
                ranks.add(layout.rankAt(n, p));
            }
            nodes.add(ranks);
        }
        return nodes;
    }

    /** Frees the shared memory, IPC mappings and communicators. Collective; idempotent. */
    @Override
    public void close() throws MPIException {
        try {
            calls.close();
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }
}

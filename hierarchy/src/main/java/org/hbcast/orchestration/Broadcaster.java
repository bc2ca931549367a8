package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Function;
import org.hbcast.call.CallAgreement;
import org.hbcast.call.CallHeaders;
import org.hbcast.call.CountRule;
import org.hbcast.call.ElementType;
import org.hbcast.call.ThreadGuard;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.mpi.HeaderRelay;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.RootRefusals;
import org.hbcast.mpi.StopNotices;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.select.Explanation;
import org.hbcast.select.InRunSelection;
import org.hbcast.select.Selector;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmRingLinks;
import org.hbcast.tuning.Fingerprint;

/**
 * One {@code HierarchicalBcast} instance: made by {@link Assembly}, it numbers the calls, lets one
 * run at a time ({@link ThreadGuard}), hands host calls to {@link HostCall} and device calls to
 * {@link DeviceCall}, stops the instance on anything unexpected ({@link InstanceStop}) and releases
 * what it holds at close.
 */
public final class Broadcaster implements AutoCloseable {
    private final MpiComm comm;
    private final Topology topology;
    private final BroadcastSettings settings;
    /** The settings as agreed at create, by variable name: rank 0's. */
    private final Map<String, String> agreed;

    private final Selector selector;
    private final InRunSelection selection;
    private final ThreadGuard guard;
    /** Reports long waits and gives up where asked; it numbers the program's calls for its reports. */
    private final WaitLimit waits;

    private final StopNotices notices;
    private final InstanceStop stop;
    private final PlanDriver driver;
    private final HostCall host;
    private final DeviceCall device;
    /** What {@link #release} closes besides the calls: the node's transports and the header's receives. */
    private final AutoCloseable[] transports;
    /** The program's calls so far (the warm-up's are not counted), for the reports of long waits. */
    private long calls;
    /** True during create's warm-up, whose calls are not the program's: their waits say "setting up". */
    private boolean warming;
    /** Calls made, the warm-up's and failed ones included: the same on every rank, which stamps the plans' messages. */
    private long stamp;

    Broadcaster(
            MpiComm comm,
            Topology topology,
            BroadcastSettings settings,
            Map<String, String> agreed,
            Selector selector,
            ShmRingLinks ring,
            ShmFanout fanout,
            CallBoard board)
            throws MpiFailure {
        this.comm = comm;
        this.topology = topology;
        this.settings = settings;
        this.agreed = agreed;
        this.selector = selector;
        int rank = comm.rank();
        this.notices = new StopNotices(comm, rank);
        this.waits = WaitLimit.ofCalls(settings.timeout().toNanos(), settings.timeoutFails(), rank)
                .drivingProgress(notices);
        this.guard = new ThreadGuard(comm.library().threadLevel(), rank);
        this.stop = new InstanceStop(rank, topology.position(), notices, ring, fanout, this::calls);
        ProgressWait progress = ProgressWait.forSharedCores(topology.ranksOnMachine(), waits);
        this.driver = new PlanDriver(comm, topology, waits, ring, fanout);
        CountAgreement counts =
                new CountAgreement(new CallAgreement(comm, rank, progress), settings.counts(), comm.size(), stop);
        // The header needs only shared memory, so virtual nodes of one host share its board: no
        // header crosses the emulated network where the real nodes can post it for each other.
        NodeLayout hosts = topology.hostLayout();
        boolean auto = settings.choices().algorithm() == Algorithm.AUTO;
        boolean headed = settings.counts() == CountRule.ROOT && comm.size() > 1;
        RootRefusals refusals = headed && hosts.nodeCount() > 1 ? new RootRefusals(comm, hosts) : null;
        CallHeaders headers = !headed
                ? null
                : new CallHeaders(
                        board,
                        hosts.nodeCount() == 1
                                ? null
                                : new HeaderRelay(
                                        comm,
                                        CallHeaders.HEADER_RADIX,
                                        hosts.nodeCount(),
                                        CallHeaders.NETWORK_INLINE_BYTES),
                        refusals,
                        hosts,
                        rank,
                        topology.host(),
                        topology.hostPosition(),
                        auto,
                        progress);
        this.selection = new InRunSelection(comm, selector, headers != null && auto, progress);
        this.host = new HostCall(comm, headers, selection, driver, counts, stop);
        this.device = new DeviceCall(comm, topology, settings, selector, driver, waits, counts, stop);
        this.transports = new AutoCloseable[] {refusals, board, fanout, ring};
    }

    /**
     * Sets up the broadcast on {@code comm}, collective over it: agreed settings, topology, the
     * selector's inputs, the node's transports and the warm-up, failing on every rank together
     * ({@link Assembly}).
     *
     * @param toSettings the settings that the agreed values (by variable name) stand for
     */
    public static Broadcaster create(
            MpiComm comm, SettingsProposal proposal, Function<Map<String, String>, BroadcastSettings> toSettings)
            throws MpiFailure {
        return Assembly.create(comm, proposal, toSettings);
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in {@code buf} from {@code root} to every
     * rank: the contract of {@code Intracomm.bcast(Object, int, Datatype, int)}, Open MPI's reading
     * of it included: the root's count governs, a receiver that passed more gets the root's bytes
     * and keeps the rest of its buffer (see {@link CountRule}).
     *
     * @param type the program's datatype, or null for one hbcast does not broadcast
     * @param unsupported where {@code type} is null, the program's datatype as messages name it (the call refuses it)
     * @throws MpiFailure on a bad argument or a mismatch across ranks (a truncation, a different
     *         root: nothing sent, the next call may proceed), a timeout (naming the peer) or a failed peer
     */
    public void bcast(Object buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        stop.requireUsable();
        guard.enter();
        stamp++;
        try {
            waits.call(warming ? 0 : ++calls);
            host.call(stamp, buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw stop.broken(e);
        } finally {
            guard.exit();
        }
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in GPU memory from {@code root}: the node's
     * ring copies GPU to GPU over CUDA IPC, node leaders stage through pinned host memory for the
     * network. The root's data must be complete on its device when it calls (synchronize its streams
     * first); on return every rank's buffer holds the message. The first device call sets up the
     * CUDA ring (collective).
     *
     * @param type the program's datatype, or null for one hbcast does not broadcast
     * @param unsupported where {@code type} is null, the program's datatype as messages name it
     * @throws MpiFailure on a bad argument or no CUDA device (nothing sent), a timeout or a failed peer
     */
    public void bcast(DeviceBuffer buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        stop.requireUsable();
        guard.enter();
        stamp++;
        try {
            waits.call(++calls);
            device.call(stamp, buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw stop.broken(e);
        } finally {
            guard.exit();
        }
    }

    /** Create's warm-up ({@link JitWarmUp}): its calls are not the program's, their waits say "setting up". */
    void warmUp(ByteBuffer buf) throws MpiFailure {
        warming = true;
        try {
            JitWarmUp.Calls calls = new JitWarmUp.Calls() {
                @Override
                public void bcast(ByteBuffer b, int bytes, int root) throws MpiFailure {
                    Broadcaster.this.bcast(b, bytes, ElementType.BYTE, null, root);
                }

                @Override
                public void run(Plan plan, ByteBuffer b, int bytes, int root) throws MpiFailure {
                    host.runPlan(plan, b, bytes, root);
                }
            };
            JitWarmUp.run(
                    comm,
                    calls,
                    buf,
                    selection,
                    selector,
                    host.headed(),
                    topology.hostLayout().nodeCount() == 1);
        } finally {
            warming = false;
        }
    }

    private long calls() {
        return calls;
    }

    /** What the trials keep for host calls of {@code bytes}, for the API's explanation: see {@link InRunSelection#verdict}. */
    public String trialVerdict(long bytes) {
        return selection.verdict(bytes);
    }

    /** CUDA IPC handles this rank has opened so far (0 before the first device call), for the API's {@code deviceUse}. */
    public long deviceIpcOpens() {
        return device.ipcOpens();
    }

    /** True while this rank maps a neighbour's device buffer (never between calls that succeeded), for {@code deviceUse}. */
    public boolean deviceHoldsUserMapping() {
        return device.holdsUserMapping();
    }

    /** The plan the next host call of {@code bytes} runs: the one being tried or kept, else the selector's. */
    public Plan plan(long bytes) {
        return selection.plan(bytes);
    }

    /** What a call of {@code bytes} in {@code memory} runs and why (see {@link Explanation#text()}). */
    public Explanation explain(long bytes, MemoryKind memory) {
        return selector.explain(bytes, memory);
    }

    /** The hardware fingerprint of this run, as agreed by all ranks. */
    public Fingerprint fingerprint() {
        return selector.inputs().fingerprint();
    }

    public Topology topology() {
        return topology;
    }

    /** The settings in force, by variable name, as agreed at create (rank 0's). */
    public Map<String, String> settings() {
        return agreed;
    }

    /** Frees the node's shared memory and the communicators. Collective; idempotent. */
    @Override
    public void close() throws MpiFailure {
        // A call still running on another thread would use the segments unmapped below.
        guard.enter();
        boolean wasOpen = stop.close();
        guard.exit();
        if (!wasOpen) {
            return;
        }
        if (comm.rank() == 0) {
            selection.keepLearnt();
        }
        release();
    }

    /** Frees what the instance holds, once: its transports, its topology's communicators and its own. */
    void release() {
        stop.close();
        try {
            driver.close();
        } catch (RuntimeException ignored) {
            // Tearing down: what is left is released below either way.
        }
        // Transports[0] is the header's receives, then the node's board, fan-out and ring, as they were made.
        Assembly.closeQuietly(topology, transports[0], device, transports[1], transports[2], transports[3]);
        notices.drain();
        Assembly.freeQuietly(comm);
    }

    /** Rank 0 logs the create line ({@link CreateLine}). */
    void announce() throws MpiFailure {
        if (comm.rank() == 0) {
            CreateLine.log(comm, topology, settings, selection::plan);
        }
    }
}

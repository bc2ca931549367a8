package org.hbcast.orchestration;

import java.util.Map;
import java.util.function.Function;
import org.hbcast.call.CountRule;
import org.hbcast.call.ElementType;
import org.hbcast.call.ThreadGuard;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.mpi.StopNotices;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.select.Explanation;
import org.hbcast.select.InRunSelection;
import org.hbcast.select.Selector;
import org.hbcast.tuning.Fingerprint;

/**
 * One {@code HierarchicalBcast} instance: made by {@link Assembly}, it numbers the calls
 * ({@link CallNumbers}), lets one run at a time ({@link ThreadGuard}), hands host calls to
 * {@link HostCall} and device calls to {@link DeviceCall}, stops the instance on anything unexpected
 * ({@link InstanceStop}) and releases what it holds at close.
 */
public final class Broadcaster implements AutoCloseable {
    private final MpiComm comm;
    private final Topology topology;
    /** The settings as agreed at create, by variable name: rank 0's. */
    private final Map<String, String> agreed;

    private final Selector selector;
    private final InRunSelection selection;
    private final ThreadGuard guard;
    private final CallNumbers numbers;
    private final InstanceStop stop;
    private final HostCall host;
    private final DeviceCall device;
    private final StopNotices notices;
    /** What {@link #release} closes before the topology, in order (nulls skipped). */
    private final AutoCloseable[] held;

    Broadcaster(
            MpiComm comm,
            Topology topology,
            Map<String, String> agreed,
            Selector selector,
            InRunSelection selection,
            ThreadGuard guard,
            CallNumbers numbers,
            InstanceStop stop,
            HostCall host,
            DeviceCall device,
            StopNotices notices,
            AutoCloseable... held) {
        this.comm = comm;
        this.topology = topology;
        this.agreed = agreed;
        this.selector = selector;
        this.selection = selection;
        this.guard = guard;
        this.numbers = numbers;
        this.stop = stop;
        this.host = host;
        this.device = device;
        this.notices = notices;
        this.held = held;
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
        try {
            host.call(numbers.next(), buf, count, type, unsupported, root);
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
        try {
            device.call(numbers.next(), buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw stop.broken(e);
        } finally {
            guard.exit();
        }
    }

    /** What the trials keep for host calls of {@code bytes}, for the API's explanation: see {@link InRunSelection#verdict}. */
    public String trialVerdict(long bytes) {
        return selection.verdict(bytes);
    }

    /** CUDA IPC handles this rank has opened so far (0 before the first device call), for the API's {@code deviceUse}. */
    public long deviceIpcOpens() {
        return device.ipcOpens();
    }

    /**
     * Who copies for whom inside this rank's node in a device call from node rank {@code first}: the
     * GPUs, their ranks and copiers, and each hop between GPUs; null before the first device call.
     */
    public String deviceGroupPlan(int first) {
        return device.groupPlan(first);
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
        host.printBreakdown(topology.host(), topology.hostPosition());
        release();
    }

    /** Frees what the instance holds, once: its transports, its topology's communicators and its own. */
    void release() {
        stop.close();
        QuietRelease.closeQuietly(topology, held);
        notices.drain();
        QuietRelease.freeQuietly(comm);
    }
}

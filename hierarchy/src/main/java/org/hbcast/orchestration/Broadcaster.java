package org.hbcast.orchestration;

import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
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
    /** Most non-blocking calls of an instance issued and not yet seen complete. */
    public static final int MAX_OUTSTANDING = RequestQueue.MAX_OUTSTANDING;

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
    /** The non-blocking calls not yet seen complete. */
    private final RequestQueue requests;
    /** Between the program's calls and the progress thread, where there is one. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Moves the non-blocking calls between the program's calls; null unless the settings start one. */
    private ProgressThread progressThread;

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
            AutoCloseable... held)
            throws MpiFailure {
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
        this.requests = new RequestQueue(comm.rank());
    }

    /**
     * Starts the thread that moves non-blocking calls between the program's calls (a daemon, stopped
     * at close); needs MPI's {@code THREAD_MULTIPLE}, which {@link Assembly} checks first.
     */
    void startProgressThread() throws MpiFailure {
        progressThread = new ProgressThread("hbcast-progress-" + comm.rank(), this::progressOnce);
        progressThread.start();
    }

    /** One turn of the progress thread: true when calls are still waiting. */
    private boolean progressOnce() {
        lock.lock();
        try {
            if (requests.isEmpty() || stop.isStopped()) {
                return false;
            }
            guard.enter();
            try {
                progress();
            } finally {
                guard.exit();
            }
            return !requests.isEmpty();
        } catch (MpiFailure e) {
            // Another thread's call on another communicator without THREAD_MULTIPLE: try again later.
            return true;
        } catch (RuntimeException | Error e) {
            MpiFailure f = stop.broken(e);
            synchronized (requests) {
                requests.failAll(f);
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sets up the broadcast on {@code comm}, collective over it: agreed settings, topology, the
     * selector's inputs, the node's transports and the warm-up, failing on every rank together
     * ({@link Assembly}).
     *
     * @param toSettings the settings that the agreed values (by variable name) stand for
     * @param startNs when the program's call to create began ({@link System#nanoTime}), from which
     *        the warm-up's budget on one host counts
     */
    public static Broadcaster create(
            MpiComm comm,
            SettingsProposal proposal,
            Function<Map<String, String>, BroadcastSettings> toSettings,
            long startNs)
            throws MpiFailure {
        return Assembly.create(comm, proposal, toSettings, startNs);
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
        enter();
        try {
            // Earlier non-blocking calls come first, as MPI matches collectives in issue order.
            drain();
            stop.requireUsable();
            host.call(numbers.next(), buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw stop.broken(e);
        } finally {
            exit();
        }
    }

    /**
     * Starts a non-blocking broadcast with {@link #bcast(Object, int, ElementType, String, int)}'s
     * contract: queued behind the instance's earlier non-blocking calls, it moves inside
     * {@link #test}, {@link #await} and any later call of this instance (and on the progress thread
     * where the settings start one). The program must not touch {@code buf} until the call is done.
     * A bad argument fails the call when it is tested or awaited (it is refused in the call's header,
     * so no other rank waits for it); nothing of it is sent.
     *
     * @throws MpiFailure when {@link RequestQueue#MAX_OUTSTANDING} calls are not yet seen complete
     *         (nothing sent), or the instance is closed or stopped
     */
    public PendingBcast iBcast(Object buf, int count, ElementType type, String unsupported, int root)
            throws MpiFailure {
        stop.requireUsable();
        enter();
        try {
            PendingBcast p;
            synchronized (requests) {
                p = requests.add(buf, count, type, unsupported, root);
            }
            progress();
            return p;
        } catch (RuntimeException | Error e) {
            throw stop.broken(e);
        } finally {
            exit();
        }
    }

    /**
     * Moves the instance's non-blocking calls as far as they go without waiting, then tells whether
     * {@code p} is complete; once it says so, {@code p} is freed (a later {@code iBcast} may reuse it).
     *
     * @throws MpiFailure when {@code p} failed (its error, as the blocking call would throw it)
     */
    public boolean test(PendingBcast p) throws MpiFailure {
        if (!p.isDone()) {
            if (progressThread != null && !lock.tryLock()) {
                // The progress thread is moving the calls now.
                return false;
            }
            try {
                guard.enter();
                try {
                    progress();
                } catch (RuntimeException | Error e) {
                    throw stop.broken(e);
                } finally {
                    guard.exit();
                }
            } finally {
                if (progressThread != null) {
                    lock.unlock();
                }
            }
        }
        return collect(p);
    }

    /**
     * Waits until {@code p} is complete, running the calls issued before it and then it, waiting for
     * late peers as a blocking call does; then frees {@code p}.
     *
     * @throws MpiFailure when {@code p} failed (its error, as the blocking call would throw it)
     */
    public void await(PendingBcast p) throws MpiFailure {
        if (!p.isDone()) {
            enter();
            try {
                while (!p.isDone()) {
                    completeFirst();
                }
            } catch (RuntimeException | Error e) {
                throw stop.broken(e);
            } finally {
                exit();
            }
        }
        collect(p);
    }

    /** True when {@code p} is done; frees it then and throws how it failed. */
    private boolean collect(PendingBcast p) throws MpiFailure {
        if (!p.isDone()) {
            return false;
        }
        MpiFailure failure = p.failure();
        synchronized (requests) {
            requests.release(p);
        }
        if (failure != null) {
            throw failure;
        }
        return true;
    }

    /** Moves the queued calls, first to last, until one would wait; under the guard. */
    private void progress() throws MpiFailure {
        PendingBcast p;
        while ((p = requests.first()) != null) {
            try {
                switch (p.phase()) {
                    case QUEUED -> {
                        host.open(numbers.next(), p.buf, p.count, p.type, p.unsupported, p.root);
                        p.phase(PendingBcast.Phase.OPENED);
                        continue;
                    }
                    case OPENED -> {
                        if (!host.headerReady()) {
                            return;
                        }
                        if (!host.start()) {
                            p.phase(PendingBcast.Phase.STARTED);
                            continue;
                        }
                    }
                    case STARTED -> {
                        if (!host.advance()) {
                            return;
                        }
                    }
                    default -> throw new IllegalStateException("a done call in the queue");
                }
                finished(p, null);
            } catch (MpiFailure f) {
                finished(p, f);
            }
        }
    }

    /** Runs the first queued call to its end, waiting as a blocking call does; under the guard. */
    private void completeFirst() throws MpiFailure {
        PendingBcast p = requests.first();
        try {
            if (p.phase() == PendingBcast.Phase.QUEUED) {
                host.open(numbers.next(), p.buf, p.count, p.type, p.unsupported, p.root);
                p.phase(PendingBcast.Phase.OPENED);
            }
            if (p.phase() == PendingBcast.Phase.OPENED && !host.start()) {
                p.phase(PendingBcast.Phase.STARTED);
            }
            if (p.phase() == PendingBcast.Phase.STARTED) {
                host.complete();
            }
            finished(p, null);
        } catch (MpiFailure f) {
            finished(p, f);
        }
    }

    /** Completes every queued call: before a blocking call, and at close. */
    private void drain() throws MpiFailure {
        while (!requests.isEmpty()) {
            completeFirst();
        }
    }

    private void finished(PendingBcast p, MpiFailure why) {
        synchronized (requests) {
            p.done(why);
            requests.removeFirst();
            if (why != null && stop.isStopped()) {
                // The instance stopped: the calls behind this one can never run.
                requests.failAll(why);
            }
        }
    }

    /** Enters a call: waits for the progress thread where there is one, then takes the guard. */
    private void enter() throws MpiFailure {
        if (progressThread != null) {
            lock.lock();
        }
        try {
            guard.enter();
        } catch (MpiFailure | RuntimeException e) {
            if (progressThread != null) {
                lock.unlock();
            }
            throw e;
        }
    }

    private void exit() {
        guard.exit();
        if (progressThread != null) {
            lock.unlock();
        }
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in GPU memory from {@code root}: inside a
     * node one copier per GPU writes every buffer on its GPU and the GPUs' leaders chain GPU to GPU
     * over CUDA IPC, node leaders stage through pinned host memory for the network. The root's data
     * must be complete on its device when it calls (synchronize its streams first); on return every
     * rank's buffer holds the message. The first device call sets up the node's GPU groups
     * (collective).
     *
     * @param type the program's datatype, or null for one hbcast does not broadcast
     * @param unsupported where {@code type} is null, the program's datatype as messages name it
     * @throws MpiFailure on a bad argument or no CUDA device (nothing sent), a timeout or a failed peer
     */
    public void bcast(DeviceBuffer buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        stop.requireUsable();
        enter();
        try {
            drain();
            stop.requireUsable();
            device.call(numbers.next(), buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw stop.broken(e);
        } finally {
            exit();
        }
    }

    /** What the trials keep for host calls of {@code bytes}, for the API's explanation: see {@link InRunSelection#verdict}. */
    public String trialVerdict(long bytes) {
        return selection.verdict(bytes);
    }

    /** What the trials keep for device calls of {@code bytes}: see {@link InRunSelection#verdict(long, MemoryKind)}. */
    public String deviceTrialVerdict(long bytes) {
        return selection.verdict(bytes, MemoryKind.DEVICE);
    }

    /** The plan the next device call of {@code bytes} runs: the one being tried or kept, else the selector's. */
    public Plan devicePlan(long bytes) {
        return selection.plan(bytes, MemoryKind.DEVICE);
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
        if (progressThread != null) {
            progressThread.stop();
        }
        // A call still running on another thread would use the segments unmapped below.
        guard.enter();
        boolean wasOpen;
        try {
            // Close is collective: every rank completes the calls issued before it, as MPI requires.
            if (!stop.isStopped()) {
                drain();
            }
        } finally {
            wasOpen = stop.close();
            guard.exit();
        }
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

package org.hbcast.orchestration;

import org.hbcast.call.DeviceArguments;
import org.hbcast.call.ElementType;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.select.InRunSelection;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.cuda.CudaRingMember;

/**
 * A broadcast of device memory: checks the arguments, agrees on the root's count, sets up the
 * node's CUDA ring at the first call (collective) and runs the device plan the in-run selection
 * gives (the one tried or kept for the size, else the selector's), or Open MPI's broadcast staged
 * through the host; then times the call for the trials, as a host call is.
 */
final class DeviceCall implements AutoCloseable {
    private final MpiComm comm;
    private final Topology topology;
    private final InRunSelection selection;
    private final PlanDriver driver;
    private final WaitLimit waits;
    private final CountAgreement counts;
    private final InstanceStop stop;
    private final int rank;
    private final int size;
    /** Slots of each device link. */
    private final int slots;
    /** Bytes of a device link's slot: the device calls' chunk. */
    private final int slotBytes;
    /** The node's GPU groups and the staging copies, from the first device call on. */
    private DeviceMemory device;

    DeviceCall(
            MpiComm comm,
            Topology topology,
            BroadcastSettings settings,
            InRunSelection selection,
            PlanDriver driver,
            WaitLimit waits,
            CountAgreement counts,
            InstanceStop stop)
            throws MpiFailure {
        this.comm = comm;
        this.topology = topology;
        this.selection = selection;
        this.driver = driver;
        this.waits = waits;
        this.counts = counts;
        this.stop = stop;
        this.rank = comm.rank();
        this.size = comm.size();
        this.slots = settings.ringSlots();
        this.slotBytes = Assembly.slotBytes(settings, CudaRingMember.CHUNK_BYTES);
    }

    /** One program call (see {@link Broadcaster#bcast(DeviceBuffer, int, ElementType, String, int)}). */
    void call(long stamp, DeviceBuffer buf, int count, ElementType type, String unsupported, int root)
            throws MpiFailure {
        long checked;
        try {
            checked = DeviceArguments.check(buf, count, type, unsupported, root, rank, size, topology.position());
        } catch (MpiFailure e) {
            counts.refuse(root);
            if (!counts.agrees() && device == null && size > 1) {
                // No per-call agreement tells the others, who are about to set up the node's CUDA ring
                // (collective): join it as a failure, so they fail there too instead of waiting for us.
                try {
                    DeviceMemory.refuseConnect(comm, topology, e.getMessage());
                } catch (MpiFailure agreed) {
                    // Expected: the set-up failed everywhere with our reason; ours is the one to report.
                }
            }
            throw e;
        }
        // This rank's count, as a host call times from its own: the root's governs the verdict.
        long start = selection.startOf(checked, MemoryKind.DEVICE);
        long bytes = counts.agree(checked, type, root);
        if (bytes == 0) {
            return;
        }
        if (device == null) {
            device = DeviceMemory.connect(comm, topology, slots, slotBytes, waits);
        }
        Plan plan = selection.plan(bytes, MemoryKind.DEVICE);
        try {
            if (plan.algorithm() == Algorithm.NATIVE) {
                device.stagedNative(comm, buf, bytes, root);
            } else {
                driver.run(stamp, plan, device.bind(buf), bytes, root);
            }
            // Every stage above ends only once its copies on the GPU have completed (their events
            // seen), so the time the trials take is the whole call's, GPU work included.
            selection.learn(bytes, MemoryKind.DEVICE, root, start);
        } catch (RuntimeException e) {
            stop.stop("hbcast bcast of device memory on rank " + rank + ": " + e.getMessage(), e);
        } catch (MpiFailure e) {
            stop.stop(e.getMessage(), e);
        }
    }

    /** CUDA IPC handles this rank has opened so far (0 before the first device call). */
    long ipcOpens() {
        return device == null ? 0 : device.ipcOpens();
    }

    /** The node's GPU groups for a call from node rank {@code first}, in words; null before the first device call. */
    String groupPlan(int first) {
        return device == null ? null : device.groupPlan(first);
    }

    /** True while this rank maps a neighbour's device buffer. */
    boolean holdsUserMapping() {
        return device != null && device.holdsUserMapping();
    }

    @Override
    public void close() throws Exception {
        if (device != null) {
            device.close();
        }
    }
}

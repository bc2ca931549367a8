package org.hbcast.transport.cuda;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;
import org.hbcast.transport.shm.LinkLayout;
import org.hbcast.transport.shm.ShmInbox;
import org.hbcast.transport.shm.ShmOutbox;

/**
 * One rank's part of a node's device broadcast with one copier per GPU ({@link GpuGroups}): its
 * control block (an inbox whose counters its group's copier of the call advances), its links to the
 * other ranks of its GPU (used when it is the copier), the cached IPC mappings of their buffers and,
 * on a group leader of a node with several GPUs, its place in the ring between GPUs
 * ({@link CudaRingMember} over the leaders, position = group index).
 *
 * <p><b>Mappings paid once.</b> Each call starts with an all-gather of one record per rank: its
 * buffer's {@link IpcDescriptor} (allocation id, generation, handle) and the generations it is about
 * to free. A copier maps a member's buffer the first time it sees it and reuses the mapping while the
 * descriptor is unchanged ({@link IpcHandleCache}, {@value #MAPPINGS_PER_MEMBER} per member); a new
 * generation at the same address closes the old one first. The library's own {@link DeviceBuffer}s
 * are guarded ({@link DeviceBuffer#guard}): closing one only asks this member to free it; the next
 * call announces its generation, every rank closes its mappings of it right after that call's
 * gather, and the call after that (whose gather proves every rank has done so) frees it. Whatever is
 * still deferred is freed at close, after the node's two-phase close. Memory the program allocated
 * ({@link DeviceBuffer#isUserMemory}, told apart by its descriptor's generation,
 * {@link IpcDescriptor#isProgramMemoryAt}) cannot be guarded and is never cached: its copier (and, from
 * {@link CudaRingMember#DIRECT_MIN_BYTES}, the previous leader) maps it for the call
 * ({@link CudaIpcSender#bindDirect}) and closes the mapping once the call's copies into it have
 * completed, before publishing the last chunk its owner waits for.
 *
 * <pre>{@code
 * String placement = GpuGroupMember.placement(calls, device);            // all-gather over the node
 * GpuGroups groups = GpuGroupMember.groups(placements);
 * GpuGroupMember me = GpuGroupMember.create(calls, dir, nodeRank, groups, device, 8, 4 << 20);
 * me.connect(allGather(me.descriptor())); barrier(); me.unlinkControl();
 * // per broadcast: Stage s = me.start(buf, bytes, chunkBytes, first, fed, wire); drive it
 * }</pre>
 */
public final class GpuGroupMember implements AutoCloseable, DeviceBuffer.FreeGuard {
    /** Generations a rank announces per call as about to be freed; more wait for later calls. */
    public static final int RETIRED_PER_CALL = 4;
    /** Bytes of a rank's per-call record. */
    public static final int RECORD_BYTES = IpcDescriptor.BYTES + 8 + 8 * RETIRED_PER_CALL;
    /** Buffers of one member a copier keeps mapped (a program alternating two buffers maps each once). */
    public static final int MAPPINGS_PER_MEMBER = 2;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int RETIRED_OFFSET = IpcDescriptor.BYTES;
    private static final char SEPARATOR = '|';

    private final CudaCalls calls;
    private final int position;
    private final int nodeSize;
    private final int device;
    private final GpuGroups groups;
    private final int group;
    private final int[] members;
    private final ShmInbox inbox;
    private final CudaRingMember ring;
    /** On a leader whose GPUs cannot all reach each other: its pinned host slots, written by the previous leader. */
    private final ShmInbox hostInbox;

    private ShmOutbox hostOutbox;
    private HostHop hostHop;
    private final CudaStream stream;
    private final boolean ownsStream;
    private final int slotCount;
    private final int maxChunkBytes;
    private final CudaIpcSender[] toMember;
    private final IpcHandleCache mappings;
    /** On a leader with a peer-to-peer ring: the next leader's buffers, mapped once, keyed by its group. */
    private final IpcHandleCache leaderMappings;

    private final CopierFanout fanout;
    private final CopierWait wait;
    private final GroupCall call = new GroupCall();
    private final byte[] mine = new byte[RECORD_BYTES];
    private final byte[] all;
    private final byte[] rightLeader = new byte[IpcDescriptor.BYTES];
    /** The leaders' ring learns the next leader's buffer from the call's gather; made once, so a call allocates nothing. */
    private final NeighbourExchange fromGather =
            (toLeft, fromRight) -> System.arraycopy(rightLeader, 0, fromRight, 0, fromRight.length);

    private final ConcurrentLinkedQueue<DeviceBuffer> freeRequests = new ConcurrentLinkedQueue<>();
    private final ArrayDeque<DeviceBuffer> pending = new ArrayDeque<>();
    private final DeviceBuffer[] announcing = new DeviceBuffer[RETIRED_PER_CALL];
    private final DeviceBuffer[] announced = new DeviceBuffer[RETIRED_PER_CALL];
    private final List<DeviceBuffer> guarded = new ArrayList<>();
    private int announcingCount;
    private int announcedCount;
    private boolean peersUnmapped;

    private GpuGroupMember(
            final CudaCalls calls,
            final int position,
            final int device,
            final GpuGroups groups,
            final ShmInbox inbox,
            final CudaRingMember ring,
            final ShmInbox hostInbox,
            final CudaStream stream,
            final int slotCount,
            final int maxChunkBytes) {
        this.hostInbox = hostInbox;
        this.calls = calls;
        this.position = position;
        this.nodeSize = groups.nodeSize();
        this.device = device;
        this.groups = groups;
        this.group = groups.groupOf(position);
        this.members = groups.members(group);
        this.inbox = inbox;
        this.ring = ring;
        this.stream = ring != null ? ring.stream() : stream;
        this.ownsStream = ring == null;
        this.slotCount = slotCount;
        this.maxChunkBytes = maxChunkBytes;
        this.toMember = new CudaIpcSender[nodeSize];
        this.mappings = new IpcHandleCache(calls, device, MAPPINGS_PER_MEMBER);
        this.leaderMappings = ring == null ? null : new IpcHandleCache(calls, device, MAPPINGS_PER_MEMBER);
        if (ring != null) {
            ring.keepMappingsIn(leaderMappings);
        }
        this.fanout = new CopierFanout(position, members.length);
        this.wait = new CopierWait(inbox);
        this.all = new byte[nodeSize * RECORD_BYTES];
    }

    /**
     * What this rank tells the node before the groups are formed: its GPU's UUID, then the UUIDs of
     * the other GPUs its process sees and can reach ({@code cudaDeviceCanAccessPeer}).
     */
    public static String placement(final CudaCalls calls, final int device) {
        final StringBuilder text = new StringBuilder(hex(calls.deviceUuid(device))).append(';');
        final int count = calls.deviceCount();
        String separator = "";
        for (int d = 0; d < count; d++) {
            if (d != device && calls.canAccessPeer(device, d)) {
                text.append(separator).append(hex(calls.deviceUuid(d)));
                separator = ",";
            }
        }
        return text.toString();
    }

    /** The node's groups from every rank's {@link #placement}, node rank order. */
    public static GpuGroups groups(final String[] placements) {
        final String[] uuids = new String[placements.length];
        final List<Set<String>> reaches = new ArrayList<>(placements.length);
        for (int r = 0; r < placements.length; r++) {
            final int cut = placements[r].indexOf(';');
            if (cut <= 0) {
                throw new IllegalArgumentException(
                        "node rank " + r + " sent no GPU placement: '" + placements[r] + "'");
            }
            uuids[r] = placements[r].substring(0, cut);
            final String rest = placements[r].substring(cut + 1);
            reaches.add(rest.isEmpty() ? Set.of() : new HashSet<>(List.of(rest.split(","))));
        }
        return GpuGroups.of(uuids, reaches);
    }

    /**
     * Creates this rank's control block in {@code directory} and, on a group leader of a node with
     * several GPUs, its ring member between GPUs ({@code slotCount} device slots of
     * {@code maxChunkBytes}).
     *
     * Where some pair of neighbouring GPUs cannot reach each other, every hop between GPUs goes
     * through the leaders' pinned host slots instead ({@link HostHop}).
     */
    public static GpuGroupMember create(
            final CudaCalls calls,
            final Path directory,
            final int position,
            final GpuGroups groups,
            final int device,
            final int slotCount,
            final int maxChunkBytes)
            throws IOException {
        final int group = groups.groupOf(position);
        final boolean leads = groups.leader(group) == position && groups.groupCount() > 1;
        final ShmInbox inbox = ShmInbox.create(directory, position, slotCount, LinkLayout.SLOT_ALIGNMENT);
        CudaRingMember ring = null;
        CudaStream stream = null;
        ShmInbox hostInbox = null;
        boolean pinned = false;
        try {
            if (leads && groups.allPeer()) {
                ring = CudaRingMember.create(
                        calls, directory, group, groups.groupCount(), device, slotCount, maxChunkBytes);
            } else {
                stream = new CudaStream(calls, device);
            }
            if (leads && !groups.allPeer()) {
                hostInbox = ShmInbox.create(directory, position, slotCount, maxChunkBytes);
                calls.hostRegister(hostInbox.slotsAddress(), (long) slotCount * hostInbox.maxChunkBytes());
                pinned = true;
            }
            return new GpuGroupMember(
                    calls, position, device, groups, inbox, ring, hostInbox, stream, slotCount, maxChunkBytes);
        } catch (final IOException | RuntimeException ex) {
            final Closer closer = new Closer();
            if (pinned) {
                final long slots = hostInbox.slotsAddress();
                closer.run(() -> calls.hostUnregister(slots));
            }
            if (hostInbox != null) {
                closer.run(hostInbox::close);
            }
            if (ring != null) {
                closer.run(ring::close);
            }
            if (stream != null) {
                closer.run(stream::close);
            }
            closer.run(inbox::close);
            closer.rethrowUnchecked();
            throw ex;
        }
    }

    /** What the node's other ranks need to connect: the control block's path and, on a leader, its ring's. */
    public String descriptor() {
        final String base = inbox.path().toString();
        if (hostInbox != null) {
            return base + SEPARATOR + hostInbox.path();
        }
        return ring == null
                ? base
                : base
                        + SEPARATOR
                        + ring.controlPath()
                        + SEPARATOR
                        + Base64.getEncoder().encodeToString(ring.slotDescriptor());
    }

    /** Opens the links to the other ranks of this GPU and, on a leader, the ring between GPUs. */
    public void connect(final String[] descriptors) throws IOException {
        if (descriptors.length != nodeSize) {
            throw new IllegalArgumentException("expected the descriptors of " + nodeSize + " ranks");
        }
        final DeviceSlots geometry = DeviceSlots.of(slotCount, maxChunkBytes);
        for (final int m : members) {
            if (m == position) {
                continue;
            }
            final ShmOutbox outbox = ShmOutbox.open(Path.of(field(descriptors, m, 0)), position, m);
            try {
                // No slots: a copier writes only into members' buffers (bindMapped), never through slots.
                toMember[m] = new CudaIpcSender(outbox, geometry, 0, stream);
            } catch (final RuntimeException ex) {
                outbox.close();
                throw ex;
            }
        }
        if (hostInbox != null) {
            final int next = groups.leader((group + 1) % groups.groupCount());
            hostOutbox = ShmOutbox.open(Path.of(field(descriptors, next, 1)), position, next);
            calls.hostRegister(hostOutbox.slotsAddress(), (long) slotCount * hostOutbox.maxChunkBytes());
            hostHop = new HostHop(calls, stream, position, hostInbox, hostOutbox);
        }
        if (ring != null) {
            final int count = groups.groupCount();
            final String[] paths = new String[count];
            final byte[] slots = new byte[count * IpcDescriptor.BYTES];
            for (int g = 0; g < count; g++) {
                final int leader = groups.leader(g);
                paths[g] = field(descriptors, leader, 1);
                final byte[] handle = Base64.getDecoder().decode(field(descriptors, leader, 2));
                System.arraycopy(handle, 0, slots, g * IpcDescriptor.BYTES, IpcDescriptor.BYTES);
            }
            ring.connect(paths, slots);
        }
    }

    private static String field(final String[] descriptors, final int rank, final int index) {
        final String[] parts = descriptors[rank].split("\\" + SEPARATOR);
        if (index >= parts.length) {
            throw new IllegalArgumentException("node rank " + rank + " sent no GPU group descriptor part " + index
                    + ": '" + descriptors[rank] + "'");
        }
        return parts[index];
    }

    /** Removes the control blocks' files; call once every rank has connected. */
    public void unlinkControl() throws IOException {
        inbox.unlink();
        if (hostInbox != null) {
            hostInbox.unlink();
        }
        if (ring != null) {
            ring.unlinkControl();
        }
    }

    /**
     * Starts this rank's part of a broadcast of {@code bytes} of {@code buffer} from node rank
     * {@code first} (fed: its chunks arrive from elsewhere, {@link Stage#feed}). Collective over the
     * node: every rank gathers every rank's record over {@code wire} first. A rank that cannot
     * describe its buffer still joins the gather with a refusal, and then every rank fails the call.
     */
    public Stage start(
            final DeviceBuffer buffer,
            final long bytes,
            final int chunkBytes,
            final int first,
            final boolean fed,
            final GroupExchange wire) {
        if (first < 0 || first >= nodeSize) {
            throw new IllegalArgumentException("first node rank " + first + " outside [0, " + nodeSize + ")");
        }
        RuntimeException failure = null;
        try {
            IpcDescriptor.encode(buffer, mine, 0);
        } catch (final RuntimeException ex) {
            failure = ex;
            IpcDescriptor.encodeRefusal(mine, 0);
        }
        announce();
        wire.allGather(mine, all);
        freeAnnounced();
        closeRetiredMappings();
        if (failure != null) {
            throw failure;
        }
        for (int r = 0; r < nodeSize; r++) {
            if (IpcDescriptor.isRefusal(all, r * RECORD_BYTES)) {
                throw new StageException("node rank " + r + " could not take part in this call (see its error);"
                        + " node rank " + position + " gives up too");
            }
        }
        try {
            return startParts(buffer, bytes, chunkBytes, first, fed);
        } catch (final RuntimeException ex) {
            // The peers have gathered and will wait on this rank's links: end their wait now.
            abortLinks();
            throw ex;
        }
    }

    private void abortLinks() {
        for (final CudaIpcSender sender : toMember) {
            if (sender != null) {
                sender.abort(position);
            }
        }
        inbox.abort(position);
        if (ring != null) {
            ring.abort();
        }
        if (hostHop != null) {
            hostHop.abort();
        }
    }

    private Stage startParts(
            final DeviceBuffer buffer, final long bytes, final int chunkBytes, final int first, final boolean fed) {
        // Copiers of this GPU map it, and so does the previous GPU's leader where this rank leads its GPU.
        // The program's own memory is never guarded: its mappings are closed before this call returns.
        if ((members.length > 1 || ring != null) && !buffer.isUserMemory() && !buffer.guardedBy(this)) {
            buffer.guard(this);
            guarded.add(buffer);
        }
        final int firstGroup = groups.groupOf(first);
        final int copier = groups.copier(group, first);
        final boolean isFirst = position == first;
        CopierFanout copies = null;
        CopierWait waiting = null;
        if (copier == position) {
            fanout.clear();
            for (final int m : members) {
                if (m != position && bytes > 0) {
                    final int at = m * RECORD_BYTES;
                    if (IpcDescriptor.isProgramMemoryAt(all, at)) {
                        // Mapped for this call; closed once its copies have completed, before the last
                        // chunk is published, so the member's call returns only after the unmap.
                        toMember[m].bindDirect(all, at, bytes);
                    } else {
                        final long mapped = mappings.map(m, all, at);
                        toMember[m].bindMapped(mapped, IpcDescriptor.bytesAt(all, at), bytes);
                    }
                    fanout.add(toMember[m]);
                }
            }
            fanout.start(buffer, bytes, chunkBytes);
            copies = fanout;
        } else {
            wait.start(copier, bytes, chunkBytes);
            waiting = wait;
        }
        Stage ringPart = null;
        boolean ringFed = false;
        if (hostHop != null) {
            final int count = groups.groupCount();
            ringFed = (isFirst && fed) || (group == firstGroup && !isFirst);
            hostHop.start(
                    group != firstGroup,
                    (group + 1) % count != firstGroup,
                    ringFed,
                    buffer.address(),
                    bytes,
                    chunkBytes);
            ringPart = hostHop;
        }
        if (ring != null) {
            ringFed = (isFirst && fed) || (group == firstGroup && !isFirst);
            final int right = groups.leader((group + 1) % groups.groupCount());
            System.arraycopy(all, right * RECORD_BYTES, rightLeader, 0, IpcDescriptor.BYTES);
            ringPart = ring.start(buffer, bytes, chunkBytes, firstGroup, ringFed, fromGather);
        }
        call.start(isFirst, fed, bytes, chunkBytes, waiting, ringPart, ringFed, copies);
        return call;
    }

    /**
     * This rank gives up a call it has not started (its staging memory could not be allocated, say): it
     * still joins the call's gather, with a refusal, so every rank fails at once, and sets the abort
     * word of its links. Failures of the gather itself are dropped: the caller reports its own.
     */
    public void refuse(final GroupExchange wire) {
        IpcDescriptor.encodeRefusal(mine, 0);
        // Announces nothing: what it was to free waits for a call that goes through.
        java.util.Arrays.fill(mine, RETIRED_OFFSET, RECORD_BYTES, (byte) 0);
        try {
            wire.allGather(mine, all);
        } catch (final RuntimeException alreadyFailing) {
            // The caller's failure is the one to report.
        }
        abortLinks();
    }

    /** Largest chunk the links carry. */
    public int maxChunkBytes() {
        return DeviceSlots.of(slotCount, maxChunkBytes).slotBytes();
    }

    /** Moves up to {@link #RETIRED_PER_CALL} buffers closed since the last call into this call's record. */
    private void announce() {
        for (DeviceBuffer closed; (closed = freeRequests.poll()) != null; ) {
            pending.add(closed);
        }
        announcingCount = 0;
        while (announcingCount < RETIRED_PER_CALL && !pending.isEmpty()) {
            announcing[announcingCount++] = pending.poll();
        }
        LONGS.set(mine, RETIRED_OFFSET, (long) announcingCount);
        for (int i = 0; i < RETIRED_PER_CALL; i++) {
            LONGS.set(mine, RETIRED_OFFSET + 8 + 8 * i, i < announcingCount ? announcing[i].generation() : 0L);
        }
    }

    /** This call's gather proves every rank closed its mappings of what the previous call announced. */
    private void freeAnnounced() {
        for (int i = 0; i < announcedCount; i++) {
            release(announced[i]);
            announced[i] = null;
        }
        System.arraycopy(announcing, 0, announced, 0, announcingCount);
        announcedCount = announcingCount;
        announcingCount = 0;
    }

    private void closeRetiredMappings() {
        if (ring != null) {
            final int next = (group + 1) % groups.groupCount();
            final int at = groups.leader(next) * RECORD_BYTES + RETIRED_OFFSET;
            final long count = (long) LONGS.get(all, at);
            for (int i = 0; i < count && i < RETIRED_PER_CALL; i++) {
                leaderMappings.forget(next, (long) LONGS.get(all, at + 8 + 8 * i));
            }
        }
        for (final int m : members) {
            if (m == position) {
                continue;
            }
            final int at = m * RECORD_BYTES + RETIRED_OFFSET;
            final long count = (long) LONGS.get(all, at);
            for (int i = 0; i < count && i < RETIRED_PER_CALL; i++) {
                mappings.forget(m, (long) LONGS.get(all, at + 8 + 8 * i));
            }
        }
    }

    private void release(final DeviceBuffer buffer) {
        guarded.remove(buffer);
        buffer.release(this);
    }

    /** Called by a guarded buffer's {@link DeviceBuffer#close()}: its free waits for the next calls. */
    @Override
    public void freeRequested(final DeviceBuffer buffer) {
        freeRequests.add(buffer);
    }

    /** IPC opens of members' buffers (and, on a leader, the next leader's) so far: only for allocations not seen before. */
    public long memberMappingOpens() {
        return mappings.opens() + (leaderMappings == null ? 0 : leaderMappings.opens());
    }

    /**
     * IPC opens of the program's own memory so far (members' and, on a leader, the next leader's):
     * one per buffer and call, each closed again before its owner's call returns.
     */
    public long programMappingOpens() {
        long opens = ring == null ? 0 : ring.userMappingOpens();
        for (final CudaIpcSender sender : toMember) {
            if (sender != null) {
                opens += sender.userMappings();
            }
        }
        return opens;
    }

    /** True while this rank maps some peer's program memory: never between calls that succeeded. */
    public boolean holdsProgramMapping() {
        boolean holds = ring != null && ring.holdsUserMapping();
        for (final CudaIpcSender sender : toMember) {
            holds |= sender != null && sender.holdsUserMapping();
        }
        return holds;
    }

    /** Mappings kept across calls now: members' buffers and, on a leader, the next leader's. */
    public int cachedMappings() {
        return mappings.size() + (leaderMappings == null ? 0 : leaderMappings.size());
    }

    /** The groups this member belongs to. */
    public GpuGroups groups() {
        return groups;
    }

    /** This rank's node rank. */
    public int position() {
        return position;
    }

    /** The CUDA device (this process's index) of this rank. */
    public int device() {
        return device;
    }

    /** The ring between GPUs, on a leader of a node with several; else null. */
    public CudaRingMember ring() {
        return ring;
    }

    /**
     * The first half of closing: waits for this rank's copies and closes every mapping of the peers'
     * memory. The node must agree that every rank has done this (a barrier) before {@link #close}.
     * Idempotent.
     */
    public void unmapPeers() throws IOException {
        if (peersUnmapped) {
            return;
        }
        peersUnmapped = true;
        final Closer closer = new Closer();
        closer.run(stream::synchronize);
        for (final CudaIpcSender sender : toMember) {
            if (sender != null) {
                closer.run(sender::close);
            }
        }
        closer.run(mappings::close);
        if (leaderMappings != null) {
            closer.run(leaderMappings::close);
        }
        if (ring != null) {
            closer.run(ring::unmapPeers);
        }
        if (hostHop != null) {
            closer.run(hostHop::close);
        }
        if (hostOutbox != null) {
            final long slots = hostOutbox.slotsAddress();
            closer.run(() -> calls.hostUnregister(slots));
            closer.run(hostOutbox::close);
        }
        closer.rethrow();
    }

    /**
     * Releases everything: frees the buffers whose free was deferred, lets the buffers still in use be
     * freed directly from now on, closes the ring, the stream and the control block. Tries all; throws
     * the first failure.
     */
    @Override
    public void close() throws IOException {
        final Closer closer = new Closer();
        closer.run(this::unmapPeers);
        for (DeviceBuffer closed; (closed = freeRequests.poll()) != null; ) {
            pending.add(closed);
        }
        for (int i = 0; i < announcedCount; i++) {
            pending.add(announced[i]);
        }
        for (int i = 0; i < announcingCount; i++) {
            pending.add(announcing[i]);
        }
        announcedCount = 0;
        announcingCount = 0;
        pending.addAll(guarded);
        for (final DeviceBuffer buffer : pending) {
            closer.run(() -> buffer.release(this));
        }
        pending.clear();
        guarded.clear();
        if (ring != null) {
            closer.run(ring::close);
        }
        if (ownsStream) {
            closer.run(stream::close);
        }
        if (hostInbox != null) {
            final long slots = hostInbox.slotsAddress();
            closer.run(() -> calls.hostUnregister(slots));
            closer.run(hostInbox::close);
        }
        closer.run(inbox::close);
        closer.rethrow();
    }

    private static String hex(final byte[] uuid) {
        return HexFormat.of().formatHex(uuid);
    }

    @Override
    public String toString() {
        return "GpuGroupMember{node rank " + position + ", GPU group " + group + " " + groups.describe(position) + '}';
    }
}

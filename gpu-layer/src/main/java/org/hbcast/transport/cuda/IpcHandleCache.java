package org.hbcast.transport.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.hbcast.device.AllocationId;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaException;

/**
 * The IPC mappings this process holds of memory its peers guarantee alive while it is mapped: the
 * ring's slots, freed only after the node's two-phase close. Users' buffers are not cached here
 * (their owners may free them as soon as a call returns): {@link CudaIpcSender} maps those per call.
 *
 * <p>{@code cudaIpcOpenMemHandle} is slow (it maps memory into this process, milliseconds), so
 * mappings are kept, keyed by the peer's {@link AllocationId} (process, address, size and
 * generation): asking again for the same allocation finds its mapping without a CUDA call and
 * without allocating. A new generation at an address already mapped means the old allocation was
 * freed: its mapping is closed first. Each peer keeps at most {@code perPeer} mappings, the least
 * recently used going first.
 *
 * <p>Not thread-safe; one per ring member.
 */
public final class IpcHandleCache implements AutoCloseable {
    private final CudaCalls calls;
    private final int device;
    private final int perPeer;
    private final List<Entry> entries = new ArrayList<>();
    private long clock;
    private long opens;

    /**
     * A cache whose mappings are opened on {@code device} (this rank's device), keeping up to
     * {@code perPeer} mappings per peer.
     */
    public IpcHandleCache(final CudaCalls calls, final int device, final int perPeer) {
        if (perPeer < 1) {
            throw new IllegalArgumentException("perPeer must be at least 1: " + perPeer);
        }
        this.calls = calls;
        this.device = device;
        this.perPeer = perPeer;
    }

    /**
     * The address at which this process sees the allocation described at {@code offset} of
     * {@code record} ({@link IpcDescriptor} encoding), owned by node rank {@code peer}: from the cache,
     * or opened now ({@code cudaIpcOpenMemHandle} with lazy peer access).
     */
    public long map(final int peer, final byte[] record, final int offset) {
        clock++;
        for (int i = 0; i < entries.size(); i++) {
            final Entry entry = entries.get(i);
            if (entry.peer == peer && entry.matches(record, offset)) {
                entry.lastUse = clock;
                return entry.mapped;
            }
        }
        return open(peer, IpcDescriptor.decode(record, offset));
    }

    private long open(final int peer, final IpcDescriptor descriptor) {
        final AllocationId id = descriptor.id();
        int held = 0;
        Entry oldest = null;
        for (int i = entries.size() - 1; i >= 0; i--) {
            final Entry entry = entries.get(i);
            if (entry.peer != peer) {
                continue;
            }
            if (entry.id.sameAddress(id)) {
                // The allocation the old mapping names is gone; the peer reused its address.
                closeEntry(entries.remove(i));
                continue;
            }
            held++;
            if (oldest == null || entry.lastUse < oldest.lastUse) {
                oldest = entry;
            }
        }
        if (held >= perPeer && oldest != null) {
            entries.remove(oldest);
            closeEntry(oldest);
        }
        final long mapped;
        try {
            mapped = calls.ipcOpen(device, descriptor.handle(), 0);
        } catch (final CudaException ex) {
            throw new CudaException("cudaIpcOpenMemHandle(" + descriptor + " of node rank " + peer + ")", ex.error());
        }
        opens++;
        final byte[] key = new byte[IpcDescriptor.BYTES];
        descriptor.encode(key, 0);
        final Entry entry = new Entry(peer, id, key, mapped);
        entry.lastUse = clock;
        entries.add(entry);
        return mapped;
    }

    /**
     * Closes the mapping of node rank {@code peer}'s allocation of generation {@code generation}, if
     * held: its owner is about to free it. Returns true when one was closed.
     */
    public boolean forget(final int peer, final long generation) {
        for (int i = 0; i < entries.size(); i++) {
            final Entry entry = entries.get(i);
            if (entry.peer == peer && entry.id.generation() == generation) {
                closeEntry(entries.remove(i));
                return true;
            }
        }
        return false;
    }

    /** How many times a handle has been opened: grows only for allocations not seen before. */
    public long opens() {
        return opens;
    }

    /** Mappings held now. */
    public int size() {
        return entries.size();
    }

    private void closeEntry(final Entry entry) {
        try {
            calls.ipcClose(device, entry.mapped);
        } catch (final CudaException ex) {
            throw new CudaException("cudaIpcCloseMemHandle(" + entry.id + ")", ex.error());
        }
    }

    /** Closes every mapping. Tries them all; throws the first failure. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (final Entry entry : entries) {
            try {
                closeEntry(entry);
            } catch (final RuntimeException ex) {
                first = first == null ? ex : first;
            }
        }
        entries.clear();
        if (first != null) {
            throw first;
        }
    }

    private static final class Entry {
        final int peer;
        final AllocationId id;
        final byte[] key;
        final long mapped;
        long lastUse;

        Entry(final int peer, final AllocationId id, final byte[] key, final long mapped) {
            this.peer = peer;
            this.id = id;
            this.key = key;
            this.mapped = mapped;
        }

        /** Compares the identity part (and the handle) of an encoded descriptor without decoding it. */
        boolean matches(final byte[] record, final int offset) {
            return Arrays.equals(key, 0, key.length, record, offset, offset + key.length);
        }
    }
}

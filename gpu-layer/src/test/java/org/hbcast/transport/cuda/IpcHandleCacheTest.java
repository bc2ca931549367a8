package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.hbcast.device.DeviceBuffer;
import org.junit.jupiter.api.Test;

/** The slot mappings' cache against {@link FakeCuda}: one open per allocation, a new generation replaces the old. */
class IpcHandleCacheTest {
    @Test
    void anAllocationIsMappedOnceAndANewGenerationAtTheSameAddressReplacesIt() {
        final FakeCuda cuda = new FakeCuda(1);
        final DeviceBuffer first = DeviceBuffer.allocate(4096, 0, cuda);
        final DeviceBuffer second = DeviceBuffer.allocate(4096, 0, cuda);
        final byte[] record = new byte[IpcDescriptor.BYTES];
        IpcDescriptor.encode(first, record, 0);
        try (IpcHandleCache cache = new IpcHandleCache(cuda, 0, 1)) {
            final long mapped = cache.map(2, record, 0);
            assertEquals(mapped, cache.map(2, record, 0), "same allocation, same mapping");
            assertEquals(1, cache.opens());
            // The peer freed it and reallocated at the same address: same pid and address, new
            // generation and handle (the second buffer's handle stands in for the new allocation's).
            final byte[] reused = record.clone();
            final ByteBuffer view = ByteBuffer.wrap(reused).order(ByteOrder.LITTLE_ENDIAN);
            view.putLong(24, first.generation() + 1000);
            System.arraycopy(second.ipcHandle(), 0, reused, 32, 64);
            final long remapped = cache.map(2, reused, 0);
            assertNotEquals(mapped, remapped);
            assertEquals(2, cache.opens());
            assertEquals(1, cache.size(), "the stale mapping was closed");
            assertEquals(1, cuda.ipcCloses());
        }
        assertEquals(0, cuda.openMappings(), "close unmaps everything");
        first.close();
        second.close();
        assertEquals("[]", cuda.violations().toString());
    }

    @Test
    void theFakeNoticesMemoryFreedWhileMapped() {
        final FakeCuda cuda = new FakeCuda(1);
        final DeviceBuffer buffer = DeviceBuffer.allocate(4096, 0, cuda);
        final byte[] record = new byte[IpcDescriptor.BYTES];
        IpcDescriptor.encode(buffer, record, 0);
        try (IpcHandleCache cache = new IpcHandleCache(cuda, 0, 1)) {
            cache.map(1, record, 0);
            buffer.close();
            assertEquals(1, cuda.violations().size(), cuda.violations().toString());
        }
    }
}

package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.hbcast.device.DeviceBuffer;
import org.junit.jupiter.api.Test;

/** A guarded buffer's free waits for every guard; an unguarded one goes at once (against {@link FakeCuda}). */
class DeviceBufferGuardTest {
    @Test
    void closingAGuardedBufferAsksEveryGuardAndFreesAfterTheLastRelease() {
        final FakeCuda cuda = new FakeCuda(1);
        final DeviceBuffer buffer = DeviceBuffer.allocate(1024, 0, cuda);
        final List<DeviceBuffer> askedA = new ArrayList<>();
        final List<DeviceBuffer> askedB = new ArrayList<>();
        final DeviceBuffer.FreeGuard a = askedA::add;
        final DeviceBuffer.FreeGuard b = askedB::add;
        buffer.guard(a);
        buffer.guard(b);
        buffer.guard(a);
        buffer.close();
        assertTrue(buffer.isClosed());
        assertFalse(buffer.isFreed());
        assertEquals(List.of(buffer), askedA, "each guard asked once");
        assertEquals(List.of(buffer), askedB);
        assertThrows(IllegalStateException.class, buffer::address, "unusable once closed");
        buffer.release(a);
        assertFalse(buffer.isFreed(), "b still maps it");
        assertEquals(1, cuda.liveAllocations());
        buffer.release(b);
        assertTrue(buffer.isFreed());
        assertEquals(0, cuda.liveAllocations());
        buffer.release(b);
        buffer.close();
        assertEquals("[]", cuda.violations().toString());
    }

    @Test
    void anUnguardedOrReleasedBufferIsFreedAtClose() {
        final FakeCuda cuda = new FakeCuda(2);
        final DeviceBuffer plain = DeviceBuffer.allocate(64, 0, cuda);
        plain.close();
        assertTrue(plain.isFreed());
        final DeviceBuffer released = DeviceBuffer.allocate(64, 0, cuda);
        final DeviceBuffer.FreeGuard guard = b -> {
            throw new AssertionError("a released guard is not asked");
        };
        released.guard(guard);
        released.release(guard);
        assertFalse(released.guardedBy(guard));
        released.close();
        assertTrue(released.isFreed());
        assertEquals(0, cuda.liveAllocations());
    }
}

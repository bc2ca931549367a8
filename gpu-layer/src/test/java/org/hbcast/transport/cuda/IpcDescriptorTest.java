package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.hbcast.device.AllocationId;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.IpcHandles;
import org.junit.jupiter.api.Test;

class IpcDescriptorTest {
    private static byte[] handle(final int seed) {
        final byte[] h = new byte[IpcHandles.HANDLE_BYTES];
        for (int i = 0; i < h.length; i++) {
            h[i] = (byte) (i * 37 + seed);
        }
        return h;
    }

    @Test
    void roundTripsAtAnOffset() {
        final IpcDescriptor d = new IpcDescriptor(new AllocationId(4242, 0x7f00_1234_5000L, 64L << 20, 17), handle(3));
        final byte[] record = new byte[3 * IpcDescriptor.BYTES];
        d.encode(record, IpcDescriptor.BYTES);
        assertEquals(d, IpcDescriptor.decode(record, IpcDescriptor.BYTES));
        assertEquals(64L << 20, IpcDescriptor.bytesAt(record, IpcDescriptor.BYTES));
        assertEquals(0, IpcDescriptor.bytesAt(record, 0), "the neighbouring records stay untouched");
        assertArrayEquals(
                new byte[IpcDescriptor.BYTES],
                Arrays.copyOfRange(record, 2 * IpcDescriptor.BYTES, 3 * IpcDescriptor.BYTES));
    }

    @Test
    void layoutIsLittleEndianWithTheHandleLast() {
        final IpcDescriptor d = new IpcDescriptor(new AllocationId(1, 2, 3, 4), handle(0));
        final byte[] record = new byte[IpcDescriptor.BYTES];
        d.encode(record, 0);
        assertEquals(96, IpcDescriptor.BYTES);
        assertEquals(1, record[0]);
        assertEquals(2, record[8]);
        assertEquals(3, record[16]);
        assertEquals(4, record[24]);
        assertArrayEquals(handle(0), Arrays.copyOfRange(record, 32, 96));
    }

    @Test
    void generationsTellReusedAddressesApart() {
        final AllocationId old = new AllocationId(9, 0x1000, 4096, 1);
        final AllocationId reused = new AllocationId(9, 0x1000, 4096, 2);
        assertNotEquals(old, reused);
        assertTrue(old.sameAddress(reused));
        assertFalse(old.sameAddress(new AllocationId(10, 0x1000, 4096, 1)));
    }

    @Test
    void theProgramsMemoryIsToldApartByItsDescriptorAlone() {
        final FakeCuda cuda = new FakeCuda(3);
        final byte[] record = new byte[2 * IpcDescriptor.BYTES];
        try (DeviceBuffer library = DeviceBuffer.allocate(4096, 0, cuda)) {
            final long address = cuda.malloc(0, 4096);
            final DeviceBuffer program = DeviceBuffer.ofUserMemory(address, 4096, 0, cuda);
            IpcDescriptor.encode(library, record, 0);
            IpcDescriptor.encode(program, record, IpcDescriptor.BYTES);
            assertFalse(IpcDescriptor.isProgramMemoryAt(record, 0), "the library's own buffer may be cached");
            assertTrue(
                    IpcDescriptor.isProgramMemoryAt(record, IpcDescriptor.BYTES), "the program's is mapped per call");
            assertTrue(DeviceBuffer.isUserGeneration(program.generation()));
            assertFalse(DeviceBuffer.isUserGeneration(library.generation()));
            program.close();
            cuda.free(0, address);
        }
        assertEquals("[]", cuda.violations().toString());
    }

    @Test
    void rejectsWrongSizes() {
        assertThrows(
                IllegalArgumentException.class, () -> new IpcDescriptor(new AllocationId(1, 2, 3, 4), new byte[63]));
        assertThrows(IllegalArgumentException.class, () -> IpcDescriptor.decode(new byte[95], 0));
        assertThrows(IllegalArgumentException.class, () -> IpcHandles.handleOf(new byte[65]));
    }

    @Test
    void handlesCarryTheirBytesThroughJCudasType() {
        assertArrayEquals(handle(5), IpcHandles.bytesOf(IpcHandles.handleOf(handle(5))));
    }
}

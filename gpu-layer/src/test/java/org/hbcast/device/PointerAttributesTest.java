package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which memory the CUDA IPC ring takes, over every combination of kind, device, export capability,
 * pool origin, offset into the allocation and length: accepted exactly when it is exportable device
 * memory on the declared device, from its allocation's base and inside it.
 */
class PointerAttributesTest {
    private static final long BASE = 0x7f00_0000_0000L;
    private static final long ALLOCATION = 1 << 20;

    @Test
    void acceptsExactlyExportableDeviceMemoryFromItsBaseAndInsideItsAllocation() {
        int accepted = 0;
        for (final PointerAttributes.Kind kind : PointerAttributes.Kind.values()) {
            for (int device = 0; device < 2; device++) {
                for (final boolean ipc : new boolean[] {false, true}) {
                    for (final boolean pool : new boolean[] {false, true}) {
                        final PointerAttributes a = new PointerAttributes(kind, device, BASE, ALLOCATION, 9, ipc, pool);
                        for (final long offset : new long[] {0, 1, 256, ALLOCATION - 1}) {
                            for (final long bytes : new long[] {0, 1, ALLOCATION - offset, ALLOCATION - offset + 1}) {
                                final String refusal = a.refusal(BASE + offset, bytes, 1);
                                final boolean ok = kind == PointerAttributes.Kind.DEVICE
                                        && device == 1
                                        && ipc
                                        && offset == 0
                                        && bytes <= ALLOCATION;
                                assertEquals(
                                        ok, refusal == null, a + " at +" + offset + ", " + bytes + " B: " + refusal);
                                accepted += ok ? 1 : 0;
                            }
                        }
                    }
                }
            }
        }
        assertEquals(2 * 3, accepted, "pool or not, three lengths fit at the base");
    }

    @Test
    void eachRefusalNamesItsReason() {
        assertReason(PointerAttributes.unknown(), "not memory CUDA knows");
        assertReason(attributes(PointerAttributes.Kind.MANAGED, true, false), "managed memory");
        assertReason(attributes(PointerAttributes.Kind.HOST, false, false), "host memory");
        assertReason(attributes(PointerAttributes.Kind.DEVICE, false, true), "stream-ordered memory pool");
        assertReason(attributes(PointerAttributes.Kind.DEVICE, false, false), "cannot be exported");
    }

    private static PointerAttributes attributes(
            final PointerAttributes.Kind kind, final boolean ipc, final boolean pool) {
        return new PointerAttributes(kind, 0, BASE, ALLOCATION, 1, ipc, pool);
    }

    private static void assertReason(final PointerAttributes a, final String reason) {
        final String refusal = a.refusal(BASE, 64, 0);
        assertNotNull(refusal);
        assertTrue(refusal.contains(reason), refusal);
    }
}

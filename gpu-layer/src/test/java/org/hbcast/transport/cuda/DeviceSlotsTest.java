package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DeviceSlotsTest {
    @Test
    void chunkNumbersWrapAroundTheSlots() {
        final DeviceSlots slots = DeviceSlots.of(8, 1000);
        assertEquals(1024, slots.slotBytes(), "rounded up to 64");
        assertEquals(8 * 1024, slots.totalBytes());
        for (long seq = 0; seq < 100; seq++) {
            assertEquals((seq % 8) * 1024, slots.offset(seq));
        }
        assertEquals(7L * 1024, slots.offset(Long.MAX_VALUE), "counters never reset, so offsets must not overflow");
    }

    @Test
    void rejectsWhatTheControlBlockRejects() {
        assertThrows(IllegalArgumentException.class, () -> DeviceSlots.of(0, 64));
        assertThrows(IllegalArgumentException.class, () -> new DeviceSlots(8, 100));
        assertThrows(IllegalArgumentException.class, () -> DeviceSlots.of(8, 64).offset(-1));
    }
}

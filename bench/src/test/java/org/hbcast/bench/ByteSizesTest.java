package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ByteSizesTest {
    @Test
    void unitsAreBinary() {
        assertEquals(4096, ByteSizes.parse("4096"));
        assertEquals(64 << 10, ByteSizes.parse("64K"));
        assertEquals(16 << 20, ByteSizes.parse("16m"));
        assertEquals(16 << 20, ByteSizes.parse("16MiB"));
        assertEquals(1L << 30, ByteSizes.parse("1G"));
    }

    @Test
    void rangesArePowersOfTwo() {
        assertEquals(List.of(65536L, 131072L, 262144L), ByteSizes.powersOfTwo("64K:256K"));
        assertEquals(List.of(1024L), ByteSizes.powersOfTwo("1K"));
    }

    @Test
    void nonsenseIsRefusedWithTheText() {
        for (String bad : new String[] {"", "x", "-5", "12Q", "99999999999G"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse(bad));
            assertEquals(true, e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.powersOfTwo("1M:64K"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.powersOfTwo("0:64K"));
    }
}

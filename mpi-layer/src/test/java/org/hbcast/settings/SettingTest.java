package org.hbcast.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingTest {
    @Test
    void aPropertyWinsOverTheVariableAndOtherVariablesPassThrough() {
        Properties p = new Properties();
        p.setProperty("hbcast.chunk.bytes", "4096");
        p.setProperty("hbcast.radix", " ");
        Map<String, String> env = Setting.environment(
                Map.of("HBCAST_CHUNK_BYTES", "65536", "HBCAST_RADIX", "4", "XDG_CACHE_HOME", "/c"), p);
        assertEquals("4096", env.get("HBCAST_CHUNK_BYTES"));
        assertEquals("4", env.get("HBCAST_RADIX"), "a blank property does not hide the variable");
        assertEquals("/c", env.get("XDG_CACHE_HOME"));
        assertNull(env.get("HBCAST_ALGORITHM"));
    }

    @Test
    void namesFollowOneRuleAndAreUnique() {
        Set<String> seen = new HashSet<>();
        for (Setting s : Setting.values()) {
            assertEquals("HBCAST_" + s.name(), s.variable());
            assertEquals(s.variable().toLowerCase().replace('_', '.'), s.property());
            assertTrue(seen.add(s.property()), s.property());
            assertEquals(s, Setting.ofVariable(s.variable()));
            assertTrue(!s.meaning().isBlank() && !s.type().isBlank(), s.variable());
        }
        assertNull(Setting.ofVariable("HBCAST_NO_SUCH"));
    }

    @Test
    void logLevelsParseAndABadOneIsNamed() {
        assertEquals(Level.WARNING, Log.level(null));
        assertEquals(Level.INFO, Log.level(" Info "));
        assertEquals(Level.OFF, Log.level("off"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Log.level("loud"));
        assertTrue(e.getMessage().contains("HBCAST_LOG_LEVEL='loud'"), e.getMessage());
    }

    @Test
    void theVersionIsTheBuilds() {
        assertTrue(Log.version().matches("[0-9]+\\.[0-9]+\\.[0-9]+.*"), Log.version());
    }
}

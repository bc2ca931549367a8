package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.hbcast.settings.Setting;
import org.junit.jupiter.api.Test;

class InfoTest {
    /** The documentation's table is the registry's: regenerate with scripts/info --markdown > docs/settings.md. */
    @Test
    void docsSettingsTableIsGeneratedFromTheRegistry() throws Exception {
        Path docs = Path.of("..", "docs", "settings.md");
        assertEquals(
                Info.markdown(),
                Files.readString(docs),
                "docs/settings.md is stale: run scripts/info --markdown > docs/settings.md");
    }

    @Test
    void everySettingIsListedWithItsSource() {
        String values = Info.values();
        for (Setting s : Setting.values()) {
            assertTrue(values.contains(s.variable()), s.variable());
        }
    }
}

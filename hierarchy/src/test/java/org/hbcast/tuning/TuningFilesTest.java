package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TuningFilesTest {
    private static final Fingerprint FP = TuningFixtures.fingerprint(TuningFixtures.TWO_BY_TWO);

    @Test
    void placesAreNamedByFingerprintAndHardwareUnderTheCache() {
        Map<String, String> env = Map.of("XDG_CACHE_HOME", "/x/cache");
        assertEquals(Path.of("/x/cache/hbcast/tuning-" + FP.id() + ".json"), TuningFiles.defaultTable(env, FP));
        assertEquals(
                Path.of("/x/cache/hbcast/calibration-" + FP.hardwareId() + ".json"),
                TuningFiles.defaultCalibration(env, FP));
        assertEquals(
                Path.of(System.getProperty("user.home"), ".cache", "hbcast"), TuningFiles.cacheDirectory(Map.of()));
    }

    @Test
    void theCalibrationVariableWinsOverTheCachePlaceUnlessBlank() {
        Map<String, String> named =
                Map.of("XDG_CACHE_HOME", "/x/cache", TuningFiles.CALIBRATION_FILE_VARIABLE, "/y/cal.json");
        assertEquals(Path.of("/y/cal.json"), TuningFiles.calibration(named, FP));
        Map<String, String> blank = Map.of("XDG_CACHE_HOME", "/x/cache", TuningFiles.CALIBRATION_FILE_VARIABLE, " ");
        assertEquals(TuningFiles.defaultCalibration(blank, FP), TuningFiles.calibration(blank, FP));
        assertEquals(TuningFiles.defaultCalibration(Map.of(), FP), TuningFiles.calibration(Map.of(), FP));
    }
}

package org.hbcast.tuning;

import java.nio.file.Path;
import java.util.Map;

/**
 * Default places of tuning tables and calibrations: {@code $HBCAST_CACHE_DIR}, else
 * {@code $XDG_CACHE_HOME/hbcast}, else {@code ~/.cache/hbcast}, named by fingerprint id ({@code tuning-<id>.json}) and hardware id
 * ({@code calibration-<hardware id>.json}).
 */
public final class TuningFiles {
    /** Names the calibration file in place of the cache place. */
    public static final String CALIBRATION_FILE_VARIABLE = "HBCAST_CALIBRATION_FILE";

    private TuningFiles() {}

    /** Names the cache directory itself (a benchmark points it at an empty one: a fresh machine). */
    public static final String CACHE_DIRECTORY_VARIABLE = "HBCAST_CACHE_DIR";

    public static Path cacheDirectory(Map<String, String> env) {
        String own = env.get(CACHE_DIRECTORY_VARIABLE);
        if (own != null && !own.isBlank()) {
            return Path.of(own);
        }
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "hbcast");
        }
        return Path.of(System.getProperty("user.home"), ".cache", "hbcast");
    }

    public static Path defaultTable(Map<String, String> env, Fingerprint fingerprint) {
        return cacheDirectory(env).resolve("tuning-" + fingerprint.id() + ".json");
    }

    /** How the names of the learnt plans' files begin: {@code learnt-<fingerprint id>.json}. */
    public static final String LEARNT_PREFIX = "learnt-";

    /** Where {@code auto} keeps what it learnt in runs on {@code fingerprint} (see {@link LearntPlans}). */
    public static Path learnt(Map<String, String> env, Fingerprint fingerprint) {
        return learnt(env, fingerprint.id());
    }

    /** The learnt plans' file of the fingerprint whose id is {@code fingerprintId}. */
    public static Path learnt(Map<String, String> env, String fingerprintId) {
        return cacheDirectory(env).resolve(LEARNT_PREFIX + fingerprintId + ".json");
    }

    public static Path defaultCalibration(Map<String, String> env, Fingerprint fingerprint) {
        return cacheDirectory(env).resolve("calibration-" + fingerprint.hardwareId() + ".json");
    }

    /**
     * The calibration the cost model reads: {@code HBCAST_CALIBRATION_FILE} when set, else the cache
     * place; also where a calibration is written by default, so that the next broadcast reads it.
     */
    public static Path calibration(Map<String, String> env, Fingerprint fingerprint) {
        String file = env.get(CALIBRATION_FILE_VARIABLE);
        return file != null && !file.isBlank() ? Path.of(file) : defaultCalibration(env, fingerprint);
    }
}

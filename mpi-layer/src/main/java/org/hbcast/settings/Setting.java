package org.hbcast.settings;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Every setting of hbcast, declared once: its environment variable, the system property that does the
 * same ({@code HBCAST_CHUNK_BYTES} and {@code -Dhbcast.chunk.bytes}), its type, unit, default and
 * meaning. The library reads settings only through {@link #environment()}; the settings table
 * (docs/settings.md) and {@code org.hbcast.bench.Info} are generated from this list.
 *
 * <p>A system property wins over the environment variable of the same setting: it is the more local
 * of the two (one JVM's command line against a whole job's environment). Settings that shape calls
 * are agreed at create over the communicator, rank 0's applying (see docs/reliability.md).
 */
public enum Setting {
    ALGORITHM("text", "", "auto", "which algorithm runs: auto, native (Open MPI's bcast), knomial, hierarchical"),
    CHUNK_BYTES(
            "whole number",
            "bytes",
            "0",
            "chunk (segment) size, a multiple of 64 up to 16 MiB; 0 lets the selector choose"),
    RADIX("whole number", "", "0", "k-nomial radix among node leaders, 2 to 64; 0 lets the selector choose"),
    INTER("text", "", "auto", "the schedule among node leaders: auto, knomial, chain, two-tree"),
    INTRA("text", "", "auto", "how chunks move inside a node: auto, ring, fanout"),
    NODE_SIZES("list", "ranks", "", "virtual node sizes like 8,3,3, so one host plays a cluster; empty: real nodes"),
    RING_SLOTS("whole number", "slots", "8", "slots per link of the node's ring (1 to 64)"),
    COUNTS(
            "text",
            "",
            "root",
            "the count that governs when ranks pass different ones: root (Open MPI's), equal, trusted"),
    CHECK("flag", "", "0", "1: an older name for HBCAST_COUNTS=equal"),
    TRIALS("flag", "", "1", "auto times its candidate plans on a size's first calls and keeps the fastest"),
    TRIALS_LOG("0, 1 or 2", "", "0", "rank 0 prints the trials' verdicts (1) and every block's time (2)"),
    BREAKDOWN(
            "flag",
            "",
            "0",
            "1: every rank prints at close where its host calls' time went, by size (header, plan stages, trials)"),
    TIMEOUT_S("decimal", "s", "60", "a wait without progress this long is reported on stderr, and waited on"),
    TIMEOUT_FAILS("flag", "", "0", "1: a call that waits longer than HBCAST_TIMEOUT_S fails (not MPI's semantics)"),
    TUNING_FILE("path", "", "", "a measured tuning table, or none; empty: the cache's table for this machine"),
    CALIBRATION_FILE("path", "", "", "the cost model's calibration; empty: the cache's for this hardware"),
    CACHE_DIR(
            "path",
            "",
            "",
            "where tables, calibrations and learnt plans live; empty: $XDG_CACHE_HOME/hbcast or ~/.cache/hbcast"),
    WAIT_YIELDS(
            "whole number",
            "yields",
            "",
            "yields before a waiting rank parks, for experiments; empty: by cores and ranks"),
    LOG_LEVEL("text", "", "warning", "off, error, warning, info (a line per communicator at create), debug"),
    AGENT_REPORT("flag", "", "0", "1: the Java agent prints how many calls it redirected, at MPI.Finalize");

    private final String variable;
    private final String property;
    private final String type;
    private final String unit;
    private final String defaultValue;
    private final String meaning;

    Setting(String type, String unit, String defaultValue, String meaning) {
        this.variable = "HBCAST_" + name();
        this.property = "hbcast." + name().toLowerCase(Locale.ROOT).replace('_', '.');
        this.type = type;
        this.unit = unit;
        this.defaultValue = defaultValue;
        this.meaning = meaning;
    }

    /** Where a setting's value came from. */
    public enum Source {
        PROPERTY,
        ENVIRONMENT,
        DEFAULT
    }

    /** The environment variable, {@code HBCAST_CHUNK_BYTES}. */
    public String variable() {
        return variable;
    }

    /** The system property, {@code hbcast.chunk.bytes}. */
    public String property() {
        return property;
    }

    public String type() {
        return type;
    }

    /** The unit, empty where there is none. */
    public String unit() {
        return unit;
    }

    /** The default as text; empty where the default is worked out (see {@link #meaning()}). */
    public String defaultValue() {
        return defaultValue;
    }

    public String meaning() {
        return meaning;
    }

    /** This process's value: the system property, else the environment variable, else null. */
    public String value() {
        return value(System.getProperties().getProperty(property), System.getenv(variable));
    }

    /** Where {@link #value()} comes from. */
    public Source source() {
        String p = System.getProperty(property);
        if (p != null && !p.isBlank()) {
            return Source.PROPERTY;
        }
        String e = System.getenv(variable);
        return e != null && !e.isBlank() ? Source.ENVIRONMENT : Source.DEFAULT;
    }

    /** How the value was given, for messages: {@code -Dhbcast.chunk.bytes} or {@code HBCAST_CHUNK_BYTES}. */
    public String named() {
        return source() == Source.PROPERTY ? "-D" + property : variable;
    }

    private static String value(String property, String variable) {
        return property != null && !property.isBlank() ? property : variable;
    }

    /**
     * The process's environment with every setting given as a system property laid over it under
     * its variable's name: what the library reads its settings from.
     */
    public static Map<String, String> environment() {
        return environment(System.getenv(), System.getProperties());
    }

    /** {@link #environment()} over a given environment and properties, for tests. */
    public static Map<String, String> environment(Map<String, String> env, java.util.Properties properties) {
        Map<String, String> merged = new HashMap<>(env);
        for (Setting s : values()) {
            String p = properties.getProperty(s.property);
            if (p != null && !p.isBlank()) {
                merged.put(s.variable, p);
            }
        }
        return merged;
    }

    /** The setting whose variable is {@code variable}, or null. */
    public static Setting ofVariable(String variable) {
        for (Setting s : values()) {
            if (s.variable.equals(variable)) {
                return s;
            }
        }
        return null;
    }
}

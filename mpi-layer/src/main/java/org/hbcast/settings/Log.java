package org.hbcast.settings;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * hbcast's log: the JDK's own {@link System.Logger} (named {@code org.hbcast}, so a program's logging
 * backend takes it like any other), filtered first by {@code HBCAST_LOG_LEVEL}: {@code off},
 * {@code error}, {@code warning} (the default), {@code info} (one line per communicator at create),
 * {@code debug}. Messages are built only when their level is on.
 */
public final class Log {
    /** A bad level is reported by create (BcastOptions checks it); until then the default holds. */
    private static final Level LEVEL = levelOrDefault(Setting.LOG_LEVEL.value());

    /**
     * The JDK's logger, made at the first message: finding it starts the JDK's logging (its
     * LoggerFinder, java.util.logging's LogManager and configuration), about 50 ms of a cold JVM's
     * CPU, which a first {@code create} that logs nothing would otherwise pay on every rank.
     */
    private static final class Backend {
        static final Logger LOGGER = System.getLogger("org.hbcast");
    }

    /** The version, read from the jar at its first use, like the logger. */
    private static final class Built {
        static final String VERSION = readVersion();
    }

    private Log() {}

    /** hbcast's version, as built. */
    public static String version() {
        return Built.VERSION;
    }

    public static boolean isOn(Level level) {
        return LEVEL != Level.OFF && level.getSeverity() >= LEVEL.getSeverity();
    }

    public static void info(Supplier<String> message) {
        log(Level.INFO, message);
    }

    public static void warning(Supplier<String> message) {
        log(Level.WARNING, message);
    }

    private static void log(Level level, Supplier<String> message) {
        if (isOn(level)) {
            Backend.LOGGER.log(level, message.get());
        }
    }

    /**
     * The level {@code text} names; unset means {@code warning}.
     *
     * @throws IllegalArgumentException naming the setting and the levels when {@code text} is none of them
     */
    public static Level level(String text) {
        if (text == null || text.isBlank()) {
            return Level.WARNING;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "off" -> Level.OFF;
            case "error" -> Level.ERROR;
            case "warning", "warn" -> Level.WARNING;
            case "info" -> Level.INFO;
            case "debug" -> Level.DEBUG;
            default ->
                throw new IllegalArgumentException(
                        Setting.LOG_LEVEL.named() + "='" + text + "' is not one of off, error, warning, info, debug");
        };
    }

    private static Level levelOrDefault(String text) {
        try {
            return level(text);
        } catch (IllegalArgumentException e) {
            return Level.WARNING;
        }
    }

    private static String readVersion() {
        try (InputStream in = Log.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}

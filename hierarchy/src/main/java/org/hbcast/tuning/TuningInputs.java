package org.hbcast.tuning;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.hbcast.plan.MemoryKind;

/**
 * What the selector chooses from, besides the options and the layout: the fingerprint, the tuning
 * table when a valid one exists for it, the link calibration (measured or built-in), where each came
 * from and the warnings met on the way. Made from file contents, so every rank that is given the
 * same bytes makes the same inputs.
 *
 * @param tableFile the table file looked at (asked for or the default place), or null
 * @param calibrationSource where the calibration comes from, for reasons and reports
 * @param learnt what earlier runs on this fingerprint learnt in the run, or null
 * @param learntFile where such records are kept for this fingerprint, or null where none are
 * @param usableCores the fewest cores any rank may run on (its affinity), agreed at create; 0 where
 *        not known. Unlike the fingerprint's count of the host's cores, it sees a host's ranks held
 *        to some of them (a test bed's hosts on cores of their own, a batch system's cpuset)
 */
public record TuningInputs(
        Fingerprint fingerprint,
        TuningTable table,
        Path tableFile,
        Calibration calibration,
        String calibrationSource,
        List<String> warnings,
        LearntPlans learnt,
        Path learntFile,
        int usableCores) {
    public TuningInputs {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(calibration, "calibration");
        warnings = List.copyOf(warnings);
    }

    /** Inputs that neither read nor keep what runs learnt. */
    public TuningInputs(
            Fingerprint fingerprint,
            TuningTable table,
            Path tableFile,
            Calibration calibration,
            String calibrationSource,
            List<String> warnings) {
        this(fingerprint, table, tableFile, calibration, calibrationSource, warnings, null, null, 0);
    }

    /** These inputs with what earlier runs learnt ({@code content} of {@code file}, null when it does not exist). */
    public TuningInputs withLearnt(Path file, byte[] content) {
        if (file == null || content == null) {
            return withLearnt(file, null, null);
        }
        TuningTableLoader.Loaded<LearntPlans> loaded = TuningTableLoader.learnt(file, content, fingerprint.id());
        return withLearnt(file, loaded.value(), loaded.warning());
    }

    /**
     * These inputs with what earlier runs learnt, read and checked already ({@code learnt} null where
     * {@code file} held nothing usable), and the warning of reading it, if any.
     */
    public TuningInputs withLearnt(Path file, LearntPlans learnt, String warning) {
        List<String> all = new ArrayList<>(warnings);
        if (warning != null) {
            all.add(warning);
        }
        return new TuningInputs(
                fingerprint, table, tableFile, calibration, calibrationSource, all, learnt, file, usableCores);
    }

    /**
     * These inputs with {@code link} in place of the calibration's figures of its kind;
     * {@code how} says where it came from, for reasons and reports.
     */
    public TuningInputs withLink(LinkCalibration link, String how) {
        return new TuningInputs(
                fingerprint,
                table,
                tableFile,
                calibration.withLink(link),
                calibrationSource + "; " + how,
                warnings,
                learnt,
                learntFile,
                usableCores);
    }

    /** These inputs with {@code cores} as {@link #usableCores}. */
    public TuningInputs withUsableCores(int cores) {
        return new TuningInputs(
                fingerprint, table, tableFile, calibration, calibrationSource, warnings, learnt, learntFile, cores);
    }

    /**
     * Inputs from file contents.
     *
     * @param tableFile the table's path, or null for none
     * @param tableBytes its content, or null when it does not exist
     * @param tableRequested whether the user named the table (a missing one is then a warning)
     * @param calibrationFile the calibration's path, or null
     * @param calibrationBytes its content, or null when it does not exist
     * @param readWarnings warnings from reading the files
     */
    public static TuningInputs fromFiles(
            Fingerprint fingerprint,
            Path tableFile,
            byte[] tableBytes,
            boolean tableRequested,
            Path calibrationFile,
            byte[] calibrationBytes,
            List<String> readWarnings) {
        List<String> warnings = new ArrayList<>(readWarnings);
        TuningTable table = null;
        if (tableFile != null && tableBytes != null) {
            TuningTableLoader.Loaded<TuningTable> t =
                    TuningTableLoader.table(tableFile, tableBytes, fingerprint, MemoryKind.HOST);
            table = t.value();
            if (t.warning() != null) {
                warnings.add(t.warning());
            }
        } else if (tableFile != null && tableRequested) {
            warnings.add("hbcast: warning: tuning table " + tableFile
                    + " does not exist; choosing from the cost model instead");
        }
        Calibration calibration = null;
        String source = null;
        if (calibrationFile != null && calibrationBytes != null) {
            TuningTableLoader.Loaded<Calibration> c =
                    TuningTableLoader.calibration(calibrationFile, calibrationBytes, fingerprint.hardware());
            calibration = c.value();
            source = "calibration " + calibrationFile + (calibration != null ? " of " + calibration.created() : "");
            if (c.warning() != null) {
                warnings.add(c.warning());
            }
        }
        if (calibration == null && table != null && table.calibration() != null) {
            calibration = table.calibration();
            source = "the calibration inside " + tableFile + " of " + calibration.created();
        }
        if (calibration == null) {
            calibration = Calibration.builtIn();
            source =
                    "built-in link figures" + (calibrationFile != null ? "; no calibration at " + calibrationFile : "");
        }
        return new TuningInputs(fingerprint, table, tableFile, calibration, source, warnings);
    }
}

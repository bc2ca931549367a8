package org.hbcast.tuning;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.hbcast.plan.MemoryKind;

/**
 * What {@code auto} learnt in a run by timing its candidate plans against each other (JSON, one file
 * per fingerprint in the cache directory, under the default options only): per memory kind and size
 * class, the option every rank agreed was fastest. Host and device calls of one size are separate
 * verdicts: a device call's options (staging through the host among them) are not a host call's. The next run on the same fingerprint starts from it: it replaces the
 * model's choice as the class's incumbent (its first calls run it, and the trials must beat it by
 * their margin). Written by rank 0 when an instance closes.
 *
 * @param formatVersion {@link #FORMAT_VERSION}
 * @param fingerprintId {@link Fingerprint#id()} of the run that learnt it
 * @param created when (ISO-8601)
 * @param verdicts one per decided memory kind and size class: host ones, then device ones, classes
 *        ascending within each
 */
public record LearntPlans(int formatVersion, String fingerprintId, String created, List<Verdict> verdicts) {
    /** Version 2 adds each verdict's memory kind. */
    public static final int FORMAT_VERSION = 2;
    /** The oldest version read: version 1 held host verdicts only, read as such. */
    static final int OLDEST_READ_VERSION = 1;

    public LearntPlans {
        verdicts = verdicts == null ? null : List.copyOf(verdicts);
    }

    /**
     * @param sizeClass messages of {@code (2^(sizeClass-1), 2^sizeClass]} bytes
     * @param memory the memory kind of the calls it decided ({@code HOST} where a version 1 record
     *        names none)
     * @param choice {@code inline} (the message rides in its header) or a plan's label, such as
     *        {@code hierarchical/fanout} (see {@code Explanation.name})
     * @param seconds the slowest rank's fastest block (4 calls in a row) of the choice when it was decided
     */
    public record Verdict(int sizeClass, MemoryKind memory, String choice, double seconds) {
        public Verdict {
            memory = memory == null ? MemoryKind.HOST : memory;
        }
    }

    /** Why these verdicts cannot serve {@code fingerprintId}, or null when they can. */
    public String problem(String expectedFingerprintId) {
        if (formatVersion < OLDEST_READ_VERSION || formatVersion > FORMAT_VERSION) {
            return "format version " + formatVersion + ", this library reads " + OLDEST_READ_VERSION + " to "
                    + FORMAT_VERSION;
        }
        if (!expectedFingerprintId.equals(fingerprintId)) {
            return "learnt on fingerprint " + fingerprintId + ", this run is " + expectedFingerprintId;
        }
        if (verdicts == null) {
            return "no verdicts";
        }
        for (Verdict v : verdicts) {
            if (v == null || v.sizeClass() < 0 || v.sizeClass() > 63 || v.choice() == null || !(v.seconds() >= 0)) {
                return "a verdict is incomplete or out of range: " + v;
            }
            if (formatVersion == OLDEST_READ_VERSION && v.memory() != MemoryKind.HOST) {
                return "a version " + OLDEST_READ_VERSION + " record holds host verdicts only: " + v;
            }
        }
        for (int i = 0; i < verdicts.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (verdicts.get(i).sizeClass() == verdicts.get(j).sizeClass()
                        && verdicts.get(i).memory() == verdicts.get(j).memory()) {
                    return "two verdicts for " + verdicts.get(i).memory() + " size class "
                            + verdicts.get(i).sizeClass();
                }
            }
        }
        return null;
    }

    /** The verdict on {@code memory} calls of size class {@code c}, or null where none was kept. */
    public Verdict verdict(MemoryKind memory, int c) {
        for (Verdict v : verdicts) {
            if (v.sizeClass() == c && v.memory() == memory) {
                return v;
            }
        }
        return null;
    }

    /** Writes to {@code file} through a temporary file and a rename, so a reader never sees half of it. */
    public void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            TuningJson.mapper().writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), this);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}

package org.hbcast.select;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hbcast.tuning.LearntPlans;

/**
 * What this JVM's trials at {@code create} learnt and no instance has written yet, by learnt file:
 * rank 0 reads it at a later create in place of the file ({@link TuningAgreement}), and the instance
 * writes it at close ({@link InRunSelection#keepLearnt}). Writing at create cost rank 0 about 0.4 s
 * on the 2-host bed (the JSON library's first use in the JVM, while the other ranks waited for it at
 * the next collective); at close it costs the program nothing.
 */
final class UnwrittenLearnt {
    private static final Map<Path, LearntPlans> BY_FILE = new ConcurrentHashMap<>();

    private UnwrittenLearnt() {}

    static void keep(Path file, LearntPlans learnt) {
        BY_FILE.put(file.toAbsolutePath(), learnt);
    }

    /** What is kept for {@code file}, or null. */
    static LearntPlans of(Path file) {
        return file == null ? null : BY_FILE.get(file.toAbsolutePath());
    }

    /** Forgets {@code file}'s entry once written: a later create reads the file, which holds it and more. */
    static void written(Path file) {
        BY_FILE.remove(file.toAbsolutePath());
    }
}

package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One mpirun of a comparison, as its plan gives it: what it is for, the program it runs on the
 * layout ({@code [--mca K V ...] MAIN_CLASS [ARGS...]}), where its output goes, and what it needs.
 *
 * @param kind          what the launch is for
 * @param configuration the configuration it runs under
 * @param round         the round of a {@link Kind#ROUND}, 0 otherwise
 * @param title         the progress line printed before it
 * @param program       MCA parameters, main class and arguments, after scripts/hbrun's placement
 * @param output        its output (standard output and error): the log of a selection check, the
 *                      run's {@code .txt} (teed to the terminal) otherwise
 * @param json          the JSON file it writes, deleted when it fails; null for a selection check
 * @param freshCache    a cache directory emptied before it runs and given as {@code HBCAST_CACHE_DIR}
 *                      (a fresh machine: no calibration, no tuning table); null for none
 */
public record Launch(
        Kind kind,
        Configuration configuration,
        int round,
        String title,
        List<String> program,
        Path output,
        Path json,
        Path freshCache) {

    /** What a launch is for. */
    public enum Kind {
        /** {@code --mca coll_base_verbose 10}: does Open MPI select the configuration's component? */
        SELECTION_CHECK,
        /** The link bound between two test-bed hosts (LinkProbe). */
        LINK_PROBE,
        /** One round of OsuBcast under one configuration. */
        ROUND,
        /** The user-style probe (UserProbe) of one configuration beside auto. */
        USER_PROBE
    }

    public Launch {
        program = List.copyOf(program);
    }

    /** The environment the launch needs beyond the command's own. */
    public Map<String, String> environment() {
        return freshCache == null ? Map.of() : Map.of("HBCAST_CACHE_DIR", freshCache.toString());
    }

    /** Whether its output is teed to the terminal as it runs (everything but a selection check). */
    public boolean teed() {
        return kind != Kind.SELECTION_CHECK;
    }
}

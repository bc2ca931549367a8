package org.hbcast.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one MPI launch produced: exit status, merged output, each rank's {@link RankResult} (read
 * from the file it wrote) and leaked segments; and the assertions tests make on them. Every failed
 * assertion says what went wrong on which rank, with the results and the output.
 */
public final class MpiOutcome {
    private final String description;
    private final int ranks;
    private final int exitCode;
    private final boolean timedOut;
    private final String output;
    private final List<String> leakedSegments;
    private final Map<Integer, RankResult> results;
    private final Map<Integer, String> unreadable;
    /** Whether every rank must have declared its cases ({@link RankReport#plan}): launches of a {@link RankBody}. */
    private final boolean plansRequired;

    MpiOutcome(
            String description,
            boolean plansRequired,
            int ranks,
            int exitCode,
            boolean timedOut,
            String output,
            List<String> leakedSegments,
            ResultFiles.Contents contents) {
        this.description = description;
        this.plansRequired = plansRequired;
        this.ranks = ranks;
        this.exitCode = exitCode;
        this.timedOut = timedOut;
        this.output = output;
        this.leakedSegments = leakedSegments;
        this.results = Collections.unmodifiableMap(new TreeMap<>(contents.results()));
        this.unreadable = Collections.unmodifiableMap(new TreeMap<>(contents.unreadable()));
    }

    public int ranks() {
        return ranks;
    }

    public int exitCode() {
        return exitCode;
    }

    public boolean timedOut() {
        return timedOut;
    }

    public String output() {
        return output;
    }

    /** The results the ranks wrote, by rank; a rank that wrote none (or none readable) is absent. */
    public Map<Integer, RankResult> results() {
        return results;
    }

    /** The result of {@code rank}; fails the test if it wrote none. */
    public RankResult result(int rank) {
        RankResult r = results.get(rank);
        if (r == null) {
            fail(describe(missing(rank)));
        }
        return r;
    }

    /** Figure {@code name} of {@code rank}; fails the test if the rank reported no such figure. */
    public double figure(int rank, String name) {
        Number n = result(rank).figures().get(name);
        if (n == null) {
            fail(describe("rank " + rank + " reported no figure '" + name + "'"));
        }
        return n.doubleValue();
    }

    /** Whole-number figure {@code name} of {@code rank}; fails the test if there is none, or it is not whole. */
    public long longFigure(int rank, String name) {
        Number n = result(rank).figures().get(name);
        if (!(n instanceof Long l)) {
            fail(describe("rank " + rank + " reported "
                    + (n == null
                            ? "no figure '" + name + "'"
                            : "figure '" + name + "' = " + n + ", not a whole number")));
            return 0;
        }
        return l;
    }

    /** Note {@code name} of {@code rank}; fails the test if the rank reported no such note. */
    public String note(int rank, String name) {
        String s = result(rank).notes().get(name);
        if (s == null) {
            fail(describe("rank " + rank + " reported no note '" + name + "'"));
        }
        return s;
    }

    /**
     * The one failure of {@code rank}, for tests that expect a rank to fail in one way; fails the
     * test if the rank reported none or several.
     */
    public RankResult.Failure onlyFailure(int rank) {
        List<RankResult.Failure> failures = result(rank).failures();
        if (failures.size() != 1) {
            fail(describe("rank " + rank + " reported " + failures.size() + " failures, expected one: " + failures));
        }
        return failures.get(0);
    }

    public List<String> leakedSegments() {
        return leakedSegments;
    }

    /**
     * Fails unless the job exited 0 in time, every rank wrote its result, ran at least one case,
     * exactly the cases it planned ({@link RankReport#plan}; a launch of a {@link RankBody} must plan)
     * and reported no failure, and no segment was left behind. Lists every problem, failures first.
     */
    public MpiOutcome assertAllRanksOk() {
        List<String> failed = new ArrayList<>();
        List<String> other = new ArrayList<>();
        if (timedOut) {
            other.add("timed out");
        }
        for (int r = 0; r < ranks; r++) {
            RankResult result = results.get(r);
            if (result == null) {
                other.add(missing(r));
                continue;
            }
            for (RankResult.Failure f : result.failures()) {
                failed.add("rank " + r + " failed " + f);
            }
            if (!result.completed() && result.failures().isEmpty()) {
                failed.add("rank " + r + " did not complete");
            }
            if (result.cases() == 0) {
                other.add("rank " + r + " ran no case");
            }
            String plan = planProblem(result);
            if (plan != null) {
                other.add(plan);
            }
        }
        if (exitCode != 0 && !timedOut) {
            other.add("exit status " + exitCode);
        }
        failed.addAll(other);
        if (!failed.isEmpty()) {
            fail(describe(String.join("\n", failed)));
        }
        assertNoLeakedSegments();
        return this;
    }

    /**
     * Why {@code result}'s cases differ from its plan ({@link RankReport#plan}); null where they do
     * not, or the rank declared none and none was required.
     */
    private String planProblem(RankResult result) {
        Number planned = result.figures().get(RankReport.PLANNED);
        if (planned == null) {
            return plansRequired ? "rank " + result.rank() + " declared no cases (Ranks.plan)" : null;
        }
        if (planned.longValue() != result.cases()) {
            return "rank " + result.rank() + " ran " + result.cases() + " cases, planned " + planned;
        }
        return null;
    }

    /** Fails unless {@code rank} ran the cases it declared ({@link RankReport#plan}): for ranks a test expects to fail. */
    public MpiOutcome assertPlannedCases(int rank) {
        RankResult result = result(rank);
        if (!result.figures().containsKey(RankReport.PLANNED)) {
            fail(describe("rank " + rank + " declared no cases (Ranks.plan)"));
        }
        String problem = planProblem(result);
        if (problem != null) {
            fail(describe(problem));
        }
        return this;
    }

    /** {@link #assertPlannedCases} for every rank of the launch. */
    public MpiOutcome assertPlannedCasesOnEveryRank() {
        for (int r = 0; r < ranks; r++) {
            assertPlannedCases(r);
        }
        return this;
    }

    /** The cases each rank ran, by rank (-1: no result), for a line in the test's output. */
    public String casesByRank() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < ranks; r++) {
            RankResult result = results.get(r);
            sb.append(r == 0 ? "" : " ").append(result == null ? -1 : result.cases());
        }
        return sb.toString();
    }

    /** Fails unless {@code rank} reported exactly {@code expected} cases. */
    public MpiOutcome assertCases(int rank, int expected) {
        int got = result(rank).cases();
        if (got != expected) {
            fail(describe("rank " + rank + " ran " + got + " cases, expected " + expected));
        }
        return this;
    }

    /** {@link #assertCases} for every rank of the launch. */
    public MpiOutcome assertCasesOnEveryRank(int expected) {
        for (int r = 0; r < ranks; r++) {
            assertCases(r, expected);
        }
        return this;
    }

    /** Fails unless {@code rank} reported at least {@code least} cases. */
    public MpiOutcome assertAtLeastCases(int rank, int least) {
        int got = result(rank).cases();
        if (got < least) {
            fail(describe("rank " + rank + " ran " + got + " cases, expected at least " + least));
        }
        return this;
    }

    public MpiOutcome assertNoLeakedSegments() {
        if (!leakedSegments.isEmpty()) {
            fail(describe("left shared-memory segments behind in /dev/shm: " + leakedSegments));
        }
        return this;
    }

    private String missing(int rank) {
        String why = unreadable.get(rank);
        return why != null
                ? "rank " + rank + " wrote an unreadable result: " + why
                : "rank " + rank + " wrote no result";
    }

    /** A failure message carrying the launch, the ranks' results and the output, so a red test explains itself. */
    public String describe(String problem) {
        StringBuilder sb =
                new StringBuilder(description).append(": ").append(problem).append("\n----- results -----\n");
        for (int r = 0; r < ranks; r++) {
            RankResult result = results.get(r);
            sb.append("rank ")
                    .append(r)
                    .append(": ")
                    .append(result != null ? result.summary() : missing(r))
                    .append('\n');
        }
        String shown = output.length() > 20_000 ? "...\n" + output.substring(output.length() - 20_000) : output;
        return sb.append("----- output -----\n")
                .append(shown)
                .append("\n------------------")
                .toString();
    }
}

package org.hbcast.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a test program's body records on its rank, for the JUnit side to check: every case it runs
 * ({@link #pass}, {@link #fail}, {@link #check}), named figures and notes. {@link MpiTestProgram}
 * hands one to the body and writes it out as a {@link RankResult} when the body ends.
 *
 * <p>A body may record failures and carry on, or throw as before: a throwable that escapes the body
 * becomes one failure (unless {@link #check} recorded it already; outside a case it counts as no
 * case) and the rank aborts the job.
 * Safe to use from several threads.
 */
public final class RankReport {
    /** A case's work: returns if the case holds, throws if not. */
    @FunctionalInterface
    public interface Case {
        void run() throws Exception;
    }

    /** The figure {@link #plan} keeps the declared cases in. */
    public static final String PLANNED = "planned cases";

    private int cases;
    private long planned;
    private String lastPassed;
    private final List<RankResult.Failure> failures = new ArrayList<>();
    private final Map<String, Number> figures = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();
    /** Throwables {@link #check} recorded before passing them on, so the frame does not record them twice. */
    private final Set<Throwable> recorded = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * Declares {@code more} cases this rank will run (added up over calls): the JUnit side checks
     * that the rank ran exactly as many ({@link MpiOutcome#assertAllRanksOk}). Derive the number from
     * what the cases run over (a list's size, loops' bounds), never type it.
     */
    public synchronized RankReport plan(int more) {
        if (more < 0) {
            throw new IllegalArgumentException("cannot plan " + more + " cases");
        }
        planned += more;
        figures.put(PLANNED, planned);
        return this;
    }

    /** One case ran and held. */
    public synchronized RankReport pass(String caseName) {
        cases++;
        lastPassed = name(caseName);
        return this;
    }

    /** One case ran and failed; the body carries on. */
    public synchronized RankReport fail(String caseName, String message) {
        cases++;
        failures.add(new RankResult.Failure(name(caseName), message));
        return this;
    }

    /**
     * Runs one case: passes it if {@code work} returns; if it throws, records the failure under
     * {@code caseName} and throws on, so that the rank stops as a throwing body always has.
     */
    public void check(String caseName, Case work) throws Exception {
        name(caseName);
        try {
            work.run();
        } catch (Throwable t) {
            synchronized (this) {
                fail(caseName, String.valueOf(t));
                recorded.add(t);
            }
            throw t;
        }
        pass(caseName);
    }

    /** A named number for the test to check; a second value under one name replaces the first. */
    public synchronized RankReport figure(String name, long value) {
        figures.put(name(name), value);
        return this;
    }

    /** A named number for the test to check; a second value under one name replaces the first. */
    public synchronized RankReport figure(String name, double value) {
        figures.put(name(name), value);
        return this;
    }

    /** A named text for the test to check, e.g. the message of an error a case expected. */
    public synchronized RankReport note(String name, String text) {
        notes.put(name(name), String.valueOf(text));
        return this;
    }

    /** Cases recorded so far, passed or failed. */
    public synchronized int cases() {
        return cases;
    }

    /**
     * The frame's record of a throwable that escaped the body: one failure, named after the last
     * case that passed and not counted as a case, unless {@link #check} recorded it (or a throwable
     * it caused) already.
     */
    synchronized void uncaught(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (recorded.contains(c)) {
                return;
            }
        }
        failures.add(new RankResult.Failure(
                lastPassed == null ? "(before the first case)" : "(after case '" + lastPassed + "')",
                String.valueOf(t)));
    }

    /** What was recorded, as rank {@code rank}'s result. */
    public synchronized RankResult result(int rank, boolean completed) {
        return new RankResult(rank, completed, cases, failures, figures, notes);
    }

    private static String name(String name) {
        if (Objects.requireNonNull(name, "a case, figure or note needs a name").isEmpty()) {
            throw new IllegalArgumentException("a case, figure or note needs a name");
        }
        return name;
    }
}

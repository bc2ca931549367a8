package org.hbcast.testing;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import mpi.Intracomm;

/**
 * What a test method run on every rank ({@link OnRanks}, {@link MpiLaunch#body}) is handed: the
 * world communicator, this rank and the job's size, the launch's arguments and the rank's
 * {@link RankReport}. A method first declares the cases it will run ({@link #plan}), from the lists
 * it runs them over; the JUnit side then asserts that every rank ran exactly those.
 */
public final class Ranks {
    /** How MPI is initialised on the ranks. */
    public enum Threads {
        /** {@code MPI.Init}. */
        SINGLE,
        /** {@code MPI.InitThread(THREAD_SERIALIZED)}. */
        SERIALIZED,
        /** {@code MPI.InitThread(THREAD_MULTIPLE)}. */
        MULTIPLE
    }

    /** The argument naming the launch's layout ({@link MpiLaunch#layout}), passed to every rank. */
    static final String LAYOUT_ARG = "layout";

    private final Intracomm world;
    private final int rank;
    private final int size;
    private final RankReport report;
    private final Map<String, String> args;

    Ranks(Intracomm world, RankReport report, Map<String, String> args) throws Exception {
        this.world = world;
        this.rank = world.getRank();
        this.size = world.getSize();
        this.report = report;
        this.args = Collections.unmodifiableMap(new LinkedHashMap<>(args));
    }

    public Intracomm world() {
        return world;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public RankReport report() {
        return report;
    }

    /** The layout the launch ran on, as {@link MpiLaunch#layout} takes it ("4", "2,2", "bed 2x2"). */
    public String layout() {
        return args.getOrDefault(LAYOUT_ARG, "");
    }

    /** Argument {@code name} ({@code name=value} in {@link OnRanks#args} or {@link MpiLaunch#args}), or {@code otherwise}. */
    public String arg(String name, String otherwise) {
        return args.getOrDefault(name, otherwise);
    }

    public int intArg(String name, int otherwise) {
        String v = args.get(name);
        return v == null ? otherwise : Integer.parseInt(v);
    }

    public Map<String, String> args() {
        return args;
    }

    /** Declares {@code cases} more cases this rank will run ({@link RankReport#plan}). */
    public Ranks plan(int cases) {
        report.plan(cases);
        return this;
    }

    /** A case of {@link #checkAll}: its name and its work. */
    public record Named(String name, RankReport.Case work) {}

    public static Named named(String name, RankReport.Case work) {
        return new Named(name, work);
    }

    /** Plans {@code cases}, then checks them in order: cases from a list, counted by the list. */
    public void checkAll(java.util.List<Named> cases) throws Exception {
        checkAll(report, cases);
    }

    /** {@link #checkAll(java.util.List)} into {@code report}, for code that holds the report only. */
    public static void checkAll(RankReport report, java.util.List<Named> cases) throws Exception {
        report.plan(cases.size());
        for (Named c : cases) {
            report.check(c.name(), c.work());
        }
    }

    /** {@link RankReport#check}. */
    public void check(String caseName, RankReport.Case work) throws Exception {
        report.check(caseName, work);
    }

    public Ranks pass(String caseName) {
        report.pass(caseName);
        return this;
    }

    public Ranks figure(String name, long value) {
        report.figure(name, value);
        return this;
    }

    public Ranks figure(String name, double value) {
        report.figure(name, value);
        return this;
    }

    public Ranks note(String name, String text) {
        report.note(name, text);
        return this;
    }

    /** {@code key=value} words as a map; a word without '=' is an error. */
    static Map<String, String> parse(String[] words, int from) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = from; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got '" + words[i] + "'");
            }
            m.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        return m;
    }
}

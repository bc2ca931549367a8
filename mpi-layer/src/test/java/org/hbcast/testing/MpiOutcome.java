package org.hbcast.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What one MPI launch produced: exit status, merged output, each rank's verdict, leaked segments. */
public final class MpiOutcome {
    private static final Pattern VERDICT_LINE =
            Pattern.compile("^" + MpiTestProgram.VERDICT + " (\\d+) (OK|FAIL) ?(.*)$", Pattern.MULTILINE);

    /** One rank's verdict line. */
    public record Verdict(int rank, boolean ok, String detail) {
    }

    private final String description;
    private final int ranks;
    private final int exitCode;
    private final boolean timedOut;
    private final String output;
    private final List<String> leakedSegments;
    private final Map<Integer, Verdict> verdicts = new TreeMap<>();

    MpiOutcome(String description, int ranks, int exitCode, boolean timedOut, String output,
               List<String> leakedSegments) {
        this.description = description;
        this.ranks = ranks;
        this.exitCode = exitCode;
        this.timedOut = timedOut;
        this.output = output;
        this.leakedSegments = leakedSegments;
        Matcher m = VERDICT_LINE.matcher(output);
        while (m.find()) {
            int rank = Integer.parseInt(m.group(1));
            verdicts.put(rank, new Verdict(rank, m.group(2).equals("OK"), m.group(3).trim()));
        }
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

    public Map<Integer, Verdict> verdicts() {
        return verdicts;
    }

    public Verdict verdict(int rank) {
        Verdict v = verdicts.get(rank);
        if (v == null) {
            fail(describe("rank " + rank + " printed no verdict"));
        }
        return v;
    }

    public List<String> leakedSegments() {
        return leakedSegments;
    }

    /** Fails unless the job exited 0 in time, every rank said OK and no segment was left behind. */
    public MpiOutcome assertAllRanksOk() {
        if (timedOut) {
            fail(describe("timed out"));
        }
        for (int r = 0; r < ranks; r++) {
            Verdict v = verdicts.get(r);
            if (v == null) {
                fail(describe("rank " + r + " printed no verdict"));
            }
            if (!v.ok()) {
                fail(describe("rank " + r + " failed: " + v.detail()));
            }
        }
        if (exitCode != 0) {
            fail(describe("exit status " + exitCode));
        }
        assertNoLeakedSegments();
        return this;
    }

    public MpiOutcome assertNoLeakedSegments() {
        if (!leakedSegments.isEmpty()) {
            fail(describe("left shared-memory segments behind in /dev/shm: " + leakedSegments));
        }
        return this;
    }

    /** A failure message carrying the launch and its output, so a red test explains itself. */
    public String describe(String problem) {
        String shown = output.length() > 20_000 ? "...\n" + output.substring(output.length() - 20_000) : output;
        return description + ": " + problem + "\n----- output -----\n" + shown + "\n------------------";
    }
}

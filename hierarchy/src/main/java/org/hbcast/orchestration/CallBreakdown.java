package org.hbcast.orchestration;

import java.io.PrintStream;
import java.util.Locale;
import org.hbcast.settings.Setting;

/**
 * Where this rank's host calls spend their time, by size (powers of two): the header, the copies
 * of an array message, the plan (Open MPI's bcast, or the leaders' tree and the node's stage, each
 * as the time from the plan's start until it finished) and the trials' timing and agreement.
 * Off unless {@code HBCAST_BREAKDOWN=1} at create; when on, one clock read per phase and call into arrays
 * made at create, and every rank prints its table at close ({@link #print}).
 *
 * <p>The phases add up to the call: {@code header + copies + plan + trials = total}. The tree and
 * node columns are moments inside the plan, so they overlap (both pipelines run together).
 */
final class CallBreakdown {
    /** Whether an instance made now breaks its calls down: {@code HBCAST_BREAKDOWN=1} (read at create). */
    static boolean on() {
        return "1".equals(Setting.BREAKDOWN.value());
    }

    /** Phases of a call, laps of one clock: each ends where the next begins. */
    static final int HEADER = 0;

    static final int COPY_IN = 1;
    static final int PLAN = 2;
    static final int COPY_OUT = 3;
    static final int TRIALS = 4;
    /** Moments inside {@link #PLAN}, from its start: the leaders' tree done, the node's stage done. */
    static final int TREE_DONE = 5;

    static final int NODE_DONE = 6;
    private static final int COLUMNS = 7;
    private static final String[] NAMES = {"header", "copy in", "plan", "copy out", "trials", "tree done", "node done"};
    private static final int CLASSES = 64;

    private final long[][] sums = new long[CLASSES][COLUMNS];
    /** Per class, the calls that had each column (a column's mean is over those). */
    private final long[][] counts = new long[CLASSES][COLUMNS];

    private final long[] calls = new long[CLASSES];
    private final long[] inlined = new long[CLASSES];
    private final long[] totals = new long[CLASSES];
    private int sizeClass;
    private long startNs;
    private long lapNs;
    private long planStartNs;

    /** The size class of a call of {@code bytes}: the least {@code c} with {@code bytes <= 2^c}. */
    static int sizeClass(long bytes) {
        return bytes <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(bytes - 1);
    }

    /** A call begins (its size not yet known to receivers: see {@link #size}). */
    void begin() {
        startNs = System.nanoTime();
        lapNs = startNs;
        sizeClass = -1;
    }

    /** The call's size, once known (the root's count). */
    void size(long bytes) {
        sizeClass = sizeClass(bytes);
    }

    /** Phase {@code phase} ends now; the next begins. */
    void lap(int phase) {
        long now = System.nanoTime();
        if (sizeClass >= 0) {
            sums[sizeClass][phase] += now - lapNs;
            counts[sizeClass][phase]++;
        }
        lapNs = now;
        if (phase == COPY_IN) {
            planStartNs = now;
        }
    }

    /** A moment inside the plan ({@link #TREE_DONE}, {@link #NODE_DONE}) at {@code atNs}; ignored when 0. */
    void moment(int column, long atNs) {
        if (atNs != 0 && sizeClass >= 0) {
            sums[sizeClass][column] += atNs - planStartNs;
            counts[sizeClass][column]++;
        }
    }

    /** The call ends; {@code inline} says its bytes rode in the header. */
    void end(boolean inline) {
        if (sizeClass < 0) {
            return;
        }
        calls[sizeClass]++;
        totals[sizeClass] += System.nanoTime() - startNs;
        if (inline) {
            inlined[sizeClass]++;
        }
    }

    /** Forgets every call so far (those of create's warm-up). */
    void reset() {
        for (int c = 0; c < CLASSES; c++) {
            java.util.Arrays.fill(sums[c], 0);
            java.util.Arrays.fill(counts[c], 0);
        }
        java.util.Arrays.fill(calls, 0);
        java.util.Arrays.fill(inlined, 0);
        java.util.Arrays.fill(totals, 0);
    }

    /** Prints one line per size that had calls: mean microseconds a call of each phase. */
    void print(PrintStream out, int rank, String role) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < CLASSES; c++) {
            if (calls[c] == 0) {
                continue;
            }
            sb.append(String.format(
                    Locale.ROOT,
                    "hbcast breakdown: rank %d (%s) size <= %d B, %d calls (%d inline), us a call: total %.1f",
                    rank,
                    role,
                    1L << c,
                    calls[c],
                    inlined[c],
                    totals[c] / 1e3 / calls[c]));
            for (int k = 0; k < COLUMNS; k++) {
                if (counts[c][k] > 0) {
                    sb.append(String.format(Locale.ROOT, ", %s %.1f", NAMES[k], sums[c][k] / 1e3 / counts[c][k]));
                    if (counts[c][k] != calls[c]) {
                        sb.append(" (").append(counts[c][k]).append(" calls)");
                    }
                }
            }
            sb.append('\n');
        }
        out.print(sb);
        out.flush();
    }
}

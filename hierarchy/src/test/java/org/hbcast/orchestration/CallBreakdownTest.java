package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The breakdown's arithmetic: size classes, which calls count in which column, the printed table. */
class CallBreakdownTest {
    @Test
    void sizeClassIsTheLeastPowerOfTwoThatHoldsTheCall() {
        assertEquals(0, CallBreakdown.sizeClass(0));
        assertEquals(0, CallBreakdown.sizeClass(1));
        for (int c = 1; c < 63; c++) {
            long p = 1L << c;
            assertEquals(c, CallBreakdown.sizeClass(p), "2^" + c);
            assertEquals(c, CallBreakdown.sizeClass((p >> 1) + 1), "2^" + (c - 1) + " + 1");
            assertEquals(c + 1, CallBreakdown.sizeClass(p + 1), "2^" + c + " + 1");
        }
    }

    private static String printed(CallBreakdown b) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        b.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), 3, "host 1 position 0");
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** A planned call and an inline one of 64 KiB, a planned call of 100 KiB. */
    private static CallBreakdown threeCalls() {
        CallBreakdown b = new CallBreakdown();
        for (int i = 0; i < 2; i++) {
            b.begin();
            b.size(65536);
            b.lap(CallBreakdown.HEADER);
            if (i == 0) {
                b.lap(CallBreakdown.COPY_IN);
                b.moment(CallBreakdown.TREE_DONE, System.nanoTime());
                b.moment(CallBreakdown.NODE_DONE, 0); // no node stage: not counted
                b.lap(CallBreakdown.PLAN);
                b.lap(CallBreakdown.COPY_OUT);
            }
            b.lap(CallBreakdown.TRIALS);
            b.end(i == 1);
        }
        b.begin();
        b.size(100 << 10);
        b.lap(CallBreakdown.HEADER);
        b.lap(CallBreakdown.COPY_IN);
        b.lap(CallBreakdown.PLAN);
        b.lap(CallBreakdown.COPY_OUT);
        b.lap(CallBreakdown.TRIALS);
        b.end(false);
        return b;
    }

    @Test
    void eachSizeGetsALineWithItsCallsAndTheColumnsTheyHad() {
        String out = printed(threeCalls());
        String[] lines = out.split("\n");
        assertEquals(2, lines.length, out);
        assertTrue(
                lines[0].startsWith("hbcast breakdown: rank 3 (host 1 position 0) size <= 65536 B, 2 calls (1 inline)"),
                lines[0]);
        assertTrue(lines[0].contains(", plan ") && lines[0].contains(" (1 calls)"), lines[0]);
        assertTrue(lines[0].contains(", tree done "), lines[0]);
        assertTrue(!lines[0].contains("node done"), lines[0]);
        assertTrue(
                lines[1].startsWith(
                        "hbcast breakdown: rank 3 (host 1 position 0) size <= 131072 B, 1 calls (0 inline)"),
                lines[1]);
    }

    @Test
    void thePhasesOfACallAddUpToAtMostItsTotal() {
        String line = printed(threeCalls()).split("\n")[1];
        double total = number(line, "total");
        double sum = 0;
        for (String phase : new String[] {"header", "copy in", "plan", "copy out", "trials"}) {
            sum += number(line, phase);
        }
        assertTrue(sum <= total + 0.1, line);
    }

    @Test
    void aCallWhoseSizeNeverBecameKnownIsNotCountedAndResetForgetsAll() {
        CallBreakdown b = threeCalls();
        b.begin();
        b.lap(CallBreakdown.HEADER); // refused before its header: no size
        b.end(false);
        assertEquals(2, printed(b).split("\n").length);
        b.reset();
        assertEquals("", printed(b));
    }

    private static double number(String line, String name) {
        Matcher m = Pattern.compile("[ ,]" + name + " ([0-9.]+)").matcher(line);
        assertTrue(m.find(), name + " in " + line);
        return Double.parseDouble(m.group(1));
    }
}

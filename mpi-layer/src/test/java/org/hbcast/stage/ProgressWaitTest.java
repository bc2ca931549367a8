package org.hbcast.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ProgressWaitTest {

    @Test
    void yieldsLongWhereEveryRankHasACoreAndParksSoonWhereRanksOutnumberThem() {
        for (int cores = 1; cores <= 64; cores++) {
            for (int ranks = 1; ranks <= 128; ranks++) {
                int expected = ranks <= cores ? 2000 : 20; // the figures the H100 runs measured
                assertEquals(
                        expected, ProgressWait.yieldsBeforePark(ranks, cores), ranks + " ranks on " + cores + " cores");
            }
        }
    }
}

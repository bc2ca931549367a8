package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.TuningFixtures;
import org.hbcast.tuning.TuningInputs;
import org.hbcast.tuning.TuningJson;
import org.junit.jupiter.api.Test;

/**
 * Mutates a valid tuning table thousands of times (digit changes, byte flips, truncations): the
 * loader must only ever accept or warn, and every selector built from what it accepts must give
 * chunks within [1, message] and the slot size.
 */
class SelectorFuzzTest {
    private static final ClusterShape SHAPE = TuningFixtures.TWO_BY_TWO;
    private static final Path FILE = Path.of("/tables/fuzzed.json");
    private static final int SLOT = 1 << 20;

    @Test
    void mutatedTablesNeverCrashAndNeverGiveNonsensicalChunks() throws Exception {
        Fingerprint fp = TuningFixtures.fingerprint(SHAPE);
        byte[] valid = TuningJson.mapper().writeValueAsBytes(TuningFixtures.table(SHAPE));
        Random rnd = new Random(20261121);
        int accepted = 0;
        int warned = 0;
        for (int i = 0; i < 3000; i++) {
            byte[] bytes = mutate(valid, rnd);
            TuningInputs inputs = TuningInputs.fromFiles(fp, FILE, bytes, true, null, null, List.of());
            if (inputs.table() == null) {
                warned++;
                assertTrue(
                        inputs.warnings().size() == 1
                                && inputs.warnings().get(0).contains(FILE.toString()),
                        inputs.warnings().toString());
                continue;
            }
            accepted++;
            Selector s = new Selector(Choices.AUTO.planChoices(), SHAPE, SLOT, inputs);
            for (long m = 0; m < 1L << 36; m = m * 2 + 1 + rnd.nextInt(1000)) {
                Plan p = s.plan(m, MemoryKind.HOST);
                assertNotNull(p);
                assertTrue(
                        p.chunkBytes() >= 1 && p.chunkBytes() <= Math.max(m, 1) && p.chunkBytes() <= SLOT,
                        "size " + m + ": " + p + " from " + new String(bytes));
            }
        }
        assertTrue(accepted > 30 && warned > 600, accepted + " accepted, " + warned + " warned");
    }

    private static byte[] mutate(byte[] valid, Random rnd) {
        byte[] b = valid.clone();
        switch (rnd.nextInt(3)) {
            case 0 -> {
                // A digit changed: usually still JSON, often still a sensible-looking table.
                for (int tries = 0; tries < 100; tries++) {
                    int at = rnd.nextInt(b.length);
                    if (Character.isDigit(b[at])) {
                        b[at] = (byte) ('0' + rnd.nextInt(10));
                        break;
                    }
                }
            }
            case 1 -> {
                int flips = 1 + rnd.nextInt(4);
                for (int f = 0; f < flips; f++) {
                    b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                }
            }
            default -> b = Arrays.copyOf(b, rnd.nextInt(b.length));
        }
        return b;
    }
}

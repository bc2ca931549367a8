package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.header.HeaderRelay;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.TuningFixtures;
import org.junit.jupiter.api.Test;

class InRunSelectionTest {
    private static Selector selector(String layout) {
        ClusterShape shape = ClusterShape.parse(layout);
        return new Selector(
                Choices.AUTO.planChoices(),
                shape,
                Selector.AUTO_MAX_CHUNK_BYTES,
                TuningFixtures.modelOnly(TuningFixtures.fingerprint(shape)));
    }

    /**
     * Before any trial a class runs its incumbent: the header up to what it carries untried, the
     * model's plan past it. On one host the header carries every class it can untried; across a
     * network only those of its first message, and it is the incumbent up to its untried size.
     */
    @Test
    void theHeaderIsTheIncumbentOnlyWhereItRidesUntried() {
        for (String layout : new String[] {"4", "2x2", "2x2 virtual", "4,2,2"}) {
            Selector selector = selector(layout);
            boolean oneHost = !selector.shape().crossesNetwork();
            TrialSchedule t = InRunSelection.trialSchedule(selector, true);
            for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                long largest = 1L << c;
                String where = layout + ", class of " + largest + " B";
                if (largest <= (oneHost ? selector.headerBytes() : HeaderRelay.FIRST_PAYLOAD)) {
                    assertFalse(t.tries(c), where + ": rides in the header untried");
                    assertTrue(t.inlines(largest), where + ": rides in the header untried");
                    continue;
                }
                if (oneHost) {
                    assertFalse(t.inlines(largest), where + ": past what the header carries");
                }
                assertEquals(largest <= selector.headerBytes(), t.inlineOption(c, 0), where);
                int incumbent = t.option(c);
                if (t.tries(c)) {
                    assertFalse(t.inlineOption(c, incumbent), where + ": the model's plan first");
                    assertEquals(Explanation.name(selector.plan(largest)), t.label(c, incumbent), where);
                }
            }
        }
    }
}

package org.hbcast.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProgressWaitTest {

    @AfterEach
    void clearProperty() {
        System.clearProperty(ProgressWait.YIELDS_PROPERTY);
    }

    @Test
    void yieldsLongOnlyWhereACoreIsLeftOverAfterEveryRank() {
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yieldsBeforePark(4, 16), "the H100 machine");
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yieldsBeforePark(15, 16));
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(16, 16), "no core left over");
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(17, 16));
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(4, 2), "this project's machine");
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(2, 2));
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(1, 1), "a rank bound to one core");
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yieldsBeforePark(1, 2));
        assertTrue(ProgressWait.MANY_YIELDS > 50 * ProgressWait.FEW_YIELDS);
    }

    @Test
    void thePropertyOverridesTheRuleAndABadValueIsNamed() {
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, "20");
        assertEquals(20, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, " 0 ");
        assertEquals(0, ProgressWait.yields(4, 16));
        for (String bad : new String[] {"-1", "many", ""}) {
            System.setProperty(ProgressWait.YIELDS_PROPERTY, bad);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ProgressWait.yields(4, 16), bad);
            assertTrue(e.getMessage().contains("-Dhbcast.wait.yields=" + bad), e.getMessage());
        }
    }
}

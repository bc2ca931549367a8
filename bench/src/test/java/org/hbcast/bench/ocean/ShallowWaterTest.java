package org.hbcast.bench.ocean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The physics of the model on strips in one process. */
class ShallowWaterTest {
    /** 50 km cells; friction of about a day so a small basin spins up in a few thousand steps. */
    private static final OceanParameters FAST =
            OceanParameters.midLatitude(50).withDrag(1e-5).withViscosity(1e4);
    /** No friction, no viscosity: only the scheme can damp or amplify. */
    private static final OceanParameters INVISCID =
            OceanParameters.midLatitude(50).withDrag(0).withViscosity(0);

    @Test
    void fluidAtRestWithoutWindStaysExactlyAtRest() throws Exception {
        Basin b = new Basin(24, 20, 3, FAST).run(2000, 0);
        for (Strip s : b.strips) {
            for (Field f : Field.values()) {
                for (double x : s.array(f)) {
                    assertEquals(0.0, x, "a value moved in " + f);
                }
            }
        }
    }

    @Test
    void totalMassIsConservedToRoundOffWithClosedWalls() throws Exception {
        Basin b = new Basin(32, 28, 3, FAST).hump(1.0);
        double before = Diagnostics.elevationSum(b.strips);
        double scale = Diagnostics.elevationAbsSum(b.strips);
        b.run(5000, 7);
        double after = Diagnostics.elevationSum(b.strips);
        assertTrue(b.kinetic() > 0, "the hump and the wind set the water moving");
        assertEquals(before, after, 1e-11 * scale, "sum of eta changed by " + (after - before));
    }

    @Test
    void energyStaysBoundedAtTheChosenTimeStep() throws Exception {
        OceanParameters p = INVISCID.checkStable(32 * INVISCID.dy());
        Basin b = new Basin(32, 32, 1, p).hump(1.0);
        double e0 = b.energy();
        double max = e0;
        for (int k = 0; k < 100; k++) {
            b.run(200, 0);
            max = Math.max(max, b.energy());
        }
        // Forward-backward conserves a slightly different energy: the usual one wobbles by a few per cent.
        assertTrue(max < 1.1 * e0, "energy grew from " + e0 + " to " + max + " in 20000 undamped steps");
        assertTrue(b.energy() > 0.9 * e0, "the scheme damped the waves: " + b.energy() + " of " + e0);
    }

    @Test
    void aTimeStepBeyondTheGravityWaveLimitIsRejectedAndWouldBlowUp() throws Exception {
        OceanParameters tooLong = INVISCID.withCfl(0.8);
        IllegalArgumentException rejected =
                assertThrows(IllegalArgumentException.class, () -> tooLong.checkStable(32 * tooLong.dy()));
        assertTrue(rejected.getMessage().contains("cfl 0.800 is unstable"), rejected.getMessage());
        Basin b = new Basin(32, 32, 1, tooLong).hump(1.0);
        double e0 = b.energy();
        b.run(300, 0);
        double e = b.energy();
        assertTrue(!(e < 1e6 * e0), "300 steps at cfl 0.8 should blow up, energy went from " + e0 + " to " + e);
    }

    @Test
    void windDrivenBasinSpinsUpAndSaturates() throws Exception {
        Basin b = new Basin(32, 32, 2, FAST);
        b.stress.fill(b.wind, 0);
        double[] ke = new double[7];
        for (int k = 0; k < ke.length; k++) {
            b.run(k == 0 ? 50 : 1000, 0);
            ke[k] = b.kinetic();
        }
        assertTrue(ke[0] > 0 && ke[1] > 10 * ke[0], "spin-up: " + Arrays.toString(ke));
        assertTrue(Math.abs(ke[6] - ke[5]) < 0.01 * ke[6], "saturation: " + Arrays.toString(ke));
    }

    @ParameterizedTest(name = "{0} strips")
    @ValueSource(ints = {2, 3, 7, 17})
    void stripsGiveTheSameBitsAsOneStrip(int strips) throws Exception {
        Basin one = new Basin(20, 17, 1, FAST).hump(0.5).run(400, 3);
        Basin many = new Basin(20, 17, strips, FAST).hump(0.5).run(400, 3);
        for (Field f : Field.values()) {
            int w = one.strips.get(0).width(f);
            for (int j = 0; j < 17; j++) {
                double[] expected = new double[w];
                double[] actual = new double[w];
                for (int i = 0; i < w; i++) {
                    expected[i] = one.strips.get(0).get(f, i, j);
                    actual[i] = holder(many, j).get(f, i, j);
                }
                assertArrayEquals(expected, actual, 0.0, f + " row " + j);
            }
        }
        assertEquals(one.checksum(), many.checksum());
    }

    @Test
    void checksumSeesOneBit() throws Exception {
        Basin a = new Basin(20, 17, 3, FAST).hump(0.5).run(50, 3);
        Basin b = new Basin(20, 17, 3, FAST).hump(0.5).run(50, 3);
        assertEquals(a.checksum(), b.checksum());
        Strip s = b.strips.get(1);
        s.v[s.rowOffset(Field.V, 2) + 5] = Math.nextUp(s.v[s.rowOffset(Field.V, 2) + 5]);
        assertNotEquals(a.checksum(), b.checksum());
    }

    private static Strip holder(Basin b, int j) {
        for (Strip s : b.strips) {
            if (j >= s.firstRow() && j < s.firstRow() + s.rows()) {
                return s;
            }
        }
        throw new AssertionError("no strip holds row " + j);
    }
}

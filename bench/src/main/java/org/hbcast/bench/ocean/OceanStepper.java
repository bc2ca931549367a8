package org.hbcast.bench.ocean;

import java.util.List;

/**
 * One time step of the model over the strips this process holds (one per MPI rank, or several in
 * one process): each update phase, then the halo exchange of the field it changed, so the next
 * phase reads fresh neighbours.
 */
public final class OceanStepper {
    private final ShallowWater physics;
    private final List<Strip> strips;
    private final Halos halos;

    public OceanStepper(ShallowWater physics, List<Strip> strips, Halos halos) {
        this.physics = physics;
        this.strips = List.copyOf(strips);
        this.halos = halos;
    }

    /** Fills every halo from the current state: after setting an initial state by hand. */
    public void exchangeAll() throws Exception {
        for (Field field : Field.values()) {
            halos.exchange(field);
        }
    }

    /** Something to do between the phases of a step: a test of a broadcast in flight. */
    public interface Between {
        Between NOTHING = () -> {};

        void run() throws Exception;
    }

    public void step(WindField wind) throws Exception {
        step(wind, Between.NOTHING);
    }

    /**
     * Rows computed between two runs of {@code between}: a broadcast in flight moves only inside its
     * tests, so a test per phase (three a step) leaves its pipeline idle for most of the step.
     */
    static final int BAND_ROWS = 16;

    /**
     * A step that runs {@code between} after every band of {@link #BAND_ROWS} rows of each phase, so
     * a broadcast in flight moves while it computes. Bands only split the loops: the arithmetic, and
     * so the state, is the same as in one pass.
     */
    public void step(WindField wind, Between between) throws Exception {
        for (Strip s : strips) {
            for (int from = 1; from <= s.rows; from += BAND_ROWS) {
                physics.updateU(s, wind, from, Math.min(s.rows, from + BAND_ROWS - 1));
                between.run();
            }
            s.swapU();
        }
        halos.exchange(Field.U);
        for (Strip s : strips) {
            for (int from = 1; from <= s.rows; from += BAND_ROWS) {
                physics.updateV(s, wind, from, Math.min(s.rows, from + BAND_ROWS - 1));
                between.run();
            }
            s.swapV();
        }
        halos.exchange(Field.V);
        for (Strip s : strips) {
            for (int from = 1; from <= s.rows; from += BAND_ROWS) {
                physics.updateEta(s, from, Math.min(s.rows, from + BAND_ROWS - 1));
                between.run();
            }
        }
        halos.exchange(Field.ETA);
    }

    public List<Strip> strips() {
        return strips;
    }
}

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

    /** A step that runs {@code between} after each phase, so a broadcast in flight moves while it computes. */
    public void step(WindField wind, Between between) throws Exception {
        for (Strip s : strips) {
            physics.updateU(s, wind);
        }
        between.run();
        halos.exchange(Field.U);
        for (Strip s : strips) {
            physics.updateV(s, wind);
        }
        between.run();
        halos.exchange(Field.V);
        for (Strip s : strips) {
            physics.updateEta(s);
        }
        between.run();
        halos.exchange(Field.ETA);
    }

    public List<Strip> strips() {
        return strips;
    }
}

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

    public void step(WindField wind) throws Exception {
        for (Strip s : strips) {
            physics.updateU(s, wind);
        }
        halos.exchange(Field.U);
        for (Strip s : strips) {
            physics.updateV(s, wind);
        }
        halos.exchange(Field.V);
        for (Strip s : strips) {
            physics.updateEta(s);
        }
        halos.exchange(Field.ETA);
    }

    public List<Strip> strips() {
        return strips;
    }
}

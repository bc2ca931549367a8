package org.hbcast.bench.ocean;

import java.util.ArrayList;
import java.util.List;

/** A whole basin cut into strips that live in this process, stepped with {@link LocalHalos}. */
final class Basin {
    final OceanParameters params;
    final List<Strip> strips = new ArrayList<>();
    final WindField wind;
    final WindStress stress;
    final OceanStepper stepper;
    int step;

    Basin(int nx, int ny, int stripCount, OceanParameters params) {
        this.params = params;
        StripLayout layout = new StripLayout(nx, ny, stripCount);
        for (int s = 0; s < stripCount; s++) {
            strips.add(layout.strip(s));
        }
        this.wind = new WindField(nx, ny);
        this.stress = new WindStress(nx, ny, params);
        this.stepper = new OceanStepper(new ShallowWater(nx, ny, params), strips, new LocalHalos(strips));
    }

    /** A Gaussian hump of {@code height} metres off the centre of the basin. */
    Basin hump(double height) throws Exception {
        int nx = strips.get(0).nx();
        int ny = strips.get(0).ny();
        for (Strip s : strips) {
            s.setElevation((i, j) -> {
                double x = (i - 0.4 * nx) / (0.1 * nx);
                double y = (j - 0.55 * ny) / (0.1 * ny);
                return height * Math.exp(-x * x - y * y);
            });
        }
        stepper.exchangeAll();
        return this;
    }

    /** Runs {@code n} steps, refreshing the wind every {@code every} steps (0: never). */
    Basin run(int n, int every) throws Exception {
        for (int k = 0; k < n; k++, step++) {
            if (every > 0 && step % every == 0) {
                stress.fill(wind, step * params.dt());
            }
            stepper.step(wind);
        }
        return this;
    }

    double energy() {
        return Diagnostics.kineticEnergy(strips, params) + Diagnostics.potentialEnergy(strips, params);
    }

    double kinetic() {
        return Diagnostics.kineticEnergy(strips, params);
    }

    long checksum() {
        return StateChecksum.of(strips);
    }
}

package org.hbcast.bench.ocean;

/**
 * Integrals of the state over the strips of one process: volume anomaly (sum of eta), kinetic and
 * potential energy. For tests and the report; sums are in strip order, so they are not bit-identical
 * across decompositions (the checksum is).
 */
public final class Diagnostics {
    private Diagnostics() {}

    /** Sum of eta over the owned cells (m). */
    public static double elevationSum(Iterable<Strip> strips) {
        double sum = 0;
        for (Strip s : strips) {
            for (int k = s.nx; k < (s.rows + 1) * s.nx; k++) {
                sum += s.eta[k];
            }
        }
        return sum;
    }

    /** Sum of |eta| over the owned cells (m): the scale against which the sum's round-off is judged. */
    public static double elevationAbsSum(Iterable<Strip> strips) {
        double sum = 0;
        for (Strip s : strips) {
            for (int k = s.nx; k < (s.rows + 1) * s.nx; k++) {
                sum += Math.abs(s.eta[k]);
            }
        }
        return sum;
    }

    /** Kinetic energy 1/2 rho H (u^2 + v^2) dx dy summed over the owned faces (J). */
    public static double kineticEnergy(Iterable<Strip> strips, OceanParameters p) {
        double sum = 0;
        for (Strip s : strips) {
            sum += squares(s.u, s.nx + 1, s.rows) + squares(s.v, s.nx, s.rows);
        }
        return 0.5 * p.density() * p.depth() * p.dx() * p.dy() * sum;
    }

    /** Potential energy 1/2 rho g eta^2 dx dy summed over the owned cells (J). */
    public static double potentialEnergy(Iterable<Strip> strips, OceanParameters p) {
        double sum = 0;
        for (Strip s : strips) {
            sum += squares(s.eta, s.nx, s.rows);
        }
        return 0.5 * p.density() * p.gravity() * p.dx() * p.dy() * sum;
    }

    private static double squares(double[] a, int width, int rows) {
        double sum = 0;
        for (int k = width; k < (rows + 1) * width; k++) {
            sum += a[k] * a[k];
        }
        return sum;
    }
}

package org.hbcast.bench.ocean;

/**
 * The physics of the ocean model: grid spacing, gravity, depth, rotation (beta-plane), wind,
 * friction and viscosity, and the Courant number that sets the time step. All in SI units.
 *
 * @param dx grid spacing in x (m)
 * @param dy grid spacing in y (m)
 * @param gravity g (m/s^2)
 * @param depth resting depth H (m)
 * @param f0 Coriolis parameter at the basin's middle latitude (1/s)
 * @param beta its northward gradient (1/(m s))
 * @param density sea-water density rho (kg/m^3)
 * @param drag linear bottom friction r (1/s)
 * @param viscosity lateral (Laplacian) eddy viscosity A (m^2/s)
 * @param windStress wind-stress amplitude tau0 (N/m^2)
 * @param cfl Courant number of the fastest gravity wave, dt = cfl * min(dx, dy) / sqrt(g H)
 */
public record OceanParameters(
        double dx,
        double dy,
        double gravity,
        double depth,
        double f0,
        double beta,
        double density,
        double drag,
        double viscosity,
        double windStress,
        double cfl) {

    /** The forward-backward scheme on the C grid is stable for cfl below 1/sqrt(2) (2-D gravity waves). */
    public static final double MAX_CFL = 1 / Math.sqrt(2);

    public OceanParameters {
        positive("dx", dx);
        positive("dy", dy);
        positive("gravity", gravity);
        positive("depth", depth);
        positive("density", density);
        positive("cfl", cfl);
        nonNegative("drag", drag);
        nonNegative("viscosity", viscosity);
        finite("f0", f0);
        finite("beta", beta);
        finite("wind stress", windStress);
    }

    /**
     * A mid-latitude basin 1000 m deep (gravity waves at 99 m/s) with {@code dxKm} km cells: f0 at
     * 35 N, beta there, a 0.1 N/m^2 wind, 1/(50 days) bottom friction, 100 m^2/s viscosity, cfl 0.5.
     */
    public static OceanParameters midLatitude(double dxKm) {
        return new OceanParameters(
                dxKm * 1e3, dxKm * 1e3, 9.81, 1000, 8.4e-5, 1.9e-11, 1025, 1 / (50 * 86_400.0), 100, 0.1, 0.5);
    }

    /** The time step (s): cfl times the gravity-wave crossing time of the smallest cell. */
    public double dt() {
        return cfl * Math.min(dx, dy) / waveSpeed();
    }

    /** Speed of the external gravity wave sqrt(g H) (m/s). */
    public double waveSpeed() {
        return Math.sqrt(gravity * depth);
    }

    /**
     * Rejects a time step the explicit scheme cannot take, naming the limit: gravity waves
     * (cfl), rotation (|f| dt), friction (r dt) and viscosity (A dt (1/dx^2 + 1/dy^2)).
     *
     * @param ly the basin's extent in y (m), for the largest |f| on the beta-plane
     * @throws IllegalArgumentException naming the violated limit
     */
    public OceanParameters checkStable(double ly) {
        double dt = dt();
        if (cfl >= MAX_CFL) {
            throw new IllegalArgumentException(String.format(
                    "cfl %.3f is unstable: the forward-backward scheme needs cfl < 1/sqrt(2) = %.3f (dt %.1f s "
                            + "against gravity waves of %.1f m/s on %.0f m cells)",
                    cfl, MAX_CFL, dt, waveSpeed(), Math.min(dx, dy)));
        }
        double fMax = Math.abs(f0) + Math.abs(beta) * ly / 2;
        if (fMax * dt >= 1) {
            throw new IllegalArgumentException(String.format(
                    "rotation is too fast for dt %.1f s: |f| dt = %.3f must stay below 1", dt, fMax * dt));
        }
        if (drag * dt >= 1) {
            throw new IllegalArgumentException(String.format(
                    "bottom friction %.3g 1/s is too strong for dt %.1f s: r dt must stay below 1", drag, dt));
        }
        double diffusion = viscosity * dt * (1 / (dx * dx) + 1 / (dy * dy));
        if (diffusion >= 0.25) {
            throw new IllegalArgumentException(String.format(
                    "viscosity %.3g m^2/s is too large for dt %.1f s: A dt (1/dx^2 + 1/dy^2) = %.3f must stay below 0.25",
                    viscosity, dt, diffusion));
        }
        return this;
    }

    public OceanParameters withCfl(double c) {
        return new OceanParameters(dx, dy, gravity, depth, f0, beta, density, drag, viscosity, windStress, c);
    }

    public OceanParameters withDrag(double r) {
        return new OceanParameters(dx, dy, gravity, depth, f0, beta, density, r, viscosity, windStress, cfl);
    }

    public OceanParameters withViscosity(double a) {
        return new OceanParameters(dx, dy, gravity, depth, f0, beta, density, drag, a, windStress, cfl);
    }

    private static void positive(String name, double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            throw new IllegalArgumentException(name + " must be a positive finite number, not " + x);
        }
    }

    private static void nonNegative(String name, double x) {
        if (!(x >= 0) || Double.isInfinite(x)) {
            throw new IllegalArgumentException(name + " must be zero or a positive finite number, not " + x);
        }
    }

    private static void finite(String name, double x) {
        if (!Double.isFinite(x)) {
            throw new IllegalArgumentException(name + " must be a finite number, not " + x);
        }
    }
}

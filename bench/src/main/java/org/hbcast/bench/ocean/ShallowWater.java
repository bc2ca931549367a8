package org.hbcast.bench.ocean;

/**
 * The linearised shallow-water equations on one strip of an Arakawa C grid:
 * <pre>
 *   du/dt - f v   = -g d(eta)/dx + taux / (rho H) - r u + A lap(u)
 *   dv/dt + f u   = -g d(eta)/dy + tauy / (rho H) - r v + A lap(v)
 *   d(eta)/dt     = -H (du/dx + dv/dy)
 * </pre>
 * on a beta-plane {@code f = f0 + beta (y - Ly/2)} in a closed basin (no normal flow through the
 * walls, free slip along them).
 *
 * <p>Time stepping is forward-backward: u first (Coriolis from the old v), then v (Coriolis from the
 * new u), then eta from the new velocities; this is stable for gravity waves up to
 * {@link OceanParameters#MAX_CFL} and for rotation up to |f| dt &lt; 2. Each phase reads the halos
 * the previous exchange filled (see {@link OceanStepper}). Every value is computed from its
 * neighbours in a fixed order with no sums across cells, so the state is bit-identical for any
 * decomposition into strips.
 */
public final class ShallowWater {
    private final int nx;
    private final int ny;
    private final double dt;
    private final double gOverDx;
    private final double gOverDy;
    private final double depthOverDx;
    private final double depthOverDy;
    private final double windScale;
    private final double drag;
    private final double viscosity;
    private final double invDx2;
    private final double invDy2;
    /** Coriolis parameter on the rows of u (y = (j + 1/2) dy) and of v (y = j dy). */
    private final double[] fU;

    private final double[] fV;

    public ShallowWater(int nx, int ny, OceanParameters p) {
        this.nx = nx;
        this.ny = ny;
        this.dt = p.dt();
        this.gOverDx = p.gravity() / p.dx();
        this.gOverDy = p.gravity() / p.dy();
        this.depthOverDx = p.depth() / p.dx();
        this.depthOverDy = p.depth() / p.dy();
        this.windScale = 1 / (p.density() * p.depth());
        this.drag = p.drag();
        this.viscosity = p.viscosity();
        this.invDx2 = 1 / (p.dx() * p.dx());
        this.invDy2 = 1 / (p.dy() * p.dy());
        double ly = ny * p.dy();
        this.fU = new double[ny];
        this.fV = new double[ny + 1];
        for (int j = 0; j < ny; j++) {
            fU[j] = p.f0() + p.beta() * ((j + 0.5) * p.dy() - ly / 2);
        }
        for (int j = 0; j <= ny; j++) {
            fV[j] = p.f0() + p.beta() * (j * p.dy() - ly / 2);
        }
    }

    public double dt() {
        return dt;
    }

    /** New u on the owned rows from u, v (halo above), eta and the wind. Needs u and v halos. */
    public void updateU(Strip s, WindField wind) {
        updateU(s, wind, 1, s.rows);
        s.swapU();
    }

    /**
     * New u on owned rows {@code from..to} (1-based, inclusive) into the strip's next field: bands of
     * rows may be computed apart (reads are all of the current fields), then the strip's swapU.
     */
    public void updateU(Strip s, WindField wind, int from, int to) {
        int w = nx + 1;
        double[] u = s.u;
        double[] v = s.v;
        double[] eta = s.eta;
        double[] out = s.uNext;
        for (int r = from; r <= to; r++) {
            int j = s.firstRow + r - 1;
            double f = fU[j];
            int row = r * w;
            // Free slip at the south and north walls: the missing neighbour mirrors u.
            int south = j == 0 ? row : row - w;
            int north = j == ny - 1 ? row : row + w;
            int vRow = r * nx;
            int vAbove = vRow + nx;
            for (int i = 1; i < nx; i++) {
                double uc = u[row + i];
                double vbar = 0.25 * (v[vRow + i - 1] + v[vRow + i] + v[vAbove + i - 1] + v[vAbove + i]);
                double lap = (u[row + i + 1] - 2 * uc + u[row + i - 1]) * invDx2
                        + (u[north + i] - 2 * uc + u[south + i]) * invDy2;
                double tendency = f * vbar
                        - gOverDx * (eta[vRow + i] - eta[vRow + i - 1])
                        + windScale * wind.taux(i, j)
                        - drag * uc
                        + viscosity * lap;
                out[row + i] = uc + dt * tendency;
            }
        }
    }

    /** New v on the owned rows (not the south wall) from the new u (halo below), v and eta. */
    public void updateV(Strip s, WindField wind) {
        updateV(s, wind, 1, s.rows);
        s.swapV();
    }

    /** New v on owned rows {@code from..to} into the strip's next field, as {@link #updateU(Strip, WindField, int, int)}. */
    public void updateV(Strip s, WindField wind, int from, int to) {
        int w = nx + 1;
        double[] u = s.u;
        double[] v = s.v;
        double[] eta = s.eta;
        double[] out = s.vNext;
        for (int r = from; r <= to; r++) {
            int j = s.firstRow + r - 1;
            if (j == 0) {
                continue;
            }
            double f = fV[j];
            int row = r * nx;
            int uRow = r * w;
            int uBelow = uRow - w;
            for (int i = 0; i < nx; i++) {
                double vc = v[row + i];
                double ubar = 0.25 * (u[uBelow + i] + u[uBelow + i + 1] + u[uRow + i] + u[uRow + i + 1]);
                // Free slip at the west and east walls: the missing neighbour mirrors v.
                double west = i == 0 ? vc : v[row + i - 1];
                double east = i == nx - 1 ? vc : v[row + i + 1];
                double lap = (east - 2 * vc + west) * invDx2 + (v[row + nx + i] - 2 * vc + v[row - nx + i]) * invDy2;
                double tendency = -f * ubar
                        - gOverDy * (eta[row + i] - eta[row - nx + i])
                        + windScale * wind.tauy(i, j)
                        - drag * vc
                        + viscosity * lap;
                out[row + i] = vc + dt * tendency;
            }
        }
    }

    /** New eta on the owned rows from the divergence of the new velocities. Needs the v halo above. */
    public void updateEta(Strip s) {
        updateEta(s, 1, s.rows);
    }

    /** New eta on owned rows {@code from..to}: each row reads only its own eta, so bands may run apart. */
    public void updateEta(Strip s, int from, int to) {
        int w = nx + 1;
        double[] u = s.u;
        double[] v = s.v;
        double[] eta = s.eta;
        for (int r = from; r <= to; r++) {
            int row = r * nx;
            int uRow = r * w;
            for (int i = 0; i < nx; i++) {
                double divergence =
                        depthOverDx * (u[uRow + i + 1] - u[uRow + i]) + depthOverDy * (v[row + nx + i] - v[row + i]);
                eta[row + i] -= dt * divergence;
            }
        }
    }
}

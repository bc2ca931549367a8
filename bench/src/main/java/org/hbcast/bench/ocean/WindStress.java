package org.hbcast.bench.ocean;

/**
 * The I/O rank's wind: a double-gyre westerly/trade-wind pattern, {@code -tau0 cos(2 pi y / Ly)},
 * whose strength swings by 30% over {@value #CYCLE_DAYS} days, plus a cyclonic storm of radius Lx/8
 * that crosses the basin every {@value #STORM_DAYS} days. The storm is separable in x and y so a
 * field costs a few exponentials per row and column and a few flops per cell: the I/O rank's work
 * stays small next to the broadcast it feeds.
 */
public final class WindStress {
    static final double CYCLE_DAYS = 10;
    static final double STORM_DAYS = 5;
    private static final double DAY = 86_400;
    private static final double STORM_STRENGTH = 1.5;

    private final int nx;
    private final int ny;
    private final double dx;
    private final double dy;
    private final double tau0;
    private final double lx;
    private final double ly;
    private final double radius;
    // Profiles along x at u faces (x = i dx) and v faces (x = (i + 1/2) dx), along y at u faces
    // (y = (j + 1/2) dy) and v faces (y = j dy): storm envelope g and its odd part (s/R) g.
    private final double[] gyreU;
    private final double[] gxU;
    private final double[] gxV;
    private final double[] oddXV;
    private final double[] gyU;
    private final double[] oddYU;
    private final double[] gyV;

    public WindStress(int nx, int ny, OceanParameters p) {
        this.nx = nx;
        this.ny = ny;
        this.dx = p.dx();
        this.dy = p.dy();
        this.tau0 = p.windStress();
        this.lx = nx * dx;
        this.ly = ny * dy;
        this.radius = lx / 8;
        this.gyreU = new double[ny];
        for (int j = 0; j < ny; j++) {
            gyreU[j] = -Math.cos(2 * Math.PI * (j + 0.5) * dy / ly);
        }
        this.gxU = new double[nx];
        this.gxV = new double[nx];
        this.oddXV = new double[nx];
        this.gyU = new double[ny];
        this.oddYU = new double[ny];
        this.gyV = new double[ny];
    }

    /** Fills {@code field} with the wind at time {@code t} seconds. */
    public void fill(WindField field, double t) {
        if (field.nx() != nx || field.ny() != ny) {
            throw new IllegalArgumentException(
                    "wind field is " + field.nx() + " x " + field.ny() + ", the grid " + nx + " x " + ny);
        }
        double cycle = tau0 * (1 + 0.3 * Math.sin(2 * Math.PI * t / (CYCLE_DAYS * DAY)));
        double phase = t / (STORM_DAYS * DAY);
        double xc = lx * (0.1 + 0.8 * (phase - Math.floor(phase)));
        double yc = ly * (0.5 + 0.25 * Math.sin(2 * Math.PI * phase));
        for (int i = 0; i < nx; i++) {
            gxU[i] = envelope(i * dx - xc);
            double sV = (i + 0.5) * dx - xc;
            gxV[i] = envelope(sV);
            oddXV[i] = sV / radius * gxV[i];
        }
        for (int j = 0; j < ny; j++) {
            double sU = (j + 0.5) * dy - yc;
            gyU[j] = envelope(sU);
            oddYU[j] = sU / radius * gyU[j];
            gyV[j] = envelope(j * dy - yc);
        }
        double storm = STORM_STRENGTH * tau0;
        for (int j = 0; j < ny; j++) {
            double gyre = cycle * gyreU[j];
            double stormU = -storm * oddYU[j];
            double stormV = storm * gyV[j];
            for (int i = 0; i < nx; i++) {
                field.setTaux(i, j, gyre + stormU * gxU[i]);
                field.setTauy(i, j, stormV * oddXV[i]);
            }
        }
    }

    private double envelope(double s) {
        double q = s / radius;
        return Math.exp(-q * q);
    }
}

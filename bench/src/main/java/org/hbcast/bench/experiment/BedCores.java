package org.hbcast.bench.experiment;

/**
 * Whether a test bed's hosts get cores of their own ({@code scripts/testbed --own-cores}), from
 * {@code HBCAST_BED_CORES}: as on separate machines, a rank of one host then never waits for a rank
 * of another to give up a core. {@code auto} (the default) does so where the machine has a core for
 * every host; where hosts outnumber the cores they share them all, so that no core carries two
 * hosts while another carries one.
 */
public final class BedCores {
    /** The environment variable that overrides the choice: own, shared or auto. */
    public static final String SETTING = "HBCAST_BED_CORES";

    private BedCores() {}

    /** Whether hosts get their own cores, for {@code setting} (null: auto), {@code hosts} hosts and {@code cores} cores. */
    public static boolean own(String setting, int hosts, int cores) {
        String s = setting == null || setting.isEmpty() ? "auto" : setting;
        return switch (s) {
            case "own" -> true;
            case "shared" -> false;
            case "auto" -> hosts <= cores;
            default ->
                throw new IllegalArgumentException(SETTING + " must be own, shared or auto, not '" + setting + "'");
        };
    }
}

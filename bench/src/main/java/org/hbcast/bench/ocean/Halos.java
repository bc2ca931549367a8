package org.hbcast.bench.ocean;

/** Fills the halo rows of one field from the neighbouring strips. */
@FunctionalInterface
public interface Halos {
    /** Afterwards every strip's halo rows of {@code field} hold its neighbours' edge rows. */
    void exchange(Field field) throws Exception;
}

package org.hbcast.bench.ocean;

/** The prognostic fields of the model and where they sit on the Arakawa C grid. */
public enum Field {
    /** Surface elevation at cell centres: {@code nx} values per row. */
    ETA,
    /** Eastward velocity on west faces: {@code nx + 1} values per row, the walls at 0 and nx. */
    U,
    /** Northward velocity on south faces: {@code nx} values per row; row 0 is the south wall. */
    V
}

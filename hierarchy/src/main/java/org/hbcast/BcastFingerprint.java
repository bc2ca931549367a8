package org.hbcast;

import java.util.List;

/**
 * What a run's tuning tables are measured on and looked up by, as all ranks agreed at
 * {@code create}: the hardware (CPU, GPUs, MPI library), the link kinds a broadcast uses there, and
 * the layout. Equal {@link #canonical()} strings mean the same hardware, links and layout; a tuning
 * table of another fingerprint is not used. A read-only copy.
 *
 * @param canonical every element in a fixed order
 * @param id a stable 12-hex-digit id of {@code canonical}, as in the tuning files' names
 * @param hardware the hardware alone, without the layout: what a link calibration depends on
 * @param hardwareId a stable 12-hex-digit id of {@code hardware}
 * @param links the ids of the link kinds in use
 * @param layout the layout, e.g. "2x2" or "2x2 virtual"
 */
public record BcastFingerprint(
        String canonical, String id, String hardware, String hardwareId, List<String> links, String layout) {
    public BcastFingerprint {
        links = List.copyOf(links);
    }

    @Override
    public String toString() {
        return canonical + " (id " + id + ")";
    }
}

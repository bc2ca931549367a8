package org.hbcast.call;

import java.util.Locale;

/**
 * Which byte count a call moves when ranks pass different counts ({@code HBCAST_COUNTS}).
 *
 * <p>The MPI standard asks every rank for the same type signature, but Open MPI accepts receivers
 * that pass more than the root, and programs rely on it (a name of a length only the root knows,
 * broadcast into a fixed buffer). Under {@link #ROOT} hbcast does the same, and never lets a
 * mismatch turn into wrong data or a wait until the timeout.
 */
public enum CountRule {
    /**
     * Open MPI's contract, the default: the root's count governs. A receiver that passed more gets
     * the root's bytes and the rest of its buffer stays untouched. Host calls carry the root's count
     * in a header ({@link CallHeaders}): on the node's call board, and between hosts down the
     * leaders' relay. A rank that cannot take the root's call (fewer bytes, another root, elements
     * that do not divide the bytes) takes part into scratch memory and fails alone, naming both
     * sides. Device calls agree instead, by one small all-reduce per call ({@link CallAgreement}),
     * so that every rank fails alike before anything is sent.
     */
    ROOT,
    /** Every rank must pass the same byte count and root; any difference fails on every rank (check mode). */
    EQUAL,
    /**
     * The program promises the same count and root on every rank, as the MPI standard requires, and
     * saves the all-reduce. A program that breaks the promise gets undefined results.
     */
    TRUSTED;

    /** Parses {@code root|equal|trusted}, case-insensitively; {@code name} is the setting named in the error. */
    public static CountRule parse(String name, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        for (CountRule r : values()) {
            if (r.toString().equals(t)) {
                return r;
            }
        }
        throw new IllegalArgumentException(name + "='" + text + "' must be root, equal or trusted");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package org.hbcast.mpi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * All-gathers one short string per rank (processor names, shared-memory segment paths) as
 * fixed-size, zero-padded UTF-8 records: the bindings have no variable-length gather of strings.
 */
public final class StringExchange {
    private StringExchange() {}

    /**
     * Collective over {@code comm}: returns every rank's string, by rank.
     *
     * @throws IllegalArgumentException if this rank's string does not fit in {@code recordBytes}
     */
    public static String[] allGather(Intracomm comm, String mine, int recordBytes) throws MPIException {
        byte[] encoded = mine.getBytes(StandardCharsets.UTF_8);
        if (encoded.length > recordBytes) {
            throw new IllegalArgumentException("'" + mine + "' is longer than " + recordBytes + " bytes");
        }
        int size = comm.getSize();
        byte[] all = new byte[recordBytes * size];
        comm.allGather(Arrays.copyOf(encoded, recordBytes), recordBytes, MPI.BYTE, all, recordBytes, MPI.BYTE);
        String[] strings = new String[size];
        for (int r = 0; r < size; r++) {
            int start = r * recordBytes;
            int end = start;
            while (end < start + recordBytes && all[end] != 0) {
                end++;
            }
            strings[r] = new String(all, start, end - start, StandardCharsets.UTF_8);
        }
        return strings;
    }
}

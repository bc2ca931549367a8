package org.hbcast.mpi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;

/**
 * Strings between ranks, which the bindings move only as bytes: one short string per rank all-gathered
 * (processor names, shared-memory segment paths) as fixed-size, zero-padded UTF-8 records, strings of
 * any length all-gathered or broadcast (settings, a failure's reason). Set-up and failure paths only.
 */
public final class StringExchange {
    private StringExchange() {}

    /**
     * Collective over {@code comm}: returns every rank's string, by rank.
     *
     * @throws IllegalArgumentException if this rank's string does not fit in {@code recordBytes}
     */
    public static String[] allGather(MpiComm comm, String mine, int recordBytes) throws MpiFailure {
        byte[] encoded = mine.getBytes(StandardCharsets.UTF_8);
        if (encoded.length > recordBytes) {
            throw new IllegalArgumentException("'" + mine + "' is longer than " + recordBytes + " bytes");
        }
        int size = comm.size();
        byte[] all = new byte[recordBytes * size];
        comm.allGather(Arrays.copyOf(encoded, recordBytes), recordBytes, all);
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

    /** Collective over {@code comm}: {@code root}'s {@code mine} on every rank ({@code mine} is ignored elsewhere). */
    public static String broadcast(MpiComm comm, String mine, int root) throws MpiFailure {
        boolean isRoot = comm.rank() == root;
        byte[] encoded = isRoot ? mine.getBytes(StandardCharsets.UTF_8) : null;
        int[] length = {isRoot ? encoded.length : 0};
        comm.bcast(length, 1, BasicType.INT, root);
        byte[] bytes = isRoot ? encoded : new byte[length[0]];
        comm.bcast(bytes, length[0], BasicType.BYTE, root);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Collective over {@code comm}: every rank's string, by rank, whatever their lengths. */
    public static String[] allGatherAny(MpiComm comm, String mine) throws MpiFailure {
        byte[] encoded = mine.getBytes(StandardCharsets.UTF_8);
        int[] longest = {encoded.length};
        comm.allReduce(longest, 1, ReduceOp.MAX);
        return allGather(comm, mine, Math.max(1, longest[0]));
    }
}

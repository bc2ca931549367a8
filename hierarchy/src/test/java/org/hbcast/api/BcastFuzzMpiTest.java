package org.hbcast.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.agrona.BufferUtil;
import org.agrona.UnsafeAccess;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;
import sun.misc.Unsafe;

/** Hostile arguments on real ranks: rejected alike everywhere before sending, or delivered exactly (issue 8). */
class BcastFuzzMpiTest {
    private static final int CASES = 400;

    @Test
    void fuzzedCallsAreRejectedAlikeOrDeliveredWithoutStrayWrites() {
        MpiOutcome out = MpiLaunch.body(BcastFuzzMpiTest::fuzz)
                .layout("2,3")
                .env("HBCAST_TIMEOUT_S", "10")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .timeout(Duration.ofSeconds(300))
                .args("cases=" + CASES, "seed=11")
                .run()
                .assertAllRanksOk();
        long accepted = out.longFigure(0, "accepted");
        long rejected = out.longFigure(0, "rejected");
        assertTrue(accepted > 0 && rejected > 0, out.describe("the fuzz did not cover both sides"));
        assertEquals(CASES, accepted + rejected, out.describe("accepted and rejected"));
        for (int r = 1; r < out.ranks(); r++) {
            // A case is rejected on every rank or on none.
            assertEquals(accepted, out.longFigure(r, "accepted"), out.describe("rank " + r + " accepted"));
            assertEquals(rejected, out.longFigure(r, "rejected"), out.describe("rank " + r + " rejected"));
        }
        System.out.println("fuzz on 2+3: " + accepted + " delivered exactly, " + rejected + " rejected alike");
    }

    private static final Unsafe U = UnsafeAccess.UNSAFE;
    private static final byte SENTINEL = (byte) 0x5A;
    private static final int MAX_ELEMENTS = 300_000;

    /**
     * On every rank: {@code cases=N} seeded cases, the same on every rank (odd counts, roots,
     * datatypes, containers: arrays with spare entries, slices of a larger direct buffer at odd offsets
     * with odd position and limit, duplicates, typed views, read-only on the root, wrong containers).
     * Every case must be rejected on every rank alike, or deliver the root's bytes while every byte
     * around them, inside the container and outside the slice, stays untouched. A valid call after
     * every rejected one proves the rejected one sent nothing. Each fuzz case is one case; figures
     * {@code accepted} and {@code rejected}.
     */
    static void fuzz(Ranks ranks) throws Exception {
        ranks.plan(ranks.intArg("cases", 300));
        fuzz(ranks.world(), ranks.args(), ranks.report());
    }

    private static String fuzz(Intracomm world, java.util.Map<String, String> opt, RankReport report) throws Exception {
        int cases = Integer.parseInt(opt.getOrDefault("cases", "300"));
        Random rnd = new Random(Long.parseLong(opt.getOrDefault("seed", "11")));
        int rank = world.getRank();
        int size = world.getSize();
        int rejected = 0;
        int accepted = 0;
        HierarchicalBcast[] instances = {
            HierarchicalBcast.create(
                    world,
                    BcastOptions.defaults()
                            .withAlgorithm(Algorithm.HIERARCHICAL)
                            .withChunkBytes(4096)),
            HierarchicalBcast.create(
                    world,
                    BcastOptions.defaults().withAlgorithm(Algorithm.KNOMIAL).withChunkBytes(8192)),
            HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(Algorithm.AUTO))
        };
        try {
            for (int i = 0; i < cases; i++) {
                Case c = Case.draw(rnd, size, rank);
                HierarchicalBcast hb = instances[i % instances.length];
                int n = i;
                boolean[] wasRejected = new boolean[1];
                report.check("fuzz case " + i + " (" + c + ")", () -> wasRejected[0] = fuzzCase(world, hb, c, n));
                if (wasRejected[0]) {
                    rejected++;
                } else {
                    accepted++;
                }
            }
        } finally {
            for (HierarchicalBcast hb : instances) {
                hb.close();
            }
        }
        report.figure("accepted", accepted).figure("rejected", rejected);
        if (rejected == 0 || accepted == 0) {
            throw new AssertionError(
                    "the fuzz did not cover both sides: " + accepted + " accepted, " + rejected + " rejected");
        }
        return cases + " fuzz cases: " + accepted + " delivered exactly, " + rejected + " rejected alike on every rank";
    }

    /** Runs fuzz case {@code i} on every rank; returns whether it was rejected (alike everywhere), throws on a problem. */
    private static boolean fuzzCase(Intracomm world, HierarchicalBcast hb, Case c, int i) throws Exception {
        int rank = world.getRank();
        int size = world.getSize();
        c.prepare(rank == c.root, i);
        String error = null;
        try {
            hb.bcast(c.container, c.count, c.datatype, c.root);
        } catch (MPIException e) {
            error = e.getMessage();
        }
        int[] votes = {error == null ? 1 : 0, error == null ? 0 : 1};
        world.allReduce(votes, 2, MPI.INT, MPI.SUM);
        if (votes[0] != size && votes[1] != size) {
            throw new AssertionError("case " + i + " (" + c + "): " + votes[0] + " ranks accepted and " + votes[1]
                    + " rejected; here: " + (error == null ? "accepted" : error));
        }
        if (error != null) {
            if (!error.startsWith("hbcast bcast on rank " + rank + ": ") || error.length() < 40) {
                throw new AssertionError("case " + i + " (" + c + "): unclear message: " + error);
            }
            String problem = c.untouched();
            if (problem != null) {
                throw new AssertionError("case " + i + " (" + c + ") was rejected but " + problem);
            }
            Broadcasts.check(hb, world, Payload.Kind.BUFFER, ElementType.BYTE, 5000 + i, i % size, i);
            return true;
        }
        String problem = c.verify();
        if (problem != null) {
            throw new AssertionError("case " + i + " (" + c + "): " + problem);
        }
        return false;
    }

    /** One fuzz case: the arguments and the memory around the container, to check after the call. */
    private static final class Case {
        Object container;
        int count;
        Datatype datatype;
        ElementType type;
        int root;
        /** The memory checked: base object and offset of the whole allocation, its size, and where the message starts. */
        private Object base;

        private long offset;
        private long total;
        private long messageStart;
        private long capacityBytes;
        private long seed;
        private boolean isRoot;
        private String what;

        static Case draw(Random rnd, int size, int rank) {
            Case c = new Case();
            c.type = ElementType.values()[rnd.nextInt(ElementType.values().length)];
            c.datatype = rnd.nextInt(15) == 0
                    ? (rnd.nextBoolean() ? MPI.INT2 : MPI.SHORT_INT)
                    : OpenMpi.datatype(c.type.basicType());
            c.root = rnd.nextInt(12) == 0 ? (rnd.nextBoolean() ? -1 : size + rnd.nextInt(3)) : rnd.nextInt(size);
            int elements =
                    rnd.nextInt(4) == 0 ? rnd.nextInt(8) : (int) Math.exp(rnd.nextDouble() * Math.log(MAX_ELEMENTS));
            int spare = rnd.nextInt(4);
            c.count = switch (rnd.nextInt(10)) {
                case 0 -> -1 - rnd.nextInt(5);
                case 1 -> Integer.MAX_VALUE;
                case 2 -> elements + spare + 1; // one more than fits
                default -> elements;
            };
            int entryBytes = c.type.bytes() / c.type.slotsPerElement();
            long capacityBytes = (long) (elements + spare) * c.type.bytes();
            switch (rnd.nextInt(6)) {
                case 0, 1 -> c.array(capacityBytes / entryBytes, rnd.nextInt(10) == 0);
                case 5 -> c.wrong(rnd, capacityBytes);
                default -> c.slice(rnd, capacityBytes, rank, size);
            }
            return c;
        }

        private void array(long entries, boolean wrongType) {
            Class<?> component = wrongType
                    ? (type == ElementType.INT ? long.class : int.class)
                    : type.arrayClass().getComponentType();
            container = java.lang.reflect.Array.newInstance(component, (int) entries);
            base = container;
            offset = U.arrayBaseOffset(container.getClass());
            total = entries * U.arrayIndexScale(container.getClass());
            capacityBytes = total;
            what = component + "[" + entries + "]";
        }

        private void slice(Random rnd, long capacityBytes, int rank, int size) {
            int before = rnd.nextInt(9);
            int after = rnd.nextInt(17);
            ByteBuffer parent = ByteBuffer.allocateDirect((int) (before + capacityBytes + after))
                    .order(ByteOrder.nativeOrder());
            base = null;
            offset = U.getLong(parent, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
            total = parent.capacity();
            messageStart = before;
            this.capacityBytes = capacityBytes;
            ByteBuffer slice = parent.position(before)
                    .limit((int) (before + capacityBytes))
                    .slice();
            ByteBuffer shown = rnd.nextBoolean() ? slice.duplicate() : slice;
            boolean readOnly =
                    rnd.nextInt(5) == 0; // only the root's: a receiver's would be rejected on that rank alone
            int view = rnd.nextInt(3);
            Buffer b = view == 0 ? shown : type.viewOf(shown);
            if (readOnly && rank == root && b instanceof ByteBuffer bb) {
                b = bb.asReadOnlyBuffer();
            }
            if (b.capacity() > 0) {
                b.position(rnd.nextInt(b.capacity() + 1));
                b.limit(b.position() + rnd.nextInt(b.capacity() - b.position() + 1));
            }
            container = b;
            what = "slice at +" + before + " of " + capacityBytes + " B (+" + after + " after), "
                    + b.getClass().getSimpleName() + " pos " + b.position() + " lim " + b.limit();
        }

        private void wrong(Random rnd, long capacityBytes) {
            int which = rnd.nextInt(3);
            container = switch (which) {
                case 0 -> ByteBuffer.allocate((int) capacityBytes);
                case 1 -> "a string";
                default ->
                    type == ElementType.LONG
                            ? ByteBuffer.allocateDirect(64).asIntBuffer()
                            : ByteBuffer.allocateDirect(64).asLongBuffer();
            };
            base = new byte[8];
            offset = U.arrayBaseOffset(byte[].class);
            total = 8;
            what = "wrong container " + container.getClass().getSimpleName();
        }
        /** Root: the pattern over the message, sentinels everywhere else; receivers: sentinels everywhere. */
        void prepare(boolean root, long callSeed) {
            isRoot = root;
            seed = callSeed;
            long bytes = messageBytes();
            for (long i = 0; i < total; i++) {
                long m = i - messageStart;
                U.putByte(base, offset + i, root && m >= 0 && m < bytes ? Payload.expected(m, seed, type) : SENTINEL);
            }
        }

        private long messageBytes() {
            return count > 0 ? Math.min((long) count * type.bytes(), capacityBytes) : 0;
        }

        String verify() {
            long bytes = (long) count * type.bytes();
            for (long i = 0; i < total; i++) {
                long m = i - messageStart;
                boolean inside = m >= 0 && m < bytes;
                byte want = inside ? Payload.expected(m, seed, type) : SENTINEL;
                byte got = U.getByte(base, offset + i);
                if (got != want) {
                    return (inside
                                    ? "wrong byte " + m + " of the message"
                                    : "write outside the message at byte " + i + " of the allocation (message at "
                                            + messageStart + ".." + (messageStart + bytes) + ")")
                            + ": got " + got + ", want " + want + (isRoot ? " (root)" : "");
                }
            }
            return null;
        }

        /** After a rejection the memory is exactly as prepared. */
        String untouched() {
            long bytes = messageBytes();
            for (long i = 0; i < total; i++) {
                long m = i - messageStart;
                byte want = isRoot && m >= 0 && m < bytes ? Payload.expected(m, seed, type) : SENTINEL;
                if (U.getByte(base, offset + i) != want) {
                    return "byte " + i + " of the allocation changed";
                }
            }
            return null;
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "%s, count %d, %s, root %d",
                    what,
                    count,
                    datatype == OpenMpi.datatype(type.basicType()) ? type : "unsupported datatype",
                    root);
        }
    }
}

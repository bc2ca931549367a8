package org.hbcast.header;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.schedule.TreeShape;
import org.hbcast.testing.MpiTestProgram;

/**
 * The leaders' header relay alone, every rank a leader: each rank in turn is the root and sends
 * headers whose payloads lie around the first message's edge ({@link HeaderRelay#FIRST_PAYLOAD}) and
 * up to the largest, and every other rank receives, forwards and checks them byte by byte (case
 * {@code every root and payload}), and again with payloads of {@link #TREE_FROM} bytes and more sent
 * down a chain of the ranks (case {@code every root and payload, a chain past a few bytes}) and down
 * their binomial tree (case {@code every root and payload, a binomial tree past a few bytes}); then rank
 * 0 sends 17 headers of two eager messages back to back,
 * some of them synchronously ({@link HeaderRelay#SYNCHRONOUS_EVERY}; case {@code synchronous every
 * few}). Then rank 1 withdraws its receive twice: once with nothing sent
 * (withdrawn), once after a header of two messages has surely come (kept, payload and all; case
 * {@code withdraw}, ranks 0 and 1).
 *
 * <p>With {@code suite=splice} (3 ranks or more), rank 2 receives a header of two messages from rank 0
 * while a message under the rest's tag waits beside it: from rank 1 (another sender: case {@code
 * foreign rest}, the payload must be rank 0's byte for byte), and from rank 0 itself but numbered with
 * a call 8,192 earlier, whose tags are the same (case {@code rest of another call}: rank 2 must fail
 * naming both calls and rank 0). On a duplicate of the world that returns errors, as the library's
 * communicators do.
 */
public final class HeaderRelayProgram {
    private static final int RADIX = 4;
    private static final int LARGEST = 256 << 10;
    private static final int[] PAYLOADS = {
        0,
        1,
        64,
        HeaderRelay.FIRST_PAYLOAD - 1,
        HeaderRelay.FIRST_PAYLOAD,
        HeaderRelay.FIRST_PAYLOAD + 1,
        65_536,
        LARGEST
    };
    /**
     * The least payload the second and third relays send down their {@link PayloadTree}: the payloads
     * of 0 and 1 byte go down the relay's own tree.
     */
    private static final int TREE_FROM = 64;

    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final int TOKEN_TAG = 0x1234;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            int size = world.getSize();
            int rank = world.getRank();
            int[] leaders = new int[size];
            for (int r = 0; r < size; r++) {
                leaders[r] = r;
            }
            if (java.util.Arrays.asList(rest).contains("suite=splice")) {
                splice(world, report);
                return "splice";
            }
            HeaderRelay relay = new HeaderRelay(OpenMpi.comm(world), RADIX, size, LARGEST, PayloadTree.NONE);
            long[] call = {0};
            report.check("every root and payload", () -> {
                for (int root = 0; root < size; root++) {
                    for (int bytes : PAYLOADS) {
                        relayOne(relay, leaders, rank, root, bytes, ++call[0]);
                    }
                }
            });
            // The same down a chain, then a binomial tree, from TREE_FROM bytes of payload: smaller ones
            // still go down the relay's own tree.
            PayloadTree[] trees = {
                new PayloadTree(TREE_FROM, TreeShape.CHAIN, 1), new PayloadTree(TREE_FROM, TreeShape.KNOMIAL, 2)
            };
            String[] cases = {
                "every root and payload, a chain past a few bytes",
                "every root and payload, a binomial tree past a few bytes"
            };
            for (int t = 0; t < trees.length; t++) {
                HeaderRelay other = new HeaderRelay(OpenMpi.comm(world), RADIX, size, LARGEST, trees[t]);
                report.check(cases[t], () -> {
                    for (int root = 0; root < size; root++) {
                        for (int bytes : PAYLOADS) {
                            relayOne(other, leaders, rank, root, bytes, ++call[0]);
                        }
                    }
                });
            }
            // Enough headers with an eager rest from one root that some go synchronously.
            report.check("synchronous every few", () -> {
                for (int i = 0; i < 2 * HeaderRelay.SYNCHRONOUS_EVERY + 1; i++) {
                    relayOne(relay, leaders, rank, 0, 2 * HeaderRelay.FIRST_PAYLOAD - i, ++call[0]);
                }
            });
            world.barrier();
            if (size > 1 && rank < 2) {
                report.check("withdraw", () -> withdraw(world, relay, rank, ++call[0], ++call[0]));
            }
            return "relayed " + call[0] + " headers";
        });
    }

    /** Call {@code c}: {@code root} sends a header of {@code bytes} of payload, the others receive, check and forward it. */
    private static void relayOne(HeaderRelay relay, int[] leaders, int rank, int root, int bytes, long c)
            throws Exception {
        int size = leaders.length;
        if (rank == root) {
            relay.writeHeader(c, bytes, root, 1, bytes > 0);
            fill(relay.outbox(), bytes, c);
            relay.send(leaders, size, rank);
        } else {
            relay.expect(c);
            long start = System.nanoTime();
            while (!relay.arrived()) {
                if (System.nanoTime() - start > TIMEOUT_NS) {
                    throw new AssertionError("no header of call " + c + " from root " + root);
                }
                Thread.yield();
            }
            check(relay, c, bytes, root);
            relay.forward(leaders, size, rank, root);
        }
        waitSent(relay);
    }

    private static void withdraw(Intracomm world, HeaderRelay relay, int rank, long nothing, long sent)
            throws Exception {
        int[] pair = {0, 1};
        int bytes = HeaderRelay.FIRST_PAYLOAD + 1;
        if (rank == 1) {
            relay.expect(nothing);
            if (!relay.withdraw()) {
                throw new AssertionError("a receive with nothing sent was not withdrawn");
            }
            relay.expect(sent);
        }
        if (rank == 0) {
            relay.writeHeader(sent, bytes, 0, 1, true);
            fill(relay.outbox(), bytes, sent);
            relay.send(pair, 2, 0);
            waitSent(relay);
        }
        // A token after the header: Open MPI matches one sender's messages in the order they were
        // sent, so once rank 1 has the token the header has come (matched to its posted receive).
        ByteBuffer token = ByteBuffer.allocateDirect(1);
        if (rank == 0) {
            world.send(token, 1, MPI.BYTE, 1, TOKEN_TAG);
        } else {
            world.recv(token, 1, MPI.BYTE, 0, TOKEN_TAG);
        }
        if (rank == 1) {
            if (relay.withdraw()) {
                throw new AssertionError("a header that had come was withdrawn");
            }
            check(relay, sent, bytes, 0);
        }
    }

    private static final int SPLICE_PAYLOAD = HeaderRelay.FIRST_PAYLOAD + 8192;

    private static void splice(Intracomm world, org.hbcast.testing.RankReport report) throws Exception {
        int rank = world.getRank();
        Intracomm comm = world.dup();
        comm.setErrhandler(MPI.ERRORS_RETURN);
        HeaderRelay relay = new HeaderRelay(OpenMpi.comm(comm), RADIX, 3, LARGEST, PayloadTree.NONE);
        int[] pair = {0, 2};
        int restBytes = SPLICE_PAYLOAD - HeaderRelay.FIRST_PAYLOAD;
        long call = 8200;
        // Case 1: rank 1's message under the rest's tag is queued at rank 2 before rank 0's header leaves.
        if (rank < 3) {
            report.check("foreign rest", () -> {
                ByteBuffer foreign = ByteBuffer.allocateDirect(restBytes);
                if (rank == 1) {
                    for (int i = 0; i < restBytes; i++) {
                        foreign.put(i, (byte) 0x7E);
                    }
                    mpi.Request r = comm.iSend(foreign, restBytes, MPI.BYTE, 2, HeaderRelay.restTag(call));
                    sendToken(comm, 2); // after the rest: once rank 2 has the token, the rest is queued there
                    r.free(); // taken by rank 2 once it has its header, or never where it was spliced
                }
                if (rank == 2) {
                    relay.expect(call);
                    recvToken(comm, 1);
                    sendToken(comm, 0);
                    awaitHeader(relay, call);
                    check(relay, call, SPLICE_PAYLOAD, 0);
                    // Left for nobody: take it so rank 1's send completes.
                    comm.recv(foreign, restBytes, MPI.BYTE, 1, HeaderRelay.restTag(call));
                }
                if (rank == 0) {
                    recvToken(comm, 2);
                    relay.writeHeader(call, SPLICE_PAYLOAD, 0, 1, true);
                    fill(relay.outbox(), SPLICE_PAYLOAD, call);
                    relay.send(pair, 2, 0);
                    waitSent(relay);
                }
            });
        }
        world.barrier();
        // Case 2: rank 0's own rest-tagged message of call - 8192 (tags alike) comes before the header's.
        long next = call + 1;
        long earlier = next - 8192;
        if (rank == 0 || rank == 2) {
            report.check("rest of another call", () -> {
                int wire = HeaderRelay.restMessageBytes(SPLICE_PAYLOAD);
                ByteBuffer stale = ByteBuffer.allocateDirect(wire).order(java.nio.ByteOrder.nativeOrder());
                if (rank == 0) {
                    stale.putLong(wire - Long.BYTES, earlier);
                    // Not eager: it completes once rank 2 takes it as the rest it waits for.
                    mpi.Request r = comm.iSend(stale, wire, MPI.BYTE, 2, HeaderRelay.restTag(earlier));
                    relay.writeHeader(next, SPLICE_PAYLOAD, 0, 1, true);
                    fill(relay.outbox(), SPLICE_PAYLOAD, next);
                    relay.send(pair, 2, 0);
                    waitSent(relay);
                    r.waitFor();
                    return;
                }
                relay.expect(next);
                String failure = null;
                try {
                    awaitHeader(relay, next);
                } catch (MpiFailure e) {
                    failure = e.getMessage();
                }
                if (failure == null) {
                    throw new AssertionError(
                            "the header of call " + next + " was completed with a rest of call " + earlier);
                }
                for (String named : new String[] {"call " + next, "call " + earlier, "rank 0"}) {
                    if (!failure.contains(named)) {
                        throw new AssertionError("the failure does not name " + named + ": " + failure);
                    }
                }
                report.note("failure", failure);
                comm.recv(stale, wire, MPI.BYTE, 0, HeaderRelay.restTag(next)); // the header's own rest
            });
        }
        world.barrier();
    }

    private static void awaitHeader(HeaderRelay relay, long call) throws Exception {
        long start = System.nanoTime();
        while (!relay.arrived()) {
            if (System.nanoTime() - start > TIMEOUT_NS) {
                throw new AssertionError("no header of call " + call);
            }
            Thread.yield();
        }
    }

    private static void sendToken(Intracomm comm, int to) throws MPIException {
        comm.send(ByteBuffer.allocateDirect(1), 1, MPI.BYTE, to, TOKEN_TAG);
    }

    private static void recvToken(Intracomm comm, int from) throws MPIException {
        comm.recv(ByteBuffer.allocateDirect(1), 1, MPI.BYTE, from, TOKEN_TAG);
    }

    private static void waitSent(HeaderRelay relay) throws Exception {
        long start = System.nanoTime();
        while (!relay.sent()) {
            if (System.nanoTime() - start > TIMEOUT_NS) {
                throw new AssertionError("headers not sent within the timeout");
            }
            Thread.yield();
        }
    }

    private static void fill(ByteBuffer box, int bytes, long call) {
        for (int i = 0; i < bytes; i++) {
            box.put(HeaderRelay.PAYLOAD + i, pattern(i, call));
        }
    }

    private static byte pattern(int i, long call) {
        return (byte) (i * 31 + call * 7 + (i >>> 8));
    }

    private static void check(HeaderRelay relay, long call, int bytes, int root) {
        if (relay.call() != call || relay.bytes() != bytes || relay.root() != root || relay.elementBytes() != 1) {
            throw new AssertionError("header of call " + relay.call() + " (" + relay.bytes() + " bytes from root "
                    + relay.root() + "), expected call " + call + " (" + bytes + " bytes from root " + root + ")");
        }
        if (relay.inline() != (bytes > 0)) {
            throw new AssertionError("call " + call + ": inline flag " + relay.inline() + " for " + bytes + " bytes");
        }
        ByteBuffer in = relay.inbox();
        for (int i = 0; i < bytes; i++) {
            if (in.get(HeaderRelay.PAYLOAD + i) != pattern(i, call)) {
                throw new AssertionError("call " + call + " of " + bytes + " bytes from root " + root
                        + ": payload byte " + i + " differs");
            }
        }
    }
}

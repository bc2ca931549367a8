package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.hbcast.device.DeviceBuffer;
import org.junit.jupiter.api.Test;

/**
 * A leader's staging against {@link FakeCuda}: device to host at the root's leader, host to device
 * at another's, the second fed chunk by chunk by the first as the call's loop feeds it. A chunk may
 * be read only once its copy has landed.
 */
class StagingCopiesTest {
    private static final int CHUNK = 10_000;

    @Test
    void chunksGoDownAndUpInOrderAndNoneIsReadBeforeItLanded() {
        for (int seed = 1; seed <= 10; seed++) {
            final FakeCuda cuda = new FakeCuda(seed);
            assertEquals("[]", relay(cuda, seed), "seed " + seed);
        }
    }

    @Test
    void theFakeCatchesStagingThatTrustsCopiesBeforeTheyComplete() {
        int caught = 0;
        for (int seed = 1; seed <= 10; seed++) {
            caught += relay(new FakeCuda(seed).lieAboutEvents(), seed).equals("[]") ? 0 : 1;
        }
        assertTrue(caught > 0, "events that lie must show as hazards or wrong bytes");
    }

    /** Relays a message through pinned host memory; returns the hazards and byte mismatches seen. */
    private static String relay(final FakeCuda cuda, final long seed) {
        final int bytes = 17 * CHUNK + 123;
        final DeviceBuffer source = DeviceBuffer.allocate(bytes, 0, cuda);
        final DeviceBuffer target = DeviceBuffer.allocate(bytes, 0, cuda);
        final long host = cuda.hostAlloc(bytes);
        final byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        cuda.write(source.address(), data);
        final byte[] stale = new byte[bytes];
        Arrays.fill(stale, (byte) 0x5A);
        cuda.write(target.address(), stale);
        try (StagingCopies down = new StagingCopies(cuda, 0, 4);
                StagingCopies up = new StagingCopies(cuda, 0, 4)) {
            down.start(true, source, host, bytes, CHUNK, false);
            up.start(false, target, host, bytes, CHUNK, true);
            for (int round = 0; !(down.isDone() && up.isDone()); round++) {
                if (round > 1_000_000) {
                    throw new AssertionError("staging hung: " + down.describeWait() + ", " + up.describeWait());
                }
                down.progress();
                up.feed(down.chunksReady());
                up.progress();
            }
        }
        final java.util.List<String> seen = cuda.violations();
        if (!Arrays.equals(data, cuda.read(target.address(), bytes))) {
            seen.add("the bytes that came up differ from those that went down");
        }
        source.close();
        target.close();
        return seen.toString();
    }
}

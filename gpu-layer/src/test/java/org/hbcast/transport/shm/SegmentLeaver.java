package org.hbcast.transport.shm;

import java.nio.file.Path;

/**
 * A child process for the janitor tests: creates a segment in the directory given, prints its
 * name, then either dies at once without cleaning up ({@code die}, as a killed job would) or stays
 * alive until its input closes ({@code live}).
 */
public final class SegmentLeaver {
    public static void main(final String[] args) throws Exception {
        final SharedSegment segment = SharedSegment.create(Path.of(args[0]), 4096);
        System.out.println(segment.name());
        System.out.flush();
        if (args[1].equals("die")) {
            Runtime.getRuntime().halt(0);
        }
        while (System.in.read() >= 0) {
            // Stay alive (and keep the segment) until the test closes our input.
        }
        Runtime.getRuntime().halt(0);
    }
}

package org.hbcast.bench.simulate;

/**
 * Plays a pipelined broadcast chunk by chunk: every participant forwards each chunk to its children in
 * the chunk's tree as soon as it has it, chunk after chunk, each transfer on the {@link Fabric}'s
 * ports; a node stage, where given, then spreads each chunk inside the participant's node. Events
 * (a chunk reaching a participant, or a sender free for its next chunk) leave the queue in time order.
 */
final class PipelinedBroadcast {
    private PipelinedBroadcast() {}

    /**
     * Seconds until every participant (and, with a stage, every rank of its node) holds all
     * {@code bytes}, sent in chunks of {@code chunkBytes}.
     *
     * @param ranks the fabric rank of each participant, the root first
     */
    static double play(Fabric fabric, Tree tree, int[] ranks, long bytes, long chunkBytes, NodeStage stage) {
        int n = ranks.length;
        if (bytes <= 0) {
            return 0;
        }
        long c = Math.max(1, Math.min(chunkBytes, bytes));
        int chunks = Math.toIntExact((bytes + c - 1) / c);
        fabric.reset();
        double[] stageFree = new double[n];
        int[] kids = new int[tree.maxChildren()];
        EventQueue queue = new EventQueue();
        double finish = 0;
        // The root walks its chunks one after another, each when its port is free for it.
        queue.add(0, 0L);
        while (!queue.isEmpty()) {
            double now = queue.peekTime();
            long event = queue.poll();
            int rel = (int) (event >>> 32);
            int s = (int) event;
            long size = s == chunks - 1 ? bytes - (long) (chunks - 1) * c : c;
            if (stage != NodeStage.NONE) {
                // The root's node holds every chunk from the start.
                double start = Math.max(rel == 0 ? 0 : now, stageFree[rel]);
                stageFree[rel] = start + stage.stage(rel, size);
                finish = Math.max(finish, start + stage.fill(rel, size));
            } else {
                finish = Math.max(finish, now);
            }
            int count = tree.children(s % tree.trees(), rel, kids);
            double sent = now;
            for (int j = 0; j < count; j++) {
                double arrival = fabric.transfer(ranks[rel], ranks[kids[j]], size, now);
                queue.add(arrival, ((long) kids[j] << 32) | s);
                sent = Math.max(sent, fabric.senderFree(ranks[rel]));
            }
            if (rel == 0 && s + 1 < chunks) {
                queue.add(sent, s + 1L);
            }
        }
        return finish;
    }
}

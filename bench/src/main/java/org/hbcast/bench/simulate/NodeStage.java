package org.hbcast.bench.simulate;

/**
 * The level inside a node as given figures: a chunk of {@code c} bytes that reached the node's leader
 * has reached every rank of the node {@code fill(c)} later, and the node takes the next chunk
 * {@code stage(c)} after the last one began (the level's own pipeline).
 */
public interface NodeStage {
    /** For the node of participant {@code node}. */
    double fill(int node, long chunkBytes);

    double stage(int node, long chunkBytes);

    /** Nodes of one rank: nothing to do. */
    NodeStage NONE = new NodeStage() {
        @Override
        public double fill(int node, long chunkBytes) {
            return 0;
        }

        @Override
        public double stage(int node, long chunkBytes) {
            return 0;
        }
    };
}

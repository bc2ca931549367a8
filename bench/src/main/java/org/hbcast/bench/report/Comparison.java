package org.hbcast.bench.report;

import java.util.List;
import java.util.Map;

/**
 * The merged result of a comparison on one layout: per message size the median latency of every
 * column over the rounds, the best of Open MPI's own algorithms, and how auto and the copy bound
 * compare with it.
 *
 * @param layout  name of the layout (node4, testbed2x2, ...)
 * @param ranks   MPI ranks of every run
 * @param nodes   ranks per node as hbcast saw them
 * @param rounds  most rounds any configuration has
 * @param configs the configurations, in report order
 * @param columns the latency columns, in report order
 * @param rows    one per message size, ascending
 */
public record Comparison(
        String layout, int ranks, int[] nodes, int rounds, List<Config> configs, List<Column> columns, List<Row> rows) {

    /** The column "auto" (hbcast's default) is compared with; "best native" is over Open MPI columns. */
    public static final String AUTO = "auto";

    /**
     * A latency column.
     *
     * @param name    what the table calls it
     * @param openMpi whether it is one of Open MPI's own algorithms ("best native" candidates)
     * @param config  the configuration whose runs it comes from
     */
    public record Column(String name, boolean openMpi, String config) {}

    /**
     * One message size.
     *
     * @param size              bytes
     * @param latencyUs         median latency per column name; columns without data are absent
     * @param bestNative        the lowest latency among Open MPI columns, or null if none has data
     * @param bestNativeName    which column that is, or null
     * @param ratio             best native / auto (above 1: auto is faster), or null
     * @param memcpyUs          median time of one memcpy of this size, or null if not measured
     * @param copyBoundFraction on one node: ((ranks - 1) x memcpy time) / auto's latency, else null
     */
    public record Row(
            long size,
            Map<String, Double> latencyUs,
            Double bestNative,
            String bestNativeName,
            Double ratio,
            Double memcpyUs,
            Double copyBoundFraction) {}

    public boolean singleNode() {
        return nodes.length == 1;
    }
}

/**
 * The tuner: sweeps chunk sizes and plans on the machine at hand, calibrates the cost model's
 * links before and after, and writes the tuning table the selector reads.
 */
package org.hbcast.bench.tune;

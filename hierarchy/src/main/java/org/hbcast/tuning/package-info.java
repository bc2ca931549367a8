/**
 * The cost model's inputs: the machine's fingerprint, calibrated links, node curves and the
 * tuning tables the tuner writes and the selector reads.
 */
package org.hbcast.tuning;

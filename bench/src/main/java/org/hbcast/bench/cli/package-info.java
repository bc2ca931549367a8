/**
 * {@code hbcast-bench}: the command line of the experiments (compare, tune, ocean, soak, simulate,
 * gpu-lease) that the scripts start after setting up. Options are checked whole before anything
 * runs; the work is the experiment and launch packages'.
 */
package org.hbcast.bench.cli;

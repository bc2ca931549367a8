/**
 * Runs experiments as processes: {@code scripts/hbrun} launches with their output teed to the run's
 * files and their time limits, test beds brought up and always torn down, and the comparison's
 * launches in the order its plan gives.
 */
package org.hbcast.bench.launch;

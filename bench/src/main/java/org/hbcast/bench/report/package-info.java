/**
 * Turns measured runs into the comparison's tables, goal lines and plots (pure functions over
 * run files; no MPI).
 */
package org.hbcast.bench.report;

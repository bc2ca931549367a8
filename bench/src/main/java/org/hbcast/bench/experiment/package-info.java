/**
 * What an experiment is, before anything runs: the layouts ranks are placed on, the configurations
 * of Open MPI compared with hbcast, the plan of a comparison's launches, and the reading of Open
 * MPI's selection log. Pure functions and values; no processes.
 */
package org.hbcast.bench.experiment;

/**
 * A small ocean model (shallow water on strips, halos over MPI) whose broadcasts of forcing
 * fields are the application-shaped benchmark: the same run with Open MPI's {@code bcast} and with
 * hbcast must end in the same state, checksummed.
 */
package org.hbcast.bench.ocean;

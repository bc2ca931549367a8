/**
 * The measurement programs run under {@code mpirun}: the user-style probe and OSU's loop side by
 * side with Open MPI's algorithms, link probes, topology and settings reports. They use the library
 * as a program does; the library never depends on them.
 */
package org.hbcast.bench;

/**
 * The port ({@code org.hbcast.mpi.port}) over Open MPI's Java bindings ({@code mpi.jar} with
 * {@code libmpi_java.so}, shipped by Open MPI 4.1 and 5.0): the one place below the public API where
 * the library touches {@code mpi.*}. {@link org.hbcast.mpi.openmpi.OpenMpi} is its entry: a program's
 * {@code Intracomm} as the port's communicator, datatypes and errors both ways.
 */
package org.hbcast.mpi.openmpi;

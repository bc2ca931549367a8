/**
 * The library's one port to MPI: what hbcast asks of an MPI library, in JDK types only, so that a
 * binding other than Open MPI's Java bindings (a foreign-function one over the MPI 5 ABI) can stand
 * in for {@code org.hbcast.mpi.openmpi} by implementing it. Shaped by what the library uses and
 * nothing more: a communicator ({@link org.hbcast.mpi.port.MpiComm}), requests
 * ({@link org.hbcast.mpi.port.MpiRequest}, {@link org.hbcast.mpi.port.MpiPersistentRequest}), a probe's
 * result, the library's own queries ({@link org.hbcast.mpi.port.MpiLibrary}), the basic datatypes,
 * reduction operations and thread levels it uses, and its errors ({@link org.hbcast.mpi.port.MpiFailure}).
 */
package org.hbcast.mpi.port;

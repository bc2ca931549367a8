/**
 * A discrete-event simulation of broadcast schedules on clusters larger than one machine: links as
 * queues with latency and bandwidth, per-host injection and ejection limits, chunks moving as the
 * library's and Open MPI's schedules move them. Pure Java, no MPI.
 */
package org.hbcast.bench.simulate;

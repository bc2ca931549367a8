/**
 * hbcast's public API: {@link org.hbcast.HierarchicalBcast}, created once per communicator, whose
 * {@code bcast} a program calls as it calls {@code Intracomm.bcast}, {@link org.hbcast.BcastOptions},
 * and {@link org.hbcast.GpuNatives} for GPU programs that call JCuda before hbcast.
 */
package org.hbcast;

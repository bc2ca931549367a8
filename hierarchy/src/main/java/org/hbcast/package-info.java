/**
 * hbcast's public API: {@link org.hbcast.HierarchicalBcast}, created once per communicator, whose
 * {@code bcast} a program calls as it calls {@code Intracomm.bcast}, {@link org.hbcast.BcastOptions},
 * and {@link org.hbcast.GpuNatives} for GPU programs that call JCuda before hbcast. What an instance
 * tells about itself comes as read-only views of this package ({@link org.hbcast.BcastPlan}, {@link
 * org.hbcast.BcastExplanation}, {@link org.hbcast.BcastFingerprint}, {@link org.hbcast.BcastTopology},
 * {@link org.hbcast.BcastDeviceUse}): no type of the library's inside is reachable from here but the
 * device buffer of the GPU overload.
 */
package org.hbcast;

/**
 * hbcast's public API: {@link org.hbcast.HierarchicalBcast}, created once per communicator, whose
 * {@code bcast} a program calls as it calls {@code Intracomm.bcast}, and {@link org.hbcast.BcastOptions}.
 */
package org.hbcast;

/**
 * The per-call header protocol (docs/protocols/header.md): the root's count, type and small payload
 * told to every rank before any data moves, through the node's call board ({@code CallBoard}, a
 * shared-memory segment of the transport layer) and between node leaders down the header tree
 * ({@link org.hbcast.header.HeaderRelay}); roots out of range across hosts
 * ({@link org.hbcast.header.RootRefusals}); the exchange and its outcome for a call
 * ({@link org.hbcast.header.CallHeaders}).
 */
package org.hbcast.header;

/**
 * One call's arguments and header: element types, counts and buffers checked before anything is
 * sent, the header that tells every rank the root's count, and the collectives that agree on it.
 */
package org.hbcast.call;

/**
 * The pipelined engine inside a node: a ring or a fan-out moving chunks from the node's
 * leader to every rank, over links that are either shared memory or CUDA IPC. It does not know which
 * memory it moves.
 */
package org.hbcast.engine;

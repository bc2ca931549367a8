/**
 * What a call runs: a plan (algorithm between nodes, transport inside a node, chunk size, memory
 * kind), as a value.
 */
package org.hbcast.plan;

/**
 * Broadcast schedules among node leaders as pure functions: k-nomial trees and the two-tree
 * schedule for large messages; who sends which chunk to whom, in which round.
 */
package org.hbcast.schedule;

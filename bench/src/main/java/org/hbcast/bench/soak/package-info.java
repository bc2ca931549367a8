/**
 * The soak: hours of broadcasts with every plan forced in turn, checking every byte and
 * following the ranks' memory, to show nothing leaks or drifts.
 */
package org.hbcast.bench.soak;

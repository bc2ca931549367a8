/**
 * Chooses a call's plan: the selector and cost model's candidates, in-run trials that learn
 * which plan wins on this machine, and the agreement that keeps every rank on the same choice.
 */
package org.hbcast.select;

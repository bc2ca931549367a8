/**
 * A loop that drives stages that never block (sends, receives, copies) to completion, with the
 * idle strategy (spin, yield, park) and the wait limits every wait of the library goes through.
 */
package org.hbcast.stage;

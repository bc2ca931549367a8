/**
 * One call's arguments: element types, counts and buffers checked before anything is sent, the
 * count rules, and the per-call all-reduce that agrees on counts where no header carries them.
 */
package org.hbcast.call;

/**
 * Device memory as the library sees it: buffers, pointers, streams, contexts and IPC handles over
 * the CUDA driver and runtime (JCuda, optional at run time), behind {@code CudaCalls} so that tests
 * run against a fake GPU.
 */
package org.hbcast.device;

package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaCalls.CopyKind;
import org.hbcast.device.CudaException;
import org.junit.jupiter.api.Test;

/**
 * The fake's topology, which the several-GPU protocol tests rely on: processes number the GPUs as
 * their visible list says while the UUID names the physical one, peer access decides what a copy and
 * an IPC open may reach, and a mapping of a freed allocation is caught even when a new allocation
 * took its address.
 */
class FakeCudaTopologyTest {
    @Test
    void processesThatNumberTheGpusDifferentlySeeTheSameUuidForTheSameGpu() {
        final FakeCuda box = new FakeCuda(1, 3);
        final CudaCalls first = box.process(0, 1, 2);
        final CudaCalls second = box.process(2, 0);
        assertArrayEquals(first.deviceUuid(2), second.deviceUuid(0));
        assertArrayEquals(first.deviceUuid(0), second.deviceUuid(1));
        assertFalse(java.util.Arrays.equals(first.deviceUuid(0), first.deviceUuid(1)));
        final long onSecondsZero = second.malloc(0, 64);
        assertEquals(2, box.gpuOf(onSecondsZero), "device 0 of a process that sees GPUs [2, 0] is GPU 2");
        assertThrows(CudaException.class, () -> second.malloc(2, 64), "that process sees two devices");
    }

    @Test
    void aCopyBetweenGpusWithoutPeerAccessIsRecordedAndAnOpenAcrossThemFails() {
        final FakeCuda box = new FakeCuda(2, 2).peerAccess((device, peer) -> false);
        final CudaCalls onZero = box.process(0);
        final CudaCalls onOne = box.process(1);
        final long mine = onZero.malloc(0, 128);
        final long theirs = onOne.malloc(0, 128);
        assertThrows(CudaException.class, () -> onZero.ipcOpen(0, onOne.ipcGetHandle(0, theirs), 0));
        final long stream = onZero.streamCreate(0);
        onZero.copyAsync(theirs, mine, 128, CopyKind.DEVICE_TO_DEVICE, stream);
        onZero.streamSynchronize(stream);
        assertTrue(
                box.violations().toString().contains("without peer access"),
                box.violations().toString());
    }

    @Test
    void aMappingOfAFreedAllocationIsStaleEvenWhenANewOneTookItsAddress() {
        final FakeCuda box = new FakeCuda(3, 1).reuseFreedAddresses();
        final CudaCalls owner = box.process(0);
        final CudaCalls peer = box.process(0);
        final long first = owner.malloc(0, 256);
        final long mapped = peer.ipcOpen(0, owner.ipcGetHandle(0, first), 0);
        owner.free(0, first);
        final long second = owner.malloc(0, 256);
        assertEquals(first, second, "the fake hands the freed address out again");
        final long source = peer.malloc(0, 256);
        final long stream = peer.streamCreate(0);
        assertThrows(CudaException.class, () -> {
            peer.copyAsync(mapped, source, 256, CopyKind.DEVICE_TO_DEVICE, stream);
            peer.streamSynchronize(stream);
        });
        final String seen = box.violations().toString();
        assertTrue(seen.contains("while 1 mapping(s) of it are open"), seen);
        assertTrue(seen.contains("through a stale mapping"), seen);
    }
}

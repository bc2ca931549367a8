package org.hbcast.bench.soak;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumMap;
import java.util.Map;
import org.agrona.BufferUtil;
import org.agrona.UnsafeAccess;
import org.hbcast.call.ElementType;

/**
 * Host memory kinds of the soak: a fresh Java array per call (as applications allocate them), or
 * one direct buffer reused for every call, passed as a ByteBuffer or as a typed view of it.
 */
final class HostMemory implements SoakMemory {
    private final SoakKind kind;
    private final ByteBuffer direct;
    private final long address;
    private final Map<ElementType, Object> views = new EnumMap<>(ElementType.class);
    private Object array;

    HostMemory(SoakKind kind, int maxBytes) {
        this.kind = kind;
        if (kind == SoakKind.ARRAYS) {
            direct = null;
            address = 0;
        } else {
            direct = ByteBuffer.allocateDirect(maxBytes + Pattern.GUARD_BYTES).order(ByteOrder.nativeOrder());
            address = UnsafeAccess.UNSAFE.getLong(direct, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
            for (ElementType type : ElementType.values()) {
                views.put(type, kind == SoakKind.BUFFERS ? direct : type.viewOf(direct));
            }
        }
    }

    @Override
    public Object prepare(ElementType type, int count, long key, boolean root) {
        long bytes = (long) count * type.bytes();
        Object container;
        if (kind == SoakKind.ARRAYS) {
            int entries = Math.toIntExact((bytes + Pattern.GUARD_BYTES) / (type.bytes() / type.slotsPerElement()));
            array = Array.newInstance(type.arrayClass().getComponentType(), entries);
            container = array;
        } else {
            container = views.get(type);
        }
        if (root) {
            Pattern.fill(base(), offset(), bytes, key, type == ElementType.BOOLEAN);
        } else {
            Pattern.guard(base(), offset() + bytes);
        }
        return container;
    }

    @Override
    public String verify(ElementType type, int count, long key) {
        String problem =
                Pattern.verify(base(), offset(), (long) count * type.bytes(), key, type == ElementType.BOOLEAN);
        array = null;
        return problem;
    }

    private Object base() {
        return kind == SoakKind.ARRAYS ? array : null;
    }

    private long offset() {
        return kind == SoakKind.ARRAYS ? UnsafeAccess.UNSAFE.arrayBaseOffset(array.getClass()) : address;
    }
}

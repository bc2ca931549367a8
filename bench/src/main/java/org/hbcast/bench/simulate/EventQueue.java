package org.hbcast.bench.simulate;

/**
 * A binary min-heap of (time, payload) events in flat arrays: millions of chunk arrivals without an
 * object each. Ties leave in no fixed order.
 */
final class EventQueue {
    private double[] times = new double[1024];
    private long[] payloads = new long[1024];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    void add(double time, long payload) {
        if (size == times.length) {
            times = java.util.Arrays.copyOf(times, size * 2);
            payloads = java.util.Arrays.copyOf(payloads, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (times[parent] <= time) {
                break;
            }
            times[i] = times[parent];
            payloads[i] = payloads[parent];
            i = parent;
        }
        times[i] = time;
        payloads[i] = payload;
    }

    /** The earliest event's time; call before {@link #poll}. */
    double peekTime() {
        return times[0];
    }

    /** Removes the earliest event and returns its payload. */
    long poll() {
        long top = payloads[0];
        size--;
        double time = times[size];
        long payload = payloads[size];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && times[child + 1] < times[child]) {
                child++;
            }
            if (times[child] >= time) {
                break;
            }
            times[i] = times[child];
            payloads[i] = payloads[child];
            i = child;
        }
        times[i] = time;
        payloads[i] = payload;
        return top;
    }
}

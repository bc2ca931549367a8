package org.hbcast.bench.launch;

/** An experiment that ran but failed: its message is the one line printed, its exit status the command's. */
public final class BenchFailure extends RuntimeException {
    private final int exitStatus;

    public BenchFailure(String message, int exitStatus) {
        super(message);
        this.exitStatus = exitStatus;
    }

    public int exitStatus() {
        return exitStatus;
    }
}

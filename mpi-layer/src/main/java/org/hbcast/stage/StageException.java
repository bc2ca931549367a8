package org.hbcast.stage;

/**
 * A stage cannot go on with the current call: a peer aborted, a transport reported an error, or the
 * ranks disagree on the call. Unchecked, so the one loop need not know each transport's exceptions;
 * the orchestrator turns it into the binding's exception for the caller.
 */
public class StageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StageException(String message) {
        super(message);
    }

    public StageException(String message, Throwable cause) {
        super(message, cause);
    }
}

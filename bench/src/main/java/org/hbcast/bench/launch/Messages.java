package org.hbcast.bench.launch;

/** The scripts' voice on standard error: {@code hbcast: ...} lines between the launches' own output. */
public final class Messages {
    private Messages() {}

    public static void say(String line) {
        System.err.println("hbcast: " + line);
        System.err.flush();
    }
}

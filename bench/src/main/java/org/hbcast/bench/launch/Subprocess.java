package org.hbcast.bench.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One child process as the scripts ran it: its output on this terminal, teed to a file, or into a
 * file only; its environment this JVM's with changes; a time limit after which it and everything it
 * started are ended; ended too if this JVM exits first ({@link ExitCleanup}).
 */
public final class Subprocess {
    /** The exit status of a process that ran past its limit, as {@code timeout(1)} gives it. */
    public static final int TIMED_OUT = 124;

    private final List<String> argv;
    private final Map<String, String> set = new LinkedHashMap<>();
    private final Set<String> unset = new LinkedHashSet<>();
    private Path file;
    private boolean echo = true;
    private boolean append;
    private Duration limit;
    private String input;
    private PrintStream terminal = System.err;

    private Subprocess(List<String> argv) {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("no command");
        }
        this.argv = List.copyOf(argv);
    }

    public static Subprocess of(List<String> argv) {
        return new Subprocess(argv);
    }

    public List<String> argv() {
        return argv;
    }

    public Subprocess env(String name, String value) {
        set.put(name, value);
        unset.remove(name);
        return this;
    }

    public Subprocess env(Map<String, String> values) {
        values.forEach(this::env);
        return this;
    }

    public Subprocess unsetEnv(String name) {
        unset.add(name);
        set.remove(name);
        return this;
    }

    /** Output and errors, merged, into {@code file} and onto this JVM's standard error ({@code 2>&1 | tee FILE >&2}). */
    public Subprocess teeTo(Path file) {
        this.file = file;
        this.echo = true;
        this.append = false;
        return this;
    }

    /** Output and errors, merged, into {@code file} only ({@code >FILE 2>&1}). */
    public Subprocess into(Path file) {
        this.file = file;
        this.echo = false;
        this.append = false;
        return this;
    }

    /** Output and errors, merged, appended to {@code file} ({@code >>FILE 2>&1}). */
    public Subprocess appendTo(Path file) {
        into(file);
        this.append = true;
        return this;
    }

    /** Where teed output is echoed (standard error unless told). */
    public Subprocess echoTo(PrintStream stream) {
        this.terminal = stream;
        return this;
    }

    /** Ends the process tree after {@code limit}; the run then returns {@link #TIMED_OUT}. */
    public Subprocess limit(Duration limit) {
        this.limit = limit;
        return this;
    }

    /** Text written to the process's standard input, which is then closed. */
    public Subprocess input(String text) {
        this.input = text;
        return this;
    }

    /** Runs the process to its end; its exit status. */
    public int run() throws IOException {
        ProcessBuilder pb = builder();
        if (file == null) {
            pb.redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
        } else if (!echo) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            pb.redirectErrorStream(true)
                    .redirectOutput(
                            append
                                    ? ProcessBuilder.Redirect.appendTo(file.toFile())
                                    : ProcessBuilder.Redirect.to(file.toFile()));
        } else {
            Files.createDirectories(file.toAbsolutePath().getParent());
            pb.redirectErrorStream(true);
        }
        OutputStream out = file != null && echo ? Files.newOutputStream(file) : null;
        Process p;
        try {
            p = start(pb);
        } catch (IOException e) {
            if (out != null) {
                out.close();
            }
            throw e;
        }
        return finish(p, out == null ? null : pump(p.getInputStream(), out, terminal));
    }

    /** Runs the process with its standard output captured (errors on this terminal): status and output. */
    public Result capture() throws IOException {
        ProcessBuilder pb = builder().redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = start(pb);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Thread pump = pump(p.getInputStream(), bytes, null);
        int code = finish(p, pump);
        return new Result(code, bytes.toString(StandardCharsets.UTF_8));
    }

    /** The exit status and standard output of a captured run. */
    public record Result(int code, String output) {
        /** The last line of the output, or "". */
        public String lastLine() {
            String[] lines = output.strip().split("\n");
            return lines[lines.length - 1].strip();
        }
    }

    private ProcessBuilder builder() {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(argv));
        unset.forEach(pb.environment()::remove);
        pb.environment().putAll(set);
        pb.redirectInput(input == null ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
        return pb;
    }

    private Process start(ProcessBuilder pb) throws IOException {
        Process p;
        synchronized (ExitCleanup.class) {
            p = pb.start();
            ExitCleanup.track(p);
        }
        if (input != null) {
            try (OutputStream in = p.getOutputStream()) {
                in.write(input.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // It ended without reading its input; its status will say why.
            }
        }
        return p;
    }

    private int finish(Process p, Thread pump) throws IOException {
        try {
            boolean ended = limit == null ? waitFor(p) : p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                terminal.println(
                        "hbcast: " + argv.get(0) + " ran past its limit of " + limit.toSeconds() + " s: ending it");
                ExitCleanup.endTree(p, 5000);
            }
            if (pump != null) {
                pump.join();
            }
            return ended ? p.exitValue() : TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ExitCleanup.endTree(p, 1000);
            throw new IOException("interrupted while " + argv.get(0) + " ran", e);
        } finally {
            ExitCleanup.untrack(p);
        }
    }

    private static boolean waitFor(Process p) throws InterruptedException {
        p.waitFor();
        return true;
    }

    /** Copies {@code in} to {@code out} (closed at the end) and to {@code echo} as it comes. */
    private static Thread pump(InputStream in, OutputStream out, PrintStream echo) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[8192];
                    try (in;
                            out) {
                        int n;
                        while ((n = in.read(buf)) > 0) {
                            out.write(buf, 0, n);
                            out.flush();
                            if (echo != null) {
                                echo.write(buf, 0, n);
                                echo.flush();
                            }
                        }
                    } catch (IOException e) {
                        // The pipe broke as the process was ended: what it wrote before is kept.
                    }
                },
                "output-of-child");
        t.setDaemon(true);
        t.start();
        return t;
    }
}

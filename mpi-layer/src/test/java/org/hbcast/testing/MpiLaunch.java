package org.hbcast.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Launches a test program on N MPI ranks through {@code scripts/hbrun} (optionally on a test bed
 * made by {@code scripts/testbed run}) with a hard timeout, and collects every rank's
 * {@link RankResult} from a directory of its own ({@value MpiTestProgram#RESULTS_DIR_ENV}, passed
 * to the ranks like every {@code HBCAST_*} variable).
 *
 * <p>Ranks get the classpath of the running test JVM. MPI tests are skipped, visibly, when
 * {@code -Dhbcast.mpi.tests=false} is set or no {@code mpirun} is found.
 */
public final class MpiLaunch {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration GRACE = Duration.ofSeconds(20);

    private final Class<?> program;
    /** The method a {@link RankMain} launch runs on the ranks; null for a program's main. */
    private final java.lang.reflect.Method body;

    private MpiTestProgram.Finish finish = MpiTestProgram.Finish.FINALIZE;
    private Ranks.Threads threads = Ranks.Threads.SINGLE;
    private String layout;
    private int ranks = 1;
    private String nodeSizes;
    private int bedHosts;
    private String bedSlots;
    private String netem;
    private boolean ownCores;
    private Duration timeout = DEFAULT_TIMEOUT;
    private final List<String> args = new ArrayList<>();
    private final List<String> jvmOptions = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-Xss1m"));
    private final Map<String, String> env = new LinkedHashMap<>();
    private String classpath;
    private boolean agent;
    private boolean recovery;
    private boolean endWhenRanksExit;
    private final List<String> mca = new ArrayList<>();
    /** Shell lines by rank, run before that rank's JVM starts (see {@link #rankEnv}). */
    private final Map<Integer, List<String>> rankSetup = new LinkedHashMap<>();
    /** Extra JVM options by rank. */
    private final Map<Integer, List<String>> rankJvm = new LinkedHashMap<>();
    /** Size of a private, empty /dev/shm by rank. */
    private final Map<Integer, String> rankShm = new LinkedHashMap<>();

    private MpiLaunch(Class<?> program, java.lang.reflect.Method body) {
        this.program = program;
        this.body = body;
    }

    /** A launch of {@code program}'s main method. */
    public static MpiLaunch program(Class<?> program) {
        return new MpiLaunch(program, null);
    }

    /**
     * A launch of {@code body} on every rank ({@link RankMain}): a static method of a test class
     * taking {@link Ranks}, e.g. {@code MpiLaunch.body(SettingsTest::follow)}. Every rank must plan
     * its cases ({@link Ranks#plan}).
     */
    public static MpiLaunch body(RankBody body) {
        return method(RankBody.target(body));
    }

    /** A launch of test method {@code method} (taking {@link Ranks}) on every rank: what {@link OnRanks} runs. */
    static MpiLaunch method(java.lang.reflect.Method method) {
        return new MpiLaunch(RankMain.class, method);
    }

    /**
     * The layout of the ranks, in one word: {@code "4"} four ranks on this host (one node);
     * {@code "2,2"} virtual nodes ({@link #nodeSizes}); {@code "nodes 4"} one virtual node of four;
     * {@code "bed 2x3"} a test bed of two hosts of three ranks ({@link #testBed});
     * {@code "bed 3,2,1"} a test bed of hosts of three, two and one ({@link #testBedOf}).
     */
    public MpiLaunch layout(String layout) {
        String l = layout.trim();
        if (l.startsWith("bed ")) {
            String shape = l.substring(4).trim();
            if (shape.contains("x")) {
                String[] hs = shape.split("x");
                testBed(Integer.parseInt(hs[0].trim()), Integer.parseInt(hs[1].trim()));
            } else {
                testBedOf(Arrays.stream(shape.split(","))
                        .mapToInt(s -> Integer.parseInt(s.trim()))
                        .toArray());
            }
        } else if (l.startsWith("nodes ")) {
            nodeSizes(l.substring(6).trim());
        } else if (l.contains(",")) {
            nodeSizes(l);
        } else {
            ranks(Integer.parseInt(l));
        }
        this.layout = l;
        return this;
    }

    /** How the ranks end ({@link MpiTestProgram.Finish}); for {@link #body} launches. */
    public MpiLaunch finish(MpiTestProgram.Finish how) {
        this.finish = how;
        return this;
    }

    /** How MPI is initialised on the ranks; for {@link #body} launches. */
    public MpiLaunch threads(Ranks.Threads level) {
        this.threads = level;
        return this;
    }

    public MpiLaunch ranks(int n) {
        this.ranks = n;
        return this;
    }

    /** Virtual nodes ({@code HBCAST_NODE_SIZES}); the rank count becomes their sum. */
    public MpiLaunch nodeSizes(String sizes) {
        this.nodeSizes = sizes;
        this.ranks = Arrays.stream(sizes.split(","))
                .mapToInt(s -> Integer.parseInt(s.trim()))
                .sum();
        return this;
    }

    /** Runs on a fresh test bed of {@code hosts} network-namespace hosts with {@code slots} ranks each. */
    public MpiLaunch testBed(int hosts, int slots) {
        this.bedHosts = hosts;
        this.bedSlots = Integer.toString(slots);
        this.ranks = hosts * slots;
        return this;
    }

    /** Runs on a fresh test bed whose host {@code i} holds {@code slotsPerHost[i]} ranks. */
    public MpiLaunch testBedOf(int... slotsPerHost) {
        this.bedHosts = slotsPerHost.length;
        this.bedSlots = Arrays.stream(slotsPerHost).mapToObj(Integer::toString).collect(Collectors.joining(","));
        this.ranks = Arrays.stream(slotsPerHost).sum();
        return this;
    }

    public MpiLaunch netem(String netemArgs) {
        this.netem = netemArgs;
        return this;
    }

    /** Gives each test-bed host cores of its own ({@code scripts/testbed --own-cores}). */
    public MpiLaunch ownCores() {
        this.ownCores = true;
        return this;
    }

    public MpiLaunch args(String... more) {
        args.addAll(List.of(more));
        return this;
    }

    public MpiLaunch env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /** An extra MCA parameter for mpirun. */
    public MpiLaunch mca(String key, String value) {
        mca.addAll(List.of("--mca", key, value));
        return this;
    }

    /** The ranks' classpath instead of the test JVM's (for programs that must not see hbcast's classes). */
    public MpiLaunch classpath(String cp) {
        this.classpath = cp;
        return this;
    }

    /**
     * Open MPI's runtime keeps the job running when a rank dies or exits without finalizing, so that
     * the survivors of a fault can report ({@code scripts/hbrun --enable-recovery}, which names it as
     * the installed Open MPI does).
     */
    public MpiLaunch recovery() {
        this.recovery = true;
        return this;
    }

    /**
     * Ends the launch once every rank's JVM has started and exited, where {@code mpirun} would
     * outlive them: with {@link #recovery} on a test bed it stays up after ranks exit without
     * finalizing, until its own timeout. {@code mpirun} is then sent SIGTERM (and the launch stopped
     * as at a timeout if it is still up after a grace period); the outcome has exit code {@link
     * #ENDED_AFTER_RANKS} and has not timed out.
     */
    public MpiLaunch endWhenRanksExit() {
        this.endWhenRanksExit = true;
        return this;
    }

    /** The exit code of a launch ended by {@link #endWhenRanksExit} after its ranks had exited. */
    public static final int ENDED_AFTER_RANKS = -2;

    /** How long no rank's JVM may be left before {@link #endWhenRanksExit} ends the launch. */
    private static final Duration RANKS_GONE = Duration.ofSeconds(1);

    /** Runs the program under hbcast's Java agent ({@code scripts/hbrun --agent}). */
    public MpiLaunch agent() {
        this.agent = true;
        return this;
    }

    public MpiLaunch jvmOption(String option) {
        jvmOptions.add(option);
        return this;
    }

    /**
     * {@code name=value} in rank {@code rank}'s environment only ({@code value} null: unset there), as
     * when a variable reaches some hosts and not others: the launch runs each JVM through a wrapper
     * that reads {@code OMPI_COMM_WORLD_RANK}.
     */
    public MpiLaunch rankEnv(int rank, String name, String value) {
        rankSetup
                .computeIfAbsent(rank, r -> new ArrayList<>())
                .add(value == null ? "unset " + name : "export " + name + "=" + shellQuote(value));
        return this;
    }

    /** A JVM option for rank {@code rank} only. */
    public MpiLaunch rankJvmOption(int rank, String option) {
        rankJvm.computeIfAbsent(rank, r -> new ArrayList<>()).add(option);
        return this;
    }

    /**
     * Rank {@code rank} sees a /dev/shm of its own: an empty tmpfs of {@code size} (as {@code mount -o
     * size=} takes it) in a mount namespace of its own, as on a node whose /dev/shm is small or full.
     * Needs root.
     */
    public MpiLaunch rankSharedMemory(int rank, String size) {
        rankShm.put(rank, size);
        return this;
    }

    private static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** The wrapper every JVM starts through when some rank has settings of its own; null when none has. */
    private Path rankWrapper() throws IOException {
        if (rankSetup.isEmpty() && rankJvm.isEmpty() && rankShm.isEmpty()) {
            return null;
        }
        StringBuilder sh = new StringBuilder("#!/usr/bin/env bash\n")
                .append("# Made by MpiLaunch: per-rank settings of one test launch.\n")
                .append("java=$1; shift\n")
                .append("opts=()\n")
                .append("case \"${OMPI_COMM_WORLD_RANK:?not started by mpirun}\" in\n");
        java.util.Set<Integer> ranks = new java.util.TreeSet<>();
        ranks.addAll(rankSetup.keySet());
        ranks.addAll(rankJvm.keySet());
        ranks.addAll(rankShm.keySet());
        for (int r : ranks) {
            sh.append("  ").append(r).append(")\n");
            for (String line : rankSetup.getOrDefault(r, List.of())) {
                sh.append("    ").append(line).append("\n");
            }
            for (String option : rankJvm.getOrDefault(r, List.of())) {
                sh.append("    opts+=(").append(shellQuote(option)).append(")\n");
            }
            String shm = rankShm.get(r);
            if (shm != null) {
                sh.append("    exec unshare --mount --propagation private bash -c ")
                        .append(shellQuote(
                                "mount -t tmpfs -o size=" + shm + ",mode=1777 hbcast-test-shm /dev/shm && exec \"$@\""))
                        .append(" wrapper \"$java\" \"${opts[@]}\" \"$@\"\n");
            }
            sh.append("    ;;\n");
        }
        sh.append("esac\n").append("exec \"$java\" \"${opts[@]}\" \"$@\"\n");
        Path script = Files.createTempFile("hbcast-rank-wrapper", ".sh");
        Files.writeString(script, sh.toString());
        script.toFile().setExecutable(true);
        return script;
    }

    public MpiLaunch timeout(Duration t) {
        this.timeout = t;
        return this;
    }

    /** Runs the launch; skips the calling test (JUnit assumption) where MPI tests cannot run. */
    public MpiOutcome run() {
        assumeMpiTests();
        if (bedHosts > 0) {
            TestBed.assumeAvailable();
        }
        List<String> cmd = new ArrayList<>();
        Path root = repositoryRoot();
        if (bedHosts > 0) {
            cmd.addAll(List.of(
                    root.resolve("scripts/testbed").toString(),
                    "run",
                    "--hosts",
                    Integer.toString(bedHosts),
                    "--slots",
                    bedSlots));
            if (netem != null) {
                cmd.addAll(List.of("--netem", netem));
            }
            if (ownCores) {
                cmd.add("--own-cores");
            }
            cmd.add("--");
        }
        cmd.addAll(List.of(
                root.resolve("scripts/hbrun").toString(),
                "-n",
                Integer.toString(ranks),
                "--cp",
                classpath != null ? classpath : System.getProperty("java.class.path"),
                "--timeout",
                Long.toString(timeout.toSeconds())));
        if (agent) {
            cmd.add("--agent");
        }
        if (recovery) {
            cmd.add("--enable-recovery");
        }
        if (nodeSizes != null) {
            cmd.addAll(List.of("--nodes", nodeSizes));
        }
        cmd.addAll(mca);
        Path wrapper;
        try {
            wrapper = rankWrapper();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the per-rank wrapper", e);
        }
        if (wrapper != null) {
            cmd.addAll(List.of("--wrap", wrapper.toString()));
        }
        for (String option : jvmOptions) {
            cmd.addAll(List.of("--jvm-opt", option));
        }
        cmd.add(program.getName());
        if (body != null) {
            cmd.addAll(List.of(body.getDeclaringClass().getName(), body.getName(), finish.name(), threads.name()));
            if (layout != null) {
                cmd.add(Ranks.LAYOUT_ARG + "=" + layout);
            }
        }
        cmd.addAll(args);

        String description = describe();
        List<String> before = SharedMemory.hbcastSegments();
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("HBCAST_") && !env.containsKey(k));
        pb.environment().putAll(env);
        // Each launch a fresh machine: no calibration, table or learnt plans of earlier launches or runs.
        Path cache = null;
        if (!env.containsKey("HBCAST_CACHE_DIR")) {
            try {
                cache = Files.createTempDirectory("hbcast-cache");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot make a cache directory for " + description, e);
            }
            pb.environment().put("HBCAST_CACHE_DIR", cache.toString());
        }
        // Each launch an empty directory for the ranks' results, so that no file of another launch is read.
        Path results;
        try {
            results = Files.createTempDirectory("hbcast-results");
        } catch (IOException e) {
            deleteTree(cache);
            throw new UncheckedIOException("cannot make a results directory for " + description, e);
        }
        pb.environment().put(MpiTestProgram.RESULTS_DIR_ENV, results.toString());
        try {
            Process process = pb.start();
            process.getOutputStream().close();
            OutputCollector collector = new OutputCollector(process.getInputStream());
            collector.start();
            boolean ranksGone = endWhenRanksExit && waitForRanks(process, timeout.plus(GRACE));
            boolean finished;
            if (ranksGone) {
                // mpirun alone is told to go, so that the test bed's script tears its bed down on its
                // normal way out rather than in a signal's handler.
                process.descendants().filter(MpiLaunch::isLauncher).forEach(ProcessHandle::destroy);
                finished = process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } else if (endWhenRanksExit) {
                // The launch ended, or its whole time passed while a rank was still up.
                finished = !process.isAlive();
            } else {
                finished = process.waitFor(timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
            }
            if (!finished) {
                stop(process);
            }
            collector.join(GRACE.toMillis());
            int exit = ranksGone ? ENDED_AFTER_RANKS : finished ? process.exitValue() : -1;
            List<String> leaked = SharedMemory.newSegments(before);
            MpiOutcome outcome = new MpiOutcome(
                    description,
                    body != null,
                    ranks,
                    exit,
                    !finished && !ranksGone,
                    collector.text(),
                    leaked,
                    ResultFiles.readAll(results));
            // One line per launch in the test's output: what ran where, and how many cases each rank ran.
            System.out.println(
                    "launch: " + description + ": exit " + exit + ", cases by rank [" + outcome.casesByRank() + "]");
            return outcome;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + description, e);
        } finally {
            deleteTree(cache);
            deleteTree(results);
            deleteTree(wrapper);
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temporary directory left behind is harmless.
        }
    }

    private String describe() {
        StringBuilder sb = new StringBuilder(
                        body != null
                                ? body.getDeclaringClass().getSimpleName() + "." + body.getName()
                                : program.getSimpleName())
                .append(" on ")
                .append(ranks)
                .append(" ranks");
        if (nodeSizes != null) {
            sb.append(", nodes ").append(nodeSizes);
        }
        if (bedHosts > 0) {
            sb.append(", test bed of ")
                    .append(bedHosts)
                    .append(" hosts with ")
                    .append(bedSlots)
                    .append(" ranks");
        }
        if (!args.isEmpty()) {
            sb.append(", args ").append(args);
        }
        if (!env.isEmpty()) {
            sb.append(", env ").append(env);
        }
        if (!rankSetup.isEmpty() || !rankJvm.isEmpty() || !rankShm.isEmpty()) {
            sb.append(", per rank ").append(rankSetup).append(rankJvm).append(rankShm);
        }
        return sb.toString();
    }

    /**
     * Waits until {@code process} ends (false) or, once a rank's JVM has run under it, no JVM is
     * left under it for {@link #RANKS_GONE} (true); false too when {@code limit} passes first.
     */
    private static boolean waitForRanks(Process process, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        boolean seen = false;
        long goneSince = 0;
        while (System.nanoTime() < deadline) {
            if (process.waitFor(200, TimeUnit.MILLISECONDS)) {
                return false;
            }
            if (process.descendants().anyMatch(MpiLaunch::isJvm)) {
                seen = true;
                goneSince = 0;
            } else if (seen) {
                long now = System.nanoTime();
                if (goneSince == 0) {
                    goneSince = now;
                } else if (now - goneSince >= RANKS_GONE.toNanos()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isJvm(ProcessHandle p) {
        return p.info().command().map(c -> c.endsWith("/java")).orElse(false);
    }

    /** Open MPI's launcher: {@code mpirun} is a link to {@code orterun} (4.x) or {@code prterun} (5.x). */
    private static boolean isLauncher(ProcessHandle p) {
        return p.info()
                .command()
                .map(c -> c.endsWith("/mpirun") || c.endsWith("/orterun") || c.endsWith("/prterun"))
                .orElse(false);
    }

    /** TERM first, so mpirun and the test bed clean up; then KILL whatever is left. */
    private static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        process.destroy();
        if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            tree.addAll(process.descendants().toList());
            tree.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }

    static void assumeMpiTests() {
        assumeTrue(
                Boolean.parseBoolean(System.getProperty("hbcast.mpi.tests", "true")),
                "MPI tests switched off with -Dhbcast.mpi.tests=false");
        assumeTrue(mpirunPresent(), "no mpirun on PATH and OMPI_HOME unset: run scripts/setup");
    }

    private static boolean mpirunPresent() {
        String home = System.getenv("OMPI_HOME");
        if (home != null && Files.isExecutable(Paths.get(home, "bin", "mpirun"))) {
            return true;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Paths.get(dir, "mpirun"))) {
                return true;
            }
        }
        return false;
    }

    /** The checkout's top directory: the first parent of the working directory holding scripts/hbrun. */
    public static Path repositoryRoot() {
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("scripts/hbrun"))) {
                return p;
            }
        }
        throw new IllegalStateException("no scripts/hbrun above " + dir);
    }

    /** Drains a process's output so it never blocks on a full pipe. */
    private static final class OutputCollector extends Thread {
        private final InputStream in;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        OutputCollector(InputStream in) {
            super("mpi-output");
            setDaemon(true);
            this.in = in;
        }

        @Override
        public void run() {
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    synchronized (bytes) {
                        bytes.write(buf, 0, n);
                    }
                }
            } catch (IOException ignored) {
                // The process is gone; what was read is the output.
            }
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }
    }
}

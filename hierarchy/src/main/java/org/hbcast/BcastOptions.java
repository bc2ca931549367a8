package org.hbcast;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.regex.Pattern;
import org.hbcast.plan.PlanChoices;
import org.hbcast.settings.Log;
import org.hbcast.settings.Setting;

/**
 * Settings of a {@link HierarchicalBcast}: the algorithm, chunk size, tree radix, timeout, virtual
 * nodes and the rule for counts that differ across ranks. {@link #defaults()} reads the
 * {@code HBCAST_*} environment variables, or the system properties beside them
 * ({@code -Dhbcast.chunk.bytes}, which win; every setting is listed once in
 * {@code org.hbcast.settings.Setting}), and rejects bad values with a message naming the variable;
 * the {@code with*} methods derive variants.
 *
 * @param algorithm which algorithm runs ({@code HBCAST_ALGORITHM}, default auto)
 * @param chunkBytes chunk (segment) size in bytes, 0 to let the selector choose ({@code HBCAST_CHUNK_BYTES})
 * @param radix k-nomial radix, 0 to let the selector choose ({@code HBCAST_RADIX})
 * @param tuningFile measured tuning table, {@code none} for none, or null for the default place
 *        ({@code HBCAST_TUNING_FILE}; see {@link TuningAgreement})
 * @param timeout longest wait without progress before a call reports the wait on stderr (one line
 *        naming the call, what it waits for and from whom, and one more after each further period) and
 *        waits on, as Open MPI waits; or fails, with {@code timeoutFails} ({@code HBCAST_TIMEOUT_S},
 *        default 60 s)
 * @param nodeSizes virtual node sizes like "8,3,3", or null for real nodes ({@code HBCAST_NODE_SIZES})
 * @param counts which count governs when ranks pass different ones ({@code HBCAST_COUNTS}, default
 *        {@link CountRule#ROOT}, Open MPI's; {@code HBCAST_CHECK=1} is {@link CountRule#EQUAL})
 * @param ringSlots slots per intra-node ring link ({@code HBCAST_RING_SLOTS}, default 8)
 * @param intra how chunks move inside a node: the ring, the fan-out segment, or the selector's choice
 *        per size ({@code HBCAST_INTRA=auto|ring|fanout}, default auto)
 * @param inter the shape of the schedule among node leaders, or null for the selector's choice per
 *        size and layout ({@code HBCAST_INTER=auto|knomial|chain|two-tree}, default auto)
 * @param trials whether {@code auto} times its candidate plans on a size's first calls and keeps the
 *        fastest (see {@link TrialSchedule}; {@code HBCAST_TRIALS=1|0}, default on)
 * @param timeoutFails whether a call that waits longer than {@code timeout} fails (naming what it
 *        waited for) and leaves the instance unusable, instead of reporting and waiting on
 *        ({@code HBCAST_TIMEOUT_FAILS=1|0}, default off). A departure from MPI's semantics, opt-in:
 *        Open MPI waits for a late root or peer as long as it takes
 * @param progressThread whether a thread of each instance moves its non-blocking calls
 *        ({@link HierarchicalBcast#iBcast}) while the program computes, besides their tests and the
 *        instance's later calls ({@code HBCAST_PROGRESS_THREAD=1|0}, default off); needs MPI
 *        initialised with {@code MPI.THREAD_MULTIPLE}
 */
public record BcastOptions(
        Algorithm algorithm,
        int chunkBytes,
        int radix,
        Path tuningFile,
        Duration timeout,
        String nodeSizes,
        CountRule counts,
        int ringSlots,
        IntraNode intra,
        TreeShape inter,
        boolean trials,
        boolean timeoutFails,
        boolean progressThread) {

    /** The options without a progress thread (see {@link #progressThread()}): the form before it existed. */
    public BcastOptions(
            Algorithm algorithm,
            int chunkBytes,
            int radix,
            Path tuningFile,
            Duration timeout,
            String nodeSizes,
            CountRule counts,
            int ringSlots,
            IntraNode intra,
            TreeShape inter,
            boolean trials,
            boolean timeoutFails) {
        this(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                false);
    }

    /** A thread of the instance moves its non-blocking calls ({@code true}), or only its calls do (the default). */
    public BcastOptions withProgressThread(boolean on) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                on);
    }

    /** Largest chunk: bounds the ring's slots (and so its shared memory). */
    public static final int MAX_CHUNK_BYTES = 16 << 20;

    public static final int MAX_RADIX = 64;
    public static final int MAX_RING_SLOTS = 64;
    private static final Pattern DECIMAL = Pattern.compile("[+-]?([0-9]{1,18}(\\.[0-9]*)?|\\.[0-9]+)");

    public BcastOptions {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(intra, "intra");
        Objects.requireNonNull(counts, "counts");
        checkChunkBytes(chunkBytes);
        checkRadix(radix);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        if (ringSlots < 1 || ringSlots > MAX_RING_SLOTS) {
            throw new IllegalArgumentException("ring slots " + ringSlots + " must be 1 to " + MAX_RING_SLOTS);
        }
    }

    private static void checkChunkBytes(int chunkBytes) {
        if (chunkBytes != 0 && (chunkBytes < 64 || chunkBytes > MAX_CHUNK_BYTES || chunkBytes % 64 != 0)) {
            throw new IllegalArgumentException("chunk size " + chunkBytes + " must be 0 (automatic) or a multiple of 64"
                    + " from 64 to " + MAX_CHUNK_BYTES + " bytes");
        }
    }

    private static void checkRadix(int radix) {
        if (radix != 0 && (radix < 2 || radix > MAX_RADIX)) {
            throw new IllegalArgumentException("radix " + radix + " must be 0 (automatic) or 2 to " + MAX_RADIX);
        }
    }

    /** What these options fix of a call's plan, for the selector. */
    PlanChoices planChoices() {
        return PlanChoices.of(asEnvironment());
    }

    /** How a broadcast moves data ({@code HBCAST_ALGORITHM}); {@link #AUTO} lets the selector choose per call. */
    public enum Algorithm {
        /** The selector picks one of the others from the message size and the layout. */
        AUTO,
        /** Delegates to {@code Intracomm.bcast}: the baseline every benchmark compares against. */
        NATIVE,
        /** A flat segmented k-nomial tree over all ranks, ignoring nodes. */
        KNOMIAL,
        /** A tree among node leaders and a pipelined transport inside each node, both over the same chunks. */
        HIERARCHICAL;

        /** Parses {@code auto|native|knomial|hierarchical}, case-insensitively. */
        public static Algorithm parse(String text) {
            return valueOf(org.hbcast.plan.Algorithm.parse(text).name());
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How a hierarchical broadcast moves chunks inside a node ({@code HBCAST_INTRA}); {@link #AUTO} lets the selector choose. */
    public enum IntraNode {
        /** The selector picks the ring or the fan-out per message size. */
        AUTO,
        /** The pipelined ring: each chunk hops rank to rank. */
        RING,
        /** One node-wide shared segment: the node's first rank copies each chunk in once, every other rank copies it out. */
        FANOUT;

        /** Parses {@code auto|ring|fanout}, case-insensitively; {@code name} is the setting named in the error. */
        public static IntraNode parse(String name, String text) {
            return valueOf(org.hbcast.plan.IntraNode.parse(name, text).name());
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The schedule among node leaders ({@code HBCAST_INTER}); null in the options lets the selector choose. */
    public enum TreeShape {
        /** The segmented k-nomial tree. */
        KNOMIAL,
        /** The pipelined chain: each leader forwards to the next. */
        CHAIN,
        /** Two trees, each carrying half of the chunks. */
        TWO_TREE;

        /** Parses {@code knomial|chain|two-tree}; {@code setting} is the option named in the error. */
        public static TreeShape parse(String setting, String text) {
            return valueOf(org.hbcast.schedule.TreeShape.parse(setting, text).name());
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Which byte count a call moves when ranks pass different counts ({@code HBCAST_COUNTS}). */
    public enum CountRule {
        /**
         * Open MPI's contract, the default: the root's count governs; a receiver that passed more gets
         * the root's bytes and keeps the rest of its buffer, one that passed less fails alone.
         */
        ROOT,
        /** Every rank must pass the same byte count and root; any difference fails on every rank (check mode). */
        EQUAL,
        /** The program promises the same count and root on every rank and saves the check. */
        TRUSTED;

        /** Parses {@code root|equal|trusted}, case-insensitively; {@code name} is the setting named in the error. */
        public static CountRule parse(String name, String text) {
            return valueOf(org.hbcast.call.CountRule.parse(name, text).name());
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Whether what a run's trials decide is kept for the next run, and read from the last: under the
     * default options only. A table the user named governs alone, and a verdict learnt under other
     * options (no header to ride in, a fixed transport, chunk or radix) would mislead a run under these.
     */
    public boolean keepsLearnt() {
        return trials
                && tuningFile == null
                && algorithm == Algorithm.AUTO
                && counts == CountRule.ROOT
                && intra == IntraNode.AUTO
                && inter == null
                && chunkBytes == 0
                && radix == 0;
    }

    /**
     * These options as the environment that asks for them: every setting under its variable's name,
     * in one order, so that {@code fromEnvironment(o.asEnvironment())} gives {@code o} back. This is
     * the form in which {@code create} agrees a communicator's settings and names them in its messages.
     */
    public Map<String, String> asEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HBCAST_ALGORITHM", algorithm.toString());
        env.put("HBCAST_CHUNK_BYTES", Integer.toString(chunkBytes));
        env.put("HBCAST_RADIX", Integer.toString(radix));
        env.put("HBCAST_TUNING_FILE", tuningFile == null ? "" : tuningFile.toString());
        env.put(
                "HBCAST_TIMEOUT_S",
                BigDecimal.valueOf(timeout.toMillis(), 3).stripTrailingZeros().toPlainString());
        env.put("HBCAST_NODE_SIZES", nodeSizes == null ? "" : nodeSizes);
        env.put("HBCAST_COUNTS", counts.toString());
        env.put("HBCAST_RING_SLOTS", Integer.toString(ringSlots));
        env.put("HBCAST_INTRA", intra.toString());
        env.put("HBCAST_INTER", inter == null ? "auto" : inter.toString());
        env.put("HBCAST_TRIALS", trials ? "1" : "0");
        env.put("HBCAST_TIMEOUT_FAILS", timeoutFails ? "1" : "0");
        env.put("HBCAST_PROGRESS_THREAD", progressThread ? "1" : "0");
        return env;
    }

    public static BcastOptions defaults() {
        return fromEnvironment(Setting.environment());
    }

    /** {@link #defaults()} over a given environment: the settings a communicator agreed, or a test's. */
    public static BcastOptions fromEnvironment(Map<String, String> env) {
        String algorithm = env.get("HBCAST_ALGORITHM");
        String tuning = env.get("HBCAST_TUNING_FILE");
        String nodes = env.get("HBCAST_NODE_SIZES");
        // Not an option of a call, but a bad level must fail create with its name like any setting.
        Log.level(env.get(Setting.LOG_LEVEL.variable()));
        return new BcastOptions(
                algorithm == null || algorithm.isBlank() ? Algorithm.AUTO : Algorithm.parse(algorithm),
                checked(
                        env,
                        "HBCAST_CHUNK_BYTES",
                        intVar(env, "HBCAST_CHUNK_BYTES", 0, 0, MAX_CHUNK_BYTES),
                        BcastOptions::checkChunkBytes),
                checked(env, "HBCAST_RADIX", intVar(env, "HBCAST_RADIX", 0, 0, MAX_RADIX), BcastOptions::checkRadix),
                tuning == null || tuning.isBlank() ? null : Path.of(tuning),
                Duration.ofMillis(Math.round(1000 * doubleVar(env, "HBCAST_TIMEOUT_S", 60, 0.001, 86_400))),
                nodes == null || nodes.isBlank() ? null : nodes,
                countsVar(env),
                intVar(env, "HBCAST_RING_SLOTS", 8, 1, MAX_RING_SLOTS),
                intraVar(env, "HBCAST_INTRA"),
                interVar(env, "HBCAST_INTER"),
                boolVar(env, "HBCAST_TRIALS", true),
                boolVar(env, "HBCAST_TIMEOUT_FAILS", false),
                boolVar(env, "HBCAST_PROGRESS_THREAD", false));
    }

    private static IntraNode intraVar(Map<String, String> env, String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? IntraNode.AUTO : IntraNode.parse(name, v);
    }

    private static TreeShape interVar(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank() || v.strip().equalsIgnoreCase("auto")) {
            return null;
        }
        try {
            return TreeShape.parse(name, v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + "='" + v + "' must be auto, knomial, chain or two-tree", e);
        }
    }

    /** {@code HBCAST_COUNTS}, or {@code HBCAST_CHECK=1} (its older name for {@code equal}); they must not contradict. */
    private static CountRule countsVar(Map<String, String> env) {
        String v = env.get("HBCAST_COUNTS");
        CountRule rule = v == null || v.isBlank() ? null : CountRule.parse("HBCAST_COUNTS", v);
        if (boolVar(env, "HBCAST_CHECK")) {
            if (rule != null && rule != CountRule.EQUAL) {
                throw new IllegalArgumentException(
                        "HBCAST_CHECK=1 asks for HBCAST_COUNTS=equal but HBCAST_COUNTS='" + v + "'");
            }
            return CountRule.EQUAL;
        }
        return rule == null ? CountRule.ROOT : rule;
    }

    private static int intVar(Map<String, String> env, String name, int dflt, int min, int max) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            int x = Integer.parseInt(v.trim());
            if (x < min || x > max) {
                throw new IllegalArgumentException(name + "=" + v + " is outside " + min + ".." + max);
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + v + "' is not a whole number");
        }
    }

    /** {@code value} of variable {@code name} after {@code check}, whose complaint gets the variable's name. */
    private static int checked(Map<String, String> env, String name, int value, IntConsumer check) {
        try {
            check.accept(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + "='" + env.get(name) + "': " + e.getMessage());
        }
        return value;
    }

    private static double doubleVar(Map<String, String> env, String name, double dflt, double min, double max) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            // Plain decimals only: Double.parseDouble would also take "5f", "0x1p3" or "NaN".
            if (!DECIMAL.matcher(v.trim()).matches()) {
                throw new NumberFormatException(v);
            }
            double x = Double.parseDouble(v.trim());
            if (!(x >= min && x <= max)) {
                throw new IllegalArgumentException(name + "=" + v + " is outside " + min + ".." + max);
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + v + "' is not a number of seconds");
        }
    }

    private static boolean boolVar(Map<String, String> env, String name) {
        return boolVar(env, name, false);
    }

    private static boolean boolVar(Map<String, String> env, String name, boolean dflt) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        if (v.equals("0") || v.equalsIgnoreCase("false")) {
            return false;
        }
        if (v.equals("1") || v.equalsIgnoreCase("true")) {
            return true;
        }
        throw new IllegalArgumentException(name + "='" + v + "' must be 0, 1, true or false");
    }

    public BcastOptions withAlgorithm(Algorithm a) {
        return new BcastOptions(
                a,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    public BcastOptions withChunkBytes(int bytes) {
        return new BcastOptions(
                algorithm,
                bytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    public BcastOptions withRadix(int k) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                k,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    /** A tuning table to use; {@code Path.of("none")} for none (the model alone). */
    public BcastOptions withTuningFile(Path file) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                file,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    public BcastOptions withNodeSizes(String sizes) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                sizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    /** Check mode on ({@link CountRule#EQUAL}) or off (back to {@link CountRule#ROOT}). */
    public BcastOptions withCheck(boolean on) {
        return withCounts(on ? CountRule.EQUAL : CountRule.ROOT);
    }

    public BcastOptions withCounts(CountRule rule) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                rule,
                ringSlots,
                intra,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    /** In-run selection on or off (see {@link #trials()}). */
    public BcastOptions withTrials(boolean on) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                on,
                timeoutFails);
    }

    /** The leaders' schedule fixed to {@code shape}, or left to the selector (null). */
    public BcastOptions withInter(TreeShape shape) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                shape,
                trials,
                timeoutFails,
                progressThread);
    }

    public BcastOptions withIntra(IntraNode i) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                i,
                inter,
                trials,
                timeoutFails,
                progressThread);
    }

    /**
     * Calls fail after the timeout ({@code true}, a departure from MPI's semantics) or report the wait
     * and wait on as Open MPI does ({@code false}, the default); see {@link #timeoutFails()}.
     */
    public BcastOptions withTimeoutFails(boolean fails) {
        return new BcastOptions(
                algorithm,
                chunkBytes,
                radix,
                tuningFile,
                timeout,
                nodeSizes,
                counts,
                ringSlots,
                intra,
                inter,
                trials,
                fails,
                progressThread);
    }
}

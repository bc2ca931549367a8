package org.hbcast.select;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.plan.PlanChoices;
import org.hbcast.schedule.TreeShape;
import org.hbcast.tuning.Candidates;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.Interpolation;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.TimedSize;
import org.hbcast.tuning.TuningInputs;
import org.hbcast.tuning.TuningTable;

/**
 * Chooses the plan of a call (algorithm, intra-node transport, leaders' schedule, chunk, radix) from the message size,
 * the layout and the memory kind. For {@code auto}: the tuning table of this fingerprint where there
 * is one (interpolating between measured sizes on a log scale, the largest measured size above the
 * range), the calibrated cost model below the table's sizes or without one. Options that name an
 * algorithm, transport, chunk or radix win; the model fills in what they leave open. Chunks are never
 * below 1, above the message or above {@code maxChunkBytes} (the transports' slot).
 *
 * <p>Pure and cheap at call time: plans are made once per power-of-two size bucket
 * ({@code [2^i, 2^(i+1))}, planned at {@code 2^i} so the chunk never exceeds the message), so
 * choosing allocates nothing, and the same inputs give the same plans on every rank.
 */
public final class Selector {
    /** Largest chunk {@code auto} picks from a table: bounds the ring's slots (and so its shared memory). */
    public static final int AUTO_MAX_CHUNK_BYTES = 4 << 20;
    /**
     * Largest chunk the model picks: keeps the slots (8 per rank by default) at the 1 MiB they had
     * before tuning, where {@code c*} lies for most messages anyway; only a table that measured a
     * larger chunk to be faster makes them larger.
     */
    public static final int MODEL_MAX_CHUNK_BYTES = 1 << 20;

    private static final Plan[] NO_PLANS = new Plan[0];

    /**
     * Size buckets planned: up to the largest message a call can carry ({@link
     * Candidates#LARGEST_SIZE_CLASS}); a larger size (only {@link #explain} can ask) gets the last.
     */
    private static final int BUCKETS = Candidates.LARGEST_SIZE_CLASS + 1;

    private final PlanChoices options;
    private final ClusterShape shape;
    private final int maxChunkBytes;
    private final TuningInputs inputs;
    private final CostModel model;
    private final List<TimedSize> tableTimes;
    private final long[] tableSizes;
    private final Plan[] hostPlans = new Plan[BUCKETS];
    /**
     * Made at the first device call ({@link #devicePlans()}): half of the model's search, which in a
     * cold JVM cost every program's first {@code create} about half a second here, most of which never
     * pass device memory.
     */
    private volatile Plan[] devicePlans;
    /** Per size class, the device plans {@code auto} may time against each other; made with {@link #devicePlans}. */
    private Plan[][] deviceTrialPlans;
    /** Per size class of {@link TrialSchedule}, the plans {@code auto} may time against each other in the run. */
    private final Plan[][] trialPlans = new Plan[TrialSchedule.CLASSES][];

    /** Selectors this JVM made, by their inputs: a few layouts and option sets at most in one program. */
    private static final int REMEMBERED = 16;

    private static final Map<Key, Selector> MADE = new LinkedHashMap<>(REMEMBERED, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Selector> eldest) {
            return size() > REMEMBERED;
        }
    };

    /**
     * The selector of these inputs, made once per JVM: the same inputs give the same plans, and a
     * selector is immutable. Planning takes the cost model thousands of predictions; each further
     * {@code create} that repeated them (a program making communicators, a benchmark comparing
     * instances) pushed the model past the JIT's top-tier threshold, and its compilation, 0.6-0.8 s
     * of a compiler thread in each of 8 JVMs on 2 cores, fell on the program's first calls (4+2+2
     * shaped, 64 KiB: blocks of 1.4-3.6 ms a call where the steady state is 0.65).
     */
    public static Selector of(PlanChoices options, ClusterShape shape, int maxChunkBytes, TuningInputs inputs) {
        Key key = new Key(
                Objects.requireNonNull(options, "options"),
                Objects.requireNonNull(shape, "shape"),
                maxChunkBytes,
                Objects.requireNonNull(inputs, "inputs"));
        synchronized (MADE) {
            Selector made = MADE.get(key);
            if (made == null) {
                made = new Selector(options, shape, maxChunkBytes, inputs);
                MADE.put(key, made);
            }
            return made;
        }
    }

    /**
     * What {@link #of} remembers a selector by. Not a record, and it hashes no record: in a cold JVM
     * the first hash of a record bootstraps its generated {@code hashCode}, and hashing the inputs'
     * records (fingerprint, calibration, table, their parts) cost the first {@code create} about
     * 0.2 s of CPU (docs/tuning.md). It hashes strings and numbers, compares the inputs by identity
     * first ({@link TuningAgreement} gives the same inputs for the same agreed bytes) and by value
     * only where two equal-looking inputs were made apart.
     */
    private static final class Key {
        private final PlanChoices options;
        private final ClusterShape shape;
        private final int maxChunkBytes;
        private final TuningInputs inputs;
        private final int hash;

        Key(PlanChoices options, ClusterShape shape, int maxChunkBytes, TuningInputs inputs) {
            this.options = options;
            this.shape = shape;
            this.maxChunkBytes = maxChunkBytes;
            this.inputs = inputs;
            int h = shape.hashCode();
            h = 31 * h + maxChunkBytes;
            h = 31 * h + options.algorithm().ordinal();
            h = 31 * h + options.intra().ordinal();
            h = 31 * h + (options.inter() == null ? -1 : options.inter().ordinal());
            h = 31 * h + options.chunkBytes();
            h = 31 * h + options.radix();
            h = 31 * h + (options.trials() ? 1 : 0);
            h = 31 * h + inputs.fingerprint().canonical().hashCode();
            h = 31 * h + Objects.hashCode(inputs.calibrationSource());
            this.hash = h;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k
                    && hash == k.hash
                    && maxChunkBytes == k.maxChunkBytes
                    && sameOptions(options, k.options)
                    && shape.equals(k.shape)
                    && (inputs == k.inputs || inputs.equals(k.inputs));
        }

        private static boolean sameOptions(PlanChoices a, PlanChoices b) {
            return a == b
                    || a.algorithm() == b.algorithm()
                            && a.intra() == b.intra()
                            && a.inter() == b.inter()
                            && a.chunkBytes() == b.chunkBytes()
                            && a.radix() == b.radix()
                            && a.trials() == b.trials();
        }
    }

    /**
     * @param maxChunkBytes the largest chunk the transports take (the ring's slot size)
     */
    public Selector(PlanChoices options, ClusterShape shape, int maxChunkBytes, TuningInputs inputs) {
        this.options = Objects.requireNonNull(options, "options");
        this.shape = Objects.requireNonNull(shape, "shape");
        this.inputs = Objects.requireNonNull(inputs, "inputs");
        if (maxChunkBytes < 1) {
            throw new IllegalArgumentException("the largest chunk must be positive, got " + maxChunkBytes);
        }
        this.maxChunkBytes = maxChunkBytes;
        this.model = new CostModel(
                inputs.calibration(),
                inputs.fingerprint().host().cpus(),
                // No GPU found: device calls are refused anyway; price them as on one shared GPU.
                Math.max(1, inputs.fingerprint().host().gpus()));
        TuningTable table = inputs.table();
        this.tableTimes = table == null
                ? List.of()
                : table.entries().stream()
                        .map(e -> new TimedSize(e.bytes(), e.seconds()))
                        .toList();
        this.tableSizes = table == null ? new long[0] : table.sizes();
        for (int b = 0; b < BUCKETS; b++) {
            hostPlans[b] = choose(1L << b, MemoryKind.HOST);
        }
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            trialPlans[c] = tries(c) ? trialCandidates(1L << c) : NO_PLANS;
        }
    }

    /** The device plans of every size, made once on first use (thread-safe: the instance may be shared by a JVM's instances). */
    private Plan[] devicePlans() {
        Plan[] made = devicePlans;
        if (made == null) {
            synchronized (this) {
                made = devicePlans;
                if (made == null) {
                    made = new Plan[BUCKETS];
                    for (int b = 0; b < BUCKETS; b++) {
                        made[b] = choose(1L << b, MemoryKind.DEVICE);
                    }
                    Plan[][] trials = new Plan[TrialSchedule.CLASSES][];
                    for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                        trials[c] = Candidates.triedOnDevice(options, shape, c)
                                ? deviceTrialCandidates(1L << c, made[bucket(1L << c)])
                                : new Plan[0];
                    }
                    deviceTrialPlans = trials;
                    devicePlans = made;
                }
            }
        }
        return made;
    }

    /** Whether {@code auto} times plans against each other for class {@code c} in the run (see {@link Candidates#tried}). */
    private boolean tries(int c) {
        return Candidates.tried(options, shape, cpus(), c, tableSizes.length == 0 ? Long.MAX_VALUE : tableSizes[0]);
    }

    private int cpus() {
        return inputs.fingerprint().host().cpus();
    }

    /**
     * The plans the trials time for {@code size}: the model's best of each kind {@link
     * Candidates#trialKinds} names, the options' fixed parts kept, and the flat tree's runner-up
     * shape where {@link Candidates#secondFlatShapes} tries one.
     */
    private Plan[] trialCandidates(long size) {
        List<Plan> list = new ArrayList<>();
        Plan chosen = plan(size);
        for (Candidates.Candidate kind : Candidates.trialKinds(
                shape,
                options.intra(),
                this::plansUse,
                !inputs.calibration().nodeCurves().isEmpty(),
                chosen.algorithm(),
                chosen.intra(),
                Candidates.nativeFirstOnCrowdedHosts(
                        options.algorithm(), shape, inputs.usableCores(), inputs.calibration(), size))) {
            CostModel.Choice c = trialChoice(size, kind.algorithm(), kind.intra(), options.inter());
            list.add(trialPlan(c, size));
            CostModel.Choice second = kind.algorithm() == Algorithm.KNOMIAL ? secondFlatShape(size, c) : null;
            if (second != null) {
                list.add(trialPlan(second, size));
            }
        }
        return list.toArray(new Plan[0]);
    }

    private CostModel.Choice trialChoice(long size, Algorithm a, IntraNode t, TreeShape inter) {
        return model.best(
                size,
                shape,
                MemoryKind.HOST,
                options.chunkBytes() > 0 ? maxChunkBytes : modelMaxChunk(),
                a,
                t,
                inter,
                options.chunkBytes(),
                options.radix());
    }

    /** The flat tree's best shape other than {@code best}'s, where it is tried ({@link Candidates#secondFlatShapes}); else null. */
    private CostModel.Choice secondFlatShape(long size, CostModel.Choice best) {
        CostModel.Choice second = null;
        for (TreeShape s : Candidates.secondFlatShapes(size, shape, options.inter(), best.inter())) {
            CostModel.Choice c = trialChoice(size, Algorithm.KNOMIAL, IntraNode.RING, s);
            if (second == null || c.seconds() < second.seconds()) {
                second = c;
            }
        }
        return second;
    }

    private Plan trialPlan(CostModel.Choice c, long size) {
        return planOf(
                c,
                size,
                MemoryKind.HOST,
                "timed in this run against the other plans of its size (the cost model's chunk and radix; "
                        + inputs.calibrationSource() + ")");
    }

    /** The plan of the model's choice {@code c} for {@code size}, its chunk clamped to the message. */
    private Plan planOf(CostModel.Choice c, long size, MemoryKind memory, String why) {
        return plan(
                c.algorithm(),
                clampChunk(c.chunkBytes(), size),
                c.radix(),
                c.intra(),
                c.inter(),
                size,
                memory,
                why,
                Double.NaN);
    }

    /** The plans {@code auto} may time against each other for calls of size class {@code c} (see {@link TrialSchedule}). */
    Plan[] trialPlans(int c) {
        return trialPlans[c].clone();
    }

    /**
     * The device plans {@code auto} may time against each other for calls of size class {@code c}:
     * the model's device plan, and the model's best device plan of each other algorithm {@link
     * Candidates#deviceTrialAlgorithms} names (staging through the host among them). Makes the device
     * plans on first use, as {@link #plan(long, MemoryKind)} does.
     */
    Plan[] deviceTrialPlans(int c) {
        devicePlans();
        return deviceTrialPlans[c].clone();
    }

    /** The device plans the trials time for {@code size}, {@code chosen} (the model's) among them as is. */
    private Plan[] deviceTrialCandidates(long size, Plan chosen) {
        List<Plan> list = new ArrayList<>();
        for (Algorithm a : Candidates.deviceTrialAlgorithms(shape, chosen.algorithm())) {
            if (a == chosen.algorithm()) {
                list.add(chosen);
                continue;
            }
            CostModel.Choice c = model.best(
                    size,
                    shape,
                    MemoryKind.DEVICE,
                    maxChunkBytes,
                    a,
                    options.intra(),
                    options.inter(),
                    // Device calls cut at the CUDA ring's slot, as choose prices them.
                    maxChunkBytes,
                    options.radix());
            list.add(planOf(
                    c,
                    size,
                    MemoryKind.DEVICE,
                    "timed in this run against the other device plans of its size (" + inputs.calibrationSource()
                            + ")"));
        }
        return list.toArray(new Plan[0]);
    }

    /** The plan of a host-memory call of {@code bytes}. */
    public Plan plan(long bytes) {
        return hostPlans[bucket(bytes)];
    }

    public Plan plan(long bytes, MemoryKind memory) {
        return memory == MemoryKind.DEVICE ? devicePlans()[bucket(bytes)] : hostPlans[bucket(bytes)];
    }

    /** The host plans that move data themselves (not native), one of each algorithm, transport and radix. */
    public List<Plan> distinctHostPlans() {
        List<Plan> distinct = new ArrayList<>();
        for (Plan p : hostPlansAndTrials()) {
            if (p.algorithm() != Algorithm.NATIVE && !hasKind(distinct, p)) {
                distinct.add(p);
            }
        }
        return List.copyOf(distinct);
    }

    /** Whether {@code plans} hold one of {@code p}'s algorithm, transports and radix. */
    private static boolean hasKind(List<Plan> plans, Plan p) {
        for (Plan q : plans) {
            if (q.algorithm() == p.algorithm()
                    && q.intra() == p.intra()
                    && q.inter() == p.inter()
                    && q.radix() == p.radix()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The largest chunk of the host plans, those tried in the run included, that move chunks inside
     * nodes with {@code intra} (the slot size), or 0 when none does (that transport's shared memory
     * need not exist).
     */
    public int largestHostChunk(IntraNode intra) {
        int largest = 0;
        for (Plan p : hostPlansAndTrials()) {
            if (intra == IntraNode.FANOUT ? p.usesFanout() : p.usesRing()) {
                largest = Math.max(largest, p.chunkBytes());
            }
        }
        return largest;
    }

    /**
     * Whether some host plan, those tried in the run included, moves chunks inside nodes with
     * {@code intra}: that transport is connected at {@code create}.
     */
    public boolean connects(IntraNode intra) {
        return largestHostChunk(intra) > 0;
    }

    /** Whether a host plan chosen without trying moves chunks inside nodes with {@code intra}. */
    private boolean plansUse(IntraNode intra) {
        for (Plan p : hostPlans) {
            if (intra == IntraNode.FANOUT ? p.usesFanout() : p.usesRing()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The host plans of every size, and those tried in the run. Loops, not streams: in a cold JVM
     * each stream pipeline and lambda costs {@code create} its classes (docs/tuning.md).
     */
    private List<Plan> hostPlansAndTrials() {
        List<Plan> all = new ArrayList<>(Arrays.asList(hostPlans));
        for (Plan[] tried : trialPlans) {
            all.addAll(Arrays.asList(tried));
        }
        return all;
    }

    public TuningInputs inputs() {
        return inputs;
    }

    public ClusterShape shape() {
        return shape;
    }

    /** The most bytes of a message that ride in its call header on this layout ({@link Candidates#headerBytes}). */
    public long headerBytes() {
        return Candidates.headerBytes(shape, cpus(), headerCarriesAllUntried());
    }

    /**
     * Whether the call header carries every message it can untried across this network, past its
     * first network message ({@link Candidates#headerCarriesAllUntried}).
     */
    public boolean headerCarriesAllUntried() {
        return Candidates.headerCarriesAllUntried(
                options.algorithm(), shape, inputs.usableCores(), inputs.calibration());
    }

    static int bucket(long bytes) {
        return bytes <= 1 ? 0 : Math.min(63 - Long.numberOfLeadingZeros(bytes), BUCKETS - 1);
    }

    /** What a call of {@code bytes} does and why, with the model's alternatives and the table's measurements. */
    public Explanation explain(long bytes, MemoryKind memory) {
        if (bytes < 0) {
            throw new IllegalArgumentException("message size must not be negative, got " + bytes);
        }
        Plan plan = plan(bytes, memory);
        double predicted = model.predict(
                plan.algorithm(), plan.intra(), plan.inter(), bytes, plan.chunkBytes(), plan.radix(), shape, memory);
        double measured = memory == MemoryKind.HOST && !tableTimes.isEmpty() && bytes >= tableSizes[0]
                ? Interpolation.logLog(tableTimes, bytes)
                : Double.NaN;
        List<CostModel.Choice> alternatives = new ArrayList<>();
        for (Algorithm a : Candidates.algorithms(shape, memory)) {
            for (IntraNode t : a == Algorithm.HIERARCHICAL
                    ? Candidates.intra(shape, memory, IntraNode.AUTO)
                    : List.of(IntraNode.RING)) {
                for (TreeShape s :
                        a == Algorithm.HIERARCHICAL ? Candidates.inter(shape, null) : List.of(TreeShape.KNOMIAL)) {
                    alternatives.add(
                            memory == MemoryKind.DEVICE
                                    ? model.best(
                                            Math.max(bytes, 1), shape, memory, maxChunkBytes, a, t, s, maxChunkBytes, 0)
                                    : model.best(Math.max(bytes, 1), shape, memory, modelMaxChunk(), a, t, s, 0, 0));
                }
            }
        }
        List<TuningTable.Entry> nearby = new ArrayList<>();
        if (!tableTimes.isEmpty() && bytes > 0) {
            Interpolation.Position p = Interpolation.locate(tableSizes, bytes);
            nearby.add(inputs.table().entries().get(p.lower()));
            if (!p.exact()) {
                nearby.add(inputs.table().entries().get(p.upper()));
            }
        }
        String staging = memory == MemoryKind.DEVICE ? staging(bytes, plan, predicted) : null;
        return new Explanation(bytes, memory, shape, plan, predicted, measured, alternatives, nearby, inputs, staging);
    }

    /**
     * The staging candidate of a device call of {@code bytes}: its terms (the two whole-message PCIe
     * copies, Open MPI's broadcast of host memory) and whether it won against the plan's prediction,
     * with the device ring's per-hop context switch where ranks share a GPU. Allocates: for
     * explanations only.
     */
    private String staging(long bytes, Plan plan, double predicted) {
        long m = Math.max(bytes, 1);
        double total = model.staging(m, shape);
        double copies = 2 * inputs.calibration().link(LinkKind.PCIE).seconds(m);
        String terms = String.format(
                Locale.ROOT,
                "device to host and back %s (2 copies of the message over PCIe) + Open MPI's bcast of host"
                        + " memory %s = %s",
                Explanation.time(copies),
                Explanation.time(total - copies),
                Explanation.time(total));
        String ring = shape.maxNodeSize() > 1 && model.sharesGpu(shape)
                ? String.format(
                        Locale.ROOT,
                        "; ranks share a GPU, so each hop of the CUDA ring adds %s of context switch",
                        Explanation.time(CostModel.GPU_SWITCH_SECONDS))
                : "";
        if (plan.algorithm() == Algorithm.NATIVE) {
            return terms + ": chosen" + (options.algorithm() == Algorithm.NATIVE ? " by the options" : ", the fastest")
                    + ring;
        }
        if (options.algorithm() != Algorithm.AUTO) {
            return terms + ": not a candidate, the options fix the algorithm" + ring;
        }
        return terms
                + String.format(
                        Locale.ROOT,
                        ": lost, %.2fx the chosen plan's %s",
                        total / predicted,
                        Explanation.time(predicted))
                + ring;
    }

    private Plan choose(long size, MemoryKind memory) {
        Algorithm fixed = options.algorithm();
        if (fixed == Algorithm.AUTO && memory == MemoryKind.HOST && inputs.table() != null && size >= tableSizes[0]) {
            return fromTable(size);
        }
        boolean virtualNative =
                memory == MemoryKind.HOST && Candidates.nativeOnVirtualNodes(options.algorithm(), shape, cpus(), size);
        boolean spareCoresNative = memory == MemoryKind.HOST
                && Candidates.nativeFirstWithSpareCores(options.algorithm(), shape, cpus(), size);
        boolean crowdedNative = memory == MemoryKind.HOST
                && Candidates.nativeFirstOnCrowdedHosts(
                        options.algorithm(), shape, inputs.usableCores(), inputs.calibration(), size);
        CostModel.Choice c = model.best(
                size,
                shape,
                memory,
                options.chunkBytes() > 0 || memory == MemoryKind.DEVICE ? maxChunkBytes : modelMaxChunk(),
                virtualNative || spareCoresNative || crowdedNative ? Algorithm.NATIVE : fixed,
                options.intra(),
                options.inter(),
                // Device calls cut at the CUDA ring's slot whatever the plan says (DeviceMemory.begin):
                // price that chunk, whose per-hop costs (a context switch where ranks share a GPU) it amortizes.
                memory == MemoryKind.DEVICE ? maxChunkBytes : options.chunkBytes(),
                options.radix());
        if (virtualNative) {
            return planOf(
                    c,
                    size,
                    memory,
                    "virtual nodes share one host: past the call header a plan copies more than Open MPI's"
                            + " bcast, whose bytes go through the same shared memory");
        }
        if (spareCoresNative) {
            return planOf(
                    c,
                    size,
                    memory,
                    "virtual nodes with a core to spare: from " + Explanation.size(Candidates.SPARE_CORES_NATIVE_FROM)
                            + " Open MPI's bcast first, the plans tried against it in the run");
        }
        if (crowdedNative) {
            return planOf(
                    c,
                    size,
                    memory,
                    "a node's ranks outnumber the cores they may run on (" + inputs.usableCores()
                            + ") and the network is about as fast as their memory: past "
                            + Explanation.size(Candidates.CROWDED_NATIVE_ABOVE)
                            + " Open MPI's bcast first, the plans tried against it in the run");
        }
        String fixedParts = fixedParts();
        boolean allFixed = fixed != Algorithm.AUTO
                && options.chunkBytes() > 0
                && options.radix() > 0
                && (fixed != Algorithm.KNOMIAL || options.inter() != null || shape.ranks() <= 2)
                && (fixed != Algorithm.HIERARCHICAL
                        || (options.intra() != IntraNode.AUTO && (options.inter() != null || shape.nodes() <= 2)));
        String set = allFixed
                ? "set by options"
                : fixedParts.isEmpty() ? "cost model" : "options fix " + fixedParts + "; the rest from the cost model";
        if (memory == MemoryKind.DEVICE && fixed == Algorithm.AUTO && c.algorithm() == Algorithm.NATIVE) {
            set += ": staging through the host (device to host, Open MPI's bcast, host to device) is fastest";
        }
        return planOf(c, size, memory, set + " (" + inputs.calibrationSource() + ")");
    }

    private int modelMaxChunk() {
        return Math.min(maxChunkBytes, MODEL_MAX_CHUNK_BYTES);
    }

    private String fixedParts() {
        List<String> parts = new ArrayList<>();
        if (options.algorithm() != Algorithm.AUTO) {
            parts.add("the algorithm");
        }
        if (options.chunkBytes() > 0) {
            parts.add("the chunk");
        }
        if (options.radix() > 0) {
            parts.add("the radix");
        }
        if (options.intra() != IntraNode.AUTO) {
            parts.add("the intra-node transport");
        }
        if (options.inter() != null) {
            parts.add("the leaders' schedule");
        }
        return String.join(" and ", parts);
    }

    private Plan fromTable(long size) {
        TuningTable table = inputs.table();
        Interpolation.Position p = Interpolation.locate(tableSizes, size);
        TuningTable.Entry lo = table.entries().get(p.lower());
        TuningTable.Entry hi = table.entries().get(p.upper());
        TuningTable.Entry near = table.entries().get(p.nearest());
        long chunk = lo.algorithm() == hi.algorithm() && lo.intra() == hi.intra()
                ? Math.round(Interpolation.geometric(lo.chunkBytes(), hi.chunkBytes(), p.fraction()))
                : near.chunkBytes();
        String where = p.exact()
                ? (size > lo.bytes()
                        ? "above the largest measured size " + lo.bytes() + " B, as measured there"
                        : "measured at " + lo.bytes() + " B")
                : "between measured " + lo.bytes() + " B and " + hi.bytes() + " B on a log scale";
        String fixedParts = fixedParts();
        String why = "tuning table " + inputs.tableFile() + " (fingerprint "
                + inputs.fingerprint().id() + "): " + where
                + (fixedParts.isEmpty() ? "" : "; options fix " + fixedParts);
        return plan(
                near.algorithm(),
                clampChunk(options.chunkBytes() > 0 ? options.chunkBytes() : chunk, size),
                options.radix() > 0 ? options.radix() : near.radix(),
                options.intra() != IntraNode.AUTO ? options.intra() : near.intra(),
                options.inter() != null ? options.inter() : near.inter(),
                size,
                MemoryKind.HOST,
                why,
                Interpolation.logLog(tableTimes, size));
    }

    private Plan plan(
            Algorithm a,
            int chunk,
            int radix,
            IntraNode intra,
            TreeShape inter,
            long size,
            MemoryKind memory,
            String reason,
            double measured) {
        return new Plan(
                a,
                chunk,
                radix,
                intra,
                inter,
                reason,
                model.predict(a, intra, inter, size, chunk, radix, shape, memory),
                measured);
    }

    /**
     * A chunk the transports can take for a message of {@code size} (at least 1) bytes: at most the
     * message and the slot size, a multiple of 64 from 64 on and a power of two below (so it holds
     * whole elements of every type).
     */
    int clampChunk(long chunk, long size) {
        long c = Math.min(Math.min(chunk, maxChunkBytes), Math.max(size, 1));
        c = c >= 64 ? c - c % 64 : Long.highestOneBit(Math.max(c, 1));
        return (int) Math.max(c, 1);
    }
}

package org.hbcast.bench.simulate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.plan.PlanChoices;
import org.hbcast.schedule.TreeShape;
import org.hbcast.select.Selector;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.TuningInputs;

/**
 * Simulated broadcast times of every {@link Schedule} on one cluster (hosts of given rank counts).
 * hbcast's schedules take the plan (chunk, radix, transport inside nodes) from the library's own
 * {@link Selector}, fed a calibration whose network link is the simulated one, so the simulator plays
 * what the library would run; the level inside a node uses the calibration's figures for it.
 */
public final class Simulator {
    /** han's segment among the leaders (its default {@code coll_han_bcast_segsize}). */
    public static final int HAN_SEGMENT_BYTES = 512 << 10;
    /** tuned's k-nomial radix (its default {@code coll_tuned_bcast_knomial_radix}). */
    static final int TUNED_KNOMIAL_RADIX = 4;

    private final Fabric fabric;
    private final Calibration calibration;
    private Calibration planning;
    private final CostModel model;
    private final ClusterShape shape;
    private int cores;
    private final Selector[] selectors = new Selector[Schedule.values().length];

    /** One simulated broadcast: its time and the plan played. */
    public record Result(Schedule schedule, long bytes, double seconds, String plan) {}

    /**
     * @param calibration the figures inside a node (built-in or measured); its network link is
     *        replaced by {@code network}
     */
    public Simulator(int hosts, int ranksPerHost, Fabric.Link network, Calibration calibration) {
        this(Fabric.uniform(hosts, ranksPerHost), network, calibration);
    }

    /** Hosts of {@code nodeSizes[h]} ranks each, ranks placed by blocks. */
    public Simulator(int[] nodeSizes, Fabric.Link network, Calibration calibration) {
        this(nodeSizes, network, calibration, true, false);
    }

    /**
     * As {@link #Simulator(int[], Fabric.Link, Calibration)}; {@code ejectionLimited} and {@code
     * roundRobin} as in {@link Fabric}.
     */
    public Simulator(
            int[] nodeSizes,
            Fabric.Link network,
            Calibration calibration,
            boolean ejectionLimited,
            boolean roundRobin) {
        this.calibration = withNetwork(calibration, network);
        LinkCalibration shm = this.calibration.link(LinkKind.MPI_SHARED_MEMORY);
        this.fabric = new Fabric(
                nodeSizes,
                network,
                new Fabric.Link(shm.startupSeconds(), shm.bytesPerSecond()),
                ejectionLimited,
                roundRobin);
        this.model = new CostModel(this.calibration);
        this.planning = this.calibration;
        List<Integer> sizes = new ArrayList<>();
        int most = 1;
        for (int n : nodeSizes) {
            sizes.add(n);
            most = Math.max(most, n);
        }
        this.shape = new ClusterShape(sizes, false);
        this.cores = most;
    }

    /**
     * Plans hbcast's schedules from {@code figures} instead of the simulated links: what a run that
     * did not know its links (no calibration: the built-in figures) chose. The simulation still plays
     * them on the simulated links; null keeps the simulated links. {@code hostCores}: the cores the run's hosts had (the model
     * prices flat trees by them).
     */
    public Simulator planningWith(Calibration figures, int hostCores) {
        if (hostCores < 1) {
            throw new IllegalArgumentException("a host needs at least one core, got " + hostCores);
        }
        this.planning = figures != null ? figures : calibration;
        this.cores = hostCores;
        java.util.Arrays.fill(selectors, null);
        return this;
    }

    public ClusterShape shape() {
        return shape;
    }

    /** {@code calibration} with its network link replaced by the simulated one. */
    static Calibration withNetwork(Calibration calibration, Fabric.Link network) {
        List<LinkCalibration> links = new ArrayList<>();
        for (LinkKind kind : LinkKind.values()) {
            links.add(
                    kind == LinkKind.NETWORK
                            ? new LinkCalibration(kind, network.latencySeconds(), network.bytesPerSecond(), "simulated")
                            : calibration.link(kind));
        }
        return Calibration.measured("simulated", "", links, null, List.of(), calibration.nodeCurves());
    }

    /**
     * {@code calibration} with the links inside a node (shared memory, and MPI over it) at {@code copy},
     * and without measured node curves, which would override them.
     */
    static Calibration withIntraNode(Calibration calibration, Fabric.Link copy) {
        List<LinkCalibration> links = new ArrayList<>();
        for (LinkKind kind : LinkKind.values()) {
            links.add(
                    kind == LinkKind.SHARED_MEMORY || kind == LinkKind.MPI_SHARED_MEMORY
                            ? new LinkCalibration(kind, copy.latencySeconds(), copy.bytesPerSecond(), "given")
                            : calibration.link(kind));
        }
        return Calibration.measured("simulated", "", links, null, List.of(), List.of());
    }

    public Fabric fabric() {
        return fabric;
    }

    /** The lower bound {@code n / B + ceil(log2 N) * latency} over the {@code N} hosts. */
    public double lowerBound(long bytes) {
        return lowerBound(bytes, fabric.hosts(), fabric.network());
    }

    public static double lowerBound(long bytes, int hosts, Fabric.Link network) {
        int rounds = 32 - Integer.numberOfLeadingZeros(Math.max(hosts, 1) - 1);
        return bytes / network.bytesPerSecond() + rounds * network.latencySeconds();
    }

    /** The plan hbcast's selector makes for {@code schedule} (one of hbcast's) and {@code bytes}. */
    public Plan plan(Schedule schedule, long bytes) {
        int i = schedule.ordinal();
        if (selectors[i] == null) {
            // A host with a core per rank; no table: the model's plan, as on a cluster nobody tuned.
            HostInfo host = new HostInfo("simulated", cores, "", 0, "simulated");
            TuningInputs inputs =
                    new TuningInputs(Fingerprint.of(host, shape), null, null, planning, "simulated links", List.of());
            PlanChoices choices = new PlanChoices(schedule.algorithm(), IntraNode.AUTO, schedule.inter(), 0, 0, false);
            selectors[i] = new Selector(choices, shape, Selector.AUTO_MAX_CHUNK_BYTES, inputs);
        }
        return selectors[i].plan(bytes, MemoryKind.HOST);
    }

    /** Simulates {@code schedule} broadcasting {@code bytes} from rank 0. */
    public Result run(Schedule schedule, long bytes) {
        return switch (schedule) {
            case HAN -> han(bytes);
            case TUNED -> tuned(bytes);
            case FLAT_BINOMIAL ->
                new Result(
                        schedule,
                        bytes,
                        PipelinedBroadcast.play(
                                fabric,
                                Tree.of(TreeShape.KNOMIAL, fabric.ranks(), 2),
                                allRanks(),
                                bytes,
                                bytes,
                                NodeStage.NONE),
                        "binomial, unsegmented");
            default -> hbcast(schedule, bytes);
        };
    }

    private Result hbcast(Schedule schedule, long bytes) {
        Plan p = plan(schedule, bytes);
        double seconds;
        String what;
        if (p.algorithm() == Algorithm.HIERARCHICAL) {
            TreeShape inter = p.leaderShape();
            seconds = PipelinedBroadcast.play(
                    fabric,
                    Tree.of(inter, fabric.hosts(), p.radix()),
                    leaders(),
                    bytes,
                    p.chunkBytes(),
                    intraStage(p.intra(), bytes));
            what = "hierarchical/" + inter + "/" + p.intra().toString().toLowerCase(Locale.ROOT);
        } else if (p.algorithm() == Algorithm.KNOMIAL) {
            TreeShape flat = p.leaderShape();
            seconds = PipelinedBroadcast.play(
                    fabric,
                    Tree.of(flat, fabric.ranks(), p.radix()),
                    allRanks(),
                    bytes,
                    p.chunkBytes(),
                    NodeStage.NONE);
            what = "flat " + flat;
        } else {
            // The selector chose Open MPI's own broadcast: tuned's rules play it.
            Result r = tuned(bytes);
            return new Result(schedule, bytes, r.seconds(), "native: " + r.plan());
        }
        return new Result(
                schedule,
                bytes,
                seconds,
                String.format(Locale.ROOT, "%s, chunk %d, radix %d", what, p.chunkBytes(), p.radix()));
    }

    /** The calibration's figures for the level inside a node of this cluster. */
    NodeStage intraStage(IntraNode intra, long bytes) {
        return new NodeStage() {
            @Override
            public double fill(int node, long c) {
                int n = fabric.nodeSize(node);
                return n == 1 ? 0 : model.intraFill(intra, c, n, MemoryKind.HOST);
            }

            @Override
            public double stage(int node, long c) {
                int n = fabric.nodeSize(node);
                return n == 1 ? 0 : model.intraStage(intra, c, bytes, n, MemoryKind.HOST);
            }
        };
    }

    private Result han(long bytes) {
        Fabric.Link shm = fabric.sharedMemory();
        // Inside a node han runs a binomial tree over shared memory per segment, overlapped with the next
        // segment's transfer among the leaders.
        NodeStage stage = new NodeStage() {
            @Override
            public double fill(int node, long c) {
                return (32 - Integer.numberOfLeadingZeros(fabric.nodeSize(node) - 1)) * shm.seconds(c);
            }

            @Override
            public double stage(int node, long c) {
                return fill(node, c);
            }
        };
        double seconds = PipelinedBroadcast.play(
                fabric, Tree.of(TreeShape.KNOMIAL, fabric.hosts(), 2), leaders(), bytes, HAN_SEGMENT_BYTES, stage);
        return new Result(
                Schedule.HAN, bytes, seconds, "binomial among leaders over 512 KiB segments, then binomial in node");
    }

    private Result tuned(long bytes) {
        int alg = TunedRules.bcastAlgorithm(fabric.ranks(), bytes);
        int p = fabric.ranks();
        double seconds = switch (alg) {
            case 1 -> flat(Tree.linear(p), bytes);
            case 2, 3 -> flat(Tree.of(TreeShape.CHAIN, p, 2), bytes);
            case 4, 5 -> flat(Tree.binary(p), bytes);
            case 6 -> flat(Tree.of(TreeShape.KNOMIAL, p, 2), bytes);
            case 7 -> flat(Tree.of(TreeShape.KNOMIAL, p, TUNED_KNOMIAL_RADIX), bytes);
            case 8 -> ScatterAllgather.play(fabric, bytes, false);
            case 9 -> ScatterAllgather.play(fabric, bytes, true);
            default -> throw new IllegalStateException("tuned algorithm " + alg);
        };
        return new Result(Schedule.TUNED, bytes, seconds, "tuned algorithm " + alg + " (" + TunedRules.name(alg) + ")");
    }

    private double flat(Tree tree, long bytes) {
        return PipelinedBroadcast.play(fabric, tree, allRanks(), bytes, bytes, NodeStage.NONE);
    }

    private int[] allRanks() {
        int[] ranks = new int[fabric.ranks()];
        for (int r = 0; r < ranks.length; r++) {
            ranks[r] = r;
        }
        return ranks;
    }

    private int[] leaders() {
        int[] ranks = new int[fabric.hosts()];
        for (int h = 0; h < ranks.length; h++) {
            ranks[h] = fabric.leader(h);
        }
        return ranks;
    }
}

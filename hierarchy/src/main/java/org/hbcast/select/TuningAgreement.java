package org.hbcast.select;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hbcast.mpi.LeaderLinkProbe;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiLibrary;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.TuningFiles;
import org.hbcast.tuning.TuningInputs;
import org.hbcast.tuning.TuningTableLoader;

/**
 * Makes every rank's selector inputs identical: rank 0 fingerprints its host, reads the tuning
 * table and the calibration, and broadcasts what it found; every rank then validates the same bytes
 * the same way. Rank 0 prints the warnings. Collective.
 *
 * <p>The table is {@code HBCAST_TUNING_FILE} ({@code none}: no table, the model alone) or
 * {@code tuning-<fingerprint id>.json} in the cache directory; the calibration is
 * {@code HBCAST_CALIBRATION_FILE} or {@code calibration-<hardware id>.json} there; what runs learnt
 * in the run ({@link org.hbcast.tuning.LearntPlans}) is {@code learnt-<fingerprint id>.json} there.
 * Where nothing calibrated the network and there are several nodes, the leaders of the first two
 * measure their link ({@link LeaderLinkProbe}, once per pair in a JVM) and every rank prices the network from that.
 */
public final class TuningAgreement {
    /** {@code HBCAST_TUNING_FILE=none}: use no table even where the default place has one. */
    static final String NO_TABLE = "none";

    private TuningAgreement() {}

    /** Collective over {@code comm}: the same inputs on every rank. */
    public static TuningInputs agree(
            MpiComm comm, Path tuningFile, boolean keepsLearnt, Topology topology, Map<String, String> env)
            throws MpiFailure {
        byte[] packet = null;
        String failure = null;
        if (comm.rank() == 0) {
            try {
                packet = find(
                                comm.library(),
                                tuningFile,
                                keepsLearnt,
                                ClusterShape.of(topology.layout(), topology.isVirtual()),
                                env)
                        .encode();
            } catch (RuntimeException e) {
                failure = e.toString();
            }
        }
        // -1 tells every rank that rank 0 failed, so nobody waits for bytes that never come.
        int[] length = {packet == null ? -1 : packet.length};
        comm.bcast(length, 1, BasicType.INT, 0);
        if (length[0] < 0) {
            throw MpiErrors.failed(
                    "hbcast: rank 0 could not gather the tuning inputs" + (failure != null ? ": " + failure : ""));
        }
        if (packet == null) {
            packet = new byte[length[0]];
        }
        comm.bcast(packet, length[0], BasicType.BYTE, 0);
        TuningInputs inputs;
        try {
            inputs = decoded(packet);
        } catch (IOException e) {
            throw MpiErrors.failed("hbcast: cannot decode the tuning inputs sent by rank 0: " + e.getMessage(), e);
        }
        if (comm.rank() == 0) {
            for (String w : inputs.warnings()) {
                System.err.println(w);
            }
            System.err.flush();
        }
        TuningInputs agreed = withMeasuredNetwork(comm, topology.layout(), inputs, packet);
        return topology.layout().nodeCount() > 1 && !topology.isVirtual()
                ? withUsableCores(comm, agreed, packet)
                : agreed;
    }

    /**
     * The inputs with the fewest cores a rank may run on, agreed (collective): each rank's JVM
     * counts those of its affinity, which a host's ranks held to some of its cores see and the
     * fingerprint's count of the host's cores does not. The same object for the same bytes, network
     * figures and count in a JVM, as {@link #decoded} gives.
     */
    private static TuningInputs withUsableCores(MpiComm comm, TuningInputs inputs, byte[] packet) throws MpiFailure {
        int[] cores = {Runtime.getRuntime().availableProcessors()};
        comm.allReduce(cores, 1, ReduceOp.MIN);
        LinkCalibration network = inputs.calibration().link(LinkKind.NETWORK);
        List<Object> key =
                List.of(ByteBuffer.wrap(packet), network.startupSeconds(), network.bytesPerSecond(), cores[0]);
        synchronized (AGREED) {
            return AGREED.computeIfAbsent(key, k -> inputs.withUsableCores(cores[0]));
        }
    }

    /** Inputs this JVM agreed, by the bytes they came from (and the network's figures measured at create). */
    private static final int REMEMBERED = 16;

    private static final Map<List<Object>, TuningInputs> AGREED = new LinkedHashMap<>(REMEMBERED, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<Object>, TuningInputs> eldest) {
            return size() > REMEMBERED;
        }
    };

    /**
     * The inputs of {@code packet}, the same object for the same bytes in a JVM: the selector
     * remembers its plans by its inputs ({@link Selector#of}), and comparing the same object costs
     * nothing where comparing equal records made apart would bootstrap their generated methods.
     */
    static TuningInputs decoded(byte[] packet) throws IOException {
        List<Object> key = List.of(ByteBuffer.wrap(packet));
        synchronized (AGREED) {
            TuningInputs known = AGREED.get(key);
            if (known == null) {
                known = FoundInputs.decode(packet).inputs();
                AGREED.put(key, known);
            }
            return known;
        }
    }

    /**
     * The inputs with the network's figures measured now, where they were built-in and the layout
     * has a network between leaders; unchanged where the probe saw no usable figures. Collective.
     */
    private static TuningInputs withMeasuredNetwork(MpiComm comm, NodeLayout layout, TuningInputs inputs, byte[] packet)
            throws MpiFailure {
        if (layout.nodeCount() < 2
                || !inputs.calibration().link(LinkKind.NETWORK).builtIn()) {
            return inputs;
        }
        double[] f = LeaderLinkProbe.measureOnce(
                comm, layout.rankAt(0, 0), layout.rankAt(1, 0), TuningAgreement::plausibleLink);
        if (!plausibleLink(f)) {
            return inputs;
        }
        List<Object> key = List.of(ByteBuffer.wrap(packet), f[0], f[1]);
        synchronized (AGREED) {
            TuningInputs known = AGREED.get(key);
            if (known == null) {
                known = inputs.withLink(
                        new LinkCalibration(LinkKind.NETWORK, f[0], f[1], LinkCalibration.MEASURED_AT_CREATE),
                        "network measured at create between the first two nodes' leaders");
                AGREED.put(key, known);
            }
            return known;
        }
    }

    /** Whether the probe's {@code {startupSeconds, bytesPerSecond}} are figures a link can have. */
    private static boolean plausibleLink(double[] f) {
        return LinkCalibration.plausibleStartup(f[0]) && LinkCalibration.plausibleBandwidth(f[1]);
    }

    /**
     * The inputs this process would use on {@code shape}, without MPI communication (for {@code explain}
     * and tools); {@code library} only names its version, which a binding tells before {@code MPI_Init}.
     */
    public static TuningInputs local(
            MpiLibrary library, Path tuningFile, boolean keepsLearnt, ClusterShape shape, Map<String, String> env) {
        return find(library, tuningFile, keepsLearnt, shape, env).inputs();
    }

    /** Rank 0's part: the fingerprint of this host and layout, and the files' contents. */
    private static FoundInputs find(
            MpiLibrary library, Path tuningFile, boolean keepsLearnt, ClusterShape shape, Map<String, String> env) {
        Fingerprint fp = Fingerprint.of(HostInfo.probe(library.version()), shape);
        List<String> warnings = new ArrayList<>();
        Path table = tuningFile;
        boolean requested = table != null;
        if (table != null && table.toString().equals(NO_TABLE)) {
            table = null;
        } else if (table == null) {
            table = TuningFiles.defaultTable(env, fp);
        }
        Path cal = TuningFiles.calibration(env, fp);
        // What runs learnt is kept beside the default table (see BcastOptions#keepsLearnt).
        Path learnt = keepsLearnt ? TuningFiles.learnt(env, fp) : null;
        // What this JVM's create learnt and has not written yet is newer than the file.
        LearntPlans unwritten = UnwrittenLearnt.of(learnt);
        return new FoundInputs(
                fp,
                table == null ? null : table.toString(),
                read(table, warnings),
                requested,
                cal.toString(),
                read(cal, warnings),
                warnings,
                learnt == null ? null : learnt.toString(),
                unwritten != null ? unwritten : learnt(learnt, read(learnt, warnings), fp, warnings));
    }

    /** What earlier runs learnt, parsed here on rank 0 alone (see {@link FoundInputs}); null where nothing usable. */
    private static LearntPlans learnt(Path file, byte[] content, Fingerprint fp, List<String> warnings) {
        if (file == null || content == null) {
            return null;
        }
        TuningTableLoader.Loaded<LearntPlans> loaded = TuningTableLoader.learnt(file, content, fp.id());
        if (loaded.warning() != null) {
            warnings.add(loaded.warning());
        }
        return loaded.value();
    }

    private static byte[] read(Path file, List<String> warnings) {
        if (file == null) {
            return null;
        }
        TuningTableLoader.Loaded<byte[]> r = TuningTableLoader.readBytes(file);
        if (r.warning() != null) {
            warnings.add(r.warning());
        }
        return r.value();
    }
}

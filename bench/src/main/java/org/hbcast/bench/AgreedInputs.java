package org.hbcast.bench;

import java.util.Map;
import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.select.TuningAgreement;
import org.hbcast.settings.Setting;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.TuningInputs;

/**
 * The selector's inputs as {@code HierarchicalBcast.create} agrees them (the nodes, the fingerprint,
 * the calibration and table), for the tools that write tuning files: the API shows only views of
 * them. Collective over {@code world}; no transport is connected.
 *
 * @param layout the nodes, virtual ones where {@code options} name node sizes
 */
public record AgreedInputs(NodeLayout layout, ClusterShape shape, TuningInputs inputs) {

    public static AgreedInputs agree(Intracomm world, BcastOptions options) throws MPIException {
        MpiComm comm = OpenMpi.comm(world);
        Map<String, String> env = Setting.environment();
        try (Topology topology = Topology.discover(comm, options.nodeSizes())) {
            TuningInputs inputs =
                    TuningAgreement.agree(comm, options.tuningFile(), options.keepsLearnt(), topology, env);
            return new AgreedInputs(
                    topology.layout(), ClusterShape.of(topology.layout(), topology.isVirtual()), inputs);
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }

    public Fingerprint fingerprint() {
        return inputs.fingerprint();
    }
}

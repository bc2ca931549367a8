package org.hbcast.bench;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import mpi.MPI;
import org.hbcast.BcastOptions;
import org.hbcast.device.CudaDevices;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.TuningFiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fingerprint}: prints the hardware fingerprint (and its ids and the default places of the
 * tuning table and calibration). Under {@code mpirun} (no {@code --layout}) the layout is the run's,
 * as every rank agrees on it; otherwise the layout given.
 */
@Command(name = "fingerprint", mixinStandardHelpOptions = true, description = "Print the hardware fingerprint.")
public final class FingerprintReport implements Callable<Integer> {
    @Option(
            names = "--layout",
            description = "NODESxRANKS or node sizes (default: the MPI run's layout, or 1x1 outside mpirun)")
    String layout;

    @Option(names = "--virtual", description = "the nodes are virtual")
    boolean virtual;

    public static void main(String[] args) throws Exception {
        System.exit(new CommandLine(new FingerprintReport()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (layout == null && System.getenv("OMPI_COMM_WORLD_SIZE") != null) {
            MPI.Init(new String[0]);
            AgreedInputs agreed =
                    AgreedInputs.agree(MPI.COMM_WORLD, BcastOptions.defaults().withTuningFile(Path.of("none")));
            if (MPI.COMM_WORLD.getRank() == 0) {
                print(agreed.fingerprint());
            }
            MPI.Finalize();
            return 0;
        }
        ClusterShape shape = ClusterShape.parse((layout == null ? "1x1" : layout) + (virtual ? " virtual" : ""));
        print(Fingerprint.of(HostInfo.probe(OpenMpi.library().version()), shape));
        return 0;
    }

    private static void print(Fingerprint fp) {
        Map<String, String> env = System.getenv();
        System.out.println("fingerprint:  " + fp.canonical());
        System.out.println("id:           " + fp.id());
        System.out.println("hardware id:  " + fp.hardwareId());
        System.out.println("table:        " + TuningFiles.defaultTable(env, fp));
        System.out.println("calibration:  " + TuningFiles.calibration(env, fp));
        CudaDevices cuda = CudaDevices.get();
        if (!cuda.available()) {
            System.out.println("gpus:         none (" + cuda.unavailableReason() + ")");
        }
    }
}

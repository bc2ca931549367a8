package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything a short lease of a GPU machine should run, each step bounded so that one hang cannot
 * eat the lease, what the device targets need first: the machine; the GPU tests, required to run; the
 * device probe (the library beside a user's own staging and the copy bound, on one node of 4 and of 8
 * ranks and on virtual nodes 2+2); where MPS exists, the ring and the probe again under it (the ranks
 * sharing a GPU then share its context, with no switch between them at each hop); then the probe after
 * the in-run trials, what a hop costs, and slots against buffer to buffer. The commands are the
 * bundle's ({@code bin/}).
 *
 * @param bin  the bundle's bin directory
 * @param dir  where each step's log goes
 * @param mps  whether {@code nvidia-cuda-mps-control} exists here
 * @param env  this process's environment (CUDA_VISIBLE_DEVICES is kept where set)
 */
public record GpuLeasePlan(Path bin, Path dir, boolean mps, Map<String, String> env) {

    /**
     * One command of a step.
     *
     * @param argv     the command
     * @param env      variables it gets beyond the lease's own
     * @param note     a line written to the step's log before it, or null
     * @param input    its standard input, or null for none
     * @param required the rest of the step is skipped when it fails
     */
    public record Command(List<String> argv, Map<String, String> env, String note, String input, boolean required) {
        public Command {
            argv = List.copyOf(argv);
            env = Map.copyOf(env);
        }

        static Command of(String... argv) {
            return new Command(List.of(argv), Map.of(), null, null, false);
        }

        Command with(Map<String, String> more) {
            Map<String, String> all = new java.util.LinkedHashMap<>(env);
            all.putAll(more);
            return new Command(argv, all, note, input, required);
        }

        Command noted(String line) {
            return new Command(argv, env, line, input, required);
        }

        /** This command with {@code more} arguments after its own. */
        Command args(String... more) {
            List<String> all = new ArrayList<>(argv);
            all.addAll(List.of(more));
            return new Command(all, env, note, input, required);
        }
    }

    /**
     * One step: its commands run in turn within {@code limitSeconds}, their output into
     * {@code DIR/NAME.log}; then its cleanup, whatever happened; then the log's lines matching
     * {@code summary} are printed.
     *
     * @param name         the step and its log's name
     * @param limitSeconds the time it may take, all commands together
     * @param commands     what it runs
     * @param cleanup      what runs after it even when it failed or ran out of time
     * @param directories  directories made before it
     * @param summary      a regular expression: the log's lines to print, or null for none
     * @param counts       whether its failure fails the lease
     * @param skipped      why it does not run here, or null
     */
    public record Step(
            String name,
            int limitSeconds,
            List<Command> commands,
            List<Command> cleanup,
            List<Path> directories,
            String summary,
            boolean counts,
            String skipped) {
        public Step {
            commands = List.copyOf(commands);
            cleanup = List.copyOf(cleanup);
            directories = List.copyOf(directories);
        }
    }

    /** The steps, in the order they run. */
    public List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        steps.add(new Step(
                "machine",
                60,
                List.of(
                        Command.of("date", "-u"),
                        Command.of("uname", "-a"),
                        Command.of("grep", "PRETTY", "/etc/os-release"),
                        Command.of("nproc"),
                        Command.of("nvidia-smi"),
                        Command.of("nvidia-smi", "topo", "-m")),
                List.of(),
                List.of(),
                null,
                false,
                null));
        // 182 s for 15 tests on the H100 (session 34), since then two launches of UserDeviceMemoryMpiTest
        // and one of DeviceTrialsMpiTest, 12-18 s each.
        steps.add(new Step(
                "gpu-test",
                270,
                List.of(Command.of(bin("gpu-test")).with(Map.of("HBCAST_REQUIRE_GPU", "1"))),
                List.of(),
                List.of(),
                "^gpu-test:",
                true,
                null));
        steps.add(new Step("device-probe", 180, probes(), List.of(), List.of(), "^#|^[0-9]", true, null));
        // What issue 56's targets need comes first (tests, probes, MPS): a lease may end before the rest.
        steps.add(mpsStep());
        // After the in-run trials: 220 untimed calls of each size first, so that every size up to 4 MiB
        // (where staging through the host competes) has decided; calls that short take seconds in all.
        steps.add(new Step(
                "device-probe-trials",
                60,
                List.of(probe("4")
                        .args("-m", "1:4194304", "--settle", "220")
                        .with(Map.of("CUDA_VISIBLE_DEVICES", env.getOrDefault("CUDA_VISIBLE_DEVICES", "0")))
                        .noted("## one node, 4 ranks, after the trials (--settle 220)")),
                List.of(),
                List.of(),
                "^#|^[0-9]",
                true,
                null));
        List<Command> hops = new ArrayList<>();
        for (String m : List.of("1048576", "16777216")) {
            hops.add(Command.of(bin("hbrun"), "-n", "2", "org.hbcast.bench.gpu.IpcMapCost", "-m", m, "-i", "50"));
        }
        steps.add(new Step("hops", 60, hops, List.of(), List.of(), "^#", true, null));
        List<Command> modes = new ArrayList<>();
        for (String d : List.of("1073741824", "1048576")) {
            modes.add(osuCuda("8388608:268435456")
                    .with(Map.of("HBCAST_JVM_OPTS", "-Dhbcast.device.directMinBytes=" + d))
                    .noted("## hbcast.device.directMinBytes=" + d));
        }
        steps.add(new Step("slots-vs-direct", 90, modes, List.of(), List.of(), "^##|^[0-9]", true, null));
        return steps;
    }

    private Step mpsStep() {
        if (!mps) {
            return new Step(
                    "mps", 0, List.of(), List.of(), List.of(), null, false, "nvidia-cuda-mps-control not found");
        }
        Path pipe = dir.resolve("mps-pipe");
        Path log = dir.resolve("mps-log");
        Map<String, String> mpsEnv =
                Map.of("CUDA_MPS_PIPE_DIRECTORY", pipe.toString(), "CUDA_MPS_LOG_DIRECTORY", log.toString());
        // "Sharing one GPU": on a multi-GPU node the ranks would otherwise spread over the GPUs.
        String device = env.getOrDefault("CUDA_VISIBLE_DEVICES", "0");
        List<Command> commands = new ArrayList<>();
        Command daemon = Command.of("nvidia-cuda-mps-control", "-d").with(mpsEnv);
        commands.add(new Command(daemon.argv(), daemon.env(), null, null, true));
        for (String n : List.of("2", "4", "8")) {
            commands.add(Command.of(bin("ring-bandwidth"), n, "-m", "67108864", "-i", "20", "-x", "3")
                    .with(mpsEnv)
                    .with(Map.of("CUDA_VISIBLE_DEVICES", device)));
        }
        commands.add(probe("4").with(mpsEnv).with(Map.of("CUDA_VISIBLE_DEVICES", device)));
        Command quit = new Command(List.of("nvidia-cuda-mps-control"), mpsEnv, null, "quit\n", false);
        return new Step("mps", 120, commands, List.of(quit), List.of(pipe, log), "^[0-9]", true, null);
    }

    /**
     * The device probe as programs call it: one node of 4 and of 8 ranks sharing the GPU(s), and
     * virtual nodes 2+2 (whose leaders stage through pinned host memory).
     */
    private List<Command> probes() {
        String device = env.getOrDefault("CUDA_VISIBLE_DEVICES", "0");
        Map<String, String> oneGpu = Map.of("CUDA_VISIBLE_DEVICES", device);
        return List.of(
                probe("4").with(oneGpu).noted("## one node, 4 ranks"),
                probe("8").with(oneGpu).noted("## one node, 8 ranks"),
                probe("4").with(oneGpu).with(Map.of("HBCAST_NODE_SIZES", "2,2")).noted("## virtual nodes 2+2"));
    }

    private Command probe(String ranks) {
        return Command.of(bin("hbrun"), "-n", ranks, "org.hbcast.bench.gpu.DeviceProbe");
    }

    private Command osuCuda(String sizes) {
        return Command.of(
                bin("osu-bcast"),
                "-n",
                "4",
                "--",
                "-d",
                "cuda",
                "--impl",
                "staged,hierarchical",
                "-m",
                sizes,
                "-i",
                "20",
                "-x",
                "3",
                "-f");
    }

    private String bin(String command) {
        return bin.resolve(command).toString();
    }
}

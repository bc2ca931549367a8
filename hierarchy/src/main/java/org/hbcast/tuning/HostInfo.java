package org.hbcast.tuning;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hbcast.device.CudaDevices;

/**
 * The hardware and MPI library of this host, as the fingerprint records them: the CPU model and
 * logical CPU count from {@code /proc/cpuinfo} (stable where {@code availableProcessors} follows
 * cgroups and affinity), the GPU model and count from CUDA, the MPI library's name and version.
 */
public record HostInfo(String cpuModel, int cpus, String gpuModel, int gpus, String mpiVersion) {
    private static final Pattern MPI_VERSION =
            Pattern.compile("(Open MPI|MPICH|Intel\\(R\\) MPI)\\D*(\\d+(?:\\.\\d+)*)");

    public HostInfo {
        cpuModel = clean(cpuModel);
        gpuModel = gpus == 0 ? "none" : clean(gpuModel);
        mpiVersion = clean(mpiVersion);
        if (cpus < 1 || gpus < 0) {
            throw new IllegalArgumentException("cpus must be positive and gpus not negative: " + cpus + ", " + gpus);
        }
    }

    /** Probes this host; {@code mpiLibraryVersion} is what {@code MPI.getLibVersion()} (or {@code ompi_info}) says. */
    public static HostInfo probe(String mpiLibraryVersion) {
        String model = "unknown";
        int cpus = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = line.substring(0, colon).trim();
                if (key.equals("processor")) {
                    cpus++;
                } else if (key.equals("model name") && model.equals("unknown")) {
                    model = line.substring(colon + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: fall back to what the JVM sees.
        }
        if (cpus == 0) {
            cpus = Runtime.getRuntime().availableProcessors();
        }
        CudaDevices cuda = CudaDevices.get();
        List<String> names = cuda.names().stream().distinct().toList();
        return new HostInfo(
                model, cpus, String.join(" + ", names), cuda.count(), normalizeMpiVersion(mpiLibraryVersion));
    }

    /** "Open MPI v4.1.4, package: Debian OpenMPI, ..." becomes "Open MPI 4.1.4": the part that matters and does not drift. */
    public static String normalizeMpiVersion(String text) {
        if (text == null || text.isBlank()) {
            return "unknown";
        }
        Matcher m = MPI_VERSION.matcher(text);
        if (m.find()) {
            return m.group(1) + " " + m.group(2);
        }
        String first = text.strip().lines().findFirst().orElse("unknown");
        return first.length() > 60 ? first.substring(0, 60) : first;
    }

    /**
     * {@code s} with the fingerprint's separators ({@code ;}, {@code =}) and control characters as spaces, runs of
     * white space as one, trimmed: a loop rather than two regular expressions, which cost a cold
     * JVM's first {@code create} their pattern machinery on every rank.
     */
    static String clean(String s) {
        if (s == null || s.isBlank()) {
            return "unknown";
        }
        StringBuilder out = new StringBuilder(s.length());
        boolean space = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ';' || c == '=' || c == ' ' || Character.isISOControl(c)) {
                space = out.length() > 0;
            } else {
                if (space) {
                    out.append(' ');
                    space = false;
                }
                out.append(c);
            }
        }
        return out.toString();
    }
}

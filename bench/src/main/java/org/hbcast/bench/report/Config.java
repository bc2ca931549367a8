package org.hbcast.bench.report;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * One configuration the comparison ran: an Open MPI algorithm measured through
 * {@code --impl native} with extra MCA parameters, or the hbcast run measuring our implementations.
 * Written by {@code hbcast-bench compare} as {@code <config>/config.properties} next to its round files.
 *
 * @param name        column name of an Open MPI config (tuned, tuned-knomial, adapt, han), or "hbcast"
 * @param order       position in the report
 * @param openMpi     true for Open MPI's own algorithms (candidates for "best native")
 * @param mca         the MCA parameters it ran with, as passed to mpirun
 * @param unavailable why Open MPI did not select it (then it was not measured), or null
 * @param selected    how the runner made sure Open MPI used the intended component, or null
 */
public record Config(String name, int order, boolean openMpi, String mca, String unavailable, String selected) {

    /** The name of the configuration that measures hbcast's implementations. */
    public static final String HBCAST = "hbcast";

    public static Config read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        }
        String name = p.getProperty("name");
        if (name == null || name.isBlank()) {
            throw new IOException(file + ": no 'name'");
        }
        try {
            return new Config(
                    name,
                    Integer.parseInt(p.getProperty("order", "100").trim()),
                    !HBCAST.equals(name),
                    p.getProperty("mca", "").trim(),
                    blankToNull(p.getProperty("unavailable")),
                    blankToNull(p.getProperty("selected")));
        } catch (NumberFormatException e) {
            throw new IOException(file + ": 'order' is not a whole number: " + p.getProperty("order"), e);
        }
    }

    /** The {@code config.properties} text that {@link #read} reads back: one line per field. */
    public String properties() {
        return "name=" + name + "\norder=" + order + "\nmca=" + oneLine(mca) + "\nunavailable=" + oneLine(unavailable)
                + "\nselected=" + oneLine(selected) + "\n";
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip().replace("\\", "\\\\");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}

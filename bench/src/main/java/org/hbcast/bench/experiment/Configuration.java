package org.hbcast.bench.experiment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A configuration the comparison measures: one of Open MPI's broadcast algorithms, picked with MCA
 * parameters, or hbcast's run. Each Open MPI configuration names the coll component Open MPI must
 * select for {@code MPI_COMM_WORLD}, or the run would measure another algorithm under its name.
 */
public enum Configuration {
    /** Open MPI's default: coll tuned with its own decision rules. */
    TUNED("tuned", "tuned"),
    /** coll tuned forced to its k-nomial tree (algorithm 7). */
    TUNED_KNOMIAL("tuned-knomial", "tuned", "coll_tuned_use_dynamic_rules", "1", "coll_tuned_bcast_algorithm", "7"),
    /** coll adapt. */
    ADAPT("adapt", "adapt", "coll_adapt_priority", "100"),
    /** coll han, Open MPI's hierarchical broadcast. */
    HAN("han", "han", "coll_han_priority", "100"),
    /** hbcast's implementations, Open MPI's default beside them as a same-run reference. */
    HBCAST("hbcast", null);

    private final String label;
    private final String component;
    private final List<String> mca;

    Configuration(String label, String component, String... mcaPairs) {
        this.label = label;
        this.component = component;
        this.mca = List.of(mcaPairs);
    }

    /** The name on the command line, in folders and in the report. */
    public String label() {
        return label;
    }

    /** The coll component Open MPI must select for MPI_COMM_WORLD; empty for hbcast's run. */
    public Optional<String> component() {
        return Optional.ofNullable(component);
    }

    /** Whether this is one of Open MPI's own algorithms (a candidate for the best native). */
    public boolean isOpenMpi() {
        return this != HBCAST;
    }

    /** The MCA parameters as {@code mpirun} (and {@code scripts/hbrun}) takes them: {@code --mca KEY VALUE ...}. */
    public List<String> mcaArguments() {
        List<String> args = new ArrayList<>();
        for (int i = 0; i < mca.size(); i += 2) {
            args.addAll(List.of("--mca", mca.get(i), mca.get(i + 1)));
        }
        return args;
    }

    /** The configuration named {@code label}; an {@link IllegalArgumentException} naming them all otherwise. */
    public static Configuration of(String label, String option) {
        return Arrays.stream(values())
                .filter(c -> c.label.equals(label))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "unknown configuration '" + label + "' in " + option + " (" + allLabels() + ")"));
    }

    /** The configurations of a comma-separated list, in its order; each at most once. */
    public static List<Configuration> parseList(String list, String option) {
        List<Configuration> out = new ArrayList<>();
        for (String label : list.split(",", -1)) {
            Configuration c = of(label.strip(), option);
            if (out.contains(c)) {
                throw new IllegalArgumentException(option + " names '" + label.strip() + "' twice");
            }
            out.add(c);
        }
        return List.copyOf(out);
    }

    /** Every configuration's name, comma-separated, in the report's order. */
    public static String allLabels() {
        return String.join(
                ", ", Arrays.stream(values()).map(Configuration::label).toList());
    }

    @Override
    public String toString() {
        return label;
    }
}

package org.hbcast.bench.experiment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which coll component Open MPI selected for {@code MPI_COMM_WORLD} in each process, read from a
 * launch's {@code --mca coll_base_verbose 10} output. Open MPI enables the components that qualify
 * in rising priority, each taking over the functions it provides, so the last enabled one of the
 * highest priority is the one a broadcast calls; a configuration whose component is not that
 * winner in every process would measure another algorithm under its name.
 *
 * @param winners the winning component of MPI_COMM_WORLD by process (the line's prefix, {@code [host:pid]})
 * @param queries the first {@code comm_query} line on MPI_COMM_WORLD by component: its answer
 */
public record CollSelection(Map<String, String> winners, Map<String, String> queries) {
    private static final Pattern NEW_COMMUNICATOR = Pattern.compile("coll:base:comm_select: new communicator:");
    private static final Pattern ENABLED =
            Pattern.compile("coll:base:comm_select: selecting\\s+(\\S+?),?\\s+priority\\s+(-?\\d+),?\\s+Enabled");
    private static final Pattern QUERY = Pattern.compile("coll:(\\w+):comm_query \\(\\d*/MPI_COMM_WORLD\\): (.*)");

    public CollSelection {
        winners = Map.copyOf(winners);
        queries = Map.copyOf(queries);
    }

    /** Reads the verbose output of one launch (every process's lines, interleaved as mpirun forwards them). */
    public static CollSelection read(List<String> lines) {
        Map<String, Boolean> onWorld = new LinkedHashMap<>();
        Map<String, String> winners = new LinkedHashMap<>();
        Map<String, Integer> priorities = new LinkedHashMap<>();
        Map<String, String> queries = new LinkedHashMap<>();
        for (String line : lines) {
            String process = line.strip().split("\\s+", 2)[0];
            if (NEW_COMMUNICATOR.matcher(line).find()) {
                onWorld.put(process, line.contains("MPI_COMM_WORLD"));
                continue;
            }
            Matcher query = QUERY.matcher(line);
            if (query.find()) {
                queries.putIfAbsent(query.group(1), query.group(2));
            }
            Matcher enabled = ENABLED.matcher(line);
            if (onWorld.getOrDefault(process, false) && enabled.find()) {
                int priority = Integer.parseInt(enabled.group(2));
                // Equal priorities: the later one was enabled over the earlier.
                if (!winners.containsKey(process) || priority >= priorities.get(process)) {
                    winners.put(process, enabled.group(1));
                    priorities.put(process, priority);
                }
            }
        }
        return new CollSelection(winners, queries);
    }

    /** Whether {@code component} won MPI_COMM_WORLD in every process (and the log showed any process at all). */
    public boolean selectedEverywhere(String component) {
        return !winners.isEmpty() && winners.values().stream().allMatch(component::equals);
    }

    /**
     * Why {@code component} was not measured: its own refusal on MPI_COMM_WORLD where it gave one
     * ({@code han} on one host: "comm has only local processes; disqualifying myself"), else which
     * component Open MPI chose instead.
     */
    public String whyNot(String component, String log) {
        String answer = queries.get(component);
        if (answer != null && !answer.startsWith("pick me")) {
            return "coll/" + component + " on MPI_COMM_WORLD: " + answer;
        }
        long won = winners.values().stream().filter(component::equals).count();
        if (won > 0) {
            return "Open MPI selected " + component + " for MPI_COMM_WORLD in " + won + " of " + winners.size()
                    + " processes only (see " + log + ")";
        }
        List<String> chosen = winners.values().stream().distinct().sorted().toList();
        return chosen.isEmpty()
                ? "Open MPI did not select " + component + " for MPI_COMM_WORLD (see " + log + ")"
                : "Open MPI selected " + String.join(" and ", chosen) + ", not " + component
                        + ", for MPI_COMM_WORLD (see " + log + ")";
    }
}

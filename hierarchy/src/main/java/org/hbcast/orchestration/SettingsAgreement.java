package org.hbcast.orchestration;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.settings.Log;

/**
 * Makes the settings of an instance the communicator's, not the rank's (collective, at create).
 *
 * <p>Open MPI forwards an environment variable to ranks on other hosts only when asked ({@code -x}),
 * so ranks may well read different {@code HBCAST_*} values; a program may also pass different
 * options on different ranks by mistake. Ranks that ran different plans would take each other's
 * messages as their own. So, setting by setting:
 *
 * <ul>
 * <li>equal everywhere: used;
 * <li>different, where every rank's value came from its environment: rank 0's applies everywhere,
 * and each rank whose own differs prints one line naming the settings, its values and rank 0's;
 * <li>different, where a value was passed in code on some rank: a program error, and every rank fails
 * with the same message naming the setting and which ranks hold which value.
 * </ul>
 *
 * A rank that could not even read its settings (a bad value in its environment) makes every rank
 * fail with its reason, so that nobody waits in a collective it will never join.
 */
final class SettingsAgreement {
    /** Between two settings in their encoded form: no variable's value holds it. */
    private static final char SEPARATOR = '\u001f';

    private SettingsAgreement() {}

    /**
     * Collective over {@code comm}: the settings every rank uses, rank 0's.
     *
     * @throws MpiFailure on every rank alike, when a rank could not read its settings or options
     *         passed in code differ
     */
    static Map<String, String> agree(MpiComm comm, SettingsProposal mine) throws MpiFailure {
        CreateTogether.check(comm, mine.failure());
        int rank = comm.rank();
        String[] names = mine.values().keySet().toArray(String[]::new);
        String ours = StringExchange.broadcast(comm, encode(mine), 0);
        Decoded rank0Settings = decode(ours);
        Map<String, String> rank0 = rank0Settings.values();
        Map<String, Boolean> rank0Code = rank0Settings.fromCode();
        // One build of the library on every rank is the only way the same options get the same names; a rank
        // that knows others fails create with the rest (CreateTogether), not alone.
        CreateTogether.check(
                comm,
                rank0.keySet().equals(mine.values().keySet())
                        ? null
                        : "hbcast: rank " + rank + " knows the settings "
                                + mine.values().keySet() + " but rank 0 " + rank0.keySet()
                                + ": the ranks run different versions of hbcast");
        int[] conflict = {0};
        List<String> followed = new ArrayList<>();
        for (String name : names) {
            String value = mine.values().get(name);
            if (value.equals(rank0.get(name))) {
                continue;
            }
            if (mine.fromCode().get(name) || rank0Code.get(name)) {
                conflict[0] = 1;
            } else {
                followed.add(name + "=" + show(value) + " here, " + show(rank0.get(name)) + " on rank 0");
            }
        }
        comm.allReduce(conflict, 1, ReduceOp.MAX);
        if (conflict[0] != 0) {
            throw MpiErrors.badArgument(codeConflict(comm, mine, names));
        }
        if (!followed.isEmpty()) {
            Log.warning(() -> "hbcast: rank " + rank + " follows rank 0's settings, which apply to the whole"
                    + " communicator: " + String.join("; ", followed)
                    + " (export them where mpirun starts and pass them with -x, or set them alike on every host)");
        }
        return rank0;
    }

    /**
     * The message for options passed in code that differ: every rank's settings gathered (this path
     * only), so that it names, for each setting, which ranks hold which value.
     */
    private static String codeConflict(MpiComm comm, SettingsProposal mine, String[] names) throws MpiFailure {
        String[] all = StringExchange.allGatherAny(comm, encode(mine));
        StringBuilder sb = new StringBuilder("hbcast: ranks disagree on");
        boolean first = true;
        for (String name : names) {
            Map<String, List<Integer>> holders = new LinkedHashMap<>();
            boolean code = false;
            for (int r = 0; r < all.length; r++) {
                Decoded d = decode(all[r]);
                holders.computeIfAbsent(d.values().get(name), v -> new ArrayList<>())
                        .add(r);
                code |= d.fromCode().get(name);
            }
            if (holders.size() < 2) {
                continue;
            }
            sb.append(first ? " " : "; ")
                    .append(name)
                    .append(code ? " (passed in code)" : "")
                    .append(":");
            first = false;
            String sep = " ";
            for (Map.Entry<String, List<Integer>> e : holders.entrySet()) {
                sb.append(sep).append(show(e.getKey())).append(" on ").append(ranks(e.getValue()));
                sep = ", ";
            }
        }
        return sb.append(". Options passed to HierarchicalBcast.create must be the same on every rank")
                .toString();
    }

    /** "rank 3", "ranks 0-2", "ranks 0, 2, 5". */
    static String ranks(List<Integer> ranks) {
        if (ranks.size() == 1) {
            return "rank " + ranks.get(0);
        }
        boolean consecutive = ranks.get(ranks.size() - 1) - ranks.get(0) == ranks.size() - 1;
        if (consecutive) {
            return "ranks " + ranks.get(0) + "-" + ranks.get(ranks.size() - 1);
        }
        StringBuilder sb = new StringBuilder("ranks ");
        for (int i = 0; i < ranks.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(ranks.get(i));
        }
        return sb.toString();
    }

    private static String show(String value) {
        return value.isEmpty() ? "(unset)" : value;
    }

    /** {@code name=value} lines, each with a {@code +} before the name where it was passed in code. */
    private static String encode(SettingsProposal p) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : p.values().entrySet()) {
            sb.append(p.fromCode().get(e.getKey()) ? "+" : "")
                    .append(e.getKey())
                    .append('=')
                    .append(e.getValue())
                    .append(SEPARATOR);
        }
        return sb.toString();
    }

    /** One rank's settings as {@link #encode} wrote them. */
    private record Decoded(Map<String, String> values, Map<String, Boolean> fromCode) {}

    private static Decoded decode(String encoded) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, Boolean> fromCode = new LinkedHashMap<>();
        for (String line : encoded.split(String.valueOf(SEPARATOR))) {
            if (!line.isEmpty()) {
                boolean plus = line.startsWith("+");
                int eq = line.indexOf('=');
                String name = line.substring(plus ? 1 : 0, eq);
                values.put(name, line.substring(eq + 1));
                fromCode.put(name, plus);
            }
        }
        return new Decoded(values, fromCode);
    }
}

package org.hbcast.bench.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the ranks of an experiment run: one node, virtual nodes on this machine, or a test bed of
 * network-namespace hosts ({@code scripts/testbed}), the ranks dealt in blocks or round-robin.
 *
 * <p>The grammar ({@link #parse}): {@code nodeN}; {@code virtualAxB} or {@code virtualS0,S1,..};
 * {@code testbedHxS} or {@code testbedHxS0,S1,..}, either with {@code -rr} for round-robin placement
 * ({@code mpirun --map-by node}; even hosts only).
 *
 * @param name         the layout as written (names result folders and plots)
 * @param ranks        ranks in all
 * @param virtualNodes sizes of the virtual nodes ({@code HBCAST_NODE_SIZES}), empty if none
 * @param bedHosts     test-bed hosts, 0 if not a bed
 * @param bedSlots     ranks on each host: one count for all hosts or one per host; empty if not a bed
 * @param roundRobin   ranks dealt round-robin over the hosts
 */
public record Layout(
        String name, int ranks, List<Integer> virtualNodes, int bedHosts, List<Integer> bedSlots, boolean roundRobin) {

    private static final String NUMBER = "[1-9][0-9]*";
    private static final Pattern NODE = Pattern.compile("node(" + NUMBER + ")");
    private static final Pattern VIRTUAL_EVEN = Pattern.compile("virtual(" + NUMBER + ")x(" + NUMBER + ")");
    private static final Pattern VIRTUAL_LIST = Pattern.compile("virtual(" + NUMBER + "(?:," + NUMBER + ")+)");
    private static final Pattern BED =
            Pattern.compile("testbed(" + NUMBER + ")x(" + NUMBER + "(?:," + NUMBER + ")*)(-rr)?");
    private static final Pattern ONE_VIRTUAL_NODE = Pattern.compile("virtual(" + NUMBER + ")");

    public Layout {
        virtualNodes = List.copyOf(virtualNodes);
        bedSlots = List.copyOf(bedSlots);
    }

    /** The layout {@code text} names; an {@link IllegalArgumentException} naming the problem otherwise. */
    public static Layout parse(String text) {
        Matcher m;
        if ((m = NODE.matcher(text)).matches()) {
            return new Layout(text, number(text, m.group(1)), List.of(), 0, List.of(), false);
        }
        if ((m = VIRTUAL_EVEN.matcher(text)).matches()) {
            int nodes = number(text, m.group(1));
            int size = number(text, m.group(2));
            return virtual(text, Collections.nCopies(nodes, size));
        }
        if ((m = VIRTUAL_LIST.matcher(text)).matches()) {
            return virtual(text, numbers(text, m.group(1)));
        }
        if ((m = BED.matcher(text)).matches()) {
            int hosts = number(text, m.group(1));
            List<Integer> slots = numbers(text, m.group(2));
            boolean roundRobin = m.group(3) != null;
            if (slots.size() > 1 && slots.size() != hosts) {
                throw new IllegalArgumentException("layout '" + text + "' names " + hosts + " hosts but " + slots.size()
                        + " slot counts (" + m.group(2) + "): give one per host, or one for all");
            }
            if (roundRobin && slots.size() > 1) {
                throw new IllegalArgumentException(
                        "layout '" + text + "': round-robin placement (-rr) takes even hosts (testbedHxS-rr)");
            }
            long ranks = slots.size() == 1 ? (long) hosts * slots.get(0) : sum(slots);
            return new Layout(text, checkedRanks(text, ranks), List.of(), hosts, slots, roundRobin);
        }
        throw new IllegalArgumentException("layout '" + text + "' is none of nodeN, virtualAxB, virtualS0,S1,..,"
                + " testbedHxS, testbedHxS0,S1,.. or testbed...-rr (e.g. node4, virtual2x2, testbed3x4,2,2,"
                + " testbed4x2-rr)");
    }

    /**
     * {@code text}, with one virtual node of N ranks written as the node it is ({@code virtual4} is
     * {@code node4}): what {@code --nodes 4} of scripts/ocean and scripts/tune has always meant.
     */
    public static String oneVirtualNodeAsNode(String text) {
        Matcher m = ONE_VIRTUAL_NODE.matcher(text);
        return m.matches() ? "node" + m.group(1) : text;
    }

    /** Whether the ranks run on a test bed of network-namespace hosts. */
    public boolean isBed() {
        return bedHosts > 0;
    }

    /** The slots of a bed as {@code scripts/testbed up --slots} takes them ({@code 4,2,2} or {@code 2}). */
    public String slotsArgument() {
        return join(bedSlots);
    }

    /**
     * The {@code scripts/hbrun} options that put the ranks on this layout: {@code --nodes} for
     * virtual nodes, {@code --testbed BED} (and {@code --map-by node}) on a bed, nothing on one node.
     *
     * @param bed the name of the bed this layout was brought up as; ignored when it is not a bed
     */
    public List<String> placement(String bed) {
        List<String> args = new ArrayList<>();
        if (!virtualNodes.isEmpty()) {
            args.addAll(List.of("--nodes", join(virtualNodes)));
        }
        if (isBed()) {
            if (bed == null || bed.isEmpty()) {
                throw new IllegalStateException("layout " + name + " is a test bed: bring it up first");
            }
            args.addAll(List.of("--testbed", bed));
            if (roundRobin) {
                args.addAll(List.of("--map-by", "node"));
            }
        }
        return args;
    }

    private static Layout virtual(String text, List<Integer> sizes) {
        return new Layout(text, checkedRanks(text, sum(sizes)), sizes, 0, List.of(), false);
    }

    private static int number(String text, String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("layout '" + text + "': " + digits + " is too large");
        }
    }

    private static List<Integer> numbers(String text, String list) {
        List<Integer> out = new ArrayList<>();
        for (String s : list.split(",")) {
            out.add(number(text, s));
        }
        return out;
    }

    private static long sum(List<Integer> values) {
        return values.stream().mapToLong(Integer::longValue).sum();
    }

    private static int checkedRanks(String text, long ranks) {
        if (ranks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("layout '" + text + "' has " + ranks + " ranks: too many");
        }
        return (int) ranks;
    }

    private static String join(List<Integer> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }
}

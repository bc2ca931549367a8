package org.hbcast.bench.cli;

import java.util.List;
import picocli.CommandLine;

/** Checks the commands share on their arguments. */
final class Options {
    private Options() {}

    /**
     * Refuses {@code passed} (what the command hands to a program) unless it came after {@code --}:
     * a mistyped option of the command must not reach the program as one of its own.
     */
    static void onlyAfterDoubleDash(CommandLine.Model.CommandSpec spec, List<String> passed, String what) {
        if (passed.isEmpty()) {
            return;
        }
        List<String> original = spec.commandLine().getParseResult().originalArgs();
        if (!original.contains("--")) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "unknown option '" + passed.get(0) + "' (" + what + " go after --)");
        }
    }
}

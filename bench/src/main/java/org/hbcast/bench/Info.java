package org.hbcast.bench;

import java.util.concurrent.Callable;
import org.hbcast.settings.Log;
import org.hbcast.settings.Setting;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Prints every setting of hbcast with its value in this process and where the value came from (as
 * {@code ompi_info --param} does for Open MPI), or, with {@code --markdown}, the settings table of the
 * documentation (docs/settings.md), both from {@link Setting}. Needs no MPI: {@code scripts/info}.
 */
@Command(name = "info", mixinStandardHelpOptions = true, description = "hbcast's settings, values and sources")
public final class Info implements Callable<Integer> {
    @Option(names = "--markdown", description = "print the documentation's settings table instead")
    boolean markdown;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Info()).execute(args));
    }

    @Override
    public Integer call() {
        System.out.print(markdown ? markdown() : values());
        return 0;
    }

    /** One line per setting: variable, value, source; the value a default stands for where it has one. */
    static String values() {
        StringBuilder out = new StringBuilder("hbcast " + Log.version() + ": settings (system property -D"
                + "hbcast.x.y wins over HBCAST_X_Y; rank 0's apply to a whole communicator)\n");
        for (Setting s : Setting.values()) {
            String value = s.value();
            String shown = value != null && !value.isBlank()
                    ? value
                    : s.defaultValue().isEmpty() ? "(worked out)" : s.defaultValue();
            out.append(String.format(
                    "%-24s %-20s %-12s %s%n",
                    s.variable(), shown, s.source().name().toLowerCase(java.util.Locale.ROOT), s.meaning()));
        }
        return out.toString();
    }

    /** The table of docs/settings.md. */
    public static String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("# Settings\n\n")
                .append(
                        "Generated from `org.hbcast.settings.Setting` by `scripts/info --markdown`; a test keeps it in step.\n")
                .append(
                        "Each is an environment variable or the system property beside it (the property wins); settings\n")
                .append("that shape calls are agreed at create, rank 0's applying to the whole communicator.\n")
                .append("`scripts/info` prints each with its value in this shell and where the value came from.\n\n")
                .append("| variable | system property | type | unit | default | meaning |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Setting s : Setting.values()) {
            out.append("| `")
                    .append(s.variable())
                    .append("` | `")
                    .append(s.property())
                    .append("` | ")
                    .append(s.type())
                    .append(" | ")
                    .append(s.unit())
                    .append(" | ")
                    .append(s.defaultValue().isEmpty() ? "" : "`" + s.defaultValue() + "`")
                    .append(" | ")
                    .append(s.meaning().replace("|", "\\|"))
                    .append(" |\n");
        }
        return out.toString();
    }
}

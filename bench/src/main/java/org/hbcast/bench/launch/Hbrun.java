package org.hbcast.bench.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hbcast.bench.experiment.Layout;

/**
 * {@code scripts/hbrun} command lines for one layout: the rank count, the placement (virtual nodes,
 * the bed and its round-robin) and mpirun's time limit, before a program's MCA parameters, main
 * class and arguments.
 *
 * @param script         scripts/hbrun
 * @param layout         where the ranks run
 * @param bed            the name of the layout's test bed, or null where it is none
 * @param timeoutSeconds mpirun's {@code --timeout}, or 0 for none
 */
public record Hbrun(Path script, Layout layout, String bed, int timeoutSeconds) {

    public static Hbrun of(Path root, Layout layout, TestBed bed, int timeoutSeconds) {
        return new Hbrun(Repository.script(root, "hbrun"), layout, bed == null ? null : bed.name(), timeoutSeconds);
    }

    /** The command that runs {@code program} ({@code [--mca K V ...] MAIN_CLASS [ARGS...]}) on the layout. */
    public List<String> command(List<String> program) {
        List<String> cmd = new ArrayList<>(List.of(script.toString(), "-n", Integer.toString(layout.ranks())));
        cmd.addAll(layout.placement(bed));
        if (timeoutSeconds > 0) {
            cmd.addAll(List.of("--timeout", Integer.toString(timeoutSeconds)));
        }
        cmd.addAll(program);
        return cmd;
    }
}

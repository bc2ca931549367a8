package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.List;

/** Compare settings for tests: the command's defaults, each field changeable. */
final class Settings {
    String layout = "node4";
    String rate;
    int rounds = 3;
    List<Configuration> configs = List.of(Configuration.values());
    String impls = "native,knomial,hierarchical,auto";
    Path out;
    Path plot;
    int timeout = 3600;
    String probeSizes = "1:67108864";
    int probeCalls = 20;
    int probeBlocks = 7;
    List<Configuration> probeConfigs = List.of();
    List<String> osu = List.of();

    CompareSettings build() {
        return new CompareSettings(
                layout,
                rate,
                rounds,
                configs,
                impls,
                out,
                plot,
                timeout,
                probeSizes,
                probeCalls,
                probeBlocks,
                probeConfigs,
                osu);
    }
}

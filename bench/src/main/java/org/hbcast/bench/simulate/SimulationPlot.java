package org.hbcast.bench.simulate;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.hbcast.bench.report.LatencyPlot;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/** Simulated time against one variable (node count or message size), log-log, one line per schedule, as PNG. */
final class SimulationPlot {
    private SimulationPlot() {}

    /** {@code series}: per schedule, x values and times in seconds (same order). */
    static void write(Path png, String title, String xTitle, Map<String, double[][]> series) throws IOException {
        XYChart chart = new XYChartBuilder()
                .width(1000)
                .height(650)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle("time (ms)")
                .build();
        LatencyPlot.logLog(chart);
        for (Map.Entry<String, double[][]> e : series.entrySet()) {
            double[] xs = e.getValue()[0];
            double[] ms = e.getValue()[1].clone();
            for (int i = 0; i < ms.length; i++) {
                ms[i] *= 1e3;
            }
            chart.addSeries(e.getKey(), xs, ms);
        }
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}

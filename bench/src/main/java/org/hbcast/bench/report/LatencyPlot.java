package org.hbcast.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;

/** Latency against message size, log-log, one line per column of a {@link Comparison}, as PNG. */
public final class LatencyPlot {
    private LatencyPlot() {}

    public static XYChart chart(Comparison c) {
        XYChart chart = new XYChartBuilder()
                .width(1000)
                .height(650)
                .title("Broadcast latency, " + c.layout() + " (" + c.ranks() + " ranks, " + c.nodes().length
                        + (c.nodes().length == 1 ? " node)" : " nodes)"))
                .xAxisTitle("message size (bytes)")
                .yAxisTitle("latency (us)")
                .build();
        logLog(chart);
        for (Comparison.Column column : c.columns()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (Comparison.Row row : c.rows()) {
                Double us = row.latencyUs().get(column.name());
                if (us != null && us > 0) {
                    xs.add((double) row.size());
                    ys.add(us);
                }
            }
            if (!xs.isEmpty()) {
                // Open MPI's algorithms dashed, hbcast's solid: the two families read apart at a glance.
                XYSeries series = chart.addSeries(column.name(), xs, ys);
                series.setLineStyle(column.openMpi() ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
                if (column.name().equals(Comparison.AUTO)) {
                    series.setLineWidth(3.5f);
                }
            }
        }
        return chart;
    }

    /** Writes the plot; the file name gets ".png" if it lacks it. */
    /** The style of the project's latency plots: both axes logarithmic, the legend top left. */
    public static XYChart logLog(XYChart chart) {
        chart.getStyler()
                .setXAxisLogarithmic(true)
                .setYAxisLogarithmic(true)
                .setLegendPosition(Styler.LegendPosition.InsideNW)
                .setMarkerSize(5)
                .setAntiAlias(true);
        return chart;
    }

    public static Path write(Comparison c, Path png) throws IOException {
        XYChart chart = chart(c);
        if (chart.getSeriesMap().isEmpty()) {
            throw new IOException("nothing to plot: no column has a latency above 0");
        }
        String name = png.toString().endsWith(".png") ? png.toString() : png + ".png";
        BitmapEncoder.saveBitmap(chart, name, BitmapEncoder.BitmapFormat.PNG);
        return Path.of(name);
    }
}

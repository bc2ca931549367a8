package org.hbcast.bench.tune;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.hbcast.plan.Algorithm;
import org.hbcast.select.Explanation;
import org.hbcast.tuning.TuningTable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The tuner's plot: latency against chunk size, one line per message size (the best algorithm and
 * radix at each chunk), the chosen point of each size marked; native, which has no chunk, as a
 * marker at the size's own chunk position when it wins.
 */
final class TunePlot {
    private TunePlot() {}

    static void write(TuningTable table, Path png) throws IOException {
        XYChart chart = new XYChartBuilder()
                .width(1100)
                .height(750)
                .title("hbcast tuning, " + table.fingerprint().layout() + " (" + table.fingerprintId() + ")")
                .xAxisTitle("chunk (KiB)")
                .yAxisTitle("latency (ms)")
                .build();
        chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true).setLegendVisible(true);
        List<Double> chosenX = new ArrayList<>();
        List<Double> chosenY = new ArrayList<>();
        for (TuningTable.Entry e : table.entries()) {
            TreeMap<Double, Double> bestAtChunk = new TreeMap<>();
            for (TuningTable.Point p : e.points()) {
                if (p.algorithm() != Algorithm.NATIVE) {
                    bestAtChunk.merge(p.chunkBytes() / 1024.0, p.seconds() * 1e3, Math::min);
                }
            }
            if (!bestAtChunk.isEmpty()) {
                XYSeries s = chart.addSeries(
                        Explanation.size(e.bytes()),
                        new ArrayList<>(bestAtChunk.keySet()),
                        new ArrayList<>(bestAtChunk.values()));
                s.setMarker(SeriesMarkers.CIRCLE);
            }
            chosenX.add(e.chunkBytes() / 1024.0);
            chosenY.add(e.seconds() * 1e3);
        }
        XYSeries chosen = chart.addSeries("chosen", chosenX, chosenY);
        chosen.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        chosen.setMarker(SeriesMarkers.DIAMOND);
        chosen.setMarkerColor(Color.BLACK);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}

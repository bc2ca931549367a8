package org.hbcast.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyPlotTest {
    @BeforeAll
    static void headless() {
        System.setProperty("java.awt.headless", "true");
    }

    @Test
    void writesAPngWithOneSeriesPerColumn(@TempDir Path dir) throws IOException {
        long[] sizes = {1, 1024, Sizes.MIB};
        Comparison c = ComparisonMerge.merge(
                "node4",
                List.of(ComparisonMergeTest.openMpi("tuned", 1)),
                Map.of(
                        "tuned",
                        List.of(ComparisonMergeTest.nativeRun(ComparisonMergeTest.ONE_NODE, sizes, 3, 9, 700))));
        assertEquals(1, LatencyPlot.chart(c).getSeriesMap().size());
        Path png = LatencyPlot.write(c, dir.resolve("plot"));
        assertEquals(dir.resolve("plot.png"), png);
        BufferedImage image = ImageIO.read(Files.newInputStream(png));
        assertNotNull(image, "a readable PNG");
        assertEquals(1000, image.getWidth());
        assertEquals(650, image.getHeight());
    }

    @Test
    void nothingToPlotIsAnError(@TempDir Path dir) {
        Comparison c = ComparisonMerge.merge(
                "node4",
                List.of(ComparisonMergeTest.openMpi("tuned", 1)),
                Map.of(
                        "tuned",
                        List.of(ComparisonMergeTest.nativeRun(ComparisonMergeTest.ONE_NODE, new long[] {1}, 0))));
        assertThrows(IOException.class, () -> LatencyPlot.write(c, dir.resolve("empty.png")));
    }
}

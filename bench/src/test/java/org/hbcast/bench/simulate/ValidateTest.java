package org.hbcast.bench.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidateTest {
    @Test
    void readsUserProbeColumns() throws Exception {
        JsonNode doc = new ObjectMapper()
                .readTree("{\"ranks\":8,\"impls\":[\"mpi\",\"auto\"],\"sizes\":[1048576,2097152],"
                        + "\"us\":[[9000.0,17000.0],[8000.0,15000.0]]}");
        List<Validate.Measured> columns = Validate.columns(doc);
        assertEquals(2, columns.size());
        assertEquals("auto", columns.get(1).impl());
        assertEquals(15000.0, columns.get(1).us().get(2097152L));
    }

    @Test
    void readsMergedComparisonRows() throws Exception {
        JsonNode doc = new ObjectMapper()
                .readTree("{\"nodes\":[4,2,2],\"rows\":[{\"size\":1048576,\"latencyUs\":{\"han\":9.0,\"auto\":8.0}},"
                        + "{\"size\":2097152,\"latencyUs\":{\"auto\":16.0}}]}");
        List<Validate.Measured> columns = Validate.columns(doc);
        assertEquals(
                List.of("han", "auto"),
                columns.stream().map(Validate.Measured::impl).toList());
        assertEquals(2, columns.get(1).us().size());
        assertThrows(IllegalArgumentException.class, () -> Validate.columns(new ObjectMapper().readTree("{}")));
    }

    @Test
    void mapsImplementationNamesToSchedules() {
        assertEquals(Schedule.HIERARCHICAL_CHAIN, Validate.scheduleOf("hierarchical/ring/chain"));
        assertEquals(Schedule.HIERARCHICAL, Validate.scheduleOf("hierarchical/fanout"));
        assertEquals(Schedule.HIERARCHICAL_KNOMIAL, Validate.scheduleOf("hierarchical/ring/knomial"));
        assertEquals(Schedule.FLAT, Validate.scheduleOf("knomial"));
        assertEquals(Schedule.TUNED, Validate.scheduleOf("mpi"));
        assertEquals(Schedule.AUTO, Validate.scheduleOf("auto"));
        assertNull(Validate.scheduleOf("adapt"));
    }

    @Test
    void plansBuiltInTakeTheNetworkAsMeasuredAtCreate() {
        Fabric.Link network = new Fabric.Link(21e-6, 118.8e6);
        org.hbcast.tuning.Calibration plans = Validate.builtInWithMeasuredNetwork(network);
        org.hbcast.tuning.Calibration builtIn = org.hbcast.tuning.Calibration.builtIn();
        var net = plans.link(org.hbcast.tuning.LinkKind.NETWORK);
        assertEquals(118.8e6, net.bytesPerSecond());
        assertEquals(21e-6, net.startupSeconds());
        assertEquals("measured at create", net.source());
        var shm = org.hbcast.tuning.LinkKind.SHARED_MEMORY;
        assertEquals(builtIn.link(shm).bytesPerSecond(), plans.link(shm).bytesPerSecond());
    }
}

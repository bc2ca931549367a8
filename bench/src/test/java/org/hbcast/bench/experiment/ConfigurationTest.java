package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The configurations of the comparison: their MCA parameters, the component each must get, their lists. */
class ConfigurationTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "tuned; tuned; ''",
                "tuned-knomial; tuned; --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 7",
                "adapt; adapt; --mca coll_adapt_priority 100",
                "han; han; --mca coll_han_priority 100",
                "hbcast; ''; ''"
            })
    void eachConfigurationsParametersAndComponent(String label, String component, String mca) {
        Configuration c = Configuration.of(label, "--configs");
        assertEquals(label, c.label());
        assertEquals(label, c.toString());
        assertEquals(component.isEmpty() ? Optional.empty() : Optional.of(component), c.component());
        assertEquals(mca, String.join(" ", c.mcaArguments()));
        assertEquals(!label.equals("hbcast"), c.isOpenMpi());
    }

    @Test
    void everyOpenMpiConfigurationNamesAComponentAndHbcastNone() {
        for (Configuration c : Configuration.values()) {
            assertEquals(c.isOpenMpi(), c.component().isPresent(), c.label());
        }
    }

    @Test
    void theDefaultListInTheReportsOrder() {
        assertEquals(
                List.of(Configuration.values()),
                Configuration.parseList("tuned,tuned-knomial,adapt,han,hbcast", "--configs"));
        assertEquals("tuned, tuned-knomial, adapt, han, hbcast", Configuration.allLabels());
    }

    @Test
    void aListKeepsItsOrder() {
        assertEquals(
                List.of(Configuration.HBCAST, Configuration.TUNED),
                Configuration.parseList("hbcast,tuned", "--configs"));
        assertEquals(List.of(Configuration.HAN), Configuration.parseList("han", "--probe-configs"));
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(
            delimiter = ';',
            value = {
                "native; unknown configuration 'native' in --configs (tuned, tuned-knomial, adapt, han, hbcast)",
                "tuned,,han; unknown configuration '' in --configs",
                "''; unknown configuration '' in --configs",
                "tuned,; unknown configuration '' in --configs",
                "Tuned; unknown configuration 'Tuned'",
                "tuned,tuned; --configs names 'tuned' twice"
            })
    void badListsAreRefusedByName(String list, String message) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Configuration.parseList(list, "--configs"));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void theOptionIsNamedInTheError() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Configuration.parseList("x", "--probe-configs"));
        assertTrue(e.getMessage().contains("in --probe-configs"), e.getMessage());
        assertFalse(e.getMessage().contains("--configs ("), e.getMessage());
    }
}

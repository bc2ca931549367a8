package org.hbcast.orchestration;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One rank's settings as it brings them to {@code create}: each by its variable's name (in one order
 * on every rank), whether its program passed it in code rather than taking it from the environment,
 * or why the rank could not read them. {@link SettingsAgreement} makes them the communicator's.
 *
 * @param values each setting's value by name
 * @param fromCode for each name, whether the value was passed in code
 * @param failure why this rank has no settings (a bad value in its environment), or null
 */
public record SettingsProposal(Map<String, String> values, Map<String, Boolean> fromCode, String failure) {

    /**
     * Settings passed as {@code values}; each counts as from the environment where it equals
     * {@code environment}'s value (what this rank's environment alone would give), else as from code.
     *
     * @param environment this rank's settings from its environment, or null when that cannot be read
     */
    public static SettingsProposal of(Map<String, String> values, Map<String, String> environment) {
        Map<String, Boolean> fromCode = new LinkedHashMap<>();
        values.forEach(
                (name, value) -> fromCode.put(name, environment == null || !value.equals(environment.get(name))));
        return new SettingsProposal(Collections.unmodifiableMap(new LinkedHashMap<>(values)), fromCode, null);
    }

    /** A rank that could not read its settings: {@code failure} says why. */
    public static SettingsProposal failed(String failure) {
        return new SettingsProposal(Map.of(), Map.of(), failure);
    }
}

package io.github.lockmanager.spring.boot;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.util.function.Consumer;

/** Hands a property's value to the builder setter that checks it, so a refusal names the property. */
final class Settings {
    static final String PREFIX = "lockmanager.";

    private Settings() {
    }

    /** Calls {@code setter} with {@code value} unless the property was left out. */
    static <T> void apply(String property, T value, Consumer<T> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            throw invalid(property, value, e.getMessage());
        }
    }

    static InvalidConfigurationPropertyValueException invalid(String property, Object value, String reason) {
        return new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
    }
}

package io.github.lockmanager.spring.boot;

import io.github.lockmanager.engine.LockManagerBuilder;

/**
 * Changes the builder of the auto-configured lock manager after the {@code lockmanager.*} properties were applied,
 * for the settings that are objects rather than values (a {@code TimeSource}, say). Every bean of this type is
 * called, in {@link org.springframework.core.annotation.Order} order, on the thread that creates the manager.
 */
@FunctionalInterface
public interface LockManagerBuilderCustomizer {

    void customize(LockManagerBuilder builder);
}

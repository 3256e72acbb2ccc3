/**
 * Micrometer meters of a lock manager: {@link io.github.lockmanager.micrometer.LockManagerMetrics}, an event
 * listener that is also a meter binder.
 */
package io.github.lockmanager.micrometer;

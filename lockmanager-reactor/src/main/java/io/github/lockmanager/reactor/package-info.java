/**
 * Reactor support: {@link io.github.lockmanager.reactor.ReactiveLocks} takes task locks as a {@code Mono} and holds
 * one for exactly as long as a {@code Mono} or {@code Flux} of work runs.
 */
package io.github.lockmanager.reactor;

/**
 * The contract suite a store subclasses ({@link io.github.lockmanager.testing.StoreTck}), and what tests of locks
 * need: a store wrapper that injects faults and counts calls, a manual clock, request factories.
 */
package io.github.lockmanager.testing;

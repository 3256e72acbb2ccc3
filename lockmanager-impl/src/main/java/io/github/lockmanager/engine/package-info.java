/**
 * The lock engine. Public: {@link io.github.lockmanager.engine.LockManagerBuilder}, which builds and checks a
 * manager, and the admin {@link io.github.lockmanager.engine.LockManagerMXBean}; everything else is package-private,
 * one class per job, depending one way only (checked by a structure test).
 */
package io.github.lockmanager.engine;

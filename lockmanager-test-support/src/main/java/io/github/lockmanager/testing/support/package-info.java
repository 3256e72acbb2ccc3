/**
 * Test doubles for lock code and stores: a clock tests advance instead of sleeping ({@link ManualTimeSource}), a
 * fault injector and call counter that wraps a real store ({@link InstrumentedStore}), requests made in one line
 * ({@link Requests}) and busy threads that interrupt store calls ({@link BusyThreadInterrupts}). They depend on the API
 * and the store kit only, so the engine's own tests use them as the TCK does.
 */
package io.github.lockmanager.testing.support;

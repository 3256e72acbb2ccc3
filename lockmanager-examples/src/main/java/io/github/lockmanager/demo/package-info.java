/**
 * The demo: simulated nodes contend for a few keys on the in-memory store, then end.
 */
package io.github.lockmanager.demo;

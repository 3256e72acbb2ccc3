/**
 * The in-memory store: locks of one JVM, the embedded default, the demo's and the tests' store.
 */
package io.github.lockmanager.store.memory;

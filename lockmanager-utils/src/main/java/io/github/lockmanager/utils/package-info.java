/**
 * Helpers on the API alone: blocking waits and run-under-lock ({@code LockManagerUtils}), and
 * {@code java.util.concurrent.locks.Lock} on a manager ({@code ClusterLock}).
 */
package io.github.lockmanager.utils;

/**
 * The API applications program against: {@link io.github.lockmanager.LockManager} and the
 * {@link io.github.lockmanager.LockResource} it returns, {@link io.github.lockmanager.Lock} (a view of a held lock),
 * lock levels and modes, the listeners, and the exceptions with their error codes. Depends on nothing but the JDK.
 */
package io.github.lockmanager;

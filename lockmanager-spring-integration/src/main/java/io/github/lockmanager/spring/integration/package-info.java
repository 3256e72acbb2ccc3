/**
 * Spring Integration's {@code LockRegistry} on a lock manager, for code written against that interface.
 */
package io.github.lockmanager.spring.integration;

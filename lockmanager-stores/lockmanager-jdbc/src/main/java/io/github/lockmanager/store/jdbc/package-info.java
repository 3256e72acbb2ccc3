/**
 * Locks in a relational database (PostgreSQL, MariaDB, MySQL 8, H2):
 * {@link io.github.lockmanager.store.jdbc.JdbcLockStore}, transactions guarded by their lock, and a fencing table a
 * resource in the same database checks tokens with.
 */
package io.github.lockmanager.store.jdbc;

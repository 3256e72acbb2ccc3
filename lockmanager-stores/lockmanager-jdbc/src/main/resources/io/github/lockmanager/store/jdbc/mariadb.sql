-- lockmanager: the lock table for MariaDB (10.4 or later).
-- JdbcLockStore.initialize() creates it when absent; DBAs who create tables through Flyway or Liquibase can use
-- this file instead (rename lockmanager_locks to the store's tableName). initialize() checks an existing table.
-- lock_key must be utf8mb4 with a binary NO PAD collation: with the server's default collation 'a' and 'A',
-- 'a' and 'a ', 'e' and 'é' would be one lock.
CREATE TABLE IF NOT EXISTS lockmanager_locks (
    lock_key      VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    owner_token   VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NULL,
    node_id       VARCHAR(128) CHARACTER SET utf8mb4 NULL,
    thread_name   VARCHAR(256) CHARACTER SET utf8mb4 NULL,
    status        VARCHAR(8)   NOT NULL,
    lock_time     BIGINT       NOT NULL,
    expires_at    BIGINT       NOT NULL,
    fencing_token BIGINT       NOT NULL,
    last_modified BIGINT       NOT NULL,
    PRIMARY KEY (lock_key)
) ENGINE=InnoDB;

-- The holders of keys taken in another mode than exclusive (shared, or an intention of a hierarchical lock): one row
-- per holder, each with its own lease. The key's row above then carries the owner token '~shared' and the latest
-- lease of them, so that an exclusive acquisition sees the key as held. Named after the lock table plus _holders.
CREATE TABLE IF NOT EXISTS lockmanager_locks_holders (
    lock_key      VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    owner_token   VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    lock_mode     VARCHAR(16)  NOT NULL,
    node_id       VARCHAR(128) CHARACTER SET utf8mb4 NOT NULL,
    thread_name   VARCHAR(256) CHARACTER SET utf8mb4 NOT NULL,
    status        VARCHAR(8)   NOT NULL,
    lock_time     BIGINT       NOT NULL,
    expires_at    BIGINT       NOT NULL,
    fencing_token BIGINT       NOT NULL,
    PRIMARY KEY (lock_key, owner_token)
) ENGINE=InnoDB;

-- lockmanager: the lock table for PostgreSQL (12 or later).
-- JdbcLockStore.initialize() creates it when absent; DBAs who create tables through Flyway or Liquibase can use
-- this file instead (rename lockmanager_locks to the store's tableName). initialize() checks an existing table.
-- lock_key must compare byte-wise (COLLATE "C", or any deterministic collation) and hold 400 characters.
-- waiters is set by a waiter on another node and makes the release notify it (LISTEN/NOTIFY); initialize() adds it
-- to a table made before it existed, and without it waiters poll.
CREATE TABLE IF NOT EXISTS lockmanager_locks (
    lock_key      VARCHAR(400) COLLATE "C" NOT NULL PRIMARY KEY,
    owner_token   VARCHAR(64),
    node_id       VARCHAR(128),
    thread_name   VARCHAR(256),
    status        VARCHAR(8)   NOT NULL,
    lock_time     BIGINT       NOT NULL,
    expires_at    BIGINT       NOT NULL,
    fencing_token BIGINT       NOT NULL,
    last_modified BIGINT       NOT NULL,
    waiters       BOOLEAN      NOT NULL DEFAULT FALSE
);

-- The holders of keys taken in another mode than exclusive (shared, or an intention of a hierarchical lock): one row
-- per holder, each with its own lease. The key's row above then carries the owner token '~shared' and the latest
-- lease of them, so that an exclusive acquisition sees the key as held. Named after the lock table plus _holders.
CREATE TABLE IF NOT EXISTS lockmanager_locks_holders (
    lock_key      VARCHAR(400) COLLATE "C" NOT NULL,
    owner_token   VARCHAR(64)  NOT NULL,
    lock_mode     VARCHAR(16)  NOT NULL,
    node_id       VARCHAR(128) NOT NULL,
    thread_name   VARCHAR(256) NOT NULL,
    status        VARCHAR(8)   NOT NULL,
    lock_time     BIGINT       NOT NULL,
    expires_at    BIGINT       NOT NULL,
    fencing_token BIGINT       NOT NULL,
    PRIMARY KEY (lock_key, owner_token)
);

package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the Redis store promises beyond the TCK, on a server this test starts (so that its counts are the store's
 * alone): the round trips of each call counted by the server, the script cache flushed, listing without {@code KEYS},
 * releases published only when waited for, idle hashes expiring, tokens rising across a restart without persistence,
 * and the settings refused where they enter.
 */
class RedisLockStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static RedisProcess redis;
    private static CommandStats stats;
    private RedisLockStore store;

    @BeforeAll
    static void startServer() throws Exception {
        redis = RedisProcess.launch();
        stats = new CommandStats(redis.uri());
    }

    @AfterAll
    static void stopServer() throws Exception {
        stats.close();
        redis.close();
    }

    @BeforeEach
    void newStore() throws LockManagerException {
        store = fresh(RedisLockStore.builder(redis.uri())).idleRecordRetention(Duration.ofSeconds(1)).build();
        store.initialize();
    }

    @org.junit.jupiter.api.AfterEach
    void closeStore() {
        store.close();
    }

    /** A store on a server this test started: it has no earlier life whose holders a quarantine would protect. */
    static RedisLockStore.Builder fresh(RedisLockStore.Builder builder) {
        return builder.restartQuarantine(Duration.ZERO);
    }

    private static LockKey key(String name) {
        return LockKey.xdc("redis-test", name);
    }

    private static LockRequest request(LockKey key, LockMode mode) {
        return LockRequest.of(LockHandle.of(key, "owner-" + UUID.randomUUID() + "-", 1), "node-1", "thread 1", mode);
    }

    @Test
    void aLockAndUnlockIsTwoCommandsAndARenewalOfManyLocksOne() throws Exception {
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            held.add(store.acquire(request(key("batch-" + i), LockMode.EXCLUSIVE), LEASE).record().handle());
        }
        LockRequest cycle = request(key("cycle"), LockMode.EXCLUSIVE);
        stats.reset();
        assertThat(store.acquire(cycle, LEASE).isAcquired()).isTrue();
        assertThat(store.release(cycle.handle())).isTrue();
        assertThat(stats.calls("evalsha")).isEqualTo(2);
        stats.reset();
        assertThat(store.renew(held, LEASE)).hasSize(20).containsOnlyKeys(held)
                .allSatisfy((handle, state) -> assertThat(state).isEqualTo(HoldState.HELD));
        assertThat(store.check(held)).hasSize(20);
        assertThat(stats.calls("evalsha")).isEqualTo(2);
        assertThat(stats.calls("publish")).isZero();
    }

    /**
     * The commands an uncontended lock+unlock runs inside its two scripts, with the restart quarantine on (its check
     * is a GET and a LASTSAVE) as users run it: 6 to grant (the clock, the hash, the quarantine's two, the entry
     * written, its TTL) and 4 to release (the clock, the entry with the waiter mark and the last release's note, the
     * entry removed, the release noted), on a new key and on one used before alike.
     */
    @Test
    void aLockAndUnlockRunsTenCommandsInsideItsScripts() throws Exception {
        try (RedisLockStore quarantined = RedisLockStore.builder(redis.uri()).build()) {
            quarantined.initialize();
            quarantined.endRestartQuarantine();
            LockKey key = key("counted-" + UUID.randomUUID());
            for (String round : List.of("a new key", "a key used before")) {
                LockRequest cycle = request(key, LockMode.EXCLUSIVE);
                stats.reset();
                assertThat(quarantined.acquire(cycle, LEASE).isAcquired()).isTrue();
                long granting = stats.insideScripts();
                stats.reset();
                assertThat(quarantined.release(cycle.handle())).isTrue();
                assertThat(granting).as("grant, " + round).isEqualTo(6);
                assertThat(stats.insideScripts()).as("release, " + round).isEqualTo(4);
            }
        }
    }

    /** What docs/permits.md says a permit costs here: one script call granted, one refused, naming a holder. */
    @Test
    void aPermitIsOneScriptCallGrantedOrRefused() throws Exception {
        LockKey key = key("permits");
        LockHandle first = new LockHandle(key, "first");
        LockHandle second = new LockHandle(key, "second");
        stats.reset();
        assertThat(store.acquire(LockRequest.permit(first, "n", "t", 2), LEASE).isAcquired()).isTrue();
        assertThat(store.acquire(LockRequest.permit(second, "n", "t", 2), LEASE).isAcquired()).isTrue();
        AcquireResult third = store.acquire(LockRequest.permit(new LockHandle(key, "third"), "n", "t", 2), LEASE);
        AcquireResult other = store.acquire(LockRequest.permit(new LockHandle(key, "other"), "n", "t", 5), LEASE);
        assertThat(stats.calls("evalsha")).isEqualTo(4);
        assertThat(third.isAcquired()).isFalse();
        assertThat(third.record().permits()).isEqualTo(2);
        assertThat(other.isAcquired()).isFalse();
        assertThat(other.record().mode()).isEqualTo(LockMode.PERMIT);
        assertThat(store.release(first)).isTrue();
        assertThat(store.release(second)).isTrue();
    }

    @Test
    void aFlushedScriptCacheIsFilledAgainByTheNextCall() throws Exception {
        LockRequest first = request(key("flushed"), LockMode.EXCLUSIVE);
        store.acquire(first, LEASE);
        stats.commands().scriptFlush();
        stats.reset();
        LockRequest second = request(key("flushed"), LockMode.EXCLUSIVE);
        AcquireResult refused = store.acquire(second, LEASE);
        assertThat(refused.isAcquired()).isFalse();
        assertThat(refused.record().handle()).isEqualTo(first.handle());
        assertThat(store.release(first.handle())).isTrue();
        assertThat(stats.calls("eval")).isEqualTo(2);
        assertThat(store.acquire(second, LEASE).isAcquired()).isTrue();
        assertThat(stats.calls("eval")).isEqualTo(2);
    }

    @Test
    void listingScansPagesAndNeverUsesKeys() throws Exception {
        int locks = RedisListing.PAGE + 200;
        List<CompletableFuture<Void>> taking = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            LockRequest request = request(key("listed-" + i), LockMode.SHARED);
            taking.add(CompletableFuture.runAsync(() -> {
                try {
                    store.acquire(request, LEASE);
                } catch (LockManagerException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        CompletableFuture.allOf(taking.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        stats.reset();
        assertThat(store.list()).filteredOn(r -> r.key().name().startsWith("listed-")).hasSize(locks);
        assertThat(stats.calls("keys")).isZero();
        assertThat(stats.calls("scan")).isGreaterThan(1);
    }

    @Test
    void aReleaseIsPublishedOnlyWhenSomeoneWaitsAndWakesTheWaiterOfAnotherStore() throws Exception {
        LockKey key = key("waited");
        LockRequest holder = request(key, LockMode.EXCLUSIVE);
        store.acquire(holder, LEASE);
        try (RedisLockStore other = fresh(RedisLockStore.builder(redis.uri())).build()) {
            other.initialize();
            CompletableFuture<Void> free = new CompletableFuture<>();
            assertThat(other.watchRelease(key("free"), () -> free.complete(null))).isNotNull();
            assertThat(free).as("a key no one holds wakes its watcher at once").isDone();
            stats.reset();
            CompletableFuture<Long> waited = new CompletableFuture<>();
            long start = System.nanoTime();
            assertThat(other.watchRelease(key, () -> waited.complete(System.nanoTime() - start))).isNotNull();
            assertThat(stats.calls("evalsha") + stats.calls("eval")).as("the key marked as waited for").isEqualTo(1);
            assertThat(waited).isNotDone();
            store.release(holder.handle());
            assertThat(waited.get(10, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(stats.calls("publish")).isEqualTo(1);
        }
        stats.reset();
        LockRequest next = request(key, LockMode.EXCLUSIVE);
        store.acquire(next, LEASE);
        store.release(next.handle());
        assertThat(stats.calls("publish")).as("a release nobody waits for").isZero();
    }

    /**
     * A line of requests is marked as waited for by each request's grant, and keeps the mark: every withdrawal is
     * published, and a fair waiter watches the line with no command, however often it is woken.
     */
    @Test
    void aLineOfRequestsIsWatchedWithoutACommandAndEveryWithdrawalIsPublished() throws Exception {
        LockKey line = key("fair").requests();
        LockHandle first = new LockHandle(line, "first");
        LockHandle second = new LockHandle(line, "second");
        LockHandle third = new LockHandle(line, "third");
        for (LockHandle request : List.of(first, second, third)) {
            assertThat(store.acquire(LockRequest.permit(request, "n", "t", 1000), LEASE).isAcquired()).isTrue();
        }
        try (RedisLockStore other = fresh(RedisLockStore.builder(redis.uri())).build()) {
            other.initialize();
            BlockingQueue<String> withdrawals = new LinkedBlockingQueue<>();
            Runnable unwatch = other.watchWithdrawals(line, withdrawals::add);
            assertThat(unwatch).as("a line's withdrawals are told with their owner tokens").isNotNull();
            assertThat(other.watchWithdrawals(key("fair"), withdrawals::add)).as("a lock's own key").isNull();
            for (LockHandle withdrawn : List.of(first, second)) {
                stats.reset();
                CompletableFuture<Void> woken = new CompletableFuture<>();
                assertThat(other.watchRelease(line, () -> woken.complete(null))).isNotNull();
                assertThat(stats.calls("evalsha") + stats.calls("eval")).as("commands to watch the line").isZero();
                assertThat(woken).isNotDone();
                store.release(withdrawn);
                woken.get(10, TimeUnit.SECONDS);
                assertThat(stats.calls("publish")).as("the withdrawal of " + withdrawn.ownerToken()).isEqualTo(1);
                assertThat(withdrawals.poll(10, TimeUnit.SECONDS)).as("whose withdrawal was told")
                        .isEqualTo(withdrawn.ownerToken());
            }
            unwatch.run();
            store.release(third);
            assertThat(withdrawals.poll(300, TimeUnit.MILLISECONDS)).as("told after the watch was cancelled").isNull();
        }
    }

    @Test
    void anIdleHashExpiresAfterTheRetentionAndItsKeysTokensStillRise() throws Exception {
        LockKey key = key("idle");
        LockRequest first = request(key, LockMode.EXCLUSIVE);
        long firstToken = store.acquire(first, Duration.ofMillis(500)).record().fencingToken();
        String hash = "lockmanager:" + key.storageKey();
        assertThat(stats.commands().pttl(hash)).isBetween(1L, 1500L);
        store.release(first.handle());
        await().atMost(Duration.ofSeconds(10)).until(() -> stats.commands().exists(hash) == 0);
        long secondToken = store.acquire(request(key, LockMode.EXCLUSIVE), LEASE).record().fencingToken();
        assertThat(secondToken).isGreaterThan(firstToken);
    }

    @Test
    void tokensRiseAcrossARestartWithoutPersistenceAndTheHolderIsToldItsLockIsGone() throws Exception {
        LockKey key = key("restarted");
        LockRequest before = request(key, LockMode.EXCLUSIVE);
        long token = store.acquire(before, LEASE).record().fencingToken();
        redis.kill();
        redis.start();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> store.check(List.of(before.handle())).get(before.handle()) == HoldState.LOST);
        AcquireResult after = store.acquire(request(key, LockMode.EXCLUSIVE), LEASE);
        assertThat(after.isAcquired()).isTrue();
        assertThat(after.record().fencingToken()).isGreaterThan(token);
    }

    @Test
    void aServerThatMayEvictIsRefusedNamingTheSetting() throws Exception {
        try (RedisProcess evicting = RedisProcess.launch("--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru");
             RedisLockStore refused = fresh(RedisLockStore.builder(evicting.uri())).build()) {
            assertThatThrownBy(refused::initialize).isInstanceOf(LockManagerException.class)
                    .hasMessageContaining("maxmemory-policy 'volatile-lru'").hasMessageContaining("noeviction")
                    .extracting(e -> ((LockManagerException) e).getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
        }
        try (RedisProcess limited = RedisProcess.launch("--maxmemory", "64mb", "--maxmemory-policy", "noeviction");
             RedisLockStore accepted = fresh(RedisLockStore.builder(limited.uri())).build()) {
            accepted.initialize();
        }
    }

    @Test
    void badSettingsAreRefusedWhereTheyEnterNamingThem() {
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).keyPrefix("locks*"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).keyPrefix("{tag}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        // the rule of every id, as task names and node ids have it: DEL and NEL are control characters
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).keyPrefix("locks\u007F"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix must not hold a control");
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).keyPrefix("locks\u0085"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix must not hold a control");
        assertThatThrownBy(() -> RedisLockStore.builder("http://example.org"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redisUri");
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).confirmReplicas(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas");
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).confirmReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confirmation timeout");
        assertThatThrownBy(() -> RedisLockStore.builder(redis.uri()).operationTimeout(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        RedisClusterClient cluster = RedisClusterClient.create("redis://127.0.0.1:" + redis.port());
        try {
            assertThatThrownBy(() -> RedisLockStore.builder(cluster).confirmReplicas(1, Duration.ofSeconds(1)).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confirmReplicas");
        } finally {
            cluster.shutdown();
        }
    }

    @Test
    void connectingTriesEachAttemptWithinTheOperationTimeoutWhenTheServerAcceptsAndNeverAnswers() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            List<java.net.Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            }, "silent-server");
            acceptor.start();
            RedisLockStore mute = RedisLockStore.builder("redis://127.0.0.1:" + silent.getLocalPort())
                    .operationTimeout(Duration.ofMillis(800)).build();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(mute::initialize).isInstanceOf(LockManagerException.class)
                        .hasMessageContaining("connect to Redis").hasMessageContaining("800 ms");
                // Lettuce's own handshake would wait 60 s; 4 attempts of 800 ms and their backoffs take about 3.3 s
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                // a first try in a new JVM may run late while the client starts: it is not the only one
                assertThat(accepted).as("connections the client made").hasSizeGreaterThan(1);
            } finally {
                mute.close();
                silent.close();
                acceptor.join(10_000);
                for (java.net.Socket s : accepted) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aDatabaseTheServerRefusesIsNamedNotReportedAsUnreachable() throws Exception {
        RedisLockStore wrongDatabase = fresh(RedisLockStore.builder(redis.uri() + "/99")).build();
        try {
            assertThatThrownBy(wrongDatabase::initialize).isInstanceOf(LockManagerException.class)
                    .hasMessageContaining("refused the connection's setup").hasMessageContaining("DB index");
        } finally {
            wrongDatabase.close();
        }
        assertThat(RedisConnector.describe(io.lettuce.core.RedisURI.create("redis://127.0.0.1:6390/3")))
                .as("what the startup log names").isEqualTo("127.0.0.1:6390/3");
    }
}

package io.github.lockmanager.spring.boot;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spring.boot.ClusterLocked.OnBusy;
import io.github.lockmanager.utils.UncheckedLockException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Two Spring Boot applications, two nodes of one client on PostgreSQL, contending through {@link ClusterLocked}. */
class ClusterLockedTest {
    private static final String CLIENT = BootApps.clientId();
    private static ConfigurableApplicationContext nodeA;
    private static ConfigurableApplicationContext nodeB;
    private static final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startNodes() {
        nodeA = BootApps.start(App.class, WebApplicationType.NONE, BootApps.postgres(CLIENT, "node-a"));
        nodeB = BootApps.start(App.class, WebApplicationType.NONE, BootApps.postgres(CLIENT, "node-b"));
    }

    @AfterAll
    static void stopNodes() {
        threads.shutdownNow();
        nodeA.close();
        nodeB.close();
    }

    @Test
    void aCallOnTheOtherNodeThrowsOrSkipsWhileTheKeyIsHeld() throws Exception {
        Orders a = nodeA.getBean(Orders.class);
        Orders b = nodeB.getBean(Orders.class);
        CountDownLatch release = new CountDownLatch(1);
        Future<String> holder = holdOnA(a, 1, release);

        assertThat(nodeB.getBean(LockManager.class).isLocked("order-1")).isTrue();
        assertThatThrownBy(() -> b.ship(1))
                .isInstanceOf(UncheckedLockException.class)
                .cause().isInstanceOfSatisfying(AlreadyLockedException.class, held -> {
                    assertThat(held.getKey()).isEqualTo("order-1");
                    assertThat(held.getHolderNodeId()).isEqualTo("node-a");
                });
        assertThat(b.shipIfFree(1)).isEmpty();
        assertThat(b.shipped()).isZero();
        assertThat(b.ship(2)).as("another key is free").isEqualTo("shipped 2");

        release.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("held 1");
        assertThat(b.ship(1)).isEqualTo("shipped 1");
        assertThat(b.shipIfFree(1)).contains("shipped 1");
    }

    @Test
    void aWaitingCallRunsOnceTheOtherNodeReleases() throws Exception {
        Orders a = nodeA.getBean(Orders.class);
        Orders b = nodeB.getBean(Orders.class);
        CountDownLatch release = new CountDownLatch(1);
        Future<String> holder = holdOnA(a, 3, release);

        Future<String> waiter = threads.submit(() -> b.shipWhenFree(3));
        await().atMost(Duration.ofSeconds(30)).until(() -> b.waitingCalls() == 1);
        assertThat(waiter).as("the key is still held on node A").isNotDone();

        release.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("held 3");
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("shipped 3");
    }

    @Test
    void aWaitWithADeadlineThrowsWhenTheKeyStaysHeld() throws Exception {
        Orders a = nodeA.getBean(Orders.class);
        Orders b = nodeB.getBean(Orders.class);
        CountDownLatch release = new CountDownLatch(1);
        Future<String> holder = holdOnA(a, 4, release);
        try {
            assertThatThrownBy(() -> b.shipWithin(4))
                    .isInstanceOf(UncheckedLockException.class)
                    .hasCauseInstanceOf(AlreadyLockedException.class)
                    .cause().hasMessageStartingWith("Waited ").hasMessageContaining(" ms for lock ")
                    .hasMessageContaining("already held");
        } finally {
            release.countDown();
        }
        holder.get(30, TimeUnit.SECONDS);
    }

    @Test
    void sharedHoldersShareTheKeyAndKeepAnExclusiveCallerOut() throws Exception {
        Orders a = nodeA.getBean(Orders.class);
        Orders b = nodeB.getBean(Orders.class);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        Future<String> reader = threads.submit(() -> a.readWhile(5, entered, release));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(b.read(5)).isEqualTo("read 5");
            assertThatThrownBy(() -> b.ship(5)).isInstanceOf(UncheckedLockException.class);
        } finally {
            release.countDown();
        }
        reader.get(30, TimeUnit.SECONDS);
    }

    @Test
    void atMostThePermitsRunAtOnceAcrossNodesAndTheNextCallWaitsForOne() throws Exception {
        Orders a = nodeA.getBean(Orders.class);
        Orders b = nodeB.getBean(Orders.class);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(2);
        Future<String> one = threads.submit(() -> a.callPartnerWhile(entered, release));
        Future<String> two = threads.submit(() -> b.callPartnerWhile(entered, release));
        assertThat(entered.await(30, TimeUnit.SECONDS)).as("two calls hold the two permits").isTrue();
        Future<String> third;
        try {
            assertThat(nodeA.getBean(LockManager.class).getLocks()).filteredOn(lock -> lock.getKey().equals("partner-api"))
                    .hasSize(2).allSatisfy(lock -> assertThat(lock.getPermits()).isEqualTo(2));
            assertThatThrownBy(() -> b.callPartnerNow()).isInstanceOf(UncheckedLockException.class)
                    .hasCauseInstanceOf(AlreadyLockedException.class);
            // submitted while both permits are held: it runs once one of them is given back
            third = threads.submit(() -> b.callPartnerWaiting());
        } finally {
            release.countDown();
        }
        assertThat(one.get(30, TimeUnit.SECONDS)).isEqualTo("called");
        assertThat(two.get(30, TimeUnit.SECONDS)).isEqualTo("called");
        assertThat(third.get(30, TimeUnit.SECONDS)).isEqualTo("called after a wait");
    }

    @Test
    void aJobHeldAtLeastForItsTimeIsSkippedByALateNodeAndRunsAgainAfterwards() {
        Orders a = nodeA.getBean(Orders.class);
        Orders b = nodeB.getBean(Orders.class);
        long start = System.nanoTime();
        assertThat(a.nightly()).isEqualTo("ran");

        String late = b.nightly();
        if (Duration.ofNanos(System.nanoTime() - start).compareTo(Orders.NIGHTLY_HOLD) < 0) {
            assertThat(late).as("the late node skips while the key is kept").isNull();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> "ran".equals(b.nightly()));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Orders.NIGHTLY_HOLD.minusMillis(300));
    }

    @Test
    void aLeaseOfTheMethodsOwnIsTheLocksLeaseWhetherTakenAtOnceOrAfterAWait() throws Exception {
        Orders b = nodeB.getBean(Orders.class);
        assertThat(b.leased()).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
        assertThat(b.leasedAfterWaiting()).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
    }

    @Test
    void aKeyPartThatIsNullFailsTheCallNamingTheExpression() {
        Orders b = nodeB.getBean(Orders.class);
        assertThatThrownBy(() -> b.forCustomer(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("#customer")
                .hasMessageContaining("Orders.forCustomer");
        assertThat(b.forCustomer("c-7")).isEqualTo("customer-c-7");
    }

    @Test
    void theDefaultKeyIsTheClassAndMethodNameAndNestedCallsReenter() throws Exception {
        Orders b = nodeB.getBean(Orders.class);
        assertThat(b.report()).isEqualTo(Orders.class.getName() + ".report held: true");
    }

    @Test
    void theLockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItEnds() throws Exception {
        Orders b = nodeB.getBean(Orders.class);
        AtomicBoolean heldAtCompletion = new AtomicBoolean();
        assertThat(b.inTransaction(heldAtCompletion)).as("a transaction ran inside the lock").isTrue();
        assertThat(heldAtCompletion).as("the lock was still held when the transaction completed").isTrue();
        assertThat(nodeB.getBean(LockManager.class).isLocked("tx-order")).isFalse();
    }

    @Test
    void aMethodReturningAStageHoldsItsLockUntilTheStageCompletesAndAWaiterParksNoThread() throws Exception {
        AsyncOrders a = nodeA.getBean(AsyncOrders.class);
        AsyncOrders b = nodeB.getBean(AsyncOrders.class);
        LockManager manager = nodeA.getBean(LockManager.class);
        CompletableFuture<String> work = new CompletableFuture<>();

        CompletableFuture<String> running = a.export(7, work);

        assertThat(running).isNotDone();
        assertThat(manager.isLocked("export-7")).as("held after the method returned").isTrue();
        assertThatThrownBy(() -> b.export(7, CompletableFuture.completedFuture("x")).join())
                .hasCauseInstanceOf(AlreadyLockedException.class);
        CompletableFuture<String> waiting = b.exportWhenFree(7).toCompletableFuture();
        assertThat(waiting).isNotDone();

        work.complete("done");

        assertThat(running.get(30, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("exported 7");
        await().atMost(Duration.ofSeconds(30)).until(() -> !manager.isLocked("export-7"));
    }

    @Test
    void sharedStageMethodsOfTwoNodesHoldTheirKeyTogetherAndKeepAWriterOut() throws Exception {
        AsyncOrders a = nodeA.getBean(AsyncOrders.class);
        AsyncOrders b = nodeB.getBean(AsyncOrders.class);
        LockManager manager = nodeA.getBean(LockManager.class);
        CompletableFuture<String> workA = new CompletableFuture<>();
        CompletableFuture<String> workB = new CompletableFuture<>();

        CompletableFuture<String> readingA = a.readCatalogue(3, workA);
        CompletableFuture<String> readingB = b.readCatalogue(3, workB);

        assertThat(readingA).isNotDone();
        assertThat(readingB).as("a second reader is let in").isNotDone();
        assertThat(manager.getLocks()).filteredOn(lock -> lock.getKey().equals("catalogue-3"))
                .extracting(io.github.lockmanager.Lock::getMode).containsExactly(LockMode.SHARED, LockMode.SHARED);
        assertThatThrownBy(() -> manager.lock("catalogue-3")).as("a writer")
                .isInstanceOf(AlreadyLockedException.class);

        workA.complete("a");
        workB.complete("b");

        assertThat(readingA.get(30, TimeUnit.SECONDS)).isEqualTo("a");
        assertThat(readingB.get(30, TimeUnit.SECONDS)).isEqualTo("b");
        await().atMost(Duration.ofSeconds(30)).until(() -> !manager.isLocked("catalogue-3"));
    }

    @Test
    void aMethodReturningAMonoRunsAtSubscriptionAndHoldsItsLockUntilTheMonoEnds() throws Exception {
        AsyncOrders a = nodeA.getBean(AsyncOrders.class);
        LockManager manager = nodeA.getBean(LockManager.class);
        Sinks.One<String> result = Sinks.one();
        int before = a.subscriptions();

        Mono<String> stream = a.stream(8, result.asMono());

        assertThat(a.subscriptions()).as("not run before subscription").isEqualTo(before);
        assertThat(manager.isLocked("stream-8")).isFalse();
        CompletableFuture<String> got = stream.toFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> manager.isLocked("stream-8"));
        assertThat(a.subscriptions()).isEqualTo(before + 1);
        result.tryEmitValue("streamed");
        assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo("streamed");
        await().atMost(Duration.ofSeconds(30)).until(() -> !manager.isLocked("stream-8"));
    }

    @Test
    void anAbortFromAnotherNodeCancelsAStageOrMonoMethodsWorkAndReleasesItsLock() throws Exception {
        AsyncOrders a = nodeA.getBean(AsyncOrders.class);
        LockManager managerA = nodeA.getBean(LockManager.class);
        LockManager managerB = nodeB.getBean(LockManager.class);

        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> running = a.export(9, work);
        assertThat(managerA.isLocked("export-9")).isTrue();
        managerB.abort("export-9");
        assertThatThrownBy(() -> running.get(30, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class)
                .hasMessageContaining("abort");
        assertThat(work).as("the method's own stage was cancelled").isCancelled();
        await().atMost(Duration.ofSeconds(30)).until(() -> !managerB.isLocked("export-9"));

        CompletableFuture<String> streamed = a.stream(10, Mono.never()).toFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> managerA.isLocked("stream-10"));
        managerB.abort("stream-10");
        assertThatThrownBy(() -> streamed.get(30, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class)
                .hasMessageContaining("abort");
        await().atMost(Duration.ofSeconds(30)).until(() -> !managerB.isLocked("stream-10"));
    }

    @Test
    void mistakesFailStartupNamingTheMethod() {
        assertThatThrownBy(() -> BootApps.start(SkipsAnInt.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "node-c")))
                .isInstanceOf(BeanCreationException.class)
                .rootCause()
                .hasMessageContaining("SkippingCounter.count")
                .hasMessageContaining("SKIP");
        assertThatThrownBy(() -> BootApps.start(LocksAFuture.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "node-c")))
                .rootCause()
                .hasMessageContaining("AsyncJob.start")
                .hasMessageContaining("FutureTask");
        assertThatThrownBy(() -> BootApps.start(BadDuration.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "node-c")))
                .satisfies(e -> assertThat(BootApps.messages(e))
                        .anyMatch(m -> m.contains("SlowJob.run") && m.contains("'ten seconds'")));
        assertThatThrownBy(() -> BootApps.start(IntentionMode.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "node-c")))
                .rootCause()
                .hasMessageContaining("Intending.run")
                .hasMessageContaining("INTENT_SHARED");
        assertThatThrownBy(() -> BootApps.start(LeaseTooShort.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "node-c")))
                .rootCause()
                .hasMessageContaining("ShortLeased.run")
                .hasMessageContaining("lease must be between PT0.1S and PT24H, was PT0.01S");
        assertThatThrownBy(() -> BootApps.start(SharedPermits.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "node-c")))
                .rootCause()
                .hasMessageContaining("PermitReader.run")
                .hasMessageContaining("permits go with the default mode only");
    }

    private Future<String> holdOnA(Orders a, long orderId, CountDownLatch release) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        Future<String> holder = threads.submit(() -> a.holdWhile(orderId, entered, release));
        assertThat(entered.await(30, TimeUnit.SECONDS)).as("node A took the lock").isTrue();
        return holder;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({Orders.class, AsyncOrders.class})
    static class App {
    }

    /** Methods whose work goes on after they return: the lock is held until it ends. */
    public static class AsyncOrders {
        private final AtomicInteger subscribed = new AtomicInteger();

        /** How many times {@link #stream} ran; a method, since a field read goes to the proxy, not the bean. */
        public int subscriptions() {
            return subscribed.get();
        }

        @ClusterLocked(key = "export-#{#id}")
        public CompletableFuture<String> export(long id, CompletableFuture<String> work) {
            return work;
        }

        @ClusterLocked(key = "catalogue-#{#id}", mode = LockMode.SHARED)
        public CompletableFuture<String> readCatalogue(long id, CompletableFuture<String> work) {
            return work;
        }

        @ClusterLocked(key = "export-#{#id}", onBusy = ClusterLocked.OnBusy.WAIT, waitFor = "30s")
        public CompletionStage<String> exportWhenFree(long id) {
            return CompletableFuture.completedFuture("exported " + id);
        }

        @ClusterLocked(key = "stream-#{#id}")
        public Mono<String> stream(long id, Mono<String> work) {
            subscribed.incrementAndGet();
            return work;
        }
    }

    public static class Orders {
        private final AtomicInteger shipped = new AtomicInteger();
        private final AtomicInteger waitingCalls = new AtomicInteger();
        private final LockManager manager;
        private final Orders self;

        public Orders(LockManager manager, @org.springframework.context.annotation.Lazy Orders self) {
            this.manager = manager;
            this.self = self;
        }

        @ClusterLocked(key = "order-#{#orderId}")
        public String holdWhile(long orderId, CountDownLatch entered, CountDownLatch release)
                throws InterruptedException {
            entered.countDown();
            release.await();
            return "held " + orderId;
        }

        @ClusterLocked(key = "order-#{#orderId}")
        public String ship(long orderId) {
            shipped.incrementAndGet();
            return "shipped " + orderId;
        }

        @ClusterLocked(key = "order-#{#orderId}", onBusy = OnBusy.SKIP)
        public Optional<String> shipIfFree(long orderId) {
            shipped.incrementAndGet();
            return Optional.of("shipped " + orderId);
        }

        public int shipped() {
            return shipped.get();
        }

        public int waitingCalls() {
            return waitingCalls.get();
        }

        /** Counts its callers before the proxy's lock: the test sees the call waiting. */
        public String shipWhenFree(long orderId) {
            waitingCalls.incrementAndGet();
            return self.shipWaiting(orderId);
        }

        @ClusterLocked(key = "order-#{#p0}", onBusy = OnBusy.WAIT)
        public String shipWaiting(long orderId) {
            return "shipped " + orderId;
        }

        @ClusterLocked(key = "order-#{#orderId}", onBusy = OnBusy.WAIT, waitFor = "300ms")
        public String shipWithin(long orderId) {
            return "shipped " + orderId;
        }

        @ClusterLocked(key = "order-#{#orderId}", mode = LockMode.SHARED)
        public String readWhile(long orderId, CountDownLatch entered, CountDownLatch release)
                throws InterruptedException {
            entered.countDown();
            release.await();
            return "read " + orderId;
        }

        @ClusterLocked(key = "order-#{#orderId}", mode = LockMode.SHARED)
        public String read(long orderId) {
            return "read " + orderId;
        }

        @ClusterLocked(key = "partner-api", permits = 2)
        public String callPartnerWhile(CountDownLatch entered, CountDownLatch release) throws InterruptedException {
            entered.countDown();
            release.await();
            return "called";
        }

        @ClusterLocked(key = "partner-api", permits = 2)
        public String callPartnerNow() {
            return "called";
        }

        @ClusterLocked(key = "partner-api", permits = 2, onBusy = OnBusy.WAIT, waitFor = "20s")
        public String callPartnerWaiting() {
            return "called after a wait";
        }

        static final Duration NIGHTLY_HOLD = Duration.ofSeconds(2);

        @ClusterLocked(key = "nightly", onBusy = OnBusy.SKIP, holdAtLeast = "2s")
        public String nightly() {
            return "ran";
        }

        @ClusterLocked(key = "leased", lease = "5s")
        public Duration leased() throws LockManagerException {
            return heldFor("leased");
        }

        @ClusterLocked(key = "leased", lease = "5s", onBusy = OnBusy.WAIT, waitFor = "10s")
        public Duration leasedAfterWaiting() throws LockManagerException {
            return heldFor("leased");
        }

        /** How long the store was told to keep the lock of {@code key}. */
        private Duration heldFor(String key) throws LockManagerException {
            Lock lock = manager.inspect(key, manager.getDefaultLevel()).get(0);
            return Duration.between(lock.getLockTime(), lock.getExpirationTime());
        }

        @ClusterLocked(key = "customer-#{#customer}")
        public String forCustomer(String customer) {
            return "customer-" + customer;
        }

        @ClusterLocked
        public String report() throws LockManagerException {
            return self.reportAgain();
        }

        @ClusterLocked(key = "io.github.lockmanager.spring.boot.ClusterLockedTest$Orders.report")
        public String reportAgain() throws LockManagerException {
            return Orders.class.getName() + ".report held: " + manager.isLocked(Orders.class.getName() + ".report");
        }

        @Transactional
        @ClusterLocked(key = "tx-order")
        public boolean inTransaction(AtomicBoolean heldAtCompletion) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    try {
                        heldAtCompletion.set(manager.isLocked("tx-order"));
                    } catch (LockManagerException e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            return TransactionSynchronizationManager.isActualTransactionActive();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(SkippingCounter.class)
    static class SkipsAnInt {
    }

    public static class SkippingCounter {
        @ClusterLocked(onBusy = OnBusy.SKIP)
        public int count() {
            return 1;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(AsyncJob.class)
    static class LocksAFuture {
    }

    public static class AsyncJob {
        @ClusterLocked
        public FutureTask<Void> start() {
            return new FutureTask<>(() -> null);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(SlowJob.class)
    static class BadDuration {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Intending.class)
    static class IntentionMode {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ShortLeased.class)
    static class LeaseTooShort {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(PermitReader.class)
    static class SharedPermits {
    }

    public static class ShortLeased {
        @ClusterLocked(lease = "10ms")
        public void run() {
        }
    }

    public static class Intending {
        @ClusterLocked(mode = LockMode.INTENT_SHARED)
        public void run() {
        }
    }

    public static class PermitReader {
        @ClusterLocked(mode = LockMode.SHARED, permits = 3)
        public void run() {
        }
    }

    public static class SlowJob {
        @ClusterLocked(onBusy = OnBusy.WAIT, waitFor = "ten seconds")
        public void run() {
        }
    }
}

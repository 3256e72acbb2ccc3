package io.github.lockmanager.bench;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.CountingLockStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Figures 2, 3, 4, 5 and 7 on one store, each next to its baseline on the same store instance. */
final class StoreBench {
    /** The specs of the mode figures, made once as a caller would keep them. */
    private static final LockSpec REPORT = LockSpec.shared("report");
    private static final LockSpec POOL = LockSpec.permits("pool", Throughput.THREADS);
    /** The longest pause of a waiter for a holder on another node, in the hand-off figures. */
    private static final Duration HANDOFF_POLL = Duration.ofMillis(200);
    private static final Duration LONG_LEASE = Duration.ofMinutes(10);
    private static final int BATCH = 200;

    private final Subject subject;
    private final Settings settings;
    private final Report report;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    StoreBench(Subject subject, Settings settings, Report report) {
        this.subject = subject;
        this.settings = settings;
        this.report = report;
    }

    void run() throws Exception {
        cycle();
        acquireParts();
        renewal(settings.renewSmall());
        renewal(settings.renewLarge());
        handoff();
        throughput();
        listing();
        sharedCycle();
        sharedReaders();
        permitHolders(subject.name(), subject.store(), settings, report, client("permits"));
        hierarchy();
    }

    private LockManager manager(LockStore store, String node, String client, Duration renewal) throws LockException {
        return LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId(node).lease(LONG_LEASE)
                .renewalInterval(renewal).abortPollInterval(renewal).renewalBatchSize(BATCH)
                .shutdownTimeout(Duration.ofSeconds(1)).waitPollInterval(HANDOFF_POLL).build();
    }

    private String client(String figure) {
        return "bench-" + figure + "-" + run;
    }

    /** Figure 2: one uncontended lock+unlock against the raw store operations it needs. */
    private void cycle() throws Exception {
        double perCycle = storeCallsPerCycle("cycle", manager -> manager.lock("cycle").close());
        try (LockManager manager = manager(subject.store(), "cycle", client("cycle"), Duration.ofMinutes(3));
             LockManager variant = subject.variant() == null ? null : manager(subject.variant().store(),
                     "cycle-variant", client("cycle-variant"), Duration.ofMinutes(3))) {
            // keys and owners built once: the loops measure lock cycles, not string building
            String rawKey = "cycle-" + run;
            String rawOwner = "raw-owner-" + run;
            // the store's own calls for the same cycle, without the manager: where the difference to raw lies
            LockStore store = subject.store();
            LockHandle spiHandle = new LockHandle(LockKey.dc("default", client("spi"), "cycle"), "spi-owner-" + run);
            LockRequest spiRequest = LockRequest.of(spiHandle, "spi", "spi", LockMode.EXCLUSIVE);
            List<Rounds.Cycle> cycles = new ArrayList<>(List.of(() -> manager.lock("cycle").close(),
                    () -> subject.rawCycle(rawKey, rawOwner), () -> {
                        store.acquire(spiRequest, LONG_LEASE);
                        store.release(spiHandle);
                    }));
            boolean peer = subject.peerCycleDescription() != null;
            if (peer) {
                cycles.add(() -> subject.peerCycle(rawKey, rawOwner));
            }
            if (variant != null) {
                cycles.add(() -> variant.lock("cycle").close());
            }
            // a store's cycle takes microseconds, so each is timed on its own as well: the mean alone would not tell
            // the typical cycle from a few slow ones (a flush or a pause of the mini cluster, say)
            boolean eachTimed = !subject.store().isInMemory();
            Rounds.Cycle[] timed = cycles.toArray(Rounds.Cycle[]::new);
            Rounds.Timed each = eachTimed ? Rounds.alternateTimingEach(settings, timed) : null;
            long[] nanos = eachTimed ? each.totals() : Rounds.alternate(settings, timed);
            long ours = nanos[0];
            long raw = nanos[1];
            long spi = nanos[2];
            double count = Rounds.measured(settings);
            report.add("2. uncontended lock+unlock", subject.name(), Report.micros(ours / count),
                    Report.micros(raw / count), (double) ours / raw, String.format(Locale.ROOT,
                            "store calls per cycle: %.2f (target 2); baseline: %s", perCycle,
                            subject.rawCycleDescription()));
            report.add("2b. the same cycle's store calls, no manager", subject.name(), Report.micros(spi / count),
                    Report.micros(raw / count), (double) spi / raw, String.format(Locale.ROOT,
                            "acquire + release through the SPI, same rounds as row 2; the manager's own share: row 2 "
                                    + "/ this = %.2f", (double) ours / spi));
            if (peer) {
                report.add("2. uncontended lock+unlock, against a peer", subject.name(), Report.micros(ours / count),
                        Report.micros(nanos[3] / count), (double) ours / nanos[3], "baseline: "
                                + subject.peerCycleDescription() + "; same rounds as the row above");
            }
            if (variant != null) {
                long variantNanos = nanos[cycles.size() - 1];
                report.add("2. uncontended lock+unlock, " + subject.variant().name(), subject.name(),
                        Report.micros(variantNanos / count), Report.micros(raw / count), (double) variantNanos / raw,
                        subject.variant().description() + "; same rounds as row 2, whose cycle it takes "
                                + Report.ratio((double) variantNanos / ours) + "×");
            }
            if (eachTimed) {
                reportQuantiles(each, peer);
            }
            if (peer) {
                freshKeys(manager, ", against a peer", subject.peerCycleDescription(), subject::peerCycle);
            } else if (subject.freshKeysAgainstRaw()) {
                freshKeys(manager, "", subject.rawCycleDescription(), subject::rawCycle);
            }
        }
    }

    /**
     * Row 2 on a new key each cycle, against {@code baseline} on new keys (the peer's protocol, or the raw cycle where
     * that is a peer's), each cycle timed on its own in alternating rounds: where a store's first write of a key costs
     * more than its later ones, it shows here.
     */
    private void freshKeys(LockManager manager, String against, String description, Subject.RawCycle baseline)
            throws Exception {
        AtomicLong oursKeys = new AtomicLong();
        AtomicLong baselineKeys = new AtomicLong();
        String owner = "fresh-owner-" + run;
        Rounds.Timed each = Rounds.alternateTimingEach(settings,
                () -> manager.lock("fresh-" + oursKeys.incrementAndGet()).close(),
                () -> baseline.run("fresh-" + run + "-" + baselineKeys.incrementAndGet(), owner));
        for (double quantile : new double[]{0.5, 0.99}) {
            long ours = each.quantile(0, quantile);
            long theirs = each.quantile(1, quantile);
            report.add("2. a new key each cycle, " + (quantile == 0.5 ? "median" : "99th percentile") + against,
                    subject.name(), Report.micros(ours), Report.micros(theirs), (double) ours / theirs,
                    "each cycle a key the table never had, timed on its own, rounds alternating; baseline: "
                            + description);
        }
    }

    /**
     * Rows 2 and 2b (and the peer's) as the median and the 99th percentile of their cycles, each cycle timed on its
     * own in the same rounds, cycles in the order ours, raw, the store's calls, the peer's.
     */
    private void reportQuantiles(Rounds.Timed each, boolean peer) {
        for (double quantile : new double[]{0.5, 0.99}) {
            String name = quantile == 0.5 ? "median" : "99th percentile";
            long ours = each.quantile(0, quantile);
            long raw = each.quantile(1, quantile);
            long spi = each.quantile(2, quantile);
            String note = String.format(Locale.ROOT, "%s of row 2's cycles, each timed on its own in the same rounds; "
                    + "row 2b's store calls: %s (%s× raw)", name, Report.micros(spi), Report.ratio((double) spi / raw));
            if (peer) {
                long peers = each.quantile(3, quantile);
                note += String.format(Locale.ROOT, "; the peer's: %s, ours %s of it", Report.micros(peers),
                        Report.ratio((double) ours / peers));
            }
            report.add("2. uncontended lock+unlock, " + name, subject.name(), Report.micros(ours), Report.micros(raw),
                    (double) ours / raw, note);
        }
    }

    /** One lock cycle of a manager. */
    @FunctionalInterface
    private interface ManagerCycle {
        void run(LockManager manager) throws Exception;
    }

    /**
     * The store calls of one {@code cycle}, counted in a pass of their own by a manager on a counting wrapper of the
     * store, so that the manager timed runs on the store itself: the wrapper's bookkeeping is no cost of ours, and a
     * manager guards calls to a wrapped in-memory store as calls across a network (see {@code LockStore.isInMemory}).
     * Timed through the wrapper, the in-memory figure 2 read 9.3 to 11.5 times a map's put+remove in probes where it
     * reads 6.4 to 7.5 without it, and JMH 6.1.
     */
    private double storeCallsPerCycle(String figure, ManagerCycle cycle) throws Exception {
        CountingLockStore counted = new CountingLockStore(subject.store());
        try (LockManager manager = manager(counted, figure + "-counted", client(figure + "-counted"),
                Duration.ofMinutes(3))) {
            int cycles = Rounds.perRound(settings);
            long before = counted.totalCalls();
            for (int i = 0; i < cycles; i++) {
                cycle.run(manager);
            }
            return (double) (counted.totalCalls() - before) / cycles;
        }
    }

    /** Figure 2c: the raw cycles of {@link Subject#acquireParts()}, alternated as in figure 2, each against the first. */
    private void acquireParts() throws Exception {
        Map<String, Subject.RawCycle> parts = subject.acquireParts();
        if (parts.isEmpty()) {
            return;
        }
        List<String> names = List.copyOf(parts.keySet());
        String key = "parts-" + run;
        String owner = "parts-owner-" + run;
        long[] nanos = Rounds.alternate(settings, parts.values().stream()
                .map(part -> (Rounds.Cycle) () -> part.run(key, owner)).toArray(Rounds.Cycle[]::new));
        double count = Rounds.measured(settings);
        for (int part = 1; part < names.size(); part++) {
            report.add("2c. acquire part by part", subject.name(), Report.micros(nanos[part] / count),
                    Report.micros(nanos[0] / count), (double) nanos[part] / nanos[0], names.get(part)
                            + ", taken and freed; baseline: " + names.get(0) + ", taken and freed; alternated as in "
                            + "figure 2");
        }
    }

    /** Figure 3: one renewal cycle of {@code n} held locks, against renewing them one call per lock. */
    private void renewal(int n) throws Exception {
        TimedStore timed = new TimedStore(subject.store());
        String client = client("renew" + n);
        try (LockManager manager = manager(timed, "renewer", client, Duration.ofSeconds(2))) {
            for (int i = 0; i < n; i++) {
                manager.lock("r-" + i);
            }
            long acquired = System.nanoTime();
            List<TimedStore.Span> cycle = awaitFullCycle(timed, acquired, n);
            long ours = cycle.get(cycle.size() - 1).endNanos() - cycle.get(0).startNanos();

            List<LockHandle> handles = subject.store().list().stream().filter(r -> r.key().clientId().equals(client))
                    .map(LockRecord::handle).toList();
            long start = System.nanoTime();
            for (LockHandle handle : handles) {
                subject.store().renew(List.of(handle), LONG_LEASE);
            }
            long perLock = System.nanoTime() - start;
            report.add("3. renewal cycle, " + n + " locks", subject.name(),
                    cycle.size() + " calls, " + Report.millis(ours), handles.size() + " calls, " + Report.millis(perLock),
                    (double) ours / perLock, String.format(Locale.ROOT, "batch %d: ⌈%d/%d⌉ = %d calls expected, %d "
                            + "counted; baseline: one renew call per lock", BATCH, n, BATCH, (n + BATCH - 1) / BATCH,
                            cycle.size()));
        }
    }

    /**
     * The renew calls of the first cycle that started after {@code after} and carried all {@code n} locks; the
     * keeper runs a cycle's calls back to back and waits the renewal interval between cycles.
     */
    static List<TimedStore.Span> awaitFullCycle(TimedStore timed, long after, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline) {
            List<TimedStore.Span> cycle = new ArrayList<>();
            int locks = 0;
            for (TimedStore.Span span : timed.renewals()) {
                if (span.startNanos() < after) {
                    continue;
                }
                boolean newCycle = !cycle.isEmpty()
                        && span.startNanos() - cycle.get(cycle.size() - 1).endNanos() > TimeUnit.MILLISECONDS.toNanos(1000);
                if (newCycle) {
                    if (locks == n) {
                        return cycle;
                    }
                    cycle.clear();
                    locks = 0;
                }
                cycle.add(span);
                locks += span.locks();
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new IllegalStateException("no complete renewal cycle of " + n + " locks within 5 minutes");
    }

    /** Figure 4: how soon a waiter gets a released lock, on the same node and from another node. */
    private void handoff() throws Exception {
        String client = client("handoff");
        try (LockManager a = manager(subject.store(), "handoff-a", client, Duration.ofMinutes(3));
             LockManager b = manager(subject.store(), "handoff-b", client, Duration.ofMinutes(3))) {
            long sameNode = medianHandoff(a, a);
            report.add("4. hand-off, same node", subject.name(), Report.millis(sameNode), "wait poll interval 200 ms",
                    sameNode / 2e8, "waitForLock wakes on the local release instead of sleeping out its interval, and takes the record over in "
                            + "one store call (a hand-off) instead of a release and an acquisition");
            long crossNode = medianHandoff(a, b);
            report.add("4. hand-off, across nodes", subject.name(), Report.millis(crossNode), "wait poll interval 200 ms",
                    crossNode / 2e8, subject.name().equals("PostgreSQL")
                            ? "another node, woken by the release (LISTEN/NOTIFY) instead of its next poll"
                            : "another node polls, backing off from an eighth of the interval with jitter");
        }
    }

    private long medianHandoff(LockManager holder, LockManager waiter) throws Exception {
        long[] latencies = new long[settings.handoffRounds()];
        for (int round = 0; round < latencies.length; round++) {
            String key = "handoff-" + round;
            LockResource held = holder.lock(key);
            AtomicLong got = new AtomicLong();
            Thread waiting = new Thread(() -> {
                try (LockResource ignored = waiter.waitForLock(LockSpec.of(key), Duration.ofSeconds(30))) {
                    got.set(System.nanoTime());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "bench-waiter");
            waiting.start();
            while (waiting.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait();
            }
            TimeUnit.MILLISECONDS.sleep(HANDOFF_POLL.toMillis() / 3 + 10);
            long released = System.nanoTime();
            held.close();
            waiting.join();
            latencies[round] = got.get() - released;
        }
        Arrays.sort(latencies);
        return latencies[latencies.length / 2];
    }

    /** Figure 5: eight threads on distinct keys, lock+unlock against the raw operations. */
    private void throughput() throws Exception {
        try (LockManager manager = manager(subject.store(), "throughput", client("tp"), Duration.ofMinutes(3))) {
            String[] keys = new String[8];
            String[] rawKeys = new String[8];
            for (int t = 0; t < 8; t++) {
                keys[t] = "tp-" + t;
                rawKeys[t] = "tp-" + run + "-" + t;
            }
            Throughput.Comparison rates = Throughput.sideBySide(settings.throughputTime(), Throughput.GOAL_ROUNDS,
                    t -> manager.lock(keys[t]).close(), t -> subject.rawCycle(rawKeys[t], keys[t]));
            report.add("5. throughput, 8 threads", subject.name(), Report.perSecond(rates.ours().perSecond()),
                    Report.perSecond(rates.baseline().perSecond()), rates.ratio(),
                    "distinct keys; baseline: " + subject.rawCycleDescription() + "; " + rates.roundsNote());
            if (!subject.store().isInMemory()) {
                rates.ours().cpuPerCycle().ifPresent(ours -> rates.baseline().cpuPerCycle()
                        .ifPresent(raw -> reportCpu(ours, raw)));
            }
        }
    }

    /**
     * Figure 5b: the processor time of one cycle of figure 5, the whole machine's and this JVM's: with eight threads
     * on two cores the processors are the limit, and the split says whose work the difference to raw is.
     */
    private void reportCpu(CpuMeter.Reading ours, CpuMeter.Reading raw) {
        // with the server in this JVM, the JVM's time is nearly all the machine's and no split tells whose it is
        String split = subject.serverRunsInThisJvm() ? "the " + subject.name() + " server runs in this JVM, so the "
                + "time is the client's and the server's together" : "ours " + Report.cpuSplit(ours) + "; raw "
                + Report.cpuSplit(raw);
        report.add("5b. processor time per cycle, 8 threads", subject.name(), Report.micros(ours.machineNanos()),
                Report.micros(raw.machineNanos()), (double) ours.machineNanos() / raw.machineNanos(),
                "user and system time of the whole machine during figure 5's timed halves, per lock+unlock (below 1 "
                        + "is cheaper): " + split);
    }

    /** Figure 12: one uncontended shared lock+unlock of a key, against the raw store operations a holder needs. */
    private void sharedCycle() throws Exception {
        double perCycle = storeCallsPerCycle("shared", manager -> manager.lock(REPORT).close());
        try (LockManager manager = manager(subject.store(), "shared", client("shared"), Duration.ofMinutes(3))) {
            String rawKey = "shared-" + run;
            String rawOwner = "raw-reader-" + run;
            long[] nanos = Rounds.alternate(settings, () -> manager.lock(REPORT).close(),
                    () -> subject.rawSharedCycle(rawKey, rawOwner));
            double count = Rounds.measured(settings);
            report.add("12. shared lock+unlock, uncontended", subject.name(), Report.micros(nanos[0] / count),
                    Report.micros(nanos[1] / count), (double) nanos[0] / nanos[1], String.format(Locale.ROOT,
                            "lock(shared)+close of a key taken before: %.1f store calls per cycle; baseline: %s",
                            perCycle, subject.rawSharedCycleDescription()));
        }
    }

    /**
     * Figure 10: eight threads take and give back one key shared, against eight threads locking distinct keys
     * exclusively in the same run: shared holders must not serialise on their key. 10b runs the same pair with the
     * raw store operations, so that what the store itself does with eight writers to one key's record is measured
     * beside what the lock manager adds to it.
     */
    private void sharedReaders() throws Exception {
        try (LockManager manager = manager(subject.store(), "readers", client("readers"), Duration.ofMinutes(3))) {
            Throughput.Comparison rates = Throughput.sideBySide(settings.throughputTime(), 1,
                    t -> manager.lock(REPORT).close(), t -> manager.lock("w-" + t).close());
            report.add("10. 8 readers on one key", subject.name(), Report.perSecond(rates.ours().perSecond()),
                    Report.perSecond(rates.baseline().perSecond()), rates.ratio(),
                    "lock(shared)+close of one key by 8 threads; baseline: lock+close of 8 distinct keys (must be >= 0.8)");
        }
        String rawKey = "readers-" + run;
        Throughput.Comparison raw = Throughput.sideBySide(settings.throughputTime(), 1,
                t -> subject.rawSharedCycle(rawKey, "raw-reader-" + run + "-" + t),
                t -> subject.rawCycle(rawKey + "-w-" + t, "raw-writer-" + run));
        report.add("10b. 8 raw readers on one key", subject.name(), Report.perSecond(raw.ours().perSecond()),
                Report.perSecond(raw.baseline().perSecond()), raw.ratio(),
                "the store's own floor for figure 10: " + subject.rawSharedCycleDescription()
                        + ", one key by 8 threads; baseline: " + subject.rawCycleDescription() + ", 8 distinct keys");
    }

    /**
     * Figure 15: eight threads each take one of eight permits of one key and give it back, against eight threads
     * locking distinct keys exclusively in the same run: a permit costs what a lock costs where the store decides in
     * one call, and what counting the key's holders adds where it cannot. The store calls per cycle come first, from
     * a counted manager.
     */
    static void permitHolders(String storeName, LockStore store, Settings settings, Report report, String client)
            throws Exception {
        CountingLockStore counted = new CountingLockStore(store);
        try (LockManager manager = LockManagerBuilder.newBuilder().store(counted).clientId(client).nodeId("permits")
                .lease(LONG_LEASE).renewalInterval(Duration.ofMinutes(3)).abortPollInterval(Duration.ofMinutes(3))
                .shutdownTimeout(Duration.ofSeconds(1)).build()) {
            int cycles = 100;
            long before = counted.totalCalls();
            for (int i = 0; i < cycles; i++) {
                manager.lock(POOL).close();
            }
            double perCycle = (double) (counted.totalCalls() - before) / cycles;
            Throughput.Comparison rates = Throughput.sideBySide(settings.throughputTime(), 1,
                    t -> manager.lock(POOL).close(), t -> manager.lock("w-" + t).close());
            report.add("15. 8 permit holders on one key", storeName, Report.perSecond(rates.ours().perSecond()),
                    Report.perSecond(rates.baseline().perSecond()), rates.ratio(), String.format(Locale.ROOT,
                            "lock(permits(\"pool\", 8))+close by 8 threads (%.1f store calls per cycle); baseline: "
                                    + "lock+close of 8 distinct keys", perCycle));
        }
    }

    /** Figure 11: a hierarchical exclusive lock three levels deep, against a plain lock, in store calls and time. */
    private void hierarchy() throws Exception {
        CountingLockStore counted = new CountingLockStore(subject.store());
        try (LockManager manager = manager(counted, "hierarchy", client("hier"), Duration.ofMinutes(3))) {
            long pathNanos = 0;
            long plainNanos = 0;
            long pathCalls = 0;
            for (int i = 0; i < settings.cycles(); i++) {
                long before = counted.totalCalls();
                long start = System.nanoTime();
                manager.lock(LockSpec.path("region/customer/order-" + i, LockMode.EXCLUSIVE)).close();
                long middle = System.nanoTime();
                pathCalls += counted.totalCalls() - before;
                manager.lock("plain-" + i).close();
                plainNanos += System.nanoTime() - middle;
                pathNanos += middle - start;
            }
            report.add("11. hierarchical lock, 3 levels", subject.name(),
                    Report.micros((double) pathNanos / settings.cycles()), Report.micros((double) plainNanos / settings.cycles()),
                    (double) pathNanos / plainNanos, String.format(Locale.ROOT, "lock(path(\"region/customer/order-i\", "
                            + "EXCLUSIVE))+close: %.1f store calls per cycle (an intention on each ancestor, the lock, and "
                            + "a release of each); baseline: lock+close of one key", (double) pathCalls / settings.cycles()));
        }
    }

    /** Figure 7: getLocks() over many live locks, against a raw scan of the same store. */
    private void listing() throws Exception {
        int n = subject.listSize(settings);
        String client = client("list");
        ExecutorService fillers = Executors.newFixedThreadPool(8);
        List<Future<?>> filled = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int first = t;
            filled.add(fillers.submit(() -> {
                for (int i = first; i < n; i += 8) {
                    LockHandle handle = new LockHandle(LockKey.dc("default", client, "list-" + i), "filler-" + i);
                    subject.store().acquire(LockRequest.of(handle, "filler", "filler", LockMode.EXCLUSIVE), LONG_LEASE);
                }
                return null;
            }));
        }
        for (Future<?> f : filled) {
            f.get();
        }
        fillers.shutdown();
        try (LockManager manager = manager(subject.store(), "lister", client, Duration.ofMinutes(3))) {
            long[] ours = new long[3];
            long[] raw = new long[3];
            int listed = 0;
            long scanned = 0;
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                listed = manager.getLocks().size();
                ours[i] = System.nanoTime() - start;
                start = System.nanoTime();
                scanned = subject.rawScan();
                raw[i] = System.nanoTime() - start;
            }
            Arrays.sort(ours);
            Arrays.sort(raw);
            report.add("7. getLocks(), " + n + " locks", subject.name(), Report.millis(ours[1]), Report.millis(raw[1]),
                    (double) ours[1] / raw[1], listed + " locks listed, " + scanned + " live records scanned (median of 3)");
        }
    }
}

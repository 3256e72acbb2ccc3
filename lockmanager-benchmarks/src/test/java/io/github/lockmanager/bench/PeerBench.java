package io.github.lockmanager.bench;

import io.github.lockmanager.bench.Contenders.Database;
import io.github.lockmanager.store.redis.RedisLockStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Figure 9: lockmanager next to the libraries users would pick instead, in the same run, on the same PostgreSQL:
 * Spring Integration's {@code JdbcLockRegistry} and ShedLock's JDBC provider, ShedLock's on MariaDB too (each with
 * its driver's default settings); and on the machine's Redis, Redisson's {@code RLock} and {@code RFencedLock} and
 * Spring Integration's {@code RedisLockRegistry}. Each comparison: uncontended lock+unlock (alternating rounds,
 * round trips counted on the JDBC connection, commands by the Redis server), 8 threads on distinct keys, the hand-off of a held key to a
 * waiter on another node (each library waiting its own way, polling every 100 ms where it polls), and one hot key
 * taken in turn by 2 threads on each of 2 nodes (acquisitions per second, and how evenly they were shared).
 */
final class PeerBench {
    private static final Duration POLL = Contender.POLL;

    @FunctionalInterface
    interface Factory {
        Contender node(String node) throws Exception;
    }

    private final Settings settings;
    private final Report report;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    PeerBench(Settings settings, Report report) {
        this.settings = settings;
        this.report = report;
    }

    void run() throws Exception {
        Database postgres = Database.POSTGRESQL;
        postgres.createTables();
        Factory ours = node -> new Contenders.Ours(postgres, node, "bench-peers-" + run);
        compare(ours, node -> new Contenders.SpringIntegration(postgres, node, "bench-" + run), "PostgreSQL");
        compare(ours, node -> new Contenders.ShedLock(postgres, node), "PostgreSQL");
        // MariaDB with its driver's defaults (client-side prepared statements), as users get it
        Database mariadb = Database.MARIADB;
        mariadb.createTables();
        compare(node -> new Contenders.Ours(mariadb, node, "bench-peers-" + run),
                node -> new Contenders.ShedLock(mariadb, node), "MariaDB");
        Factory oursOnRedis = node -> new RedisContenders.Ours(node, "bench-peers-" + run);
        compare(oursOnRedis, node -> new Contenders.RedissonLock(), REDIS);
        compare(oursOnRedis, node -> new RedisContenders.RedissonFenced(), REDIS);
        compare(oursOnRedis, node -> new RedisContenders.SpringIntegration("bench-" + run), REDIS);
        WaiterHeapBench.run(settings, report, run);
        // figure 15 on Redis, which has no store figures of its own
        // the permit figures hold leases of 10 minutes, which the restart quarantine must cover; the benchmark's
        // server has no locks of an earlier life to protect, so a server started moments ago needs no quarantine
        try (RedisLockStore redis = RedisLockStore.builder(Contenders.REDIS_URL).keyPrefix("bench-permits:")
                .restartQuarantine(java.time.Duration.ofMinutes(10)).build()) {
            redis.initialize();
            redis.endRestartQuarantine();
            StoreBench.permitHolders(REDIS, redis, settings, report, "bench-permits-" + run);
        }
    }

    private static final String REDIS = "Redis";

    /** Cycles of each side whose commands the server reports, on Redis. */
    private static final int COUNTED_CYCLES = 200;

    /** The commands each side sends per uncontended cycle, from the server's report, one side at a time. */
    private static String redisCommands(Contender ours, String oursKey, Contender peer, String peerKey)
            throws Exception {
        try (RedisMonitor monitor = new RedisMonitor()) {
            return "commands sent per cycle (the server's MONITOR, a script's own calls apart): ours "
                    + monitor.perCycle(COUNTED_CYCLES, () -> cycle(ours, oursKey)) + ", theirs "
                    + monitor.perCycle(COUNTED_CYCLES, () -> cycle(peer, peerKey));
        }
    }

    private void compare(Factory oursFactory, Factory peerFactory, String store) throws Exception {
        compare("9.", oursFactory, peerFactory, store);
    }

    /** Every row of a comparison with {@code peerFactory}'s library on {@code store}, as figure {@code number}. */
    void compare(String number, Factory oursFactory, Factory peerFactory, String store) throws Exception {
        try (Contender ours = oursFactory.node("a"); Contender peer = peerFactory.node("a");
             Contender oursB = oursFactory.node("b"); Contender peerB = peerFactory.node("b")) {
            String figure = number + " vs " + peer.name() + ": ";
            String oursKey = "u-ours-" + run;
            String peerKey = "u-peer-" + run;
            long oursTrips = ours.roundTrips();
            long peerTrips = peer.roundTrips();
            long[] nanos = Rounds.alternate(settings, () -> cycle(ours, oursKey), () -> cycle(peer, peerKey));
            double measured = Rounds.measured(settings);
            double runs = Rounds.runs(settings);
            String trips = store.equals(REDIS) ? redisCommands(ours, oursKey, peer, peerKey) : peer.roundTrips() < 0
                    ? String.format(Locale.ROOT, "round trips per cycle: ours %.2f; Redis commands not counted",
                    (ours.roundTrips() - oursTrips) / runs)
                    : String.format(Locale.ROOT, "round trips per cycle (" + countedHow(store) + "): ours %.2f, "
                    + "theirs %.2f", (ours.roundTrips() - oursTrips) / runs, (peer.roundTrips() - peerTrips) / runs);
            report.add(figure + "uncontended lock+unlock", store, Report.micros(nanos[0] / measured),
                    Report.micros(nanos[1] / measured), (double) nanos[0] / nanos[1], trips);
            freshKeys(figure, store, ours, peer);
            if (store.equals(CassandraContenders.STORE) || store.equals(REDIS)) {
                sameKey(figure, store, ours, oursKey, peer, peerKey);
            }

            String[] oursKeys = throughputKeys("ours");
            String[] peerKeys = throughputKeys("peer");
            Throughput.Comparison rates = Throughput.sideBySide(settings.throughputTime().multipliedBy(2),
                    Throughput.GOAL_ROUNDS, t -> cycle(ours, oursKeys[t]), t -> cycle(peer, peerKeys[t]));
            String cpu = rates.ours().cpuPerCycle().flatMap(o -> rates.baseline().cpuPerCycle()
                    .map(t -> "; processor time per cycle: ours " + Report.cpuSplit(o) + ", theirs "
                            + Report.cpuSplit(t))).orElse("");
            report.add(figure + "throughput, 8 threads", store, Report.perSecond(rates.ours().perSecond()),
                    Report.perSecond(rates.baseline().perSecond()), rates.ratio(),
                    "distinct keys, each lock+unlock on one thread; above 1 is faster; " + rates.roundsNote() + cpu);

            double oursHandoff = handoff(ours, oursB, "h-ours-" + run);
            double peerHandoff = handoff(peer, peerB, "h-peer-" + run);
            report.add(figure + "hand-off across nodes", store, Report.millis(oursHandoff), Report.millis(peerHandoff),
                    oursHandoff / peerHandoff, "median of " + settings.handoffRounds() + " rounds: release on node a to "
                            + "the return of a waiter on node b; ours waitForLock, " + (store.startsWith("PostgreSQL")
                            ? "woken by LISTEN/NOTIFY (polling every 100 ms only when not announced)"
                            : store.equals(REDIS) ? "woken by the release's pub/sub message (polling every 100 ms only "
                            + "when not announced)" : "polling every 100 ms (the database announces no releases)")
                            + ", theirs "
                            + waitingOf(peer));

            double oursWaiting = waiterCallsPerSecond(ours, oursB, "w-ours-" + run, store);
            double peerWaiting = waiterCallsPerSecond(peer, peerB, "w-peer-" + run, store);
            report.add(figure + "a waiter's store calls per second", store, String.format(Locale.ROOT, "%.2f/s",
                    oursWaiting), String.format(Locale.ROOT, "%.2f/s", peerWaiting), oursWaiting / peerWaiting,
                    "a waiter on node b for a key node a holds, over " + settings.throughputTime().multipliedBy(2)
                            .toMillis() + " ms, " + (store.equals(REDIS) ? "commands as the server's MONITOR reports "
                            + "them" : countedHow(store)) + "; below 1 is cheaper; "
                            + "ours waits as in the hand-off row, theirs " + waitingOf(peer));

            // two turns each, alternated, so that a slow phase of the machine or the JIT's first compilation of the
            // contended paths does not fall on one side only
            Contended oursContended = contended(ours, oursB, "c-ours-" + run);
            Contended peerContended = contended(peer, peerB, "c-peer-" + run);
            oursContended = oursContended.plus(contended(ours, oursB, "c-ours-" + run));
            peerContended = peerContended.plus(contended(peer, peerB, "c-peer-" + run));
            report.add(figure + "contended, 4 threads on 2 nodes", store,
                    String.format(Locale.ROOT, "%.0f acq/s", oursContended.perSecond()),
                    String.format(Locale.ROOT, "%.0f acq/s", peerContended.perSecond()),
                    oursContended.perSecond() / peerContended.perSecond(), String.format(Locale.ROOT,
                            "one key, each thread taking it again at once; above 1 is faster; fairness (most / fewest "
                                    + "acquisitions of a thread): ours %s, theirs %s; %s", oursContended.fairness(),
                            peerContended.fairness(), ours.roundTrips() < 0
                                    ? "ours hands a key let go of with a thread of the node waiting over in one call"
                                    : peer.roundTrips() < 0
                                    ? "round trips per acquisition: ours " + oursContended.roundTripsEach()
                                    + " (a key let go of with a thread of the node waiting is handed over in one)"
                                    : "round trips per acquisition: ours " + oursContended.roundTripsEach() + ", theirs "
                                    + peerContended.roundTripsEach() + " (ours hands a key let go of with a thread of "
                                    + "the node waiting over in one)"));
        }
    }

    /** What the threads of {@link #contended} took, per thread, in how many nanoseconds and round trips. */
    private record Contended(long nanos, long[] perThread, long roundTrips) {
        double perSecond() {
            return Arrays.stream(perThread).sum() / (nanos / 1e9);
        }

        String roundTripsEach() {
            return String.format(Locale.ROOT, "%.2f", (double) roundTrips / Arrays.stream(perThread).sum());
        }

        Contended plus(Contended turn) {
            long[] sum = perThread.clone();
            Arrays.setAll(sum, t -> sum[t] + turn.perThread[t]);
            return new Contended(nanos + turn.nanos, sum, roundTrips + turn.roundTrips);
        }

        String fairness() {
            long most = Arrays.stream(perThread).max().orElse(0);
            long fewest = Arrays.stream(perThread).min().orElse(0);
            return fewest == 0 ? most + "/0" : String.format(Locale.ROOT, "%.1f", (double) most / fewest);
        }
    }

    /** One hot key taken and given back in a loop by 2 threads on node a and 2 on node b, for the throughput time: one turn. */
    private Contended contended(Contender a, Contender b, String key) throws Exception {
        long[] counts = new long[4];
        long tripsBefore = a.roundTrips() + b.roundTrips();
        long took = HotKey.run(a, b, key, settings.throughputTime(), "peer-bench-contender",
                (thread, asked) -> counts[thread]++);
        return new Contended(took, counts, a.roundTrips() + b.roundTrips() - tripsBefore);
    }

    /**
     * The store calls that a waiter on node b sends per second while node a holds {@code key}: counted on the waiter's
     * connection (JDBC), or as the Redis server reports every client's commands (the holder sends none meanwhile, but
     * for a renewal that may fall in the window). Node a then lets go and the waiter takes the key and gives it back.
     */
    private double waiterCallsPerSecond(Contender holder, Contender waiter, String key, String store) throws Exception {
        if (!holder.tryLock(key)) {
            throw new IllegalStateException("node a could not take " + key);
        }
        List<Exception> failure = Collections.synchronizedList(new ArrayList<>());
        Thread waiting = new Thread(() -> {
            try {
                waiter.lockWaiting(key, POLL);
                waiter.unlock(key);
            } catch (Exception e) {
                failure.add(e);
            }
        }, "peer-bench-waiter");
        Duration window = settings.throughputTime().multipliedBy(2);
        long calls;
        if (store.equals(REDIS)) {
            try (RedisMonitor monitor = new RedisMonitor()) {
                calls = monitor.sentDuring(window, waiting::start);
            }
        } else {
            long before = waiter.roundTrips();
            waiting.start();
            Thread.sleep(window.toMillis());
            calls = waiter.roundTrips() - before;
        }
        holder.unlock(key);
        waiting.join(60_000);
        if (!failure.isEmpty()) {
            throw failure.get(0);
        }
        return calls / (window.toNanos() / 1e9);
    }

    /** How round trips are counted on {@code store} (a database reached by JDBC, or Cassandra). */
    private static String countedHow(String store) {
        return store.equals(CassandraContenders.STORE) ? "requests counted by each session's request tracker"
                : "statements and commits counted on the connection";
    }

    private static String waitingOf(Contender peer) {
        return peer instanceof Contenders.SpringIntegration || peer instanceof RedisContenders.SpringIntegration
                ? "lock() polling every 100 ms (idleBetweenTries)"
                : peer instanceof Contenders.ShedLockSide
                ? "a tryLock loop every 100 ms (ShedLock never waits)"
                : peer instanceof CassandraContenders.Astyanax ? "a tryLock loop every 100 ms (as the row lock's "
                + "retry policy sleeps)"
                : peer instanceof RedisContenders.RedissonFenced ? "lockAndGetToken(), woken by pub/sub"
                : "lock(), woken by pub/sub";
    }

    /**
     * A new key in every cycle, each cycle timed on its own, alternating rounds: the median and the 99th percentile,
     * where the first insert of a key and whatever the database does meanwhile show.
     */
    private void freshKeys(String figure, String store, Contender ours, Contender peer) throws Exception {
        AtomicLong oursKeys = new AtomicLong();
        AtomicLong peerKeys = new AtomicLong();
        Rounds.Timed each = Rounds.alternateTimingEach(settings,
                () -> cycle(ours, "f-ours-" + run + "-" + oursKeys.incrementAndGet()),
                () -> cycle(peer, "f-peer-" + run + "-" + peerKeys.incrementAndGet()));
        quantiles(each, figure + "a new key each cycle, ", store, "every cycle inserts a row the key never had");
    }

    /** The same key in every cycle, each cycle timed on its own, alternating rounds: the median and the 99th percentile. */
    private void sameKey(String figure, String store, Contender ours, String oursKey, Contender peer, String peerKey)
            throws Exception {
        Rounds.Timed each = Rounds.alternateTimingEach(settings, () -> cycle(ours, oursKey), () -> cycle(peer, peerKey));
        quantiles(each, figure + "the same key each cycle, ", store, "the key was used by the cycles before");
    }

    /** The median and the 99th percentile of {@code each}'s cycles, ours beside the peer's: two rows. */
    private void quantiles(Rounds.Timed each, String figure, String store, String note) {
        for (double quantile : new double[]{0.5, 0.99}) {
            long o = each.quantile(0, quantile);
            long p = each.quantile(1, quantile);
            report.add(figure + (quantile == 0.5 ? "median" : "99th percentile"), store, Report.micros(o),
                    Report.micros(p), (double) o / p, "each cycle timed on its own, the two sides' rounds alternating; "
                            + note);
        }
    }

    private static void cycle(Contender contender, String key) throws Exception {
        // ShedLock's Cassandra provider refuses a key whose last unlock fell in the same millisecond (its unlock sets
        // lockUntil to now, and a lock needs lockUntil before now): asked once more, as its caller would have to; any
        // other side's refusal of an uncontended key is a fault of that side and ends the run
        if (!contender.tryLock(key)
                && !(contender instanceof Contenders.ShedLockSide && contender.tryLock(key))) {
            throw new IllegalStateException(contender.name() + " refused the uncontended key " + key);
        }
        contender.unlock(key);
    }

    private String[] throughputKeys(String side) {
        String[] keys = new String[Throughput.THREADS];
        for (int t = 0; t < keys.length; t++) {
            keys[t] = "tp-" + side + "-" + run + "-" + t;
        }
        return keys;
    }

    /** The median time from a release on node a to the return of the waiter on node b, in ns. */
    private double handoff(Contender a, Contender b, String key) throws Exception {
        List<Long> latencies = new ArrayList<>();
        for (int round = 0; round < settings.handoffRounds(); round++) {
            while (!a.tryLock(key)) {
                Thread.sleep(10);
            }
            AtomicLong acquiredAt = new AtomicLong();
            List<Exception> failure = Collections.synchronizedList(new ArrayList<>());
            Thread waiter = new Thread(() -> {
                try {
                    b.lockWaiting(key, POLL);
                    acquiredAt.set(System.nanoTime());
                    b.unlock(key);
                } catch (Exception e) {
                    failure.add(e);
                }
            }, "peer-bench-waiter");
            waiter.start();
            // let the waiter find the key taken and start waiting; release at a random point of its poll interval,
            // as a real release is, not in step with its polls
            Thread.sleep(3 * POLL.toMillis() + ThreadLocalRandom.current().nextLong(POLL.toMillis()));
            long released = System.nanoTime();
            a.unlock(key);
            waiter.join(60_000);
            if (!failure.isEmpty()) {
                throw failure.get(0);
            }
            latencies.add(acquiredAt.get() - released);
        }
        Collections.sort(latencies);
        return latencies.get(latencies.size() / 2);
    }
}

package io.github.lockmanager.bench;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs every figure and writes the table to {@code -Dbench.out} (default {@code target/benchmarks.md}).
 * {@code -Dbench.smoke=true} runs the same code at a size that takes seconds.
 */
public final class Benchmarks {
    static final String COMMAND = "mvn -q -pl lockmanager-benchmarks -am -DskipTests -Pbench verify";
    static final String PEERS = "Spring Integration `JdbcLockRegistry` and ShedLock's `JdbcTemplateLockProvider` on the same "
            + "PostgreSQL (ShedLock's on MariaDB too), next to lockmanager's JDBC store; Redisson's `RLock` and `RFencedLock` "
            + "and Spring Integration's `RedisLockRegistry` on the same Redis (127.0.0.1:6379), next to lockmanager's "
            + "Redis store";

    /** What a node costs its store, from the protocol (not measured): written into the document after the figures. */
    static final String COST_MODEL = "\n## Cost model\n\n"
            + "Store calls and writes that lockmanager makes, read off its protocol; the figures above measure what they "
            + "cost. Defaults: lease 60 s, renewal every 20 s, abort poll every 5 s, batches of 200, purge every 10 minutes.\n\n"
            + "| Store | lock + unlock | renewal, per batch | abort poll, per batch | purge |\n"
            + "|---|---|---|---|---|\n"
            + "| PostgreSQL | 2 statements | 1 statement (`UPDATE … FROM unnest(…) RETURNING`) | 1 `SELECT` | 1 `DELETE` |\n"
            + "| MariaDB 10.5+ | 2 statements (the upsert returns the row) | `UPDATE` + `SELECT` in one transaction | 1 `SELECT` | 1 `DELETE` |\n"
            + "| MySQL, H2 | 3 statements (acquire, read back, release) | `UPDATE` + `SELECT` in one transaction | 1 `SELECT` | 1 `DELETE` |\n"
            + "| HBase | 2 RPCs (3 for a key's first acquisition) | 1 batch call: a check-and-mutate and a get per lock, grouped by region server | 1 multi-get | 1 scan + a conditional delete per idle row |\n"
            + "| Aerospike | 2 commands (an operate that grants, one that releases) | 1 batch write | 1 batch read | none: the server expires idle key records |\n"
            + "| In memory | 2 map operations | 1 call | 1 call | 1 pass over the map |\n\n"
            + "A key let go of while another thread of the same node waits for it is handed over with the waiter's "
            + "acquisition alone (one statement or RPC, no release; MySQL and H2 add the read back), up to "
            + "`maxLocalHandOffs` (4) times in a row.\n\n"
            + "Shared and intention holds (lock modes): in memory 2 map operations per lock + unlock; "
            + "HBase 2 RPCs (a filtered check-and-mutate to join, one to leave; 3 when the last holder of a node leaves "
            + "while other nodes' holders stay, 5 for the first holder of a key with no row yet); JDBC on PostgreSQL "
            + "and MariaDB 2 statements (join: insert the holder while the key's row is locked for sharing; leave: delete), "
            + "plus a transaction of 4 statements and a commit for the first holder of a key or one that changes the "
            + "key's mark, and 6 more round trips for the first writer after the readers (MySQL and H2: the transaction for every "
            + "join); Aerospike 2 commands for every holder (an operate that joins the key's one record, one that leaves "
            + "it). "
            + "Their renewal and abort poll "
            + "go in the same batches as exclusive locks (JDBC: one more transaction of 3 per renewal batch).\n\n"
            + "Permits (at most n holders of a key): in memory one compare-and-set of the key's holders; Redis 1 script "
            + "call to take, 1 to give back; Aerospike 1 operate each way (2 for a refusal, which reads the holders to "
            + "name one); HBase 2 RPCs to take, as a shared holder, 2 for a refusal; JDBC a transaction of 4 statements "
            + "and a commit to take (the key's row locked while the live holders are counted; 2 statements and a "
            + "rollback for a refusal), 1 statement to give back. Renewal and abort polls as for shared holders.\n\n"
            + "For N locks held by one node, the keeper runs every 5 s: 3 renewals and 9 abort polls a minute, so "
            + "12 × ⌈N / 200⌉ store calls a minute, and 3 record writes per held lock a minute (abort polls only read). "
            + "10,000 locks: 600 calls and 30,000 record writes a minute; 100,000 locks: 6,000 calls and 300,000 writes. "
            + "Re-entry, and contention between threads of one node, cost no store call.\n\n"
            + "What a lock+unlock costs in processor time, the database server's and the client's, is measured on the "
            + "machine above in figure 5b (8 threads on distinct keys); figure 9's throughput notes give the same for "
            + "each peer.\n";

    /** How many times the usual cycles figures 2, 11 and 12 run on the in-memory store. */
    private static final int IN_MEMORY_CYCLES_FACTOR = 100;
    /**
     * The least warm-up of each in-memory cycle: in a fresh JVM on our 2-core machines the JIT takes seconds to compile
     * the manager's path, and a count of warm-up cycles alone left figure 2 timing the interpreter.
     */
    private static final Duration IN_MEMORY_WARM_UP = Duration.ofSeconds(5);
    /**
     * The least warm-up of each cycle timed side by side on a database or HBase. Its count alone (2,000 cycles) left
     * the store's and the manager's own code in the JIT's profiling tier, which compiles a method fully after about
     * 5,000 calls, while the raw cycle's code is the driver's, run by every side and compiled early: our side then
     * paid for its compilation inside the timed rounds.
     */
    private static final Duration STORE_WARM_UP = Duration.ofSeconds(8);

    private Benchmarks() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Boolean.getBoolean("bench.smoke") ? Settings.smokeRun() : Settings.fullRun();
        Path out = Path.of(System.getProperty("bench.out", "target/benchmarks.md"));
        List<String> versions = new java.util.ArrayList<>();
        Report report = run(settings, versions);
        write(report, versions, out);
        System.exit(0);
    }

    /** Writes the document with {@code report}'s table to {@code out}. */
    static void write(Report report, List<String> versions, Path out) throws java.io.IOException {
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, document(report, versions), StandardCharsets.UTF_8);
        System.out.println("Wrote " + out.toAbsolutePath());
    }

    /** Runs every figure; {@code versions} receives the store versions measured. */
    static Report run(Settings settings, List<String> versions) throws Exception {
        Report report = new Report();
        jmh(settings, report);
        HeapBench.run(settings, report);
        HeapBench.runTaskWaiters(settings, report);
        try (InMemorySubject memory = new InMemorySubject()) {
            new StoreBench(memory, settings.withCyclesTimes(IN_MEMORY_CYCLES_FACTOR).withWarmUpOf(IN_MEMORY_WARM_UP),
                    report).run();
        }
        HeldTooLongBench.run(settings.withWarmUpOf(IN_MEMORY_WARM_UP), report);
        try (JdbcSubject postgres = JdbcSubject.postgres()) {
            versions.add(postgres.version());
            new StoreBench(postgres, settings.withWarmUpOf(STORE_WARM_UP), report).run();
            GuardedWorkBench.run(postgres, settings, report);
            new StorageBench(postgres.pool(), JdbcSubject.TABLE, settings, report).run();
            DefaultRenewalBench.run(postgres.name(), postgres.store(), settings.defaultRenewalLocks(),
                    settings.defaultRenewalLease(), report);
        }
        try (JdbcSubject mariadb = JdbcSubject.mariadb()) {
            versions.add(mariadb.version());
            new StoreBench(mariadb, settings.withWarmUpOf(STORE_WARM_UP), report).run();
            GuardedWorkBench.run(mariadb, settings, report);
        }
        if (settings.hbase()) {
            try (HBaseSubject hbase = new HBaseSubject()) {
                versions.add(HBaseSubject.version());
                new StoreBench(hbase, settings.withWarmUpOf(STORE_WARM_UP), report).run();
                RowDataBench.run(hbase, settings, report);
            }
        }
        try (AerospikeSubject aerospike = AerospikeSubject.fromSystemProperties()) {
            if (aerospike != null) {
                versions.add(aerospike.version());
                new StoreBench(aerospike, settings.withWarmUpOf(STORE_WARM_UP), report).run();
            }
        }
        return report;
    }

    /** Figures 1 and 2 (in memory) with JMH: in forked JVMs for the real run, in this one for the smoke run. */
    private static void jmh(Settings settings, Report report) throws Exception {
        // the warm-up outlasts the JIT's: in half the forks the manager's lock ran in its profiling tier, not inlined
        // into the loop, for up to 5 s after the start; 2 forks, so that the figure is not one fork's compilation
        Options options = new OptionsBuilder().include(ReentryBenchmark.class.getName())
                .forks(settings.smoke() ? 0 : 2)
                .warmupIterations(settings.smoke() ? 1 : 8)
                .warmupTime(TimeValue.milliseconds(settings.smoke() ? 50 : 1_000))
                .measurementIterations(settings.smoke() ? 1 : 5)
                .measurementTime(TimeValue.milliseconds(settings.smoke() ? 50 : 1_000))
                .addProfiler(GCProfiler.class)
                .build();
        Map<String, Double> nanos = new HashMap<>();
        Map<String, Double> bytes = new HashMap<>();
        for (RunResult result : new Runner(options).run()) {
            String label = result.getParams().getBenchmark();
            String name = label.substring(label.lastIndexOf('.') + 1);
            nanos.put(name, result.getPrimaryResult().getScore());
            Result<?> allocated = result.getSecondaryResults().get("gc.alloc.rate.norm");
            if (allocated != null) {
                bytes.put(name, allocated.getScore());
            }
        }
        report.add("1. re-entrant lock+unlock", "in-memory", Report.nanos(nanos.get("reentrantLockManager")),
                Report.nanos(nanos.get("reentrantJdkLock")),
                nanos.get("reentrantLockManager") / nanos.get("reentrantJdkLock"),
                "JMH average time; baseline java.util.concurrent.locks.ReentrantLock lock+unlock; no store call"
                        + allocated(bytes, "reentrantLockManager", "reentrantJdkLock"));
        report.add("2. uncontended lock+unlock (JMH)", "in-memory", Report.nanos(nanos.get("inMemoryLockUnlock")),
                Report.nanos(nanos.get("mapPutRemove")), nanos.get("inMemoryLockUnlock") / nanos.get("mapPutRemove"),
                "JMH average time; baseline ConcurrentHashMap put + remove; ours reads the lease clock once, and "
                        + "one System.nanoTime() alone takes " + Report.nanos(nanos.get("clockReading")) + " here"
                        + allocated(bytes, "inMemoryLockUnlock", "mapPutRemove"));
    }

    /**
     * The heap both sides of a JMH figure allocate per cycle (JMH's GC profiler), for the figure's note; nothing if
     * the JVM does not count a thread's allocations.
     */
    private static String allocated(Map<String, Double> bytes, String ours, String baseline) {
        return bytes.containsKey(ours) && bytes.containsKey(baseline)
                ? String.format(Locale.ROOT, "; heap allocated per cycle: ours %.0f B, baseline %.0f B", bytes.get(ours),
                        bytes.get(baseline))
                : "";
    }

    private static String document(Report report, List<String> versions) {
        Runtime runtime = Runtime.getRuntime();
        return "# Benchmarks\n\n"
                + "What lockmanager costs, each figure measured in the same run next to the baseline it is compared with, "
                + "and reported as a ratio (ours / baseline; below 1 is cheaper or faster than the baseline, except for "
                + "throughput, where above 1 is faster). Our machines are shared and noisy: take the absolute times as "
                + "context, the ratios as the result. No test asserts any of these times.\n\n"
                + "Reproduce (PostgreSQL on 127.0.0.1:5432, database `test`, user `postgres`; MariaDB on 127.0.0.1:3306, "
                + "database `test`, user `root`; Redis on 127.0.0.1:6379 for "
                + "figure 9; the HBase mini cluster, and for figure 19 a Cassandra node, are started by the run; about "
                + "45 minutes on 2 cores; add "
                + "`-Daerospike.host=127.0.0.1` to measure an Aerospike server too):\n\n    " + COMMAND + "\n\n"
                + "Machine: " + runtime.availableProcessors() + " cores (" + cpuModel() + "), " + System.getProperty("os.name")
                + " " + System.getProperty("os.version") + ", Java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + "), max heap " + runtime.maxMemory() / (1024 * 1024) + " MiB; "
                + String.join("; ", versions) + ". Run on " + LocalDate.now() + ".\n\n"
                + report.table()
                + "\nHow each figure is taken:\n\n"
                + "1. JMH, two forks, each 8 × 1 s warm-up and 5 × 1 s measurement: a thread that holds the key locks and "
                + "unlocks it again, against `ReentrantLock`. The warm-up is that long because in half the forks the JIT "
                + "first calls the manager's `lock` from the loop instead of inlining it (C2: \"already compiled into a big "
                + "method\") while that method still runs its profiling tier: 80 to 115 ns a cycle for up to 5 s after the "
                + "start, 16 to 18 ns after; with one fork and 3 s of warm-up, figure 1 could read 2 to 6 times "
                + "`ReentrantLock`. Figure 2 in memory is taken in the same forks, and with it one `System.nanoTime()`: a new "
                + "acquisition reads the lease clock once, and what that costs depends on the machine's clock (24 ns on "
                + "the 2-core AMD EPYC virtual machine where the row was added, more than the baseline's put and remove). "
                + "JMH's GC profiler counts the heap each side allocates per cycle, in the notes of both figures: "
                + "short-lived objects that a busy service's collector pays for, not held memory (figure 6)."
                + "\n"
                + "2. One thread takes and releases one key: the manager (acquire, release) against the raw store "
                + "operations such a cycle needs, alternated in " + Rounds.ROUNDS + " rounds of a "
                + Rounds.ROUNDS + "th of the cycles each on the same store instance (so that a slow or fast phase of the "
                + "machine falls on both sides), each side's turn in a round begun by a tenth as many cycles untimed "
                + "(the first cycles after the other side's turn are slower, and that toll would fall unevenly), after "
                + "as many warm-up cycles (2,000 cycles; on the in-memory store "
                + IN_MEMORY_CYCLES_FACTOR + " times as "
                + "many, and each side warmed up for " + IN_MEMORY_WARM_UP.toSeconds() + " s at least, since on our "
                + "2-core machines the JIT takes seconds to compile the manager's path: with the count alone, figure 2 "
                + "in memory read 1.6 µs a cycle in a fresh JVM and 250 ns in a second run, 12.8 and 6.1 times the map; "
                + "the same for figures 11, 12 and 14; on PostgreSQL, MariaDB and HBase each side warmed up for "
                + STORE_WARM_UP.toSeconds() + " s at least, since with the count alone the store's and the manager's "
                + "code was still in the JIT's profiling tier while the raw side's, the driver's, was compiled; the "
                + "same for figures 2c and 12). "
                + "The store calls per cycle are counted in a pass of their own, by a manager on a counting wrapper "
                + "of the store, so that the manager timed runs on the store itself (timed through the wrapper, the "
                + "in-memory figure read 9.3 to 11.5 times the map in probes, 6.4 to 7.5 without it; the same for "
                + "figure 12). "
                + "2b: the store's own acquire and release for the same cycle, called through "
                + "the SPI without a lock manager, in the same rounds. On PostgreSQL, whose releases by default do not "
                + "wait for the database's flush where the raw pair's statements do, a row for the manager on a store "
                + "with durableReleases(true), in the same rounds. Rows 2 and 2b give each side's mean; on the "
                + "stores with a server each cycle of those rounds is also timed on its own, and the median and 99th "
                + "percentile rows compare the typical cycle and the slow ones (a store's flush, a pause of the "
                + "HBase mini cluster, which runs in the benchmark's JVM), which the mean mixes. On HBase against "
                + "PhonePe DLM's protocol, and on Aerospike against the raw pair (which is that protocol there), the "
                + "same cycle on a key the store never had, each cycle timed on its own in alternating rounds. "
                + "2c (HBase): the store's acquire built up from a conditional put of the owner cell one part at a "
                + "time, each taken and freed as the store releases, alternated as figure 2's cycles are, through "
                + "HBase's synchronous client as the baseline is; then sent as the store sends it, through the async "
                + "client, and the baseline's put sent that way too; the rows marked \"for comparison\" are no "
                + "protocol of ours, among them the baseline freed by a delete marker, as figure 2's raw pair is.\n"
                + "3. A manager holding N locks (batch size 200): the duration of one renewal cycle of its keeper, from "
                + "the first renew call to the end of the last, and the calls counted; against renewing the same locks "
                + "with one store call each, as a per-lock heartbeat does.\n"
                + "4. Median of the rounds: the time from a holder's release to the waiter's `waitForLock` returning, "
                + "against the wait interval the waiter was given.\n"
                + "5. Eight threads, each on its own key: manager lock+unlock against the raw cycle in 3 rounds of 3 s "
                + "each, every round in halves ordered ours, raw, raw, ours, so that a drift during it weighs on both, "
                + "after 3 s untimed of each in two alternated turns, so that neither is timed while its contended "
                + "paths compile (with a quarter of that, the first of three runs in one JVM read 0.86 on PostgreSQL, "
                + "the next two 0.98 and 0.96). The ratio is that of all rounds together; the note gives each round's, "
                + "which can differ from the next by as much as 0.2. Figure 9's throughput is run the same way, "
                + "figures 10 and 10b in one round.\n"
                + "5b. Figure 5's processor time per cycle (Linux, stores with a server): the whole machine's user, "
                + "nice, system and interrupt time from `/proc/stat`, and this JVM's from its operating-system MXBean, "
                + "over the timed halves of each side in all rounds, divided by the cycles done in them. With eight "
                + "threads on two cores the processors are the limit, so the split says whose work the throughput gap "
                + "is: the client's, or the database server's beside it (on HBase the mini cluster runs in the JVM, which "
                + "then holds both). Idle and stolen time are not counted.\n"
                + "6. The bytes of live objects (the JVM's class histogram, which collects first) before and after "
                + "taking the locks (keys allocated beforehand), against a `ConcurrentHashMap` holding the same keys; "
                + "the heap in use after full GCs beside it, which G1's rounding of large arrays to whole regions "
                + "adds to. A round of a tenth of the size runs first and is dropped: the JVM's first manager also "
                + "makes what later ones share.\n"
                + "7. Locks created directly in the store by 8 threads (10,000 on HBase, where creating 100,000 one by one "
                + "would dominate the run): `getLocks()` against a raw scan of the live records of the same store.\n"
                + "3b. A node at the default settings (lease 60 s, renewal every 20 s, batches of 200) holding 100,000 locks "
                + "on PostgreSQL, taken by 8 holder threads: the first full renewal cycle after they were taken, against "
                + "the renewal interval it must fit in, with the locks lost while held counted.\n"
                + "8. 100,000 keys, each locked and released once by 8 threads (locking per entity), on a store whose idle "
                + "record retention is 1 s: the rows of those keys left after one `purgeIdleRecords()` (which a manager "
                + "runs every `purgeInterval`), against the 100,000 rows a table keeping every key ever locked holds.\n"
                + "13. One thread runs one unit of work (an `UPDATE` of one row in a transaction) under a lock, "
                + Rounds.ROUNDS + " alternating rounds after as many warm-up cycles: guarded by the lock's row (`JdbcLockStore.guard`, "
                + "then `commit()`, or `commitAndRelease()`) against the same lock, `UPDATE` and commit unguarded; on HBase, a "
                + "read-modify-write of a value in the lock's own row (`HBaseRowData`) against lock, get, put, unlock.\n"
                + "14. Bursts of 100 lock+unlock of one key on the in-memory store, " + Rounds.ROUNDS
                + " alternating rounds: a manager with `heldTooLongThreshold` set against one without.\n"
                + "16. Waiters of `lockForTaskAsync` for one key held by a task, which park no thread: the bytes of "
                + "live objects before and after they are parked, against as many `CompletableFuture`s each with a "
                + "timer of a `ScheduledThreadPoolExecutor`, the least a wait with a deadline holds; the threads the "
                + "manager added for them in the note. Beside a peer, on Redis: waiters for one key another owner "
                + "holds, ours `lockForTaskAsync` on the Redis store against Redisson's `RLock.lockAsync(threadId)` at "
                + "its defaults, each after one wait of its own side has ended with its key (so that task threads and "
                + "subscriptions exist before the count); the owners' names and ids are made beforehand, everything "
                + "the calls create and keep is counted, the clients' buffers and listeners included; three "
                + "alternated rounds, each side's median, Redisson's bytes divided by its waiters still waiting at "
                + "the count.\n"
                + "15. Eight threads each take one of 8 permits of one key and give it back (never refused), against "
                + "eight threads locking distinct keys in the same run, side by side for the throughput time in one "
                + "round; the store calls per cycle come from a counted pass of 100 cycles first. On Redis too, which "
                + "has no other store figures.\n"
                + "9. The peers users would pick instead (" + PEERS + "), each in "
                + "the same run, each at its defaults unless said here, every JDBC library with a pool of 10 per node, every "
                + "Redis library on its own client per node: uncontended lock+unlock in " + Rounds.ROUNDS
                + " alternating rounds, with the round trips each makes counted on its JDBC connection (statements, "
                + "commits, rollbacks), and on Redis the commands each sends per cycle as the server's `MONITOR` reports "
                + "them, a script's own calls apart (`INFO commandstats` counts those too), one side at a time; a new key each cycle, and on Redis the same key each "
                + "cycle too, every cycle timed on its own in alternating rounds (median and 99th percentile); 8 threads on distinct keys, 6 s each side by side as in figure 5; the hand-off of a held key to a "
                + "waiter on a second node, each library waiting its own way; the store calls a waiter on the second node "
                + "sends per second while the first holds the key, over twice the throughput time (counted as above: "
                + "lockmanager's waiter on a store that announces releases asks again only every 50 poll intervals); "
                + "and one key taken again and again by 2 "
                + "threads on each of 2 nodes, in two turns of the throughput time each, alternated with the peer's "
                + "(acquisitions per second, the most over the fewest acquisitions of one thread, and the round trips "
                + "per acquisition, counted as above; lockmanager hands a key let go of while a thread of its node waits "
                + "over in one store call, up to 4 times in a row by default). Every side is given a lease of 1 "
                + "minute; beyond it the settings that are not a peer's defaults: Spring Integration's "
                + "`JdbcLockRegistry` gets that lease as its time to live (its default 10 s) and skips its start-up "
                + "check of the table, ShedLock's JDBC provider reads the database's clock (`usingDbTime()`, as its "
                + "documentation advises; lockmanager's JDBC store does too) with the lease as `lockAtMostFor`; "
                + "Redisson and Spring's `RedisLockRegistry` (expireAfter 60 s, its default) run at their defaults.\n"
                + "17. Fair turns across nodes: one key taken again and again by 2 threads on each of 2 nodes, each "
                + "holding it 2 ms, after an uncounted turn per side: on Redis lockmanager's fair waits "
                + "(`LockSpec.fair`) and Redisson's `RFairLock` in six pairs of turns of the throughput time, each "
                + "pair in the other order than the last (the p99 row gives each side's median turn and the median "
                + "of the pairs' ratios, with their range), and lockmanager's default (unfair) waits in a turn after "
                + "each pair; on PostgreSQL lockmanager's fair and unfair waits, two turns of twice the throughput "
                + "time each, alternated. Each wait "
                + "from the call to the grant (median, 99th percentile, worst), the share of grants that moved to the "
                + "other node, order inversions (pairs asked in one order and granted in the other while both waited), "
                + "the median time from a release on one node to the grant on the other, and the round trips (Redis: "
                + "commands) of an uncontended fair lock+unlock.\n"
                + "18. Leader failover: 3 member processes of one election, each a JVM of its own, the leader's killed "
                + "with SIGKILL once all have joined; the time from the kill to another member's elected callback, "
                + "over 5 kills each in an election of its own (median, and every kill). Each library is given 3 s: "
                + "lockmanager's `LeaderElection` lease, the time to live of Spring Integration's `JdbcLockRegistry` "
                + "under its `LockRegistryLeaderInitiator` (on the same PostgreSQL), the session timeout of Curator's "
                + "`LeaderLatch` (on one ZooKeeper test server of curator-test, tick 500 ms, beside lockmanager on "
                + "Redis); every other setting its default.\n"
                + "19. On one Cassandra node the run starts (cassandra-all, one replica): lockmanager's Cassandra store "
                + "(DC-level keys: LOCAL_SERIAL, LOCAL_QUORUM) beside ShedLock's Cassandra provider with its defaults "
                + "(SERIAL, QUORUM; on one data centre they cost the same) and beside Astyanax's row lock protocol "
                + "replayed on the same driver with prepared statements (a column of the lock's own written with the "
                + "lease as TTL at QUORUM, the row read back at QUORUM, the column deleted), each node of each side on a "
                + "session of its own whose requests a request tracker counts: every comparison of figure 9, and the "
                + "same key's cycle timed on its own (median, 99th percentile).\n"
                + COST_MODEL;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        } catch (java.io.IOException e) {
            return "unknown CPU";
        }
    }
}

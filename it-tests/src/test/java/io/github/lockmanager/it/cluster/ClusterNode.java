package io.github.lockmanager.it.cluster;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.internal.RequestNote;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import com.aerospike.client.AerospikeClient;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.leader.LeaderElection;
import io.github.lockmanager.leader.LeadershipListener;
import io.github.lockmanager.leader.Term;
import io.github.lockmanager.store.aerospike.AerospikeLockStore;
import com.datastax.oss.driver.api.core.CqlSession;
import io.github.lockmanager.store.cassandra.CassandraLockStore;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import io.github.lockmanager.store.jdbc.FencingTable;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import io.github.lockmanager.store.jdbc.StaleFencingTokenException;
import io.github.lockmanager.store.redis.RedisLockStore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.ConnectionFactory;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One node of a multi-process test, run in its own JVM by {@link Children}. Settings come as system properties
 * ({@code node.*}); it reports on standard output, one event per line, and reads commands from standard input.
 *
 * <ul>
 *   <li>{@code contend}: {@code node.threads} threads take and release the keys {@code hot-0..hot-(n-1)} for
 *       {@code node.seconds} (longer, up to four times, until the node has {@code node.minSections}), each section
 *       lasting up to {@code node.sectionMicros} (default 2000), shared in {@code node.readers} percent of the sections (default none), or each a
 *       permit of {@code node.permits} when that is set; each critical section is written to {@code node.out} as
 *       {@code key token node thread enter exit mode} (mode {@code S}, {@code X} or {@code P}), enter and exit stamped by the {@link SharedCounter} at {@code node.counter};
 *       with {@code node.fair}, each thread waits fairly for an exclusive lock instead, and the line ends with the
 *       stamps taken when it asked and when its request's registration began and ended (its ask's stamp for both
 *       when it was let in at once).
 *       Prints {@code DONE <sections>}.</li>
 *   <li>{@code hold}: a thread takes each key of {@code node.keys} and holds it; prints
 *       {@code HELD <key> <token>}; when interrupted, {@code INTERRUPTED <key> <epochMillis> lost=<bool>}, then
 *       unlocks and prints {@code UNLOCKED <key>}. On {@code close} from standard input or SIGTERM it closes its
 *       manager and prints {@code CLOSED threads=<lockmanager threads still alive>}. On {@code write <key> <value>}
 *       from standard input it writes {@code value} as the row {@code key} of the table {@code node.fence.data},
 *       guarded by the {@link FencingTable} {@code node.fence.table} with the token it took {@code key} with, and
 *       prints {@code WROTE <key>} or {@code REFUSED <key> <highest token admitted>}. On {@code check <key>} it asks
 *       the hold whether it is lost and tries to guard work with it: {@code CHECK <key> lost=<bool>
 *       guard=admitted|refused|closed}; on {@code release <key>} it closes the hold from that thread: {@code RELEASED <key>}.
 *       Every loss the manager tells its listener is printed as {@code TOLD <key> <reason>}.</li>
 *   <li>{@code lead}: a member of the election of {@code node.election}; prints {@code ELECTED <term> <stamp>} and
 *       {@code REVOKED <term> <reason> <stamp>}, stamped by the {@link SharedCounter} at {@code node.counter}; while it leads, a thread writes with its term to the {@link FencedFile}
 *       {@code node.fenced} every 10 ms, each write after {@code Term.check}, and prints {@code STALE <term>
 *       <higher>} for a write the file refused. On {@code report} it prints {@code WRITES <admitted> <refused>}; on
 *       {@code close} it closes the election and the manager and exits.</li>
 *   <li>{@code cycle}: one owner of a deadlock across processes: holds {@code node.first}, then on {@code go} waits
 *       fairly for {@code node.second}; prints {@code HELD}, then {@code GOT} or {@code FAILED <code> <message>},
 *       then {@code DONE}.</li>
 * </ul>
 */
public final class ClusterNode {
    private ClusterNode() {
    }

    public static void main(String[] args) throws Exception {
        RegistrationStamps registrations = Boolean.getBoolean("node.fair") ? new RegistrationStamps(store()) : null;
        LockStore store = registrations != null ? registrations : store();
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(System.getProperty("node.client"))
                .nodeId(System.getProperty("node.id"))
                .lossListener((lock, holder, reason) -> out.println("TOLD " + lock.getKey() + " " + reason))
                .lease(Duration.ofMillis(Long.getLong("node.lease", 10_000)))
                .renewalInterval(Duration.ofMillis(Long.getLong("node.renewal", 3_000)))
                .abortPollInterval(Duration.ofMillis(Long.getLong("node.poll", 500)))
                .shutdownTimeout(Duration.ofSeconds(5)).build();
        if (System.getProperty("node.mode").equals("contend")) {
            contend(manager, out, registrations);
            manager.close();
            System.exit(0);
        }
        if (System.getProperty("node.mode").equals("lead")) {
            lead(manager, out);
            return;
        }
        if (System.getProperty("node.mode").equals("cycle")) {
            cycle(manager, out);
            manager.close();
            System.exit(0);
        }
        hold(manager, out);
    }

    private static LockStore store() throws Exception {
        String table = System.getProperty("node.table");
        if (System.getProperty("node.store").equals("hbase")) {
            Configuration conf = HBaseConfiguration.create();
            conf.set("hbase.zookeeper.quorum", System.getProperty("node.zk.quorum"));
            conf.set("hbase.zookeeper.property.clientPort", System.getProperty("node.zk.port"));
            return HBaseLockStore.builder(ConnectionFactory.createConnection(conf)).tableName(table)
                    .closeConnectionOnClose(true).build();
        }
        if (System.getProperty("node.store").equals("aerospike")) {
            return aerospike(new AerospikeClient(new ClientPolicy(), System.getProperty("node.aerospike.host"),
                    Integer.getInteger("node.aerospike.port")), System.getProperty("node.aerospike.namespace"), table);
        }
        if (System.getProperty("node.store").equals("cassandra")) {
            CqlSession session = CqlSession.builder()
                    .addContactPoint(new InetSocketAddress(System.getProperty("node.cassandra.host"),
                            Integer.getInteger("node.cassandra.port")))
                    .withLocalDatacenter(System.getProperty("node.cassandra.dc")).build();
            return cassandra(session, System.getProperty("node.cassandra.keyspace"), table);
        }
        if (System.getProperty("node.store").equals("redis")) {
            return redis(System.getProperty("node.redis.uri"), table);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(System.getProperty("node.jdbc.url"));
        config.setUsername(System.getProperty("node.jdbc.user"));
        config.setMaximumPoolSize(4);
        return JdbcLockStore.builder(new HikariDataSource(config)).tableName(table).build();
    }

    /** An initialized Aerospike store on {@code client}, sets ending in {@code suffix}. */
    static LockStore aerospike(IAerospikeClient client, String namespace, String suffix) throws LockManagerException {
        AerospikeLockStore store = AerospikeLockStore.builder(client).namespace(namespace).setSuffix(suffix)
                .operationTimeout(Duration.ofSeconds(1)).build();
        store.initialize();
        return store;
    }

    /** An initialized Cassandra store on {@code session} (closed with the store), the table {@code table}. */
    static LockStore cassandra(CqlSession session, String keyspace, String table) throws LockManagerException {
        CassandraLockStore store = CassandraLockStore.builder(session).keyspace(keyspace).table(table)
                .operationTimeout(Duration.ofSeconds(1)).closeSessionOnClose(true).build();
        store.initialize();
        return store;
    }

    /** An initialized Redis store on its own client for {@code uri}, keys starting with {@code prefix}. */
    static LockStore redis(String uri, String prefix) throws LockManagerException {
        RedisLockStore.Builder builder = RedisLockStore.builder(uri).keyPrefix(prefix + ":")
                .operationTimeout(Duration.ofSeconds(1));
        Long quarantine = Long.getLong("node.redis.quarantine");
        if (quarantine != null) {
            // a test that restarts its server: grants wait this long after the restart, not the default 60 s
            builder.restartQuarantine(Duration.ofMillis(quarantine));
        }
        RedisLockStore store = builder.build();
        store.initialize();
        return store;
    }

    private static void contend(LockManager manager, PrintWriter out, RegistrationStamps registrations)
            throws Exception {
        int threads = Integer.getInteger("node.threads", 8);
        int keys = Integer.getInteger("node.keys", 3);
        int readersPercent = Integer.getInteger("node.readers", 0);
        int permits = Integer.getInteger("node.permits", 0);
        boolean fair = Boolean.getBoolean("node.fair");
        long seconds = Long.getLong("node.seconds", 5);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        // a loaded machine lets few in within the time: the node goes on until it has node.minSections, at most for
        // four times as long, so that the checks have enough sections from every node to mean something
        int minimum = Integer.getInteger("node.minSections", 0);
        int sectionMicros = Integer.getInteger("node.sectionMicros", 2_000);
        long longest = System.nanoTime() + TimeUnit.SECONDS.toNanos(4 * seconds);
        AtomicInteger sections = new AtomicInteger();
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        try (SharedCounter counter = new SharedCounter(Path.of(System.getProperty("node.counter")))) {
            if (registrations != null) {
                registrations.counter = counter;
            }
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < deadline
                            || sections.get() < minimum && System.nanoTime() < longest) {
                        String key = "hot-" + random.nextInt(keys);
                        boolean reader = random.nextInt(100) < readersPercent;
                        long asked = fair ? counter.next() : 0;
                        try (LockResource lock = fair ? manager.waitForLock(LockSpec.of(key).fair(true),
                                Duration.ofMinutes(1)) : permits > 0 ? manager.lock(LockSpec.permits(key, permits))
                                : reader ? manager.lock(LockSpec.shared(key)) : manager.lock(key)) {
                            long enter = counter.next();
                            TimeUnit.MICROSECONDS.sleep(random.nextInt(sectionMicros));
                            long exit = counter.next();
                            long[] registered = fair ? registrations.take(asked) : null;
                            lines.add(key + " " + lock.getFencingToken() + " " + manager.getNodeId() + " "
                                    + Thread.currentThread().getName() + " " + enter + " " + exit + " "
                                    + (permits > 0 ? "P" : reader ? "S" : "X") + (fair ? " " + asked + " " + registered[0] + " " + registered[1] : ""));
                            sections.incrementAndGet();
                        } catch (AlreadyLockedException e) {
                            if (fair) {
                                registrations.take(asked);
                            }
                            try {
                                TimeUnit.MICROSECONDS.sleep(random.nextInt(3_000));
                            } catch (InterruptedException interrupted) {
                                return;
                            }
                        } catch (InterruptedException e) {
                            return;
                        } catch (Exception e) {
                            if (fair) {
                                registrations.take(asked);
                            }
                            out.println("ERROR " + e);
                        }
                    }
                }, manager.getNodeId() + "-worker-" + t);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        Files.write(Path.of(System.getProperty("node.out")), lines);
        out.println("DONE " + sections.get());
    }

    /**
     * Stamps, by the {@link SharedCounter}, when each fair wait's request began and ended its registration (the
     * store's acquire of the key's requests), by the waiting thread's name, which the request's note carries: the
     * line's order is the order of registration, so a wait whose registration ended before another's began must be let
     * in first, however close their asks were.
     */
    private static final class RegistrationStamps extends ForwardingLockStore {
        volatile SharedCounter counter;
        private final Map<String, long[]> byOwner = new ConcurrentHashMap<>();

        RegistrationStamps(LockStore delegate) {
            super(delegate);
        }

        @Override
        public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
            if (!request.key().isRequests() || counter == null) {
                return super.acquire(request, lease);
            }
            long began = counter.next();
            AcquireResult result = super.acquire(request, lease);
            long ended = counter.next();
            if (result.isAcquired()) {
                byOwner.putIfAbsent(RequestNote.read(request.threadName()).owner(), new long[] {began, ended});
            }
            return result;
        }

        /**
         * The calling thread's first registration since it asked at {@code asked}, forgotten here; a wait that never
         * registered (let in at its first try) counts as registered when it asked.
         */
        long[] take(long asked) {
            long[] stamps = byOwner.remove(Thread.currentThread().getName());
            return stamps == null ? new long[] {asked, asked} : stamps;
        }
    }

    /**
     * One owner of a cycle: takes {@code node.first}, prints {@code HELD}, waits for {@code go} on standard input, then
     * waits fairly for {@code node.second}: prints {@code GOT <key>}, or {@code FAILED <error code> <message>} when the
     * wait ends without it; then gives everything back and prints {@code DONE}.
     */
    private static void cycle(LockManager manager, PrintWriter out) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (LockResource first = manager.lock(System.getProperty("node.first"))) {
            out.println("HELD " + first.getLock().getKey());
            for (String line; (line = in.readLine()) != null && !line.equals("go"); ) {
                // nothing until every owner holds its first key
            }
            String second = System.getProperty("node.second");
            try (LockResource other = manager.waitForLock(LockSpec.of(second).fair(true), Duration.ofMinutes(2))) {
                out.println("GOT " + second);
            } catch (LockManagerException e) {
                out.println("FAILED " + e.getErrorCode() + " " + e.getMessage());
            } catch (AlreadyLockedException e) {
                out.println("FAILED TIMED_OUT " + e.getMessage());
            }
        }
        out.println("DONE");
    }

    private static void lead(LockManager manager, PrintWriter out) throws Exception {
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        String counterFile = System.getProperty("node.counter");
        SharedCounter counter = counterFile == null ? null : new SharedCounter(Path.of(counterFile));
        LeaderElection election = LeaderElection
                .builder(manager, System.getProperty("node.election")).rejoinDelay(Duration.ofMillis(200))
                .listener(new LeadershipListener() {
                    @Override
                    public void elected(Term term) {
                        out.println("ELECTED " + term.number() + " " + (counter == null ? 0 : counter.next()));
                    }

                    @Override
                    public void revoked(Term term, LockLossReason reason) {
                        out.println("REVOKED " + term.number() + " " + reason + " "
                                + (counter == null ? 0 : counter.next()));
                    }
                }).build();
        Thread writer = new Thread(() -> {
            try (FencedFile fenced = new FencedFile(Path.of(System.getProperty("node.fenced")))) {
                while (!Thread.currentThread().isInterrupted()) {
                    var term = election.term();
                    if (term.isPresent()) {
                        try {
                            term.get().check(Duration.ofMillis(100));
                            long higher = fenced.write(term.get().number());
                            if (higher == 0) {
                                admitted.incrementAndGet();
                            } else {
                                refused.incrementAndGet();
                                out.println("STALE " + term.get().number() + " " + higher);
                            }
                        } catch (LockLostException over) {
                            // the term is over, or may be: no write
                        }
                    }
                    Thread.sleep(10);
                }
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                out.println("ERROR " + e);
            }
        }, "fenced-writer");
        writer.start();
        election.start();
        out.println("STARTED");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("report")) {
                out.println("WRITES " + admitted.get() + " " + refused.get());
            } else if (line.equals("close")) {
                break;
            }
        }
        writer.interrupt();
        writer.join(5_000);
        election.close();
        manager.close();
        out.println("CLOSED");
        System.exit(0);
    }

    private static void hold(LockManager manager, PrintWriter out) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeAndReport(manager, out), "node-shutdown"));
        Map<String, Long> tokens = new ConcurrentHashMap<>();
        Map<String, LockResource> locks = new ConcurrentHashMap<>();
        for (String key : System.getProperty("node.keys").split(",")) {
            Thread holder = new Thread(() -> {
                LockResource lock = null;
                try {
                    lock = manager.lock(key);
                    tokens.put(key, lock.getFencingToken());
                    locks.put(key, lock);
                    out.println("HELD " + key + " " + lock.getFencingToken());
                    new java.util.concurrent.CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    out.println("INTERRUPTED " + key + " " + System.currentTimeMillis() + " lost=" + lock.isLost());
                } catch (Exception e) {
                    out.println("ERROR " + key + " " + e);
                } finally {
                    if (lock != null) {
                        lock.close();
                        out.println("UNLOCKED " + key);
                    }
                }
            }, "holder-" + key);
            holder.start();
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("close")) {
                System.exit(0);
            }
            String[] words = line.split(" ");
            if (words[0].equals("write")) {
                fencedWrite(words[1], tokens.get(words[1]), words[2], out);
            } else if (words[0].equals("check")) {
                LockResource lock = locks.get(words[1]);
                boolean lost = lock.isLost();
                String guard;
                try (GuardedHold ignored = lock.guard()) {
                    guard = "admitted";
                } catch (LockLostException e) {
                    guard = "refused";
                } catch (IllegalStateException e) {
                    // its holder thread, interrupted by the loss, closed it first
                    guard = "closed";
                }
                out.println("CHECK " + words[1] + " lost=" + lost + " guard=" + guard);
            } else if (words[0].equals("release")) {
                locks.get(words[1]).close();
                out.println("RELEASED " + words[1]);
            }
        }
    }

    /**
     * Writes {@code value} under {@code key}'s fence, from the thread that reads commands: a holder whose lock passed
     * on while it was paused writes as it would have, with the token it holds, and is refused by the fence.
     */
    private static void fencedWrite(String key, long token, String value, PrintWriter out) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(System.getProperty("node.jdbc.url"));
        config.setUsername(System.getProperty("node.jdbc.user"));
        try (HikariDataSource source = new HikariDataSource(config); Connection c = source.getConnection()) {
            FencingTable fences = new FencingTable(source, System.getProperty("node.fence.table"));
            c.setAutoCommit(false);
            try {
                fences.admit(c, key, token);
                try (PreparedStatement write = c.prepareStatement("UPDATE " + System.getProperty("node.fence.data")
                        + " SET val = ? WHERE id = ?")) {
                    write.setString(1, value);
                    write.setString(2, key);
                    write.executeUpdate();
                }
                c.commit();
                out.println("WROTE " + key);
            } catch (StaleFencingTokenException e) {
                c.rollback();
                out.println("REFUSED " + key + " " + e.highestAdmitted());
            }
        }
    }

    private static void closeAndReport(LockManager manager, PrintWriter out) {
        manager.close();
        long alive = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("lockmanager-")).count();
        out.println("CLOSED threads=" + alive);
    }
}

package io.github.lockmanager.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.leader.LeaderElection;
import io.github.lockmanager.leader.LeadershipListener;
import io.github.lockmanager.leader.Term;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import io.github.lockmanager.store.redis.RedisLockStore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.time.Duration;

/**
 * One member of an election of figure 18, in a JVM of its own so that {@link FailoverBench} can kill it with SIGKILL:
 * joins the election of {@code args[1]} as {@code args[2]} with the library {@code args[0]} and a lease (or session
 * timeout, or time to live) of {@code args[3]} ms, prints {@code READY} once it has joined and {@code LEADER} each time
 * it is elected, and runs until killed.
 */
final class FailoverMember {
    static final String OURS_POSTGRESQL = "lockmanager-postgresql";
    static final String OURS_REDIS = "lockmanager-redis";
    static final String SPRING_JDBC = "spring-integration-jdbc";
    static final String CURATOR = "curator";
    /** Our store's table for the figure, apart from the other figures' tables. */
    static final String TABLE = "bench_failover_locks";

    private FailoverMember() {
    }

    public static void main(String[] args) throws Exception {
        String library = args[0];
        String name = args[1];
        String member = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        switch (library) {
            case OURS_POSTGRESQL -> ours(JdbcLockStore.builder(
                    Contenders.Database.POSTGRESQL.pool("failover-" + member, 2)).tableName(TABLE).build(), name, member, lease);
            case OURS_REDIS -> {
                RedisLockStore store = RedisLockStore.builder(Contenders.REDIS_URL).keyPrefix("bench-failover:").build();
                // as in the other figures: the benchmark's server has no locks of an earlier life to protect
                store.endRestartQuarantine();
                ours(store, name, member, lease);
            }
            case SPRING_JDBC -> spring(name, member, lease);
            case CURATOR -> curator(args[4], name, member, lease);
            default -> throw new IllegalArgumentException("no such library: " + library);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void elected() {
        System.out.println("LEADER");
        System.out.flush();
    }

    private static void ours(LockStore store, String name, String member, Duration lease) throws Exception {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId("bench-failover").nodeId(member)
                .lease(lease).build();
        LeaderElection.builder(manager, name).member(member).lease(lease).listener(new LeadershipListener() {
            @Override
            public void elected(Term term) {
                FailoverMember.elected();
            }
        }).build().start();
    }

    /** Spring Integration's initiator on its JDBC registry, its lock's time to live the lease; its other settings its defaults. */
    private static void spring(String name, String member, Duration lease) {
        HikariDataSource pool = Contenders.Database.POSTGRESQL.pool("failover-" + member, 2);
        DefaultLockRepository repository = new DefaultLockRepository(pool, member);
        repository.setRegion("failover");
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.setCheckDatabaseOnStart(false);
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(new JdbcLockRegistry(repository, lease),
                new DefaultCandidate(member, name) {
                    @Override
                    public void onGranted(Context context) {
                        FailoverMember.elected();
                    }
                });
        initiator.start();
    }

    /** Curator's {@code LeaderLatch}, its session timeout the lease. */
    private static void curator(String connect, String name, String member, Duration lease) throws Exception {
        int millis = (int) lease.toMillis();
        CuratorFramework client = CuratorFrameworkFactory.newClient(connect, millis, millis,
                new ExponentialBackoffRetry(100, 3));
        client.start();
        LeaderLatch latch = new LeaderLatch(client, "/" + name, member);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                FailoverMember.elected();
            }

            @Override
            public void notLeader() {
            }
        });
        latch.start();
    }
}

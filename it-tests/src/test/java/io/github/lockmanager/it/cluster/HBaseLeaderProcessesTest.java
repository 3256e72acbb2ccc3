package io.github.lockmanager.it.cluster;

import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LeaderProcessesTest} on the HBase mini cluster; the network cut is left to the stores a proxy fronts. */
class HBaseLeaderProcessesTest extends LeaderProcessesTest {
    @Override
    Stores.Target target() {
        return Stores.hbase("lockmanager_leaders");
    }

    /**
     * The mini cluster's region servers, aborted at once and one started again: the lock table's rows are kept. Run
     * only with {@code -Dhbase.restart=true}: reassigning every region of the JVM's tables takes about 40 s.
     */
    @Override
    OwnServer ownServer() {
        if (!Boolean.getBoolean("hbase.restart")) {
            return null;
        }
        return new OwnServer(-1, Map.of(), false, () -> {
            if (!io.github.lockmanager.store.hbase.HBaseClusterAccess.crashRegionServers()) {
                throw new org.opentest4j.TestAbortedException("an external HBase cluster is not crashed by the tests");
            }
        }, () -> io.github.lockmanager.store.hbase.HBaseClusterAccess.startRegionServer("lockmanager_leaders", 120_000),
                () -> { });
    }

    @Override
    Map<String, String> throughProxy(Map<String, String> settings, int port) {
        assumeTrue(false, "a region server's address comes from ZooKeeper: no single port to put a proxy in front of");
        return settings;
    }
}

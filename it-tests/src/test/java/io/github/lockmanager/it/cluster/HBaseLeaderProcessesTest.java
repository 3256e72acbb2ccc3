package io.github.lockmanager.it.cluster;

import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LeaderProcessesTest} on the HBase mini cluster; the network cut is left to the stores a proxy fronts. */
class HBaseLeaderProcessesTest extends LeaderProcessesTest {
    @Override
    Stores.Target target() {
        return Stores.hbase("lockmanager_leaders");
    }

    @Override
    Map<String, String> throughProxy(Map<String, String> settings, int port) {
        assumeTrue(false, "a region server's address comes from ZooKeeper: no single port to put a proxy in front of");
        return settings;
    }
}

package io.github.lockmanager.it.cluster;

/** The process faults on Cassandra: a node of its own started by this JVM ({@link Stores#cassandra}). */
class CassandraProcessFaultTest extends ProcessFaultTest {
    @Override
    Stores.Target target() {
        return Stores.cassandra("lockmanager_faults");
    }
}

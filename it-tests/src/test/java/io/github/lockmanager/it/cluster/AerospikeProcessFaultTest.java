package io.github.lockmanager.it.cluster;

import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The process faults on Aerospike: skipped unless {@code -Daerospike.host} names a server. */
class AerospikeProcessFaultTest extends ProcessFaultTest {
    @BeforeAll
    static void requireServer() {
        assumeTrue(!Stores.aerospikeHost().isBlank(), "no Aerospike server named: run with -Daerospike.host=<host>");
    }

    @Override
    Stores.Target target() {
        return Stores.aerospike("faults");
    }
}

package io.github.lockmanager.store.hbase;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LockMetaTest {
    @Test
    void nodeAndThreadComeBackAsWrittenWhateverTheirText() {
        String node = "nœud-é#1";
        String thread = "pool-1-thread-😀 with spaces";
        LockMeta meta = LockMeta.decode(LockMeta.encode(node, thread, 1_795_000_000_000L, 60_000));
        assertThat(meta).isEqualTo(new LockMeta(node, thread, 1_795_000_000_000L, 60_000));
        assertThat(LockMeta.decode(LockMeta.encode("n", "", 1, 2)).threadName()).isEmpty();
    }
}

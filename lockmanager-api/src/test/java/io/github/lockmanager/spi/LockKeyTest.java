package io.github.lockmanager.spi;

import io.github.lockmanager.LockLevel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockKeyTest {
    @ParameterizedTest
    @ValueSource(strings = {"k", "#", "a#b", "##", "XDC#c#k", "DC#f#c#k", "é\uD83D\uDD12"})
    void storageKeysRoundTripWhateverTheKeyHolds(String name) {
        for (LockKey key : new LockKey[]{LockKey.dc("f", "c", name), LockKey.xdc("c", name)}) {
            assertThat(LockKey.parse(key.storageKey())).isEqualTo(key).satisfies(parsed -> {
                assertThat(parsed.name()).isEqualTo(name);
                assertThat(parsed.level()).isEqualTo(key.level());
                assertThat(parsed.clientId()).isEqualTo("c");
            });
        }
    }

    @Test
    void theHippoLayoutIsKept() {
        assertThat(LockKey.dc("farm", "client", "k").storageKey()).isEqualTo("DC#farm#client#k");
        assertThat(LockKey.xdc("client", "k").storageKey()).isEqualTo("XDC#client#k");
        assertThat(LockKey.of(LockLevel.XDC, "ignored", "client", "k")).isEqualTo(LockKey.xdc("client", "k"));
    }

    @Test
    void idsWithTheSeparatorAreRefused() {
        assertThatThrownBy(() -> LockKey.dc("f#1", "c", "k")).hasMessageContaining("farmId must not contain '#'");
        assertThatThrownBy(() -> LockKey.xdc("", "k")).hasMessageContaining("clientId must not be null or empty");
        assertThatThrownBy(() -> LockKey.parse("nonsense")).hasMessageContaining("not a lock storage key");
        assertThatThrownBy(() -> LockKey.parse("DC#f#c")).hasMessageContaining("not a lock storage key");
    }

    @Test
    void withNameKeepsLevelFarmAndClientAndHashesAsAFreshKey() {
        LockKey dc = LockKey.dc("farm", "client", "").withName("order-1");
        LockKey xdc = LockKey.xdc("client", "").withName("order-1");
        assertThat(dc).isEqualTo(LockKey.dc("farm", "client", "order-1")).hasSameHashCodeAs(LockKey.dc("farm", "client", "order-1"));
        assertThat(xdc).isEqualTo(LockKey.xdc("client", "order-1")).hasSameHashCodeAs(LockKey.xdc("client", "order-1"));
        assertThat(dc).isNotEqualTo(xdc);
        assertThat(dc.storageKey()).isEqualTo("DC#farm#client#order-1");
        assertThatThrownBy(() -> dc.withName(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be null");
    }

    @Test
    void keysDifferingInLevelFarmClientOrNameAreDistinctAndHashAsBefore() {
        LockKey key = LockKey.dc("farm", "client", "k");
        assertThat(key).isNotEqualTo(LockKey.dc("farm2", "client", "k"))
                .isNotEqualTo(LockKey.dc("farm", "client2", "k"))
                .isNotEqualTo(LockKey.dc("farm", "client", "k2")).isNotEqualTo(LockKey.xdc("client", "k"));
        // from the level's ordinal, not its identity hash: a key hashes alike in every JVM
        int farmAndClient = (LockLevel.DC.ordinal() * 31 + "farm".hashCode()) * 31 + "client".hashCode();
        assertThat(key.hashCode()).isEqualTo(farmAndClient * 31 + "k".hashCode());
        assertThat(LockKey.xdc("client", "k").hashCode())
                .isEqualTo(((LockLevel.XDC.ordinal() * 31) * 31 + "client".hashCode()) * 31 + "k".hashCode());
    }

    /** One rule for every id and name: node, client and farm ids, task names, a store's key prefix. */
    @ParameterizedTest
    @ValueSource(strings = {"a\uD800", "\uDC00a", "a\u0000b", "a\nb", "a\u007Fb", "a\u0085b", "a\u009Fb", " ", ""})
    void everyIdRefusesWhatALogLineOrAStoreCouldNotKeep(String bad) {
        assertThatThrownBy(() -> LockKey.requireIdText("node id", bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("node id ");
        assertThatThrownBy(() -> LockKey.requireId("clientId", bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("clientId ");
        assertThatThrownBy(() -> io.github.lockmanager.TaskOptions.named(bad))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("task name ");
    }

    @Test
    void idsTakeAnyOtherText() {
        for (String good : new String[]{"billing", "node-1.example", "订单", "\uD83D\uDD12 lock", "a b"}) {
            assertThat(LockKey.requireIdText("id", good)).isEqualTo(good);
            assertThat(io.github.lockmanager.TaskOptions.named(good).name()).isEqualTo(good);
        }
        assertThat(LockKey.requireIdText("id", "x")).isEqualTo("x");
        assertThatThrownBy(() -> LockKey.requireIdText("node id", "a\u0085b")).hasMessageContaining("U+0085 at index 1");
        assertThatThrownBy(() -> LockKey.requireIdText("node id", "a\uD800")).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> LockKey.requireId("clientId", "a#b")).hasMessageContaining("must not contain '#'");
    }

    /** A key's requests live apart from every lock key, round-trip through the storage key, and lead back to it. */
    @Test
    void aRequestsKeyIsNoLockKeyAndParsesBack() {
        LockKey lock = LockKey.dc("farm", "client", "QDC#x");
        LockKey requests = lock.requests();
        assertThat(requests.storageKey()).isEqualTo("QDC#farm#client#QDC#x");
        assertThat(requests).isNotEqualTo(lock).isEqualTo(LockKey.parse(requests.storageKey()));
        assertThat(requests.hashCode()).isNotEqualTo(lock.hashCode());
        assertThat(requests.isRequests()).isTrue();
        assertThat(requests.lockKey()).isEqualTo(lock);
        assertThat(LockKey.parse(lock.storageKey())).isEqualTo(lock).matches(k -> !k.isRequests());
        assertThat(LockKey.parse(LockKey.xdc("client", "k").requests().storageKey()).lockKey())
                .isEqualTo(LockKey.xdc("client", "k"));
        assertThatThrownBy(requests::requests).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> LockKey.parse("QQDC#farm#client#k")).isInstanceOf(IllegalArgumentException.class);
    }
}

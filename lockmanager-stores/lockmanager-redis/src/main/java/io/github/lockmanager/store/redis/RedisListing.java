package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;

import java.util.ArrayList;
import java.util.List;

/**
 * Every live holder in the store, without {@code KEYS}: {@code SCAN} (on a cluster, of every master) by the store's
 * prefix, {@value #PAGE} keys a step, and one {@code READ} script per lock hash found, the reads of a step sent
 * together. {@code SCAN} walks the whole key space of the database: on a server whose other data is large, keep the
 * locks in a database of their own (a standalone server's {@code /db} in the URI).
 */
final class RedisListing {
    static final int PAGE = 1000;

    private RedisListing() {
    }

    static List<LockRecord> list(RedisAccess access) throws LockManagerException {
        return access.call("list locks", timeout -> {
            long deadline = RedisAccess.deadline(timeout);
            List<LockRecord> live = new ArrayList<>();
            ScanArgs args = ScanArgs.Builder.matches(access.layout().pattern()).limit(PAGE);
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = RedisAccess.await(access.commands().scan(cursor, args), deadline);
                List<LockKey> keys = new ArrayList<>();
                List<RedisFuture<Object>> reads = new ArrayList<>();
                for (String hash : page.getKeys()) {
                    LockKey key = access.layout().keyOf(hash);
                    if (key != null) {
                        keys.add(key);
                        reads.add(access.send(RedisScripts.READ, new String[] {hash}));
                    }
                }
                for (int i = 0; i < keys.size(); i++) {
                    String[] hash = {access.layout().hash(keys.get(i))};
                    List<?> answer = access.answer(reads.get(i), deadline, RedisScripts.READ, hash);
                    live.addAll(RedisEntries.holders(keys.get(i), answer, true));
                }
                cursor = page;
            } while (!cursor.isFinished());
            return live;
        });
    }
}

package io.github.lockmanager.cli;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;

/** A store that also closes the client it was built on, which the store itself leaves to its owner. */
final class ClosingStore extends ForwardingLockStore {
    private final AutoCloseable client;

    ClosingStore(LockStore store, AutoCloseable client) {
        super(store);
        this.client = client;
    }

    @Override
    public void close() {
        super.close();
        try {
            client.close();
        } catch (Exception e) {
            System.err.println("lockmanager: closing the store's client failed: " + e);
        }
    }
}

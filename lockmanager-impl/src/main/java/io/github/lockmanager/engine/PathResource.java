package io.github.lockmanager.engine;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.LockHandle;

import java.util.ArrayList;
import java.time.Duration;
import java.util.List;

/**
 * The holds of one hierarchical lock: an intention hold on each ancestor, top-down, then the resource's own. It
 * shows the resource's hold, and gives back all of them, the resource's first, so that no moment exists in which
 * the resource is held without its ancestors' intentions.
 */
final class PathResource implements LockResource {
    private final List<LockResource> topDown;
    private final LockResource resource;

    PathResource(List<LockResource> topDown) {
        this.topDown = List.copyOf(topDown);
        this.resource = this.topDown.get(this.topDown.size() - 1);
    }

    /**
     * Takes each of {@code steps} top-down for {@code owner}, the ancestors in {@code mode}'s intention and the last in
     * {@code mode}; if a step is refused or fails, gives back the steps already taken before throwing. A fair
     * {@code turn} (or {@code null}) is asked at each step.
     */
    static PathResource take(Acquirer acquirer, List<String> steps, LockMode mode, LockLevel level, Owner owner,
                             LeasePolicy leases, FairTurn turn) throws LockException {
        List<LockResource> taken = new ArrayList<>(steps.size());
        try {
            for (int i = 0; i < steps.size(); i++) {
                boolean resource = i == steps.size() - 1;
                taken.add(acquirer.acquire(steps.get(i), level, resource ? mode : mode.intention(), 0, owner, leases,
                        turn));
            }
        } catch (LockException | RuntimeException e) {
            closeBottomUp(taken);
            throw e;
        }
        return new PathResource(taken);
    }

    /** Gives back {@code holds}, bottom-up: what a path's holds need when it is closed or fails half-way. */
    static void closeBottomUp(List<LockResource> holds) {
        for (int i = holds.size() - 1; i >= 0; i--) {
            holds.get(i).close();
        }
    }

    @Override
    public void close() {
        if (!resource.isClosed()) {
            closeBottomUp(topDown);
        }
    }

    /** Keeps every hold of the path, bottom-up; the resource's own, closed first, checks {@code atLeast}. */
    @Override
    public void closeHeldAtLeast(Duration atLeast) {
        if (!resource.isClosed()) {
            for (int i = topDown.size() - 1; i >= 0; i--) {
                topDown.get(i).closeHeldAtLeast(atLeast);
            }
        }
    }

    @Override
    public boolean isClosed() {
        return resource.isClosed();
    }

    @Override
    public Lock getLock() {
        return resource.getLock();
    }

    @Override
    public boolean isNewLock() {
        return resource.isNewLock();
    }

    @Override
    public Thread getHolder() {
        return resource.getHolder();
    }

    /** Lost if any of its holds is: a lost intention lets a conflicting lock in above the resource. */
    @Override
    public boolean isLost() {
        for (LockResource hold : topDown) {
            if (hold.isLost()) {
                return true;
            }
        }
        return false;
    }

    /** The resource's own hold; when the guard gives it back, the ancestors' intentions go with it. */
    @Override
    public GuardedHold guard() throws LockLostException {
        GuardedHold own = resource.guard();
        List<LockResource> ancestors = topDown.subList(0, topDown.size() - 1);
        return new GuardedHold() {
            @Override
            public LockHandle handle() {
                return own.handle();
            }

            @Override
            public <X extends Exception> void release(Finish<X> finish, boolean keepOnFailure)
                    throws X, LockLostException {
                try {
                    own.release(finish, keepOnFailure);
                } finally {
                    if (resource.isClosed()) {
                        closeBottomUp(ancestors);
                    }
                }
            }

            @Override
            public void close() {
                own.close();
            }
        };
    }

    /** The least of the path's holds: the path is held only while every one of them is. */
    @Override
    public java.time.Duration remainingLease() {
        java.time.Duration least = resource.remainingLease();
        for (LockResource hold : topDown) {
            java.time.Duration left = hold.remainingLease();
            if (left.compareTo(least) < 0) {
                least = left;
            }
        }
        return least;
    }

    @Override
    public long getFencingToken() {
        return resource.getFencingToken();
    }

    @Override
    public String toString() {
        return "PathResource[" + topDown + "]";
    }
}

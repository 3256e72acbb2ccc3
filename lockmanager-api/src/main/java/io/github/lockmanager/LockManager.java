package io.github.lockmanager;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Cluster-wide, re-entrant, lease-based locks.
 *
 * <p><b>Ownership.</b> A lock belongs to the thread that took it. The same thread may take it again: each
 * {@link #lock} adds one hold, without any call to the store, and each hold must be given back once, by
 * {@link #unlock} from the holding thread or by {@link LockResource#close()} from any thread. The lock leaves
 * the store when its last hold is given back, unless another thread of this node waits for it: then that thread's
 * acquisition may take the record over (a hand-off, see {@link #waitForLock(String, Duration)}). A hold kept
 * unbalanced keeps the lock for as long as the thread lives; once the thread has died its locks are released. An
 * {@link #unlock} by a thread that holds no exclusive lock of the key changes nothing and logs a warning (Hippo's
 * rule: an unlock in a {@code finally} block after a refused lock is harmless); {@code ClusterLock}, the
 * {@link java.util.concurrent.locks.Lock} view in {@code lockmanager-utils}, throws
 * {@link IllegalMonitorStateException} instead, as that interface requires. Closing a {@link LockResource} twice is
 * not an error either. Code that moves
 * between threads takes a lock for a task instead ({@link #lockForTask}, {@link #lockForTaskAsync}): a
 * {@link TaskLock} belongs to no thread and is told of aborts and losses rather than interrupted.
 *
 * <p><b>Leases.</b> A background renewer keeps each held lock's lease alive in the store. If this node stops
 * (crash, pause, partition) its locks become free one lease after their last renewal. If renewal cannot be
 * confirmed before the lease would run out, or the store says the lock is no longer this acquisition's, the
 * lock is <em>lost</em>: the holder thread is interrupted, {@link LockResource#isLost()} turns true and the
 * configured {@link LockLossListener} is told. Work that must not run twice should also pass
 * {@link LockResource#getFencingToken()} to the resource it changes.
 *
 * <p><b>Levels.</b> Keys live at a {@link LockLevel}; the methods without a level use the manager's default
 * level. The same key at two levels is two different locks.
 *
 * <p><b>Keys.</b> A key is 1 to {@value #LOCK_KEY_MAX_LENGTH} chars, any Unicode text including separators
 * such as {@code '#'}, except {@code '\u0000'} and unpaired surrogates (no store can keep them). Anything else
 * is refused with an {@link IllegalArgumentException} that says what is wrong.
 *
 * <p><b>Threads.</b> Every method is thread-safe; only the {@code waitFor} methods block on another thread's
 * lock. After {@link #close()} every method throws {@link IllegalStateException}.
 */
public interface LockManager extends AutoCloseable {

    /** The longest key, in chars, that {@link #lock} accepts. */
    int LOCK_KEY_MAX_LENGTH = 256;

    /**
     * The most permits a key may have ({@link #lockPermit}): every holder of a key is kept with the key on the
     * stores that decide in one record, and each acquisition looks at all of them.
     */
    int MAX_PERMITS = 1000;

    /**
     * Takes the lock on {@code key} at the default level, or adds a hold if the calling thread has it.
     * Never blocks on a holder.
     *
     * @return the hold; give it back with {@link LockResource#close()} or {@link #unlock(String)}
     * @throws AlreadyLockedException   if another thread of this node or another node holds the key
     * @throws LockManagerException     if the store failed; nothing is held then
     * @throws IllegalArgumentException if the key is null, empty, longer than {@value #LOCK_KEY_MAX_LENGTH}
     *                                  chars or not storable text
     * @throws IllegalStateException    if this manager is closed, or closing and the calling thread does not hold
     *                                  the key
     */
    LockResource lock(String key) throws LockException;

    /** {@link #lock(String)} at the given level. */
    LockResource lock(String key, LockLevel level) throws LockException;

    /**
     * {@link #lock(String, LockLevel)} with a lease of its own instead of the manager's: how long the key stays
     * locked after this node stops renewing it (crashed, paused, cut off). A shorter lease frees the key of a
     * crashed node sooner and costs more renewals; a longer one rides out longer pauses. The lock is renewed, its
     * loss detected and its holder told exactly as with the manager's lease, on a schedule that follows its own
     * lease: at the manager's renewal interval, or more often when that is longer than a third of {@code lease}.
     * Locks of one lease are renewed together, one store call per batch, so each distinct lease in use costs its own
     * renewal calls. A re-entry adds a hold to the lock the thread has, which keeps the lease it was taken with.
     *
     * @param lease from 100 ms to 1 day
     * @throws IllegalArgumentException if the key is invalid, or the lease is null or out of range
     * @see #lock(String)
     */
    LockResource lock(String key, LockLevel level, Duration lease) throws LockException;

    /**
     * Takes {@code key} at the default level {@link LockMode#SHARED shared}, or adds a hold if the calling thread
     * holds it shared (or exclusively: that lock then also counts this hold). Any number of threads, on any nodes,
     * may hold a key shared at once; an exclusive holder excludes them all, and they exclude it. Never blocks.
     * Each shared holder has its own record, lease, fencing token and loss detection, exactly as an exclusive one;
     * give the hold back with {@link LockResource#close()} ({@link #unlock} gives back exclusive holds only).
     *
     * <p><b>No upgrade.</b> A thread that holds the key shared and asks for it exclusively with {@link #lock} is
     * refused at once with an {@link IllegalStateException}: two threads doing so would each wait for the other's
     * shared hold forever. Give the shared hold back first.
     *
     * @throws AlreadyLockedException        if someone holds the key exclusively
     * @throws LockManagerException          if the store failed; nothing is held then
     * @throws IllegalArgumentException      if the key is invalid
     * @throws IllegalStateException         if this manager is closed
     */
    LockResource lockShared(String key) throws LockException;

    /** {@link #lockShared(String)} at the given level. */
    LockResource lockShared(String key, LockLevel level) throws LockException;

    /**
     * {@link #lockShared(String, LockLevel)} with a lease of its own, as {@link #lock(String, LockLevel, Duration)}
     * takes one. A hold added to a lock the thread has (shared or exclusive) keeps that lock's lease.
     */
    LockResource lockShared(String key, LockLevel level, Duration lease) throws LockException;

    /**
     * Takes one of {@code permits} permits of {@code key} at the default level ({@link LockMode#PERMIT}): at most that
     * many threads, on any nodes, hold the key at once, each with its own record, lease, fencing token, renewal, abort
     * and loss detection, exactly as an exclusive holder. A thread that holds one of the key's permits and asks again
     * adds a hold to it, without a store call (a thread holds at most one permit of a key; one that holds the key
     * exclusively adds a hold to that lock). Never blocks; give the hold back with {@link LockResource#close()}.
     *
     * <p>Permits share a key with permits only: a key held exclusively, shared or by a hierarchical lock refuses them,
     * and they refuse those. Every holder of a key must ask for the same number: a request with another number than
     * the key's live holders use is refused with an {@link IllegalStateException} naming both (once the last of them
     * has gone, the key takes any number). A thread that holds the key shared is refused a permit, as an upgrade.
     *
     * @param permits from 1 to {@value #MAX_PERMITS}
     * @throws AlreadyLockedException        if {@code permits} holders hold the key, or a holder in another mode does
     * @throws IllegalStateException         if the key's holders (or the calling thread's own hold) use another number
     *                                       of permits, or the calling thread holds the key shared; or this manager
     *                                       is closed
     * @throws LockManagerException          if the store failed; nothing is held then
     * @throws IllegalArgumentException      if the key is invalid or {@code permits} is out of range
     */
    LockResource lockPermit(String key, int permits) throws LockException;

    /** {@link #lockPermit(String, int)} at the given level. */
    LockResource lockPermit(String key, int permits, LockLevel level) throws LockException;

    /** {@link #lockPermit(String, int, LockLevel)} with a lease of its own, as {@link #lock(String, LockLevel, Duration)}. */
    LockResource lockPermit(String key, int permits, LockLevel level, Duration lease) throws LockException;

    /**
     * Takes the resource at the end of a hierarchical {@code path} in {@code mode} ({@link LockMode#SHARED} or
     * {@link LockMode#EXCLUSIVE}) at the default level. The path is split at the manager's path separator
     * ({@code '/'} unless configured otherwise): {@code "foo/bar/woof"} is the resource {@code woof} below
     * {@code bar} below {@code foo}. Each ancestor is taken first, top-down, in the {@link LockMode#intention()
     * intention mode} of {@code mode}, then the resource itself; the returned hold gives back all of them, the
     * resource first. So an exclusive lock on a path conflicts with every lock on it, on anything below it and
     * with exclusive locks on its ancestors; a shared lock conflicts with exclusive locks on the path, its
     * ancestors and anything below it; siblings never conflict. Taking ancestors in one order everywhere means two
     * hierarchical acquisitions never wait for each other in a cycle. If any step is refused, the steps already
     * taken are given back before the exception is thrown: nothing is left behind.
     *
     * <p>Each step is an ordinary lock on the key made of the path up to it ({@code "foo"}, {@code "foo/bar"}, …):
     * a plain {@link #lock(String) lock("foo")} conflicts with every hierarchical lock below {@code foo}, while a
     * plain lock on {@code "foo/bar"} takes no intention on {@code "foo"}. Plain keys are never split.
     * Re-entry, threads and upgrades follow {@link #lockShared}.
     *
     * @throws IllegalArgumentException      if the path has an empty segment, is longer than
     *                                       {@value #LOCK_KEY_MAX_LENGTH} chars, or {@code mode} is an intention mode
     * @throws AlreadyLockedException        if a step conflicts with a holder
     */
    LockResource lockPath(String path, LockMode mode) throws LockException;

    /** {@link #lockPath(String, LockMode)} at the given level. */
    LockResource lockPath(String path, LockMode mode, LockLevel level) throws LockException;

    /**
     * {@link #lockPath(String, LockMode, LockLevel)} with a lease of its own for every step taken, as
     * {@link #lock(String, LockLevel, Duration)} takes one.
     */
    LockResource lockPath(String path, LockMode mode, LockLevel level, Duration lease) throws LockException;

    /**
     * Gives back one exclusive hold of the calling thread on {@code key} at the default level; the last one releases
     * the lock in the store (a lost lock's hold is given back all the same). A store failure while releasing is
     * logged and the release retried in the background; it is never thrown.
     *
     * <p>A thread that holds no exclusive lock on {@code key} (never took it, gave it back already, or holds it in
     * another mode, whose hold is given back by closing its {@link LockResource}) changes nothing: a warning naming
     * the thread and the key is logged, and the call returns.
     *
     * @throws IllegalArgumentException if the key is invalid
     * @throws IllegalStateException    if this manager is closed
     */
    void unlock(String key);

    /** {@link #unlock(String)} at the given level. */
    void unlock(String key, LockLevel level);

    /**
     * Whether anyone, on any node, holds {@code key} at the default level, in any mode. Answered locally, without a store
     * call, when a thread of this node holds it.
     *
     * @throws LockManagerException if the store failed
     */
    boolean isLocked(String key) throws LockManagerException;

    /** {@link #isLocked(String)} at the given level. */
    boolean isLocked(String key, LockLevel level) throws LockManagerException;

    /**
     * Every live lock of this manager's client id: its farm's {@link LockLevel#DC} locks and all its
     * {@link LockLevel#XDC} locks, held by any node, including those marked for abort; one per holder, with its
     * {@link Lock#getMode() mode} (a key held shared by three threads shows three times).
     *
     * @throws LockManagerException if the store failed
     */
    List<Lock> getLocks() throws LockManagerException;

    /**
     * Asks the holder of {@code key} at the default level (every holder of a shared key), on whichever node, to
     * stop: its thread is
     * interrupted at once when it is on this node, else within that node's abort poll interval. The lock stays
     * held until its holder unlocks it or its lease runs out; {@link #getLocks()} shows it as
     * {@link LockStatus#ABORT} meanwhile. Does nothing when the key is not locked.
     *
     * @throws LockManagerException if the store failed
     */
    void abort(String key) throws LockManagerException;

    /** {@link #abort(String)} at the given level. */
    void abort(String key, LockLevel level) throws LockManagerException;

    /**
     * Every record the store keeps of {@code key} at {@code level}, for an operator: each holder's lock (node, thread,
     * mode, fencing token, expiration, status) and, where the store keeps them until it purges them, records whose
     * lease has ended (their expiration time is past). One store call; on a store that cannot look one key up, a
     * scan of its locks.
     *
     * @throws LockManagerException     if the store failed
     * @throws IllegalArgumentException if the key is invalid
     */
    List<Lock> inspect(String key, LockLevel level) throws LockManagerException;

    /**
     * Releases every live record of {@code key} at {@code level}, whoever holds it: the explicit admin action, where
     * {@link #abort} is the gentle one. Each holder learns it at its node's next check (within that node's abort poll
     * interval; at once on this node) as a loss with {@link LockLossReason#NOT_OWNED}: its thread is interrupted,
     * {@link LockResource#isLost()} turns true, and its guarded work can no longer take effect. The next
     * acquisition gets a higher fencing token than every holder released here. Logged at WARN with
     * {@code requestedBy} and the holders released.
     *
     * @param requestedBy who asked, for the log (an operator's name, a tool)
     * @return how many records were released (0 when the key was free)
     * @throws LockManagerException     if the store failed; records released before the failure stay released
     * @throws IllegalArgumentException if the key is invalid or {@code requestedBy} is null or blank
     */
    int forceRelease(String key, LockLevel level, String requestedBy) throws LockManagerException;

    /**
     * Takes the lock on {@code key} at the default level as {@link #lock(String)} does, waiting up to {@code maxWait}
     * while another thread or node holds it. A holder on this node wakes the waiter when it lets go (and may hand its
     * record over, one store call); a holder elsewhere is waited for where the store announces releases, else the
     * store is asked again after a pause that grows to the manager's wait poll interval. Blocks the calling thread;
     * the wait shows as one {@link LockEventListener#waited} event.
     *
     * @param maxWait how long to wait at most: {@link Duration#ZERO} tries once, a duration too long to count in
     *                nanoseconds (such as {@code ChronoUnit.FOREVER.getDuration()}) waits until the lock is taken
     * @throws AlreadyLockedException   if {@code maxWait} passed first (its message says how long it waited and
     *                                  who held the key last)
     * @throws InterruptedException     if the calling thread is interrupted before or while it waits; nothing is
     *                                  held then
     * @throws LockManagerException     if the store failed; nothing is held then
     * @throws IllegalArgumentException if the key is invalid, or {@code maxWait} is null or negative
     */
    LockResource waitForLock(String key, Duration maxWait) throws LockException, InterruptedException;

    /** {@link #waitForLock(String, Duration)} at the given level. */
    LockResource waitForLock(String key, LockLevel level, Duration maxWait) throws LockException, InterruptedException;

    /** {@link #waitForLock(String, LockLevel, Duration)} with a lease of its own, as {@link #lock(String, LockLevel, Duration)}. */
    LockResource waitForLock(String key, LockLevel level, Duration lease, Duration maxWait)
            throws LockException, InterruptedException;

    /** {@link #lockShared(String, LockLevel)}, waiting as {@link #waitForLock(String, Duration)} does. */
    LockResource waitForSharedLock(String key, LockLevel level, Duration maxWait)
            throws LockException, InterruptedException;

    /** {@link #waitForSharedLock(String, LockLevel, Duration)} with a lease of its own. */
    LockResource waitForSharedLock(String key, LockLevel level, Duration lease, Duration maxWait)
            throws LockException, InterruptedException;

    /**
     * {@link #lockPermit(String, int, LockLevel)}, waiting as {@link #waitForLock(String, Duration)} does while all
     * permits are held (or a holder in another mode holds the key). A release of a permit on this node wakes a waiter
     * here at once; a release elsewhere is found by asking the store again after a pause that grows to the manager's
     * wait poll interval. A request with another number of permits than the key's holders use is refused at once.
     */
    LockResource waitForPermit(String key, int permits, LockLevel level, Duration maxWait)
            throws LockException, InterruptedException;

    /** {@link #waitForPermit(String, int, LockLevel, Duration)} with a lease of its own. */
    LockResource waitForPermit(String key, int permits, LockLevel level, Duration lease, Duration maxWait)
            throws LockException, InterruptedException;

    /**
     * {@link #lockPath(String, LockMode, LockLevel)}, waiting as {@link #waitForLock(String, Duration)} does for
     * whichever key of the path refused it.
     */
    LockResource waitForPathLock(String path, LockMode mode, LockLevel level, Duration maxWait)
            throws LockException, InterruptedException;

    /** {@link #waitForPathLock(String, LockMode, LockLevel, Duration)} with a lease of its own. */
    LockResource waitForPathLock(String path, LockMode mode, LockLevel level, Duration lease, Duration maxWait)
            throws LockException, InterruptedException;

    /**
     * Takes {@code key} exclusively for a task rather than for the calling thread: the returned {@link TaskLock} may be
     * used and closed from any thread, and its lock is renewed, aborted, lost and listed as a thread's is (the holder
     * shows as {@code task:<name>}). One try, no wait: refused while any thread or task holds the key, of this node
     * included, since a task lock is never re-entered. Blocks the calling thread for one store call; from an event
     * loop use {@link #lockForTaskAsync}.
     *
     * @throws AlreadyLockedException   if the key is held
     * @throws LockManagerException     if the store failed; nothing is held then
     * @throws IllegalArgumentException if the key or the options' lease is invalid
     * @throws IllegalStateException    if the manager is closed
     */
    TaskLock lockForTask(String key, LockLevel level, TaskOptions task) throws LockException;

    /** {@link #lockForTask(String, LockLevel, TaskOptions)} at the default level. */
    default TaskLock lockForTask(String key, TaskOptions task) throws LockException {
        return lockForTask(key, getDefaultLevel(), task);
    }

    /**
     * Takes {@code key} for a task as {@link #lockForTask} does, waiting up to {@code maxWait} without holding a thread
     * while it waits: the returned stage completes on one of the manager's task threads. A release on this node wakes
     * the next waiter at once; a holder elsewhere is waited for where the store announces releases, and polled with a
     * growing pause up to the manager's wait poll interval otherwise. Cancelling the stage
     * ({@code toCompletableFuture().cancel(false)}) ends the wait; a lock granted at the same moment is released.
     *
     * <p>The stage fails with {@link AlreadyLockedException} if {@code maxWait} passed first, with
     * {@link LockManagerException} if the store failed, and with {@link IllegalStateException} if the manager closed
     * meanwhile. Bad arguments are thrown at once.
     *
     * @param maxWait how long to wait at most: {@link Duration#ZERO} tries once, a duration too long to count in
     *                nanoseconds waits until the lock is taken
     * @throws IllegalArgumentException if the key, the options' lease or {@code maxWait} is invalid
     * @throws IllegalStateException    if the manager is closed or closing
     */
    CompletionStage<TaskLock> lockForTaskAsync(String key, LockLevel level, Duration maxWait, TaskOptions task);

    /** {@link #lockForTaskAsync(String, LockLevel, Duration, TaskOptions)} at the default level. */
    default CompletionStage<TaskLock> lockForTaskAsync(String key, Duration maxWait, TaskOptions task) {
        return lockForTaskAsync(key, getDefaultLevel(), maxWait, task);
    }

    /** The level the methods without a level argument use. */
    LockLevel getDefaultLevel();

    /** This node's id, as {@link Lock#getOwnerNodeId()} shows it. */
    String getNodeId();

    /**
     * Shuts down: refuses new locks, interrupts every thread that holds one, waits a bounded time for them to
     * unlock (meanwhile a holder may still re-enter a lock it holds, in any mode and with any of the lock methods, as
     * work that unwinds may), releases in the store whatever is still held, and stops this manager's threads.
     * Idempotent. The store itself is not closed: it may be shared with other managers.
     */
    @Override
    void close();
}

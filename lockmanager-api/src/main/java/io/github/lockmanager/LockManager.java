package io.github.lockmanager;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Cluster-wide, re-entrant, lease-based locks.
 *
 * <p><b>Ownership.</b> A lock belongs to the thread that took it. The same thread may take it again: each
 * {@link #lock(LockSpec)} adds one hold, without any call to the store, and each hold must be given back once, by
 * {@link #unlock} from the holding thread or by {@link LockResource#close()} from any thread. The lock leaves
 * the store when its last hold is given back, unless another thread of this node waits for it: then that thread's
 * acquisition may take the record over (a hand-off, see {@link #waitForLock(LockSpec, Duration)}). A hold kept
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
 * <p><b>What to lock.</b> A {@link LockSpec} says it: a key or a path, a mode (exclusive, shared, permits), a
 * level and a lease; {@link #lock(String)} and {@link #lock(String, LockLevel)} are the exclusive lock at the
 * manager's lease.
 *
 * <p><b>Levels.</b> Keys live at a {@link LockLevel}; the methods and specs without a level use the manager's default
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

    /** The longest key, in chars, that {@link #lock(LockSpec)} accepts. */
    int LOCK_KEY_MAX_LENGTH = 256;

    /**
     * The most permits a key may have ({@link LockSpec#permits}): every holder of a key is kept with the key on the
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
     * Takes what {@code spec} says, or adds a hold to the calling thread's lock that covers it. Never blocks on a
     * holder.
     *
     * <ul>
     * <li><b>Exclusive</b> ({@link LockSpec#of}): as {@link #lock(String, LockLevel)}, with the spec's lease.</li>
     * <li><b>Shared</b> ({@link LockSpec#shared}): any number of threads, on any nodes, hold the key shared at once;
     * a thread that holds it shared or exclusively adds a hold to that lock. Each shared holder has its own record,
     * lease, fencing token and loss detection.</li>
     * <li><b>Permits</b> ({@link LockSpec#permits}): at most that many holders at once; a thread holds at most one
     * permit of a key and adds holds to it. Every holder of a key must ask for the same number: another number than
     * the key's live holders use is refused with an {@link IllegalStateException} naming both.</li>
     * <li><b>Path</b> ({@link LockSpec#path}): each ancestor is taken top-down in the intention of the spec's mode,
     * then the resource; the hold gives back all of them, the resource first. An exclusive path lock conflicts with
     * every lock on it, below it and with exclusive locks on its ancestors; siblings never conflict; one order
     * everywhere means two path locks never wait for each other in a cycle. A refused step gives back the steps
     * taken. Each step is an ordinary lock on the path up to it: a plain {@code lock("foo")} conflicts with every
     * path lock below {@code foo}.</li>
     * </ul>
     *
     * <p><b>No upgrade.</b> A thread that holds a key in a mode and asks for it in a stronger mode that conflicts (shared,
     * then exclusive or permits) is refused at once with an {@link IllegalStateException}: two threads doing so would
     * wait for each other forever. Give the weaker hold back first. Give any hold back with
     * {@link LockResource#close()}; {@link #unlock} gives back exclusive holds only.
     *
     * @throws AlreadyLockedException   if a conflicting holder holds the key (or, for permits, all permits are held)
     * @throws LockManagerException     if the store failed; nothing is held then
     * @throws IllegalArgumentException if {@code spec} is null or its lease is longer than the store grants
     * @throws IllegalStateException    if the calling thread would upgrade its own hold, the key's holders use another
     *                                  number of permits, or this manager is closed
     */
    LockResource lock(LockSpec spec) throws LockException;

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
     * Takes every lock of {@code specs} for the calling thread, all or nothing, waiting up to {@code maxWait}: the
     * specs are tried in one global order (level, then key), so two sets that overlap are taken alike; when one is
     * refused, those taken are given back and the thread waits for the refused one alone (holding nothing else), then
     * tries the rest again. So a set never waits while holding part of itself, and a refusal or timeout leaves nothing
     * of it held. {@link Duration#ZERO} tries once.
     *
     * @param specs one or more specs of distinct keys (a path counts by its whole path)
     * @throws AlreadyLockedException   if {@code maxWait} passed first (the last refusal)
     * @throws LockManagerException     if the store failed; nothing of the set is held
     * @throws InterruptedException     if the thread was interrupted; nothing of the set is held
     * @throws IllegalArgumentException if {@code specs} is empty, holds null or names one key twice at one level
     */
    LockSet waitForAll(Collection<LockSpec> specs, Duration maxWait) throws LockException, InterruptedException;

    /**
     * Every live lock of this manager's client id: its farm's {@link LockLevel#DC} locks and all its
     * {@link LockLevel#XDC} locks, held by any node, including those marked for abort; one per holder, with its
     * {@link Lock#getMode() mode} (a key held shared by three threads shows three times).
     *
     * @throws LockManagerException if the store failed
     */
    List<Lock> getLocks() throws LockManagerException;

    /**
     * Every waiter of this manager's client id (its farm's {@link LockLevel#DC} keys and all its {@link LockLevel#XDC}
     * keys) that registered a request ({@link LockSpec#fair fair} waits do), on any node, oldest first per key. A waiter
     * that registered nothing is not shown. One store listing, as {@link #getLocks()}.
     *
     * @throws LockManagerException if the store failed
     */
    List<LockWaiter> getWaiters() throws LockManagerException;

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
     * Takes what {@code spec} says as {@link #lock(LockSpec)} does, waiting up to {@code maxWait} while a conflicting
     * holder holds it (for a path, whichever key of it refused). A holder on this node wakes the waiter when it lets
     * go (and may hand its exclusive record over, one store call); a holder elsewhere is waited for where the store
     * announces releases, else the store is asked again after a pause that grows to the manager's wait poll
     * interval. Blocks the calling thread; the wait shows as one {@link LockEventListener#waited} event.
     *
     * @param maxWait how long to wait at most: {@link Duration#ZERO} tries once, a duration too long to count in
     *                nanoseconds (such as {@code ChronoUnit.FOREVER.getDuration()}) waits until the lock is taken
     * @throws AlreadyLockedException   if {@code maxWait} passed first (its message says how long it waited and
     *                                  who held the key last)
     * @throws InterruptedException     if the calling thread is interrupted before or while it waits; nothing is
     *                                  held then
     * @throws LockManagerException     if the store failed; nothing is held then
     * @throws IllegalArgumentException if {@code spec} is null, or {@code maxWait} is null or negative
     * @throws IllegalStateException    as {@link #lock(LockSpec)} says, at once
     */
    LockResource waitForLock(LockSpec spec, Duration maxWait) throws LockException, InterruptedException;

    /**
     * Takes what {@code spec} says for a task rather than for the calling thread, in any mode: the returned
     * {@link TaskLock} may be used and closed from any thread, and its lock is renewed, aborted, lost and listed as a
     * thread's is (the holder shows as {@code task:<name>}). One try, no wait. A task lock is never re-entered: each
     * call is a holder of its own, refused while a conflicting holder (a thread or another task, of this node
     * included) holds the key; two tasks may hold a key shared, or two of its permits. Blocks the calling thread for
     * the store calls; from an event loop use {@link #lockForTaskAsync}.
     *
     * @throws AlreadyLockedException   if a conflicting holder holds the key
     * @throws LockManagerException     if the store failed; nothing is held then
     * @throws IllegalArgumentException if {@code spec} or {@code task} is null, or the lease is longer than the store
     *                                  grants
     * @throws IllegalStateException    if the key's holders use another number of permits, or the manager is closed
     */
    TaskLock lockForTask(LockSpec spec, TaskOptions task) throws LockException;

    /**
     * Takes what {@code spec} says for a task as {@link #lockForTask} does, waiting up to {@code maxWait} without
     * holding a thread while it waits: the returned stage completes on one of the manager's task threads. A release
     * on this node wakes the next waiter at once; a holder elsewhere is waited for where the store announces
     * releases, and polled with a growing pause up to the manager's wait poll interval otherwise. Cancelling the stage
     * ({@code toCompletableFuture().cancel(false)}) ends the wait; a lock granted at the same moment is released.
     *
     * <p>The stage fails with {@link AlreadyLockedException} if {@code maxWait} passed first, with
     * {@link LockManagerException} if the store failed, with {@link IllegalStateException} if the manager closed
     * meanwhile or the key's holders use another number of permits. Bad arguments are thrown at once.
     *
     * @param maxWait how long to wait at most: {@link Duration#ZERO} tries once, a duration too long to count in
     *                nanoseconds waits until the lock is taken
     * @throws IllegalArgumentException if an argument is null, or {@code maxWait} is negative
     * @throws IllegalStateException    if the manager is closed or closing
     */
    CompletionStage<TaskLock> lockForTaskAsync(LockSpec spec, Duration maxWait, TaskOptions task);

    /**
     * Watches who holds {@code key} at {@code level}, on any node: {@code listener} is told the holders, as
     * {@link #inspect} lists them, once at the start and then each time they change (another holder, another
     * acquisition, or none), on one of the manager's task threads, one call at a time. The holders are read again when
     * the store announces a release of the key (PostgreSQL, Redis) and every {@code pollInterval} (which is how a new
     * holder is seen, and a release on a store that does not announce releases): a holder that comes and goes between
     * two reads may not be told. A failed read is logged and tried again at the next. Keep the listener short: it
     * runs on a thread that also serves tasks' waits. The manager's {@link #close()} ends every watch.
     *
     * @param pollInterval how often the holders are read besides announcements: 10 ms to 1 hour
     * @throws IllegalArgumentException if an argument is null, {@code key} is not a valid key, or
     *                                  {@code pollInterval} is out of range
     * @throws IllegalStateException    if the manager is closed or closing
     */
    LockWatch watch(String key, LockLevel level, Duration pollInterval, Consumer<List<Lock>> listener);

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
